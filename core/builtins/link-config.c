/* SPDX-License-Identifier: MIT */
#include "link-config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include "cmdline.h"
#include "fs-util.h"
#include "log.h"
#include "strv.h"

static const char *const network_dirs[] = {
        "/etc/systemd/network",
        "/run/systemd/network",
        "/usr/local/lib/systemd/network",
        "/usr/lib/systemd/network",
        "/lib/systemd/network",
};

static const char *const name_policies[_NAME_POLICY_MAX] = {
        [NAME_POLICY_KERNEL] = "kernel", [NAME_POLICY_KEEP] = "keep",   [NAME_POLICY_DATABASE] = "database",
        [NAME_POLICY_ONBOARD] = "onboard", [NAME_POLICY_SLOT] = "slot", [NAME_POLICY_PATH] = "path",
        [NAME_POLICY_MAC] = "mac",
};

const char *name_policy_to_string(enum name_policy p)
{
        return p < _NAME_POLICY_MAX ? name_policies[p] : NULL;
}

/* ---- small parsers ---------------------------------------------------------------------- */

int hw_addr_normalize(const char *s, char **ret)
{
        unsigned char b[32];
        size_t n = 0;
        const char *p = s;
        size_t len = strlen(s);
        bool dotted = len == 14 && s[4] == '.' && s[9] == '.'; /* xxxx.xxxx.xxxx */
        while (*p) {
                if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) || n >= sizeof(b))
                        return -EINVAL;
                char h[3] = {p[0], p[1], 0};
                b[n++] = (unsigned char)strtoul(h, NULL, 16);
                p += 2;
                if (!*p)
                        break;
                if (dotted) {
                        if (*p == '.' && n % 2 == 0)
                                p++;
                        continue;
                }
                if (*p != ':' && *p != '-')
                        return -EINVAL;
                if (p[0] != s[2]) /* one separator throughout */
                        return -EINVAL;
                p++;
                if (!*p)
                        return -EINVAL;
        }
        if (n == 0 || (dotted && n != 6))
                return -EINVAL;
        char *out = malloc(n * 3);
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                sprintf(out + i * 3, "%02x%s", b[i], i + 1 < n ? ":" : "");
        *ret = out;
        return 0;
}

char *link_type_string(const char *devtype, unsigned iftype)
{
        static const struct {
                unsigned type;
                const char *name;
        } arphrd[] = {
                {1, "ether"},       {24, "ieee1394"},  {32, "infiniband"}, {256, "slip"},   {512, "ppp"},
                {768, "tunnel"},    {769, "tunnel6"},  {772, "loopback"},  {776, "sit"},    {778, "ipgre"},
                {783, "irda"},      {801, "ieee80211"}, {803, "ieee80211_radiotap"},        {804, "ieee802154"},
                {820, "phonet"},    {823, "ip6gre"},   {824, "netlink"},   {825, "6lowpan"}, {826, "vsockmon"},
                {519, "rawip"},     {65534, "none"},   {65535, "void"},    {280, "can"},    {774, "fddi"},
        };
        if (devtype)
                return strdup(devtype);
        for (size_t i = 0; i < ELEMENTSOF(arphrd); i++)
                if (arphrd[i].type == iftype)
                        return strdup(arphrd[i].name);
        return NULL;
}

/* Globs with "!" negation: no list matches everything; a negative match fails; with any
 * positive pattern one of them must match. */
static bool test_globs(char *const *patterns, const char *s)
{
        bool match = false, positive = false;
        if (!patterns || !*patterns)
                return true;
        STRV_FOREACH(p, patterns) {
                const char *q = *p;
                bool invert = *q == '!';
                q += invert;
                if (!invert)
                        positive = true;
                if (s && fnmatch(q, s, 0) == 0) {
                        if (invert)
                                return false;
                        match = true;
                }
        }
        return positive ? match : true;
}

static bool test_property(char *const *props, struct device *dev)
{
        STRV_FOREACH(p, props) {
                const char *e = *p;
                bool invert = *e == '!';
                e += invert;
                const char *eq = strchr(e, '=');
                if (!eq)
                        return false;
                _cleanup_free_ char *key = strndup(e, eq - e);
                if (!key)
                        return false;
                const char *v = dev ? device_get_property(dev, key) : NULL;
                bool m = v && fnmatch(eq + 1, v, 0) == 0;
                if (invert ? m : !m)
                        return false;
        }
        return true;
}

static bool in_list(char *const *l, const char *s)
{
        return s && strv_contains(l, s);
}

/* KernelCommandLine=: a word (or word=value) on the command line; "!" negates. All must hold. */
static bool test_cmdline(char *const *conds, const char *cmdline_given)
{
        if (!conds || !*conds)
                return true;
        _cleanup_free_ char *buf = NULL;
        const char *cmdline = cmdline_given;
        if (!cmdline) {
                _cleanup_fclose_ FILE *f = fopen("/proc/cmdline", "re");
                size_t sz = 0;
                if (f && getline(&buf, &sz, f) < 0)
                        buf = mfree(buf);
                cmdline = strempty(buf);
        }
        _cleanup_strv_free_ char **words = NULL;
        if (cmdline_split(cmdline, &words) < 0)
                return false;
        STRV_FOREACH(c, conds) {
                const char *w = *c;
                bool invert = *w == '!';
                w += invert;
                bool found = false;
                size_t wl = strlen(w);
                STRV_FOREACH(word, words)
                        if (streq(*word, w) || (!strchr(w, '=') && strncmp(*word, w, wl) == 0 && (*word)[wl] == '=')) {
                                found = true;
                                break;
                        }
                if (found == invert)
                        return false;
        }
        return true;
}

static bool test_host(char *const *conds, const char *hostname_given)
{
        if (!conds || !*conds)
                return true;
        char host[256] = "";
        const char *h = hostname_given;
        if (!h) {
                if (gethostname(host, sizeof(host) - 1) < 0)
                        host[0] = '\0';
                h = host;
        }
        STRV_FOREACH(c, conds) {
                const char *w = *c;
                bool invert = *w == '!';
                w += invert;
                bool m = fnmatch(w, h, FNM_CASEFOLD) == 0;
                if (m == invert)
                        return false;
        }
        return true;
}

bool link_config_match(const struct link_config *c, const struct link_info *l)
{
        if (c->unsupported)
                return false;
        const char *path = l->dev ? device_get_property(l->dev, "ID_PATH") : NULL;
        _cleanup_free_ char *type = link_type_string(l->devtype, l->iftype);
        if (c->mac && !in_list(c->mac, l->mac))
                return false;
        if (c->permanent_mac && !in_list(c->permanent_mac, l->permanent_mac))
                return false;
        return test_globs(c->path, path) && test_globs(c->driver, l->driver) && test_globs(c->type, type) &&
               test_globs(c->kind, l->kind) && test_globs(c->original_name, l->ifname) &&
               test_property(c->property, l->dev) && test_host(c->host, l->hostname) &&
               test_cmdline(c->kernel_cmdline, l->proc_cmdline);
}

const struct link_config *link_config_find(const struct link_config_set *s, const struct link_info *l)
{
        for (unsigned i = 0; s && i < s->n; i++)
                if (link_config_match(s->configs[i], l))
                        return s->configs[i];
        return NULL;
}

static bool ifname_ok(const char *s)
{
        if (isempty(s) || strlen(s) >= 16 || streq(s, ".") || streq(s, ".."))
                return false;
        for (; *s; s++)
                if (*s == '/' || *s == ':' || isspace((unsigned char)*s) || (unsigned char)*s < 0x20 ||
                    (unsigned char)*s >= 0x7f)
                        return false;
        return true;
}

const char *link_config_new_name(const struct link_config *c, const struct link_info *l)
{
        static const char *const keys[_NAME_POLICY_MAX] = {
                [NAME_POLICY_DATABASE] = "ID_NET_NAME_FROM_DATABASE", [NAME_POLICY_ONBOARD] = "ID_NET_NAME_ONBOARD",
                [NAME_POLICY_SLOT] = "ID_NET_NAME_SLOT",             [NAME_POLICY_PATH] = "ID_NET_NAME_PATH",
                [NAME_POLICY_MAC] = "ID_NET_NAME_MAC",
        };
        for (unsigned i = 0; i < c->n_name_policy; i++) {
                enum name_policy p = c->name_policy[i];
                if (p == NAME_POLICY_KERNEL) {
                        if (l->name_assign_type == 2) /* NET_NAME_PREDICTABLE: keep the kernel's name */
                                return l->ifname;
                        continue;
                }
                if (p == NAME_POLICY_KEEP) {
                        if (l->name_assign_type == 3 || l->name_assign_type == 4) /* USER, RENAMED */
                                return l->ifname;
                        continue;
                }
                const char *v = l->dev ? device_get_property(l->dev, keys[p]) : NULL;
                if (ifname_ok(v))
                        return v;
        }
        return c->name ? c->name : l->ifname;
}

/* ---- parsing ------------------------------------------------------------------------------ */

struct link_config *link_config_free(struct link_config *c)
{
        if (!c)
                return NULL;
        free(c->filename);
        strv_free(c->mac);
        strv_free(c->permanent_mac);
        strv_free(c->original_name);
        strv_free(c->path);
        strv_free(c->driver);
        strv_free(c->type);
        strv_free(c->kind);
        strv_free(c->property);
        strv_free(c->host);
        strv_free(c->kernel_cmdline);
        free(c->unsupported);
        free(c->name_policy);
        free(c->name);
        free(c->mac_address_policy);
        free(c->mac_address);
        strv_free(c->alternative_names_policy);
        strv_free(c->alternative_names);
        free(c);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(struct link_config, link_config_free)

/* Appends the whitespace-separated words of value (quotes group) to *l; empty clears. */
static int assign_words(char ***l, const char *value, bool hw_addr, const char *file, unsigned line)
{
        if (isempty(value)) {
                *l = strv_free(*l);
                return 0;
        }
        _cleanup_strv_free_ char **words = NULL;
        int r = cmdline_split(value, &words);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning("%s:%u: cannot parse \"%s\", ignoring", file, line, value);
                return 0;
        }
        STRV_FOREACH(w, words) {
                if (hw_addr) {
                        _cleanup_free_ char *n = NULL;
                        r = hw_addr_normalize(*w, &n);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0) {
                                log_warning("%s:%u: invalid hardware address \"%s\", ignoring", file, line, *w);
                                continue;
                        }
                        r = strv_push_copy(l, n);
                } else
                        r = strv_push_copy(l, *w);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int assign_string(char **s, const char *value)
{
        free(*s);
        *s = isempty(value) ? NULL : strdup(value);
        return isempty(value) || *s ? 0 : -ENOMEM;
}

static int assign_name_policy(struct link_config *c, const char *value, const char *file, unsigned line)
{
        _cleanup_strv_free_ char **words = NULL;
        c->name_policy = mfree(c->name_policy);
        c->n_name_policy = 0;
        if (isempty(value))
                return 0;
        int r = strv_split(value, " \t", &words);
        if (r < 0)
                return r;
        c->name_policy = calloc(strv_length(words) + 1, sizeof(enum name_policy));
        if (!c->name_policy)
                return -ENOMEM;
        STRV_FOREACH(w, words) {
                enum name_policy p = _NAME_POLICY_MAX;
                for (unsigned i = 0; i < _NAME_POLICY_MAX; i++)
                        if (streq(*w, name_policies[i]))
                                p = i;
                if (p == _NAME_POLICY_MAX) {
                        log_warning("%s:%u: unknown NamePolicy \"%s\", ignoring", file, line, *w);
                        continue;
                }
                c->name_policy[c->n_name_policy++] = p;
        }
        return 0;
}

static int parse_match(struct link_config *c, const char *key, const char *value, const char *file, unsigned line)
{
        static const char *const unsupported[] = {"Virtualization", "Architecture", "Firmware", "KernelVersion",
                                                  "Credential"};
        struct {
                const char *key;
                char ***list;
                bool hw;
        } lists[] = {
                {"MACAddress", &c->mac, true},         {"PermanentMACAddress", &c->permanent_mac, true},
                {"OriginalName", &c->original_name, false}, {"Path", &c->path, false},
                {"Driver", &c->driver, false},         {"Type", &c->type, false},
                {"Kind", &c->kind, false},             {"Property", &c->property, false},
        };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                if (streq(key, lists[i].key))
                        return assign_words(lists[i].list, value, lists[i].hw, file, line);
        if (streq(key, "Host"))
                return isempty(value) ? (c->host = strv_free(c->host), 0) : strv_push_copy(&c->host, value);
        if (streq(key, "KernelCommandLine"))
                return isempty(value) ? (c->kernel_cmdline = strv_free(c->kernel_cmdline), 0)
                                      : strv_push_copy(&c->kernel_cmdline, value);
        for (size_t i = 0; i < ELEMENTSOF(unsupported); i++)
                if (streq(key, unsupported[i])) {
                        log_warning("%s:%u: [Match] %s= is not supported by devman; this file never matches", file,
                                    line, key);
                        return c->unsupported ? 0 : assign_string(&c->unsupported, key);
                }
        log_warning("%s:%u: unknown key \"%s\" in [Match], ignoring", file, line, key);
        return 0;
}

static int parse_link(struct link_config *c, const char *key, const char *value, const char *file, unsigned line)
{
        if (streq(key, "NamePolicy"))
                return assign_name_policy(c, value, file, line);
        if (streq(key, "Name")) {
                if (!isempty(value) && !ifname_ok(value)) {
                        log_warning("%s:%u: invalid interface name \"%s\", ignoring", file, line, value);
                        return 0;
                }
                return assign_string(&c->name, value);
        }
        if (streq(key, "MACAddressPolicy"))
                return assign_string(&c->mac_address_policy, value);
        if (streq(key, "MACAddress"))
                return assign_string(&c->mac_address, value);
        if (streq(key, "AlternativeNamesPolicy"))
                return assign_words(&c->alternative_names_policy, value, false, file, line);
        if (streq(key, "AlternativeName"))
                return assign_words(&c->alternative_names, value, false, file, line);
        /* hardware settings (MTUBytes=, BitsPerSecond=, WakeOnLan=, offloads …): not applied */
        log_debug("%s:%u: [Link] %s= is not applied by devman", file, line, key);
        return 0;
}

static int parse_file(struct link_config *c, const char *path, const char *shown)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        enum { NONE, MATCH, LINK, OTHER } section = NONE;
        _cleanup_free_ char *line = NULL, *cont = NULL;
        size_t sz = 0;
        unsigned lineno = 0;
        ssize_t n;
        while ((n = getline(&line, &sz, f)) >= 0) {
                lineno++;
                while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                        line[--n] = '\0';
                /* a trailing backslash continues the line (joined with a space) */
                if (n > 0 && line[n - 1] == '\\') {
                        line[n - 1] = '\0';
                        char *j;
                        if (asprintf(&j, "%s%s ", strempty(cont), line) < 0)
                                return -ENOMEM;
                        free(cont);
                        cont = j;
                        continue;
                }
                _cleanup_free_ char *full = NULL;
                if (cont) {
                        if (asprintf(&full, "%s%s", cont, line) < 0)
                                return -ENOMEM;
                        cont = mfree(cont);
                }
                char *s = full ? full : line;
                while (isspace((unsigned char)*s))
                        s++;
                size_t l = strlen(s);
                while (l > 0 && isspace((unsigned char)s[l - 1]))
                        s[--l] = '\0';
                if (*s == '\0' || *s == '#' || *s == ';')
                        continue;
                if (*s == '[') {
                        if (s[l - 1] != ']') {
                                log_warning("%s:%u: bad section header \"%s\", ignoring", shown, lineno, s);
                                section = OTHER;
                                continue;
                        }
                        s[l - 1] = '\0';
                        section = streq(s + 1, "Match") ? MATCH : streq(s + 1, "Link") ? LINK : OTHER;
                        if (section == OTHER && !startswith(s + 1, "X-"))
                                log_warning("%s:%u: unknown section [%s], ignoring", shown, lineno, s + 1);
                        continue;
                }
                char *eq = strchr(s, '=');
                if (!eq) {
                        log_warning("%s:%u: missing '=', ignoring", shown, lineno);
                        continue;
                }
                char *key = s, *value = eq + 1;
                char *ke = eq;
                while (ke > key && isspace((unsigned char)ke[-1]))
                        ke--;
                *ke = '\0';
                while (isspace((unsigned char)*value))
                        value++;
                int r = 0;
                if (section == MATCH)
                        r = parse_match(c, key, value, shown, lineno);
                else if (section == LINK)
                        r = parse_link(c, key, value, shown, lineno);
                else if (section == NONE)
                        log_warning("%s:%u: assignment outside of a section, ignoring", shown, lineno);
                if (r < 0)
                        return r;
        }
        return 0;
}

int link_config_parse(const char *path, const char *shown_as, char *const *dropins, struct link_config **ret)
{
        _cleanup_(link_config_freep) struct link_config *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->filename = strdup(shown_as);
        if (!c->filename)
                return -ENOMEM;
        int r = parse_file(c, path, shown_as);
        if (r < 0)
                return r;
        STRV_FOREACH(d, dropins) {
                r = parse_file(c, *d, *d);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        log_warning("%s: cannot read drop-in: %s", *d, strerror(-r));
        }
        *ret = TAKE_PTR(c);
        return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

struct link_config_set *link_config_set_free(struct link_config_set *s)
{
        if (!s)
                return NULL;
        for (unsigned i = 0; i < s->n; i++)
                link_config_free(s->configs[i]);
        free(s->configs);
        free(s);
        return NULL;
}

/* Names ending in suffix in dir, each added once to *names (first directory wins) with its
 * full path in *paths at the same position. */
static int collect(const char *dir, const char *suffix, char ***names, char ***paths)
{
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        struct dirent *de;
        while ((de = fs_readdir(d, true))) {
                size_t l = strlen(de->d_name), sl = strlen(suffix);
                if (l <= sl || !streq(de->d_name + l - sl, suffix))
                        continue;
                if (strv_contains(*names, de->d_name))
                        continue;
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
                        return -ENOMEM;
                struct stat st;
                /* an empty file or a symlink to /dev/null masks the name */
                bool masked = stat(p, &st) == 0 && (st.st_size == 0 || S_ISCHR(st.st_mode));
                int r = strv_push_copy(names, de->d_name);
                if (r >= 0)
                        r = strv_push_copy(paths, masked ? "" : p);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Sorts names and paths together by name. */
static void sort_pairs(char **names, char **paths)
{
        size_t n = strv_length(names);
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                        char *t = names[j];
                        names[j] = names[j - 1];
                        names[j - 1] = t;
                        t = paths[j];
                        paths[j] = paths[j - 1];
                        paths[j - 1] = t;
                }
}

static bool match_is_empty(const struct link_config *c)
{
        return !c->mac && !c->permanent_mac && !c->original_name && !c->path && !c->driver && !c->type &&
               !c->kind && !c->property && !c->host && !c->kernel_cmdline && !c->unsupported;
}

int link_config_load(const char *root, struct link_config_set **ret)
{
        const char *prefix = root && !streq(root, "/") ? root : "";
        _cleanup_strv_free_ char **names = NULL, **paths = NULL;
        int r;
        for (size_t i = 0; i < ELEMENTSOF(network_dirs); i++) {
                _cleanup_free_ char *dir = NULL;
                if (asprintf(&dir, "%s%s", prefix, network_dirs[i]) < 0)
                        return -ENOMEM;
                r = collect(dir, ".link", &names, &paths);
                if (r < 0)
                        return r;
        }
        sort_pairs(names, paths);

        _cleanup_(link_config_set_freep) struct link_config_set *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->configs = calloc(strv_length(names) + 1, sizeof(struct link_config *));
        if (!s->configs)
                return -ENOMEM;
        for (size_t i = 0; names && names[i]; i++) {
                if (isempty(paths[i]))
                        continue; /* masked */
                _cleanup_strv_free_ char **dnames = NULL, **dpaths = NULL;
                for (size_t k = 0; k < ELEMENTSOF(network_dirs); k++) {
                        _cleanup_free_ char *dir = NULL;
                        if (asprintf(&dir, "%s%s/%s.d", prefix, network_dirs[k], names[i]) < 0)
                                return -ENOMEM;
                        r = collect(dir, ".conf", &dnames, &dpaths);
                        if (r == -ENOMEM)
                                return r;
                }
                sort_pairs(dnames, dpaths);
                /* masked drop-ins ("") are skipped */
                _cleanup_strv_free_ char **dropins = NULL;
                STRV_FOREACH(p, dpaths)
                        if (!isempty(*p) && strv_push_copy(&dropins, *p) < 0)
                                return -ENOMEM;

                const char *shown = paths[i] + strlen(prefix);
                struct link_config *c;
                r = link_config_parse(paths[i], shown, dropins, &c);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        log_warning("%s: cannot read: %s", shown, strerror(-r));
                        continue;
                }
                if (match_is_empty(c)) {
                        log_warning("%s: no valid settings in the [Match] section, ignoring file "
                                    "(OriginalName=* matches every interface)",
                                    shown);
                        link_config_free(c);
                        continue;
                }
                s->configs[s->n++] = c;
        }
        *ret = TAKE_PTR(s);
        return 0;
}
