/* SPDX-License-Identifier: MIT */
#include "rules-exec.h"

#include <ctype.h>
#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "cmdline.h"
#include "db.h"
#include "format.h"
#include "fs-util.h"
#include "glob-match.h"
#include "log.h"
#include "strenc.h"
#include "strv.h"
#include "sysfs.h"

enum escape {
        ESCAPE_UNSET,
        ESCAPE_NONE,
        ESCAPE_REPLACE,
};

struct rules_exec {
        const struct rules *rules;
        struct device *dev; /* holds a reference */
        enum uevent_action action;
        struct rules_exec_options o;
        unsigned line_mask;
        uint32_t subsystem_hash, action_hash; /* for the lines' pre-filter */
        bool prefilter;                       /* off while tracing every token (debug) */

        /* position: resumable at token granularity */
        size_t line;
        unsigned tok;
        bool in_line;
        bool parents_done;
        struct device *dev_parent; /* borrowed: the event device or one of its ancestors */

        /* outstanding program */
        struct rules_program program;
        bool program_pending;  /* asked for, no outcome yet */
        bool program_ready;    /* outcome stored, not consumed */
        int program_status;
        char *program_output;

        enum escape esc;
        char *name;
        bool name_final, devlink_final, owner_final, group_final, mode_final, run_final, watch_final;
        bool empty_tag; /* TAG+="" (udev 252 keeps an empty tag; only TAG/TAGS matches see it) */
        char *program_result;
        int log_level;
        uint64_t builtin_ran, builtin_failed; /* run_once bookkeeping, by table index */

        struct rules_run *run;
        size_t n_run;
        const struct rule_line **trace;
        size_t n_trace, cap_trace;
        char **old_links;
        struct props db_props;
        char *virt; /* detected lazily */
};

/* ---- small helpers ---- */

#define rule_log(x, level, l, fmt, ...)                                                                      \
        log_full(level, "%s: %s:%u " fmt, (x)->dev->devpath, (l)->file, (l)->line, ##__VA_ARGS__)

static struct format_ctx fctx(const struct rules_exec *x)
{
        return (struct format_ctx){
                .dev = x->dev,
                .parent = x->dev_parent,
                .sysfs_root = x->o.sysfs_root,
                .dev_root = x->o.dev_root,
                .name = x->name,
                .program_result = x->program_result,
        };
}

static int subst(struct rules_exec *x, const char *s, bool replace_ws, char **ret)
{
        struct format_ctx c = fctx(x);
        return format_apply(&c, s, replace_ws, ret);
}

static inline __attribute__((always_inline)) bool pattern_matches(const struct rule_token *t, const char *s)
{
        s = strempty(s);
        switch (t->match_type) {
        case MATCH_EMPTY:
                return *s == '\0';
        case MATCH_SUBSYSTEM:
                return streq(s, "subsystem") || streq(s, "bus") || streq(s, "class");
        default:
                if (*s == '\0' && t->match_empty)
                        return true;
                for (unsigned i = 0; i < t->n_alts; i++) {
                        const struct rule_alt *a = &t->alts[i];
                        /* literals: the first byte settles most of them without a call */
                        if (a->glob ? glob_match(a->s, s) : a->s[0] == s[0] && streq(a->s, s))
                                return true;
                }
                return false;
        }
}

/* A token's verdict on one string: == wants a match, != wants none. Inlined, as is
 * pattern_matches(): rules evaluate tens of thousands of these per second of events. */
static inline __attribute__((always_inline)) bool token_match(const struct rule_token *t, const char *s)
{
        return pattern_matches(t, s) == (t->op == RULE_OP_MATCH);
}

/* Lists (links, tags): == holds when some entry matches, != when none does. */
static bool token_match_list(const struct rule_token *t, char *const *l)
{
        bool any = false;
        for (; l && *l && !any; l++)
                any = pattern_matches(t, *l);
        return any == (t->op == RULE_OP_MATCH);
}

/* Properties that describe the record itself: rules cannot set them (the parser refuses
 * ENV{DEVNAME}=…), and imports (program output, files, parents) must not either, or a
 * program could redirect the node or the device path. */
static bool key_is_reserved(const char *key)
{
        static const char *const reserved[] = {
                "ACTION", "CURRENT_TAGS", "DEVLINKS", "DEVNAME", "DEVPATH", "DEVTYPE", "DRIVER",
                "IFINDEX", "MAJOR", "MINOR", "SEQNUM", "SUBSYSTEM", "TAGS",
        };
        for (size_t i = 0; i < ELEMENTSOF(reserved); i++)
                if (streq(key, reserved[i]))
                        return true;
        return false;
}

static int set_property(struct device *dev, const char *key, const char *value)
{
        if (key_is_reserved(key)) {
                log_debug("%s: not importing reserved property %s", dev->devpath, key);
                return 0;
        }
        return props_set(&dev->props, key, value, PROP_DB);
}

/* Parses "KEY=VALUE" lines (IMPORT{file}, IMPORT{program}): blank lines and '#' comments are
 * skipped, values may be quoted with ' or ". Bad lines are logged at debug and skipped. */
static int import_lines(struct rules_exec *x, const struct rule_line *l, char *text)
{
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                while (isspace((unsigned char)*line))
                        line++;
                if (*line == '\0' || *line == '#')
                        continue;
                char *eq = strchr(line, '=');
                if (!eq) {
                        rule_log(x, LOG_DEBUG, l, "ignoring imported line without '=': \"%s\"", line);
                        continue;
                }
                *eq = '\0';
                char *key = line, *val = eq + 1;
                format_strip_trailing(key);
                while (isspace((unsigned char)*val))
                        val++;
                format_strip_trailing(val);
                size_t vl = strlen(val);
                if (*key == '\0' || vl == 0)
                        continue; /* like udev: KEY= alone is not a property, KEY="" is */
                if (val[0] == '"' || val[0] == '\'') {
                        if (vl == 1 || val[vl - 1] != val[0]) {
                                rule_log(x, LOG_DEBUG, l, "ignoring badly quoted value of %s", key);
                                continue;
                        }
                        val[vl - 1] = '\0';
                        val++;
                }
                int r = set_property(x->dev, key, val);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        rule_log(x, LOG_DEBUG, l, "ignoring imported property \"%s\"", key);
        }
        return 0;
}

static const char *const_arch(char *buf, size_t n)
{
        struct utsname u;
        if (uname(&u) < 0)
                return "unknown";
        static const struct {
                const char *machine, *arch;
        } map[] = {
                {"x86_64", "x86-64"}, {"i386", "x86"},   {"i486", "x86"},        {"i586", "x86"},
                {"i686", "x86"},      {"aarch64", "arm64"}, {"aarch64_be", "arm64-be"}, {"ppc64le", "ppc64-le"},
                {"ppc64", "ppc64"},   {"ppcle", "ppc-le"}, {"ppc", "ppc"},       {"s390x", "s390x"},
                {"s390", "s390"},     {"riscv64", "riscv64"}, {"riscv32", "riscv32"}, {"sparc64", "sparc64"},
                {"loongarch64", "loongarch64"}, {"alpha", "alpha"}, {"ia64", "ia64"}, {"parisc64", "parisc64"},
                {"mips64", "mips64"}, {"mips", "mips"}, {"sh", "sh"},            {"m68k", "m68k"},
        };
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (streq(u.machine, map[i].machine))
                        return map[i].arch;
        if (startswith(u.machine, "arm"))
                return "arm";
        snprintf(buf, n, "%s", u.machine);
        return buf;
}

/* A small virtualization probe for CONST{virt}: containers first, then the DMI vendor. */
static const char *const_virt(struct rules_exec *x)
{
        if (x->o.virt)
                return x->o.virt;
        if (x->virt)
                return x->virt;

        const char *v = "none";
        _cleanup_free_ char *container = NULL, *cpuinfo = NULL, *vendor = NULL, *product = NULL;
        if (read_file_bounded("/run/systemd/container", 256, &container) >= 0 && *strip_trailing_space(container))
                v = container;
        else if (read_full_file("/proc/cpuinfo", &cpuinfo, NULL) >= 0 && strstr(cpuinfo, " hypervisor")) {
                _cleanup_free_ char *vp = path_join(x->o.sysfs_root, "class/dmi/id/sys_vendor");
                _cleanup_free_ char *pp = path_join(x->o.sysfs_root, "class/dmi/id/product_name");
                if (vp)
                        (void)read_file_bounded(vp, 256, &vendor);
                if (pp)
                        (void)read_file_bounded(pp, 256, &product);
                v = "vm-other";
                if (product && strstr(product, "KVM"))
                        v = "kvm";
                else if (vendor && strstr(vendor, "QEMU"))
                        v = "qemu";
                else if (vendor && strstr(vendor, "VMware"))
                        v = "vmware";
                else if (vendor && strstr(vendor, "Microsoft"))
                        v = "microsoft";
                else if (vendor && (strstr(vendor, "innotek") || strstr(vendor, "Oracle")))
                        v = "oracle";
                else if (vendor && strstr(vendor, "Xen"))
                        v = "xen";
                else if (vendor && strstr(vendor, "Amazon"))
                        v = "amazon";
        }
        x->virt = strdup(v);
        return x->virt ? x->virt : "none";
}

/* "kernel.foo.bar" -> "kernel/foo/bar" (only when the first separator is a dot). */
static void sysctl_normalize(char *s)
{
        char *sep = strpbrk(s, "./");
        if (!sep || *sep == '/')
                return;
        for (; *sep; sep++)
                if (*sep == '.')
                        *sep = '/';
                else if (*sep == '/')
                        *sep = '.';
}

static int sysctl_path(struct rules_exec *x, const char *key, char **ret)
{
        _cleanup_free_ char *k = strdup(key);
        if (!k)
                return -ENOMEM;
        sysctl_normalize(k);
        if (k[0] == '/' || strstr(k, ".."))
                return -EINVAL;
        return (*ret = path_join(x->o.sysctl_root, k)) ? 0 : -ENOMEM;
}

/* Expands wildcard path components (udev allows a star as a whole path component): the first match. */
static int resolve_glob(char **path)
{
        if (!strchr(*path, '*'))
                return 0;
        glob_t g;
        int r = glob(*path, GLOB_NOSORT, NULL, &g);
        if (r != 0) {
                if (r != GLOB_NOMATCH)
                        globfree(&g);
                return r == GLOB_NOSPACE ? -ENOMEM : -ENOENT;
        }
        char *first = g.gl_pathc > 0 ? strdup(g.gl_pathv[0]) : NULL;
        bool none = g.gl_pathc == 0;
        globfree(&g);
        if (none)
                return -ENOENT;
        if (!first)
                return -ENOMEM;
        free(*path);
        *path = first;
        return 0;
}

/* The attribute value for ATTR/ATTRS matching, or NULL when it cannot be read. */
static int attr_value(struct rules_exec *x, const struct rule_token *t, struct device *dev, char **ret)
{
        const char *v = NULL;
        _cleanup_free_ char *name = NULL;
        int r;

        switch (t->attr_subst) {
        case ATTR_SUBSYS:
                return format_resolve_subsys(x->o.sysfs_root, t->attr, true, ret);
        case ATTR_FORMAT:
                if ((r = subst(x, t->attr, false, &name)) < 0)
                        return r;
                break;
        default:
                break;
        }
        const char *attr = name ? name : t->attr;
        char *c;
        if (strstr(attr, "..")) {
                /* "../x" reaches a parent's attribute (udev warns about it at load): read it
                 * directly, the record's cache only holds the device's own attributes */
                if (name && !strstr(t->attr, ".."))
                        return -EINVAL;
                _cleanup_free_ char *syspath = device_syspath(dev, x->o.sysfs_root);
                _cleanup_free_ char *path = syspath ? path_join(syspath, attr) : NULL;
                if (!path)
                        return -ENOMEM;
                r = read_full_file(path, &c, NULL);
                if (r < 0)
                        return r;
        } else {
                r = device_get_sysattr(dev, x->o.sysfs_root, attr, &v);
                if (r < 0)
                        return r;
                c = strdup(strempty(v));
                if (!c)
                        return -ENOMEM;
        }
        /* like udev's device layer: the trailing newline is not part of the value */
        size_t n = strlen(c);
        while (n > 0 && c[n - 1] == '\n')
                c[--n] = '\0';
        *ret = c;
        return 0;
}

/* ---- programs ---- */

int rules_command_argv(const char *cmdline, const char *program_dir, char ***ret)
{
        _cleanup_strv_free_ char **argv = NULL;
        int r = cmdline_split(cmdline, &argv);
        if (r < 0)
                return r;
        if (!argv[0])
                return -EINVAL;
        if (argv[0][0] != '/') {
                /* udev's helpers (scsi_id, ata_id, …) live in udev's directory, which need not
                 * be ours: look in ours first, then in the usual places */
                const char *const dirs[] = {program_dir ? program_dir : UDEVLIBDIR, "/usr/lib/udev", "/lib/udev"};
                char *abs = NULL;
                for (size_t i = 0; i < (program_dir ? 1 : ELEMENTSOF(dirs)); i++) {
                        free(abs);
                        if (!(abs = path_join(dirs[i], argv[0])))
                                return -ENOMEM;
                        if (access(abs, X_OK) == 0)
                                break;
                }
                /* none found: keep the first, the child's exec failure says why */
                if (program_dir == NULL && access(abs, X_OK) < 0) {
                        free(abs);
                        if (!(abs = path_join(dirs[0], argv[0])))
                                return -ENOMEM;
                }
                free(argv[0]);
                argv[0] = abs;
        }
        *ret = TAKE_PTR(argv);
        return 0;
}

static int env_add(char ***env, const char *key, const char *value)
{
        char *e;
        if (asprintf(&e, "%s=%s", key, value) < 0)
                return -ENOMEM;
        size_t n = strv_length(*env);
        char **l = realloc(*env, (n + 2) * sizeof(char *));
        if (!l) {
                free(e);
                return -ENOMEM;
        }
        l[n] = e;
        l[n + 1] = NULL;
        *env = l;
        return 0;
}

int rules_device_env(struct device *dev, enum uevent_action action, const char *dev_root, char ***ret)
{
        _cleanup_strv_free_ char **env = calloc(1, sizeof(char *));
        if (!env)
                return -ENOMEM;
        int r;

        static const char *const derived[] = {
                "DEVPATH", "SUBSYSTEM", "DEVNAME", "DEVTYPE", "DRIVER", "MAJOR", "MINOR",
                "IFINDEX", "DEVLINKS", "TAGS", "CURRENT_TAGS",
        };
        if ((r = env_add(&env, "ACTION", uevent_action_to_string(action))) < 0)
                return r;
        if (dev->seqnum > 0) {
                char num[32];
                snprintf(num, sizeof(num), "%" PRIu64, dev->seqnum);
                if ((r = env_add(&env, "SEQNUM", num)) < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(derived); i++) {
                _cleanup_free_ char *buf = NULL;
                const char *v = format_get_property(dev, dev_root, derived[i], &buf);
                if (v && (r = env_add(&env, derived[i], v)) < 0)
                        return r;
        }
        size_t it = 0;
        const char *entry;
        while (props_next(&dev->props, &it, &entry, NULL)) {
                size_t kl = props_key_len(entry);
                bool dup = strncmp(entry, "ACTION=", 7) == 0 || strncmp(entry, "SEQNUM=", 7) == 0;
                for (size_t i = 0; i < ELEMENTSOF(derived) && !dup; i++)
                        dup = strlen(derived[i]) == kl && strncmp(entry, derived[i], kl) == 0;
                if (dup)
                        continue;
                char *e = strdup(entry);
                size_t n = strv_length(env);
                char **l = e ? realloc(env, (n + 2) * sizeof(char *)) : NULL;
                if (!l) {
                        free(e);
                        return -ENOMEM;
                }
                l[n] = e;
                l[n + 1] = NULL;
                env = l;
        }
        *ret = TAKE_PTR(env);
        return 0;
}

static void program_clear(struct rules_program *p)
{
        free(p->cmdline);
        strv_free(p->argv);
        strv_free(p->envp);
        *p = (struct rules_program){0};
}

/* Prepares the child for PROGRAM / IMPORT{program}. 1 (need program) or -errno. */
static int ask_program(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t, bool import)
{
        _cleanup_free_ char *cmd = NULL;
        int r = subst(x, t->value, false, &cmd);
        if (r < 0)
                return r;
        program_clear(&x->program);
        r = rules_command_argv(cmd, x->o.program_dir, &x->program.argv);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                rule_log(x, LOG_ERR, l, "cannot parse command line \"%s\"", cmd);
                return -EINVAL;
        }
        r = rules_device_env(x->dev, x->action, x->o.dev_root, &x->program.envp);
        if (r < 0)
                return r;
        x->program.cmdline = TAKE_PTR(cmd);
        x->program.rule = l;
        x->program.import = import;
        x->program_pending = true;
        rule_log(x, LOG_DEBUG, l, "running %s \"%s\"", import ? "IMPORT{program}" : "PROGRAM", x->program.cmdline);
        return RULES_EXEC_NEED_PROGRAM;
}

int rules_exec_program_done(struct rules_exec *x, int status, const char *out, size_t len)
{
        if (!x->program_pending)
                return -EINVAL;
        char *o = malloc(len + 1);
        if (!o)
                return -ENOMEM;
        if (len)
                memcpy(o, out, len);
        o[len] = '\0';
        /* output with NUL bytes is cut at the first one, like a C string */
        free(x->program_output);
        x->program_output = o;
        x->program_status = status;
        x->program_pending = false;
        x->program_ready = true;
        return 0;
}

const struct rules_program *rules_exec_get_program(const struct rules_exec *x)
{
        return x->program_pending ? &x->program : NULL;
}

/* Consumes a finished PROGRAM / IMPORT{program}. Returns the token's verdict. */
static int program_finished(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        int r = 0;
        bool ok = x->program_status == 0;
        _cleanup_free_ char *out = TAKE_PTR(x->program_output);
        x->program_ready = false;

        if (!ok) {
                if (x->program_status < 0)
                        rule_log(x, LOG_WARNING, l, "failed to execute \"%s\": %s", x->program.cmdline,
                                 strerror(-x->program_status));
                else
                        rule_log(x, LOG_DEBUG, l, "command \"%s\" returned %d (error)", x->program.cmdline,
                                 x->program_status);
                program_clear(&x->program);
                return t->op == RULE_OP_NOMATCH;
        }
        program_clear(&x->program);

        if (t->type == TK_M_PROGRAM) {
                size_t n = strlen(out);
                while (n > 0 && out[n - 1] == '\n')
                        out[--n] = '\0';
                strenc_replace_chars(out, FORMAT_ALLOWED_CHARS_INPUT);
                free(x->program_result);
                x->program_result = TAKE_PTR(out);
                return t->op == RULE_OP_MATCH;
        }
        r = import_lines(x, l, out);
        if (r < 0)
                return r;
        return t->op == RULE_OP_MATCH;
}

/* ---- one token ---- */

static int import_file(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        _cleanup_free_ char *path = NULL, *content = NULL;
        int r = subst(x, t->value, false, &path);
        if (r < 0)
                return r;
        r = read_full_file(path, &content, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (r != -ENOENT)
                        rule_log(x, LOG_ERR, l, "failed to read '%s': %s", path, strerror(-r));
                return t->op == RULE_OP_NOMATCH;
        }
        r = import_lines(x, l, content);
        if (r < 0)
                return r;
        return t->op == RULE_OP_MATCH;
}

static int import_cmdline(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        _cleanup_free_ char *content = NULL;
        _cleanup_strv_free_ char **words = NULL;
        int r = read_full_file(x->o.cmdline_file, &content, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                rule_log(x, LOG_ERR, l, "failed to read %s: %s", x->o.cmdline_file, strerror(-r));
                return t->op == RULE_OP_NOMATCH;
        }
        if (cmdline_split(content, &words) < 0)
                return t->op == RULE_OP_NOMATCH;
        const char *found = NULL;
        bool present = false;
        for (char **w = words; *w; w++) {
                /* the last occurrence wins; '-' and '_' are the same in keys, as the kernel and
                 * udev treat them */
                const char *k = t->value, *c = *w;
                for (; *k && *c && *c != '='; k++, c++)
                        if (*k != *c && !((*k == '-' || *k == '_') && (*c == '-' || *c == '_')))
                                break;
                if (*k != '\0')
                        continue;
                if (*c == '\0') {
                        present = true;
                        found = NULL;
                } else if (*c == '=') {
                        present = true;
                        found = c + 1;
                }
        }
        if (!present)
                return t->op == RULE_OP_NOMATCH;
        r = set_property(x->dev, t->value, found ? found : "1");
        if (r < 0)
                return r == -ENOMEM ? r : (t->op == RULE_OP_NOMATCH);
        return t->op == RULE_OP_MATCH;
}

/* A parent's properties and tags are what its last event left in the database: a record that
 * has not read its entry yet (made from sysfs by this process, e.g. devmanadm test, or by a
 * daemon restarted since) reads it now, as its own next event would. 0 or -ENOMEM. */
static int parent_db_sync(struct rules_exec *x, struct device *p)
{
        if (!x->o.run_root || p == x->dev || p->udev || p->db_synced)
                return 0;
        int r = db_read(x->o.run_root, p);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_debug("%s: database entry of parent %s unreadable: %s", x->dev->devpath, p->devpath,
                          strerror(-r));
        return 0;
}

static int import_parent(struct rules_exec *x, const struct rule_token *t)
{
        _cleanup_free_ char *filter = NULL;
        int r = subst(x, t->value, false, &filter);
        if (r < 0)
                return r;
        struct device *p = device_get_parent(x->dev);
        if (!p)
                return t->op == RULE_OP_NOMATCH;
        if ((r = parent_db_sync(x, p)) < 0)
                return r;
        size_t it = 0;
        const char *entry;
        while (props_next(&p->props, &it, &entry, NULL)) {
                size_t kl = props_key_len(entry);
                _cleanup_free_ char *key = strndup(entry, kl);
                if (!key)
                        return -ENOMEM;
                if (fnmatch(filter, key, 0) != 0)
                        continue;
                if ((r = set_property(x->dev, key, entry + kl + 1)) == -ENOMEM)
                        return r;
        }
        return t->op == RULE_OP_MATCH;
}

static int import_builtin(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        const struct builtin *b = t->data.builtin;
        unsigned idx = builtin_index(b);
        uint64_t mask = idx < 64 ? UINT64_C(1) << idx : 0;

        if (b->run_once && (x->builtin_ran & mask)) {
                rule_log(x, LOG_DEBUG, l, "skipping builtin '%s', it ran already", b->name);
                return t->op == ((x->builtin_failed & mask) ? RULE_OP_NOMATCH : RULE_OP_MATCH);
        }
        x->builtin_ran |= mask;

        _cleanup_free_ char *cmd = NULL;
        int r = subst(x, t->value, false, &cmd);
        if (r < 0)
                return r;
        rule_log(x, LOG_DEBUG, l, "importing properties from builtin '%s'", cmd);
        r = x->o.builtins ? builtin_run(b, x->o.builtins, x->dev, cmd, x->o.test) : -EOPNOTSUPP;
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                rule_log(x, LOG_DEBUG, l, "builtin '%s' failed: %s", cmd, strerror(-r));
                x->builtin_failed |= mask;
        }
        return t->op == (r >= 0 ? RULE_OP_MATCH : RULE_OP_NOMATCH);
}

static int test_path(struct rules_exec *x, const struct rule_token *t)
{
        _cleanup_free_ char *path = NULL;
        int r = subst(x, t->value, false, &path);
        if (r < 0)
                return r;
        struct stat st;
        if (path[0] != '/' && path[0] != '[' && !strchr(path, '*')) {
                /* relative to the device: looked up from its directory, opened once per event */
                int dirfd = device_sysfd(x->dev, x->o.sysfs_root);
                if (dirfd == -ENOMEM)
                        return dirfd;
                /* TEST=="" is the device's directory itself, as in udev 252 */
                if (dirfd < 0 || fstatat(dirfd, path[0] ? path : ".", &st, 0) < 0)
                        return t->op == RULE_OP_NOMATCH;
                goto found;
        }
        if (path[0] != '/') {
                char *full = NULL;
                r = format_resolve_subsys(x->o.sysfs_root, path, false, &full);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        _cleanup_free_ char *syspath = device_syspath(x->dev, x->o.sysfs_root);
                        full = syspath ? path_join(syspath, path) : NULL;
                        if (!full)
                                return -ENOMEM;
                }
                free(path);
                path = full;
        }
        r = resolve_glob(&path);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || stat(path, &st) < 0)
                return t->op == RULE_OP_NOMATCH;
found:
        if (t->data.mode == (mode_t)-1)
                return t->op == RULE_OP_MATCH;
        bool match = (st.st_mode & t->data.mode) != 0;
        return t->op == (match ? RULE_OP_MATCH : RULE_OP_NOMATCH);
}

static int resolve_user_group(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t,
                              bool group)
{
        _cleanup_free_ char *name = NULL;
        int r = subst(x, t->value, false, &name);
        if (r < 0)
                return r;
        struct device_udev *u = x->dev->udev;
        uint32_t id;
        /* a number is the id itself, whether or not the user database knows it (udev 252 too:
         * PROGRAM=="/bin/echo 1 1", OWNER="%c{1}" is uid 1) */
        if (rules_parse_id(name, &id) >= 0) {
                if (group)
                        u->gid = (gid_t)id;
                else
                        u->uid = (uid_t)id;
                return 1;
        }
        errno = 0;
        if (group) {
                struct group *g = getgrnam(name);
                if (!g)
                        rule_log(x, LOG_ERR, l, "unknown group '%s', ignoring", name);
                else
                        u->gid = g->gr_gid;
        } else {
                struct passwd *pw = getpwnam(name);
                if (!pw)
                        rule_log(x, LOG_ERR, l, "unknown user '%s', ignoring", name);
                else
                        u->uid = pw->pw_uid;
        }
        return 1;
}

static bool tag_name_valid(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
                        return false;
        return true;
}

static int assign_tag(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        _cleanup_free_ char *tag = NULL;
        struct device_udev *u = x->dev->udev;
        int r = subst(x, t->value, false, &tag);
        if (r < 0)
                return r;
        if (t->op == RULE_OP_ASSIGN) {
                u->tags = strv_free(u->tags);
                u->current_tags = strv_free(u->current_tags);
                x->empty_tag = false;
        }
        if (tag[0] == '\0') {
                /* udev 252 adds an empty tag (-= takes it from the current tags only, which no
                 * match looks at): TAGS=="|foo" matches after it. udev also writes it into its
                 * database as a blank "G:" line and indexes it as a file named after the device
                 * in tags/; devman keeps it out of both, only this event's matches see it. */
                if (t->op != RULE_OP_REMOVE)
                        x->empty_tag = true;
                return 1;
        }
        if (!tag_name_valid(tag)) {
                rule_log(x, LOG_ERR, l, "invalid tag name '%s', ignoring", tag);
                return 1;
        }
        if (t->op == RULE_OP_REMOVE) {
                (void)strv_remove(u->current_tags, tag);
                return 1;
        }
        if ((r = strv_add_unique(&u->tags, tag)) < 0 || (r = strv_add_unique(&u->current_tags, tag)) < 0)
                return r;
        return 1;
}

/* Whether the space-separated list holds word. */
static bool word_in_list(const char *list, const char *word)
{
        size_t n = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += n)
                if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
                        return true;
        return false;
}

static int assign_env(struct rules_exec *x, const struct rule_token *t)
{
        if (t->value[0] == '\0') {
                if (t->op == RULE_OP_ADD)
                        return 1;
                (void)props_unset(&x->dev->props, t->attr);
                return 1;
        }
        _cleanup_free_ char *v = NULL, *joined = NULL;
        int r = subst(x, t->value, false, &v);
        if (r < 0)
                return r;
        if (x->esc == ESCAPE_REPLACE)
                strenc_replace_chars(v, NULL);
        const char *old = t->op == RULE_OP_ADD ? props_get(&x->dev->props, t->attr) : NULL;
        if (old && word_in_list(old, v))
                return 1; /* a list keeps each word once (a move event re-runs the rules on kept values) */
        if (old && asprintf(&joined, "%s %s", old, v) < 0)
                return -ENOMEM;
        r = set_property(x->dev, t->attr, joined ? joined : v);
        return r == -ENOMEM ? r : 1;
}

/* Normalizes a link name: no leading, trailing or doubled slashes. */
static void link_normalize(char *s)
{
        char *w = s;
        for (char *p = s; *p; p++) {
                if (*p == '/' && (w == s || w[-1] == '/'))
                        continue;
                *w++ = *p;
        }
        while (w > s && w[-1] == '/')
                w--;
        *w = '\0';
}

static int assign_devlink(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        struct device_udev *u = x->dev->udev;
        if (x->devlink_final || !x->dev->devnum_type)
                return 1;
        if (t->op == RULE_OP_ASSIGN_FINAL)
                x->devlink_final = true;
        if (t->op == RULE_OP_ASSIGN || t->op == RULE_OP_ASSIGN_FINAL)
                u->links = strv_free(u->links);

        _cleanup_free_ char *v = NULL;
        int r = subst(x, t->value, x->esc != ESCAPE_NONE, &v);
        if (r < 0)
                return r;
        if (x->esc == ESCAPE_UNSET)
                strenc_replace_chars(v, "/ ");
        else if (x->esc == ESCAPE_REPLACE)
                strenc_replace_chars(v, "/");

        char *save = NULL;
        for (char *link = strtok_r(v, " ", &save); link; link = strtok_r(NULL, " ", &save)) {
                link_normalize(link);
                if (!devname_is_safe(link)) {
                        rule_log(x, LOG_ERR, l, "refusing unsafe link name \"%s\"", link);
                        continue;
                }
                if ((r = strv_add_unique(&u->links, link)) < 0)
                        return r;
                rule_log(x, LOG_DEBUG, l, "LINK '%s'", link);
        }
        return 1;
}

static int assign_name(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        if (x->name_final)
                return 1;
        if (t->op == RULE_OP_ASSIGN_FINAL)
                x->name_final = true;
        if (x->dev->ifindex <= 0) {
                rule_log(x, LOG_ERR, l, "only network interfaces can be renamed, ignoring NAME=\"%s\"", t->value);
                return 1;
        }
        _cleanup_free_ char *v = NULL;
        int r = subst(x, t->value, false, &v);
        if (r < 0)
                return r;
        if (x->esc != ESCAPE_NONE)
                /* what the kernel refuses in an interface name becomes '_' (udev's strict
                 * replacement of its current naming schemes) */
                for (char *c = v; *c; c++)
                        if (!isascii((unsigned char)*c) || !isprint((unsigned char)*c) || isspace((unsigned char)*c) ||
                            strchr(":/%", *c))
                                *c = '_';
        /* IFNAMSIZ - 1 */
        if (!devname_is_safe(v) || strchr(v, '/') || strlen(v) > 15) {
                rule_log(x, LOG_ERR, l, "refusing invalid interface name \"%s\"", v);
                return 1;
        }
        free(x->name);
        x->name = TAKE_PTR(v);
        return 1;
}

static int assign_attr(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        _cleanup_free_ char *name = NULL, *value = NULL, *path = NULL;
        int r;
        if (t->attr_subst == ATTR_SUBSYS) {
                r = format_resolve_subsys(x->o.sysfs_root, t->attr, false, &path);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        rule_log(x, LOG_ERR, l, "cannot find attribute '%s', ignoring", t->attr);
                        return 1;
                }
        } else {
                if ((r = subst(x, t->attr, false, &name)) < 0)
                        return r;
                /* the rules may name "../uevent" (udev's stock sound rules do); a substituted
                 * value (from the device) may not lead out of the device's directory */
                if (name[0] == '/' || (strstr(name, "..") && !strstr(t->attr, ".."))) {
                        rule_log(x, LOG_ERR, l, "refusing attribute path '%s'", name);
                        return 1;
                }
                _cleanup_free_ char *syspath = device_syspath(x->dev, x->o.sysfs_root);
                if (!syspath || !(path = path_join(syspath, name)))
                        return -ENOMEM;
        }
        r = resolve_glob(&path);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                rule_log(x, LOG_ERR, l, "could not find a file matching '%s', ignoring", path);
                return 1;
        }
        if ((r = subst(x, t->value, false, &value)) < 0)
                return r;
        if (x->o.test) {
                rule_log(x, LOG_DEBUG, l, "ATTR '%s' would be set to '%s'", path, value);
                return 1;
        }
        rule_log(x, LOG_DEBUG, l, "ATTR '%s' writing '%s'", path, value);
        r = write_attr(path, value);
        if (r < 0)
                rule_log(x, LOG_ERR, l, "failed to write ATTR{%s}: %s", path, strerror(-r));
        /* the cached value is stale now */
        device_clear_attrs(x->dev);
        return 1;
}

static int assign_sysctl(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        _cleanup_free_ char *key = NULL, *value = NULL, *path = NULL;
        int r;
        if ((r = subst(x, t->attr, false, &key)) < 0 || (r = subst(x, t->value, false, &value)) < 0)
                return r;
        r = sysctl_path(x, key, &path);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                rule_log(x, LOG_ERR, l, "refusing sysctl key '%s'", key);
                return 1;
        }
        if (x->o.test) {
                rule_log(x, LOG_DEBUG, l, "SYSCTL '%s' would be set to '%s'", path, value);
                return 1;
        }
        r = write_attr(path, value);
        if (r < 0)
                rule_log(x, LOG_ERR, l, "failed to write SYSCTL{%s}='%s': %s", key, value, strerror(-r));
        return 1;
}

static void run_list_clear(struct rules_exec *x)
{
        for (size_t i = 0; i < x->n_run; i++)
                free(x->run[i].cmd);
        x->run = mfree(x->run);
        x->n_run = 0;
}

static int assign_run(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t)
{
        if (x->run_final)
                return 1;
        if (t->op == RULE_OP_ASSIGN_FINAL)
                x->run_final = true;
        if (t->op == RULE_OP_ASSIGN || t->op == RULE_OP_ASSIGN_FINAL)
                run_list_clear(x);
        _cleanup_free_ char *cmd = NULL;
        int r = subst(x, t->value, false, &cmd);
        if (r < 0)
                return r;
        struct rules_run *n = realloc(x->run, (x->n_run + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        x->run = n;
        x->run[x->n_run++] = (struct rules_run){
                .cmd = TAKE_PTR(cmd),
                .builtin = t->type == TK_A_RUN_BUILTIN ? t->data.builtin : NULL,
                .rule = l,
        };
        return 1;
}

/* free() for apply_token()'s buffer, which most tokens never use: no call for them. */
static inline void free_if_set(char **p)
{
        if (*p)
                free(*p);
}

/* Evaluates one token on dev (the event device, or a candidate parent for parent tokens).
 * 1: it holds (matches) or was applied, 0: it does not hold, -EAGAIN: a program must run
 * first (the token is evaluated again once its outcome is in), -ENOMEM. */
static int apply_token(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t,
                       struct device *dev)
{
        struct device_udev *u = x->dev->udev;
        _cleanup_(free_if_set) char *buf = NULL;
        int r;

        switch ((enum rule_token_type)t->type) {
        case TK_M_ACTION:
                return token_match(t, uevent_action_to_string(x->action));
        case TK_M_DEVPATH:
                return token_match(t, dev->devpath);
        case TK_M_KERNEL:
        case TK_M_PARENTS_KERNEL:
                return token_match(t, dev->sysname);
        case TK_M_DEVLINK:
                return token_match_list(t, u->links);
        case TK_M_NAME:
                return token_match(t, x->name);
        case TK_M_ENV:
                return token_match(t, format_get_property(dev, x->o.dev_root, t->attr, &buf));
        case TK_M_CONST: {
                char a[65];
                return token_match(t, streq(t->attr, "arch") ? const_arch(a, sizeof(a)) : const_virt(x));
        }
        case TK_M_TAG: /* all tags, like udev: a TAG-= does not hide a tag from TAG== */
        case TK_M_PARENTS_TAG:
                if (dev == x->dev && x->empty_tag && pattern_matches(t, ""))
                        return t->op == RULE_OP_MATCH; /* the empty tag is one more entry */
                if ((r = parent_db_sync(x, dev)) < 0)  /* TAGS: a parent's tags */
                        return r;
                return token_match_list(t, dev->udev ? dev->udev->tags : NULL);
        case TK_M_SUBSYSTEM:
        case TK_M_PARENTS_SUBSYSTEM:
                return token_match(t, dev->subsystem);
        case TK_M_DRIVER:
        case TK_M_PARENTS_DRIVER: {
                /* a parent whose probe is running has its link but no "bind" event yet */
                const char *drv;
                if ((r = device_get_driver_now(dev, x->o.sysfs_root, &drv)) < 0)
                        return r;
                return token_match(t, drv);
        }
        case TK_M_ATTR:
        case TK_M_PARENTS_ATTR:
                r = attr_value(x, t, dev, &buf);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return 0; /* a missing attribute matches neither == nor != */
                if (t->strip_ws)
                        format_strip_trailing(buf);
                return token_match(t, buf);
        case TK_M_SYSCTL: {
                _cleanup_free_ char *key = NULL, *path = NULL;
                if ((r = subst(x, t->attr, false, &key)) < 0)
                        return r;
                r = sysctl_path(x, key, &path);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        r = read_full_file(path, &buf, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && r != -ENOENT)
                        rule_log(x, LOG_ERR, l, "failed to read sysctl '%s': %s", key, strerror(-r));
                if (buf)
                        format_strip_trailing(buf);
                return token_match(t, buf);
        }
        case TK_M_TEST:
                return test_path(x, t);
        case TK_M_PROGRAM:
        case TK_M_IMPORT_PROGRAM:
                if (x->program_ready)
                        return program_finished(x, l, t);
                if (t->type == TK_M_PROGRAM)
                        x->program_result = mfree(x->program_result);
                r = ask_program(x, l, t, t->type == TK_M_IMPORT_PROGRAM);
                if (r == RULES_EXEC_NEED_PROGRAM)
                        return -EAGAIN;
                if (r == -ENOMEM)
                        return r;
                return t->op == RULE_OP_NOMATCH;
        case TK_M_IMPORT_FILE:
                return import_file(x, l, t);
        case TK_M_IMPORT_BUILTIN:
                return import_builtin(x, l, t);
        case TK_M_IMPORT_DB: {
                const char *v = props_get(&x->db_props, t->value);
                if (!v)
                        return t->op == RULE_OP_NOMATCH;
                r = set_property(x->dev, t->value, v);
                if (r == -ENOMEM)
                        return r;
                return t->op == RULE_OP_MATCH;
        }
        case TK_M_IMPORT_CMDLINE:
                return import_cmdline(x, l, t);
        case TK_M_IMPORT_PARENT:
                return import_parent(x, t);
        case TK_M_RESULT:
                return token_match(t, x->program_result);

        case TK_A_OPTIONS_STRING_ESCAPE_NONE:
                x->esc = ESCAPE_NONE;
                return 1;
        case TK_A_OPTIONS_STRING_ESCAPE_REPLACE:
                x->esc = ESCAPE_REPLACE;
                return 1;
        case TK_A_OPTIONS_DB_PERSIST:
                u->db_persist = true;
                return 1;
        case TK_A_OPTIONS_WATCH:
                if (x->watch_final)
                        return 1;
                if (t->op == RULE_OP_ASSIGN_FINAL)
                        x->watch_final = true;
                u->watch = t->data.num != 0;
                return 1;
        case TK_A_OPTIONS_LINK_PRIORITY:
                u->link_priority = t->data.num;
                return 1;
        case TK_A_OPTIONS_LOG_LEVEL:
                x->log_level = t->data.num;
                return 1;
        case TK_A_OWNER:
        case TK_A_GROUP: {
                bool group = t->type == TK_A_GROUP;
                bool *final = group ? &x->group_final : &x->owner_final;
                if (*final)
                        return 1;
                if (t->op == RULE_OP_ASSIGN_FINAL)
                        *final = true;
                return resolve_user_group(x, l, t, group);
        }
        case TK_A_MODE: {
                if (x->mode_final)
                        return 1;
                if (t->op == RULE_OP_ASSIGN_FINAL)
                        x->mode_final = true;
                if ((r = subst(x, t->value, false, &buf)) < 0)
                        return r;
                char *end;
                errno = 0;
                unsigned long m = strtoul(buf, &end, 8);
                if (errno || end == buf || *end || m > 07777)
                        rule_log(x, LOG_ERR, l, "invalid mode '%s', ignoring", buf);
                else
                        u->mode = (mode_t)m;
                return 1;
        }
        case TK_A_OWNER_ID:
                if (!x->owner_final) {
                        x->owner_final = t->op == RULE_OP_ASSIGN_FINAL;
                        u->uid = t->data.uid;
                }
                return 1;
        case TK_A_GROUP_ID:
                if (!x->group_final) {
                        x->group_final = t->op == RULE_OP_ASSIGN_FINAL;
                        u->gid = t->data.gid;
                }
                return 1;
        case TK_A_MODE_ID:
                if (!x->mode_final) {
                        x->mode_final = t->op == RULE_OP_ASSIGN_FINAL;
                        u->mode = t->data.mode;
                }
                return 1;
        case TK_A_TAG:
                return assign_tag(x, l, t);
        case TK_A_OPTIONS_STATIC_NODE:
                return 1; /* applied at startup, not per event */
        case TK_A_SECLABEL:
                rule_log(x, LOG_DEBUG, l, "SECLABEL{%s} ignored: no security module support", t->attr);
                return 1;
        case TK_A_ENV:
                return assign_env(x, t);
        case TK_A_NAME:
                return assign_name(x, l, t);
        case TK_A_DEVLINK:
                return assign_devlink(x, l, t);
        case TK_A_ATTR:
                return assign_attr(x, l, t);
        case TK_A_SYSCTL:
                return assign_sysctl(x, l, t);
        case TK_A_RUN_BUILTIN:
        case TK_A_RUN_PROGRAM:
                return assign_run(x, l, t);
        case _TK_TYPE_MAX:
                break;
        }
        return 0;
}

/* All parent tokens starting at x->tok must hold for one device: the event device or an
 * ancestor, nearest first. */
static int apply_parents(struct rules_exec *x, const struct rule_line *l)
{
        for (x->dev_parent = x->dev; x->dev_parent; x->dev_parent = device_get_parent(x->dev_parent)) {
                bool all = true;
                for (unsigned i = x->tok; i < l->n_tokens && rule_token_is_parent(l->tokens[i].type); i++) {
                        int r = apply_token(x, l, &l->tokens[i], x->dev_parent);
                        if (r < 0)
                                return r;
                        if (r == 0) {
                                all = false;
                                break;
                        }
                }
                if (all)
                        return 1;
        }
        return 0;
}

static void trace_token(struct rules_exec *x, const struct rule_line *l, const struct rule_token *t, int r)
{
        const char *name = rule_token_type_to_string(t->type);
        const char *verdict = r == -EAGAIN ? "waits for its program" : r > 0 ? (t->type > _TK_M_LAST ? "applied" : "holds")
                              : r == 0 ? "does not hold" : strerror(-r);
        _cleanup_free_ char *joined = NULL;
        const char *value = t->value;
        if (t->alts && t->match_type == MATCH_PATTERN) {
                /* the pattern's value was split into its alternatives: show it as written */
                size_t len = 0;
                FILE *f = open_memstream(&joined, &len);
                if (f) {
                        if (t->match_empty)
                                fputc('|', f);
                        for (unsigned i = 0; i < t->n_alts; i++)
                                fprintf(f, "%s%s", i ? "|" : "", t->alts[i].s);
                        fclose(f);
                        value = joined;
                }
        }
        char num[32];
        if (t->type == TK_A_OWNER_ID || t->type == TK_A_GROUP_ID)
                snprintf(num, sizeof(num), "%u", t->type == TK_A_OWNER_ID ? (unsigned)t->data.uid : (unsigned)t->data.gid);
        else if (t->type == TK_A_MODE_ID)
                snprintf(num, sizeof(num), "%04o", (unsigned)t->data.mode);
        else if (t->type == TK_A_OPTIONS_LINK_PRIORITY || t->type == TK_A_OPTIONS_WATCH)
                snprintf(num, sizeof(num), "%d", t->data.num);
        else
                num[0] = '\0';
        if (num[0])
                value = num;
        rule_log(x, LOG_DEBUG, l, "%s%s%s%s%s\"%s\": %s", name, t->attr ? "{" : "", strempty(t->attr), t->attr ? "}" : "",
                 rule_op_to_string(t->op), strempty(value), verdict);
}

/* 1: every token held, 0: one did not, -EAGAIN: waiting for a program, -ENOMEM. */
static int apply_line(struct rules_exec *x, const struct rule_line *l)
{
        bool debug = log_get_max_level() >= LOG_DEBUG;
        for (; x->tok < l->n_tokens; x->tok++) {
                const struct rule_token *t = &l->tokens[x->tok];
                int r;
                if (rule_token_is_parent(t->type)) {
                        if (x->parents_done)
                                continue;
                        r = apply_parents(x, l);
                        x->parents_done = true;
                        if (debug)
                                rule_log(x, LOG_DEBUG, l, "parent matches %s%s", r > 0 ? "hold for " : "do not hold",
                                         r > 0 && x->dev_parent ? x->dev_parent->devpath : "");
                } else {
                        r = apply_token(x, l, t, x->dev);
                        if (debug)
                                trace_token(x, l, t, r);
                }
                if (r <= 0)
                        return r;
        }
        return 1;
}

static int trace_add(struct rules_exec *x, const struct rule_line *l)
{
        if (x->n_trace == x->cap_trace) {
                size_t cap = x->cap_trace ? x->cap_trace * 2 : 64; /* stock rules match ~30 lines */
                const struct rule_line **n = realloc(x->trace, cap * sizeof(*n));
                if (!n)
                        return -ENOMEM;
                x->trace = n;
                x->cap_trace = cap;
        }
        x->trace[x->n_trace++] = l;
        return 0;
}

/* The first line from i on that the line mask and the pre-filter let through (or n_lines).
 * Most lines of the stock rules are skipped here: the event's side is kept in locals. */
static size_t next_candidate(const struct rules_exec *x, size_t i)
{
        const struct rule_line *lines = x->rules->lines;
        size_t n = x->rules->n_lines;
        unsigned mask = x->line_mask;

        if (!x->prefilter) {
                while (i < n && !(lines[i].flags & mask))
                        i++;
                return i;
        }
        const unsigned needs = LINE_NEEDS_SUBSYSTEM | LINE_NEEDS_ACTION | LINE_NEEDS_KERNEL | LINE_NEEDS_ENV;
        bool has_subsystem = x->dev->subsystem;
        uint32_t subsystem_hash = x->subsystem_hash, action_hash = x->action_hash;
        uint32_t kernel_bit = rules_prefilter_first_bit(x->dev->sysname[0]);
        for (; i < n; i++) {
                const struct rule_line *l = &lines[i];
                unsigned f = l->flags;
                if (!(f & mask))
                        continue;
                if (!(f & needs))
                        return i;
                if ((f & LINE_NEEDS_SUBSYSTEM) && (!has_subsystem || l->subsystem_hash != subsystem_hash))
                        continue;
                if ((f & LINE_NEEDS_ACTION) && l->action_hash != action_hash)
                        continue;
                if ((f & LINE_NEEDS_KERNEL) && !(l->kernel_first & kernel_bit))
                        continue;
                /* the set changes as lines run: looked at now */
                if ((f & LINE_NEEDS_ENV) && !props_slot_may_exist(&x->dev->props, l->env_slot))
                        continue;
                return i;
        }
        return i;
}

int rules_exec_run(struct rules_exec *x)
{
        const struct rules *rules = x->rules;

        if (x->program_pending)
                return -EBUSY;

        while (x->line < rules->n_lines) {
                if (!x->in_line) {
                        x->line = next_candidate(x, x->line);
                        if (x->line >= rules->n_lines)
                                break;
                        x->in_line = true;
                        x->tok = 0;
                        x->parents_done = false;
                        x->esc = ESCAPE_UNSET;
                }
                const struct rule_line *l = &rules->lines[x->line];
                int r = apply_line(x, l);
                if (r == -EAGAIN)
                        return RULES_EXEC_NEED_PROGRAM;
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        rule_log(x, LOG_ERR, l, "evaluation failed: %s", strerror(-r));
                x->in_line = false;
                if (r > 0) {
                        if ((r = trace_add(x, l)) < 0)
                                return r;
                        rule_log(x, LOG_DEBUG, l, "matched");
                        if (l->flags & LINE_HAS_GOTO) {
                                x->line = l->goto_line;
                                continue;
                        }
                }
                x->line++;
        }
        return RULES_EXEC_DONE;
}

/* ---- life cycle ---- */

static void clear_attr_caches(struct device *d)
{
        for (; d; d = device_get_parent(d))
                device_clear_attrs(d);
}

int rules_exec_new(const struct rules *rules, struct device *dev, enum uevent_action action,
                   const struct rules_exec_options *o, struct rules_exec **ret)
{
        if (!uevent_action_to_string(action))
                return -EINVAL;
        struct device_udev *u = device_get_udev(dev);
        if (!u)
                return -ENOMEM;

        _cleanup_rules_exec_free_ struct rules_exec *x = calloc(1, sizeof(*x));
        if (!x)
                return -ENOMEM;
        x->rules = rules;
        x->dev = device_ref(dev);
        x->action = action;
        x->o = o ? *o : (struct rules_exec_options){0};
        if (!x->o.sysfs_root)
                x->o.sysfs_root = "/sys";
        if (!x->o.dev_root)
                x->o.dev_root = "/dev";
        if (!x->o.sysctl_root)
                x->o.sysctl_root = "/proc/sys";
        if (!x->o.cmdline_file)
                x->o.cmdline_file = "/proc/cmdline";
        x->dev_parent = NULL; /* like udev: %b and %d are empty until a parent match ran */
        x->log_level = -1;

        x->line_mask = LINE_HAS_GOTO | LINE_UPDATE_SOMETHING;
        x->prefilter = log_get_max_level() < LOG_DEBUG;
        x->subsystem_hash = dev->subsystem ? rules_prefilter_hash(dev->subsystem) : 0;
        x->action_hash = rules_prefilter_hash(uevent_action_to_string(action));
        if (action != UEVENT_REMOVE) {
                if (dev->devnum_type)
                        x->line_mask |= LINE_HAS_DEVLINK;
                if (dev->ifindex > 0)
                        x->line_mask |= LINE_HAS_NAME;
        }

        /* the previous event's properties: for IMPORT{db}; remove and move keep them */
        size_t it = 0;
        const char *entry;
        unsigned flags;
        while (props_next(&dev->props, &it, &entry, &flags)) {
                if (!(flags & PROP_DB))
                        continue;
                size_t kl = props_key_len(entry);
                if (props_set_n(&x->db_props, entry, kl, entry + kl + 1, PROP_DB) < 0)
                        return -ENOMEM;
        }
        if (action != UEVENT_REMOVE && action != UEVENT_MOVE)
                props_unset_flagged(&dev->props, PROP_DB);

        x->old_links = TAKE_PTR(u->links);
        u->current_tags = strv_free(u->current_tags);
        u->mode = (mode_t)-1;
        u->uid = (uid_t)-1;
        u->gid = (gid_t)-1;
        u->link_priority = 0;
        u->db_persist = false;
        u->watch = false;
        clear_attr_caches(dev);

        *ret = TAKE_PTR(x);
        return 0;
}

struct rules_exec *rules_exec_free(struct rules_exec *x)
{
        if (!x)
                return NULL;
        program_clear(&x->program);
        free(x->program_output);
        free(x->name);
        free(x->program_result);
        run_list_clear(x);
        free(x->trace);
        strv_free(x->old_links);
        props_clear(&x->db_props);
        free(x->virt);
        if (x->dev)
                clear_attr_caches(x->dev); /* the values and sysfs fds of the chain it read */
        device_unref(x->dev);
        return mfree(x);
}

const char *rules_exec_name(const struct rules_exec *x)
{
        return x->name;
}

const struct rules_run *rules_exec_run_list(const struct rules_exec *x, size_t *n)
{
        *n = x->n_run;
        return x->run;
}

const struct rule_line *const *rules_exec_trace(const struct rules_exec *x, size_t *n)
{
        *n = x->n_trace;
        return x->trace;
}

char *const *rules_exec_old_links(const struct rules_exec *x)
{
        return x->old_links;
}

int rules_exec_log_level(const struct rules_exec *x)
{
        return x->log_level;
}
