/* SPDX-License-Identifier: MIT */
#include "devman-config.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <syslog.h>

#include "log.h"
#include "macros.h"
#include "strfmt.h"

#define USEC_PER_SEC UINT64_C(1000000)

static const char *const resolve_names_table[_RESOLVE_NAMES_MAX] = {
        [RESOLVE_NAMES_EARLY] = "early",
        [RESOLVE_NAMES_LATE] = "late",
        [RESOLVE_NAMES_NEVER] = "never",
};

int devman_resolve_names_from_string(const char *s)
{
        for (int i = 0; i < _RESOLVE_NAMES_MAX; i++)
                if (s && streq(s, resolve_names_table[i]))
                        return i;
        return -EINVAL;
}

const char *devman_resolve_names_to_string(enum resolve_names r)
{
        return (unsigned)r < _RESOLVE_NAMES_MAX ? resolve_names_table[r] : NULL;
}

int devman_parse_unsigned(const char *s, unsigned *ret)
{
        uint64_t v;
        int r = strfmt_parse_uint(s, 10, UINT_MAX, &v); /* digits only: no blanks, no sign */
        if (r < 0)
                return r;
        *ret = (unsigned)v;
        return 0;
}

static const struct {
        const char *name;
        uint64_t usec;
} time_units[] = {
        {"us", 1},
        {"usec", 1},
        {"ms", 1000},
        {"msec", 1000},
        {"s", USEC_PER_SEC},
        {"sec", USEC_PER_SEC},
        {"second", USEC_PER_SEC},
        {"seconds", USEC_PER_SEC},
        {"m", 60 * USEC_PER_SEC},
        {"min", 60 * USEC_PER_SEC},
        {"minute", 60 * USEC_PER_SEC},
        {"minutes", 60 * USEC_PER_SEC},
        {"h", 3600 * USEC_PER_SEC},
        {"hr", 3600 * USEC_PER_SEC},
        {"hour", 3600 * USEC_PER_SEC},
        {"hours", 3600 * USEC_PER_SEC},
};

static int time_unit_usec(const char *unit, size_t len, uint64_t *ret)
{
        if (len == 0) {
                *ret = USEC_PER_SEC; /* a bare number counts seconds, as in udev.conf */
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(time_units); i++)
                if (strlen(time_units[i].name) == len && strncmp(unit, time_units[i].name, len) == 0) {
                        *ret = time_units[i].usec;
                        return 0;
                }
        return -EINVAL;
}

int devman_parse_timespan(const char *s, uint64_t *ret_usec)
{
        uint64_t total = 0;
        bool any = false;

        if (!s)
                return -EINVAL;
        if (streq(s, "infinity")) {
                *ret_usec = DEVMAN_USEC_INFINITY;
                return 0;
        }
        for (const char *p = s;;) {
                unsigned long long n;
                uint64_t mult;
                char *end;
                size_t ulen = 0;

                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '\0')
                        break;
                if (!isdigit((unsigned char)*p))
                        return -EINVAL;
                errno = 0;
                n = strtoull(p, &end, 10);
                if (errno == ERANGE)
                        return -ERANGE;
                p = end;
                while (*p == ' ' || *p == '\t')
                        p++; /* "2 min" */
                while (isalpha((unsigned char)p[ulen]))
                        ulen++;
                if (time_unit_usec(p, ulen, &mult) < 0)
                        return -EINVAL;
                p += ulen;
                if (n > (UINT64_MAX - 1) / mult || total > UINT64_MAX - 1 - n * mult)
                        return -ERANGE; /* UINT64_MAX itself means infinity */
                total += n * mult;
                any = true;
        }
        if (!any)
                return -EINVAL;
        *ret_usec = total;
        return 0;
}

/* "RTMIN+n" / "RTMAX-n" relative to base; rest points after "RTMIN"/"RTMAX". */
static int realtime_signal(const char *rest, int base, char sign)
{
        unsigned off = 0;

        if (*rest != '\0') {
                if (*rest != sign || devman_parse_unsigned(rest + 1, &off) < 0)
                        return -EINVAL;
        }
        if (off > (unsigned)(SIGRTMAX - SIGRTMIN))
                return -EINVAL;
        return sign == '+' ? base + (int)off : base - (int)off;
}

int devman_signal_from_string(const char *s)
{
        const char *name, *rest;
        unsigned n;

        if (isempty(s))
                return -EINVAL;
        if (isdigit((unsigned char)s[0])) {
                if (devman_parse_unsigned(s, &n) < 0 || n < 1 || n > (unsigned)SIGRTMAX)
                        return -EINVAL;
                return (int)n;
        }
        name = startswith(s, "SIG") ?: s;
        if ((rest = startswith(name, "RTMIN")))
                return realtime_signal(rest, SIGRTMIN, '+');
        if ((rest = startswith(name, "RTMAX")))
                return realtime_signal(rest, SIGRTMAX, '-');
        for (int sig = 1; sig < SIGRTMIN; sig++) {
                const char *abbrev = sigabbrev_np(sig);
                if (abbrev && streq(name, abbrev))
                        return sig;
        }
        return -EINVAL;
}

static int set_log_level(struct devman_config *c, const char *v)
{
        int r = log_level_from_string(v);
        if (r < 0)
                return r;
        c->log_level = r;
        return 0;
}

static int set_children_max(struct devman_config *c, const char *v)
{
        return devman_parse_unsigned(v, &c->children_max);
}

static int set_exec_delay(struct devman_config *c, const char *v)
{
        uint64_t usec;
        int r = devman_parse_timespan(v, &usec);
        if (r < 0)
                return r;
        if (usec == DEVMAN_USEC_INFINITY || usec % USEC_PER_SEC != 0)
                return -EINVAL; /* RUN is delayed by whole seconds */
        if (usec / USEC_PER_SEC > UINT_MAX)
                return -ERANGE;
        c->exec_delay_sec = (unsigned)(usec / USEC_PER_SEC);
        return 0;
}

static int set_event_timeout(struct devman_config *c, const char *v)
{
        uint64_t usec;
        int r = devman_parse_timespan(v, &usec);
        if (r < 0)
                return r;
        if (usec == 0)
                return -EINVAL; /* an event that times out at once could never run a program */
        c->event_timeout_usec = usec;
        return 0;
}

static int set_timeout_signal(struct devman_config *c, const char *v)
{
        int r = devman_signal_from_string(v);
        if (r < 0)
                return r;
        c->timeout_signal = r;
        return 0;
}

static int set_resolve_names(struct devman_config *c, const char *v)
{
        int r = devman_resolve_names_from_string(v);
        if (r < 0)
                return r;
        c->resolve_names = r;
        return 0;
}

static int set_mdev_conf(struct devman_config *c, const char *v)
{
        if (isempty(v)) {
                c->mdev_conf = mfree(c->mdev_conf);
                return 0;
        }
        if (v[0] != '/')
                return -EINVAL; /* the daemon changes to "/" */
        return devman_config_set_path(&c->mdev_conf, v);
}

static const struct {
        const char *key;     /* udev.conf spelling */
        const char *cmdline; /* suffix after devman. / udev. on the kernel command line */
        int (*set)(struct devman_config *c, const char *value);
} settings[] = {
        {"udev_log", "log_level", set_log_level},
        {"children_max", "children_max", set_children_max},
        {"exec_delay", "exec_delay", set_exec_delay},
        {"event_timeout", "event_timeout", set_event_timeout},
        {"timeout_signal", "timeout_signal", set_timeout_signal},
        {"resolve_names", "resolve_names", set_resolve_names},
        {"mdev_conf", "mdev_conf", set_mdev_conf},
};

int devman_config_set(struct devman_config *c, const char *key, const char *value)
{
        for (size_t i = 0; i < ELEMENTSOF(settings); i++)
                if (streq(key, settings[i].key))
                        return settings[i].set(c, value);
        return -ENOENT;
}

int devman_config_set_path(char **field, const char *path)
{
        char *copy;
        size_t len;

        if (isempty(path))
                return -EINVAL;
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        len = strlen(copy);
        while (len > 1 && copy[len - 1] == '/')
                copy[--len] = '\0';
        free(*field);
        *field = copy;
        return 0;
}

void devman_config_clear_rules_dirs(struct devman_config *c)
{
        for (size_t i = 0; i < c->n_rules_dirs; i++)
                free(c->rules_dirs[i]);
        c->rules_dirs = mfree(c->rules_dirs);
        c->n_rules_dirs = 0;
}

int devman_config_add_rules_dir(struct devman_config *c, const char *dir)
{
        _cleanup_free_ char *copy = NULL;
        char **list;
        int r;

        r = devman_config_set_path(&copy, dir);
        if (r < 0)
                return r;
        list = realloc(c->rules_dirs, (c->n_rules_dirs + 2) * sizeof(char *));
        if (!list)
                return -ENOMEM;
        c->rules_dirs = list;
        list[c->n_rules_dirs++] = TAKE_PTR(copy);
        list[c->n_rules_dirs] = NULL;
        return 0;
}

struct devman_config *devman_config_free(struct devman_config *c)
{
        if (!c)
                return NULL;
        devman_config_clear_rules_dirs(c);
        free(c->sysfs_root);
        free(c->dev_root);
        free(c->run_root);
        free(c->mdev_conf);
        return mfree(c);
}

int devman_config_new(struct devman_config **ret)
{
        /* udev's search order: local administration, runtime, local packages, the distribution.
         * Debian 12 still ships rules in /lib/udev/rules.d. */
        static const char *const default_dirs[] = {
                "/etc/udev/rules.d",     "/run/udev/rules.d", "/usr/local/lib/udev/rules.d",
                "/usr/lib/udev/rules.d", "/lib/udev/rules.d", DEVMAN_RULESDIR,
        };
        _cleanup_(devman_config_freep) struct devman_config *c = NULL;
        int r;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->log_level = LOG_INFO;
        c->event_timeout_usec = DEVMAN_EVENT_TIMEOUT_DEFAULT_USEC;
        c->timeout_signal = SIGKILL;
        c->resolve_names = RESOLVE_NAMES_EARLY;
        if (devman_config_set_path(&c->sysfs_root, "/sys") < 0 ||
            devman_config_set_path(&c->dev_root, "/dev") < 0 ||
            devman_config_set_path(&c->run_root, "/run/udev") < 0)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(default_dirs); i++) {
                bool seen = false;
                for (size_t j = 0; j < c->n_rules_dirs; j++)
                        seen = seen || streq(c->rules_dirs[j], default_dirs[i]);
                if (seen)
                        continue; /* DEVMAN_RULESDIR is usually one of udev's own */
                r = devman_config_add_rules_dir(c, default_dirs[i]);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(c);
        return 0;
}

static bool is_blank(char ch)
{
        return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static bool is_key_char(char ch)
{
        return isalnum((unsigned char)ch) || ch == '_';
}

/* Parses `KEY=VALUE` in line (modified in place). On success *key and *value point into line.
 * Returns 1 for an assignment, 0 for a blank or comment line, -EINVAL with *why set otherwise. */
static int split_assignment(char *line, char **key, char **value, const char **why)
{
        char *p = line, *out;

        while (is_blank(*p))
                p++;
        if (*p == '\0' || *p == '#' || *p == ';')
                return 0;
        *key = p;
        while (is_key_char(*p))
                p++;
        if (p == *key) {
                *why = "expected a key";
                return -EINVAL;
        }
        char *key_end = p;
        while (is_blank(*p))
                p++;
        if (*p != '=') {
                *why = "expected '=' after the key";
                return -EINVAL;
        }
        *key_end = '\0';
        p++;
        while (is_blank(*p))
                p++;

        if (*p != '"' && *p != '\'') {
                size_t len = strlen(p);
                while (len > 0 && is_blank(p[len - 1]))
                        len--;
                p[len] = '\0';
                *value = p;
                return 1;
        }

        /* Quoted: unescape in place; the result is never longer than the source. */
        char quote = *p++;
        *value = out = p;
        for (;; p++) {
                if (*p == '\0') {
                        *why = "missing closing quote";
                        return -EINVAL;
                }
                if (*p == quote)
                        break;
                if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                        p++;
                *out++ = *p;
        }
        *out = '\0';
        for (p++; *p; p++)
                if (!is_blank(*p)) {
                        *why = "text after the closing quote";
                        return -EINVAL;
                }
        return 1;
}

int devman_config_parse_file(struct devman_config *c, const char *path)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        int skipped = 0;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();

        for (;;) {
                char *key = NULL, *value = NULL;
                const char *why = NULL;
                ssize_t n;
                int r;

                errno = 0;
                n = getline(&line, &size, f);
                if (n < 0) {
                        if (ferror(f))
                                return errno > 0 ? -errno : -EIO;
                        break;
                }
                lineno++;
                if (memchr(line, '\0', (size_t)n)) {
                        log_warning("%s:%u: line contains a NUL byte, ignoring.", path, lineno);
                        skipped++;
                        continue;
                }
                r = split_assignment(line, &key, &value, &why);
                if (r == 0)
                        continue;
                if (r < 0) {
                        log_warning("%s:%u: %s, ignoring line.", path, lineno, why);
                        skipped++;
                        continue;
                }
                r = devman_config_set(c, key, value);
                if (r == -ENOENT) {
                        log_warning("%s:%u: unknown key '%s', ignoring.", path, lineno, key);
                        skipped++;
                } else if (r < 0) {
                        log_warning_errno(r, "%s:%u: invalid value '%s' for %s, ignoring: %m", path, lineno,
                                          value, key);
                        skipped++;
                }
        }
        return skipped;
}

/* The setting a kernel command line key names, after the rd. rule was applied; -1 when the key
 * is not ours, -2 when it is ours but unknown. */
static int cmdline_setting(const char *key)
{
        const char *suffix = startswith(key, "devman.") ?: startswith(key, "udev.");

        if (!suffix)
                return -1;
        if (streq(suffix, "log_priority")) /* udev's spelling before log_level */
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(settings); i++)
                if (streq(suffix, settings[i].cmdline))
                        return (int)i;
        return -2;
}

/* Splits the next word of a kernel command line into buf (at least strlen(*p)+1 bytes), removing
 * quotes the way the kernel's own parser does: a quoted part may hold blanks. Returns false at
 * the end of the line. */
static bool next_word(const char **p, char *buf)
{
        const char *s = *p;
        char quote = 0;

        while (is_blank(*s))
                s++;
        if (*s == '\0')
                return false;
        for (; *s && (quote || !is_blank(*s)); s++) {
                if (quote && *s == quote)
                        quote = 0;
                else if (!quote && (*s == '"' || *s == '\''))
                        quote = *s;
                else
                        *buf++ = *s;
        }
        *buf = '\0';
        *p = s;
        return true;
}

int devman_config_parse_cmdline(struct devman_config *c, const char *cmdline, bool in_initrd)
{
        _cleanup_free_ char *word = NULL;
        int skipped = 0;

        word = malloc(strlen(cmdline) + 1);
        if (!word)
                return -ENOMEM;

        for (const char *p = cmdline; next_word(&p, word);) {
                char *value = strchr(word, '=');
                const char *key = word;
                int i, r;

                if (value)
                        *value++ = '\0';
                /* The kernel and systemd treat '-' and '_' in parameter names alike. */
                for (char *k = word; *k; k++)
                        if (*k == '-')
                                *k = '_';
                if (startswith(key, "rd.")) {
                        if (!in_initrd)
                                continue; /* meant for the initramfs only */
                        key += 3;
                }
                i = cmdline_setting(key);
                if (i == -1)
                        continue;
                if (i == -2 && streq(key + strcspn(key, "."), ".blockdev_read_only")) {
                        log_warning("Kernel command line: '%s' is not supported by devman, ignoring.", word);
                        skipped++;
                        continue;
                }
                if (i == -2) {
                        log_warning("Kernel command line: unknown option '%s', ignoring.", word);
                        skipped++;
                        continue;
                }
                if (!value) {
                        log_warning("Kernel command line: '%s' needs a value, ignoring.", word);
                        skipped++;
                        continue;
                }
                r = settings[i].set(c, value);
                if (r < 0) {
                        log_warning_errno(r, "Kernel command line: invalid value in '%s=%s', ignoring: %m",
                                          word, value);
                        skipped++;
                }
        }
        return skipped;
}

/* Reads a whole file into a NUL-terminated string. */
static int read_file(const char *path, char **ret)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        errno = 0;
        if (getdelim(&buf, &size, '\0', f) < 0) {
                if (ferror(f))
                        return errno > 0 ? -errno : -EIO;
                /* an empty file */
                free(buf);
                buf = strdup("");
                if (!buf)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(buf);
        return 0;
}

static int parse_file_logged(struct devman_config *c, const char *path, bool may_be_missing)
{
        int r = devman_config_parse_file(c, path);
        if (r == -ENOENT && may_be_missing)
                return 0;
        if (r < 0) {
                log_warning_errno(r, "Cannot read %s, ignoring: %m", path);
                return 1;
        }
        return r;
}

int devman_config_load(struct devman_config *c, const char *root, const char *devman_conf)
{
        _cleanup_free_ char *udev_conf = NULL, *own_conf = NULL, *cmdline_path = NULL,
                            *initrd_release = NULL, *cmdline = NULL;
        int skipped = 0, r;

        root = strempty(root);
        if (asprintf(&udev_conf, "%s/etc/udev/udev.conf", root) < 0 ||
            (!devman_conf && asprintf(&own_conf, "%s%s/devman/devman.conf", root, SYSCONFDIR) < 0) ||
            asprintf(&cmdline_path, "%s/proc/cmdline", root) < 0 ||
            asprintf(&initrd_release, "%s/etc/initrd-release", root) < 0)
                return -ENOMEM;

        skipped += parse_file_logged(c, udev_conf, true);
        skipped += parse_file_logged(c, devman_conf ?: own_conf, !devman_conf);

        r = read_file(cmdline_path, &cmdline);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* No /proc in a chroot or an early initramfs is normal; say so only when debugging. */
                log_debug_errno(r, "Cannot read %s, ignoring: %m", cmdline_path);
                return skipped;
        }
        r = devman_config_parse_cmdline(c, cmdline, access(initrd_release, F_OK) == 0);
        if (r < 0)
                return r;
        return skipped + r;
}
