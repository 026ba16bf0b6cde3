/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "export.h"
#include "fs-util.h"
#include "log.h"
#include "strenc.h"
#include "strfmt.h"
#include "strv.h"
#include "sysfs.h"

enum subst {
        SUBST_DEVNODE,
        SUBST_ATTR,
        SUBST_ENV,
        SUBST_KERNEL,
        SUBST_KERNEL_NUMBER,
        SUBST_DRIVER,
        SUBST_DEVPATH,
        SUBST_ID,
        SUBST_MAJOR,
        SUBST_MINOR,
        SUBST_RESULT,
        SUBST_PARENT,
        SUBST_NAME,
        SUBST_LINKS,
        SUBST_ROOT,
        SUBST_SYS,
};

/* Long names are matched as prefixes in this order ("sysfs" before "sys"). */
static const struct {
        const char *name;
        char fmt;
        enum subst type;
} substs[] = {
        {"devnode", 'N', SUBST_DEVNODE}, {"tempnode", 'N', SUBST_DEVNODE}, {"attr", 's', SUBST_ATTR},
        {"sysfs", 's', SUBST_ATTR},      {"env", 'E', SUBST_ENV},          {"kernel", 'k', SUBST_KERNEL},
        {"number", 'n', SUBST_KERNEL_NUMBER}, {"driver", 'd', SUBST_DRIVER}, {"devpath", 'p', SUBST_DEVPATH},
        {"id", 'b', SUBST_ID},           {"major", 'M', SUBST_MAJOR},      {"minor", 'm', SUBST_MINOR},
        {"result", 'c', SUBST_RESULT},   {"parent", 'P', SUBST_PARENT},    {"name", 'D', SUBST_NAME},
        {"links", 'L', SUBST_LINKS},     {"root", 'r', SUBST_ROOT},        {"sys", 'S', SUBST_SYS},
};

/* A growable string. */
struct sbuf {
        char *s;
        size_t len, cap;
};

static int sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 64;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *p = realloc(b->s, cap);
                if (!p)
                        return -ENOMEM;
                b->s = p;
                b->cap = cap;
        }
        memcpy(b->s + b->len, s, n);
        b->len += n;
        b->s[b->len] = '\0';
        return 0;
}

static int sbuf_add(struct sbuf *b, const char *s)
{
        return sbuf_addn(b, s, strlen(s));
}

/* Parses one substitution at s ('%' or '$'). On success *ret_len is its length, *type its kind
 * (-1 for a literal percent or dollar sign), *attr and *attr_len its {…} argument (NULL if none). */
static int parse_subst(const char *s, size_t *ret_len, int *type, const char **attr, size_t *attr_len,
                       const char **hint)
{
        const char *p = NULL;
        *attr = NULL;
        *attr_len = 0;

        if (s[0] == s[1]) { /* %% or $$ */
                *type = -1;
                *ret_len = 2;
                return 0;
        }
        *type = -2;
        if (s[0] == '$') {
                for (size_t i = 0; i < ELEMENTSOF(substs); i++)
                        if ((p = startswith(s + 1, substs[i].name))) {
                                *type = (int)substs[i].type;
                                break;
                        }
        } else {
                for (size_t i = 0; i < ELEMENTSOF(substs); i++)
                        if (s[1] != '\0' && s[1] == substs[i].fmt) {
                                *type = (int)substs[i].type;
                                p = s + 2;
                                break;
                        }
        }
        if (*type == -2) {
                *hint = "invalid substitution type";
                return -EINVAL;
        }
        if (*p == '{') {
                const char *end = strchr(p + 1, '}');
                if (!end) {
                        *hint = "unterminated {attribute}";
                        return -EINVAL;
                }
                *attr = p + 1;
                *attr_len = (size_t)(end - p - 1);
                p = end + 1;
        }
        *ret_len = (size_t)(p - s);
        return 0;
}

/* Validates the {N} / {N+} argument of %c. Returns the index (>=1) or 0 when invalid. */
static unsigned long parse_result_index(const char *a, size_t n, bool *plus)
{
        unsigned long v = 0;
        size_t i = 0;
        *plus = false;
        if (n == 0)
                return 0;
        for (; i < n && isdigit((unsigned char)a[i]); i++) {
                v = v * 10 + (unsigned long)(a[i] - '0');
                if (v > 1000000)
                        return 0;
        }
        if (i == 0)
                return 0;
        if (i < n && a[i] == '+') {
                *plus = true;
                i++;
        }
        return i == n ? v : 0;
}

int format_check(const char *s, size_t *ret_offset, const char **ret_hint)
{
        const char *hint = NULL;
        for (const char *p = s; *p;) {
                if (*p != '%' && *p != '$') {
                        p++;
                        continue;
                }
                size_t len, alen;
                int type;
                const char *attr;
                int r = parse_subst(p, &len, &type, &attr, &alen, &hint);
                if (r == 0) {
                        if ((type == SUBST_ATTR || type == SUBST_ENV) && (!attr || alen == 0)) {
                                hint = "attribute value missing";
                                r = -EINVAL;
                        } else if (type == SUBST_RESULT && attr) {
                                bool plus;
                                if (parse_result_index(attr, alen, &plus) == 0) {
                                        hint = "attribute value not a valid number";
                                        r = -EINVAL;
                                }
                        } else if (type >= 0 && attr && type != SUBST_ATTR && type != SUBST_ENV &&
                                   type != SUBST_RESULT) {
                                hint = "unexpected attribute";
                                r = -EINVAL;
                        }
                }
                if (r < 0) {
                        if (ret_offset)
                                *ret_offset = (size_t)(p - s);
                        if (ret_hint)
                                *ret_hint = hint;
                        return -EINVAL;
                }
                p += len;
        }
        return 0;
}

bool format_has_subst(const char *s)
{
        return strpbrk(s, "%$") != NULL;
}

void format_strip_trailing(char *s)
{
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
}

/* Collapses whitespace runs to '_' and drops it at both ends. */
static int add_value(struct sbuf *b, const char *v, bool replace_whitespace)
{
        if (!replace_whitespace)
                return sbuf_add(b, v);
        while (isspace((unsigned char)*v))
                v++;
        size_t n = strlen(v);
        while (n > 0 && isspace((unsigned char)v[n - 1]))
                n--;
        for (size_t i = 0; i < n;) {
                if (isspace((unsigned char)v[i])) {
                        while (i < n && isspace((unsigned char)v[i]))
                                i++;
                        if (sbuf_addn(b, "_", 1) < 0)
                                return -ENOMEM;
                } else {
                        if (sbuf_addn(b, v + i, 1) < 0)
                                return -ENOMEM;
                        i++;
                }
        }
        return 0;
}

int format_resolve_subsys(const char *sysfs_root, const char *s, bool read_value, char **ret)
{
        if (s[0] != '[')
                return -EINVAL;
        const char *slash = strchr(s + 1, '/');
        const char *close = strchr(s + 1, ']');
        if (!slash || !close || slash > close || slash == s + 1 || close == slash + 1)
                return -EINVAL;
        const char *attr = close + 1;
        if (*attr == '/')
                attr++;
        if (read_value && *attr == '\0')
                return -EINVAL;

        _cleanup_free_ char *subsys = strndup(s + 1, (size_t)(slash - s - 1));
        _cleanup_free_ char *sysname = strndup(slash + 1, (size_t)(close - slash - 1));
        if (!subsys || !sysname)
                return -ENOMEM;
        if (strstr(subsys, "..") || strstr(sysname, "..") || strchr(subsys, '/'))
                return -EINVAL;

        /* the device directory: /sys/class/<s>/<n> or /sys/bus/<s>/devices/<n> */
        _cleanup_free_ char *dir = NULL;
        struct stat st;
        if (asprintf(&dir, "%s/class/%s/%s", sysfs_root, subsys, sysname) < 0)
                return -ENOMEM;
        if (stat(dir, &st) < 0) {
                free(dir);
                if (asprintf(&dir, "%s/bus/%s/devices/%s", sysfs_root, subsys, sysname) < 0) {
                        dir = NULL;
                        return -ENOMEM;
                }
                if (stat(dir, &st) < 0)
                        return negative_errno();
        }

        _cleanup_free_ char *path = NULL;
        if (*attr) {
                if (asprintf(&path, "%s/%s", dir, attr) < 0)
                        return -ENOMEM;
        } else
                path = TAKE_PTR(dir);

        if (!read_value) {
                *ret = TAKE_PTR(path);
                return 0;
        }
        char *v;
        int r = read_full_file(path, &v, NULL);
        if (r < 0)
                return r;
        format_strip_trailing(v);
        *ret = v;
        return 0;
}

/* The keys format_get_property() can derive from the record. */
enum derived_key {
        DERIVED_NONE,
        DERIVED_DEVNAME,
        DERIVED_DEVLINKS,
        DERIVED_TAGS,
        DERIVED_CURRENT_TAGS,
        DERIVED_DEVPATH,
        DERIVED_SUBSYSTEM,
        DERIVED_DEVTYPE,
        DERIVED_DRIVER,
        DERIVED_MAJOR,
        DERIVED_MINOR,
        DERIVED_IFINDEX,
};

/* Rules ask for many keys per event: a switch on the first two bytes sorts out nearly all that
 * cannot be derived before any string compare — "ID_*" (most ENV{} keys of the stock rules)
 * and "DM_*" included; DEVTYPE (asked for by many lines) costs one compare, not four. */
static enum derived_key derived_key(const char *key)
{
        switch (key[0]) {
        case 'D':
                if (key[1] == 'R')
                        return streq(key, "DRIVER") ? DERIVED_DRIVER : DERIVED_NONE;
                if (key[1] != 'E' || key[2] != 'V')
                        return DERIVED_NONE;
                /* one compare: the fourth byte tells the DEV* keys apart */
                switch (key[3]) {
                case 'N':
                        return streq(key, "DEVNAME") ? DERIVED_DEVNAME : DERIVED_NONE;
                case 'L':
                        return streq(key, "DEVLINKS") ? DERIVED_DEVLINKS : DERIVED_NONE;
                case 'P':
                        return streq(key, "DEVPATH") ? DERIVED_DEVPATH : DERIVED_NONE;
                case 'T':
                        return streq(key, "DEVTYPE") ? DERIVED_DEVTYPE : DERIVED_NONE;
                default:
                        return DERIVED_NONE;
                }
        case 'T':
                return key[1] == 'A' && streq(key, "TAGS") ? DERIVED_TAGS : DERIVED_NONE;
        case 'C':
                return key[1] == 'U' && streq(key, "CURRENT_TAGS") ? DERIVED_CURRENT_TAGS : DERIVED_NONE;
        case 'S':
                return key[1] == 'U' && streq(key, "SUBSYSTEM") ? DERIVED_SUBSYSTEM : DERIVED_NONE;
        case 'M':
                if (key[1] == 'A')
                        return streq(key, "MAJOR") ? DERIVED_MAJOR : DERIVED_NONE;
                return key[1] == 'I' && streq(key, "MINOR") ? DERIVED_MINOR : DERIVED_NONE;
        case 'I':
                return key[1] == 'F' && streq(key, "IFINDEX") ? DERIVED_IFINDEX : DERIVED_NONE;
        default:
                return DERIVED_NONE;
        }
}

bool format_property_is_derived(const char *key)
{
        return derived_key(key) != DERIVED_NONE;
}

static const char *uint_string(uint64_t v, char **buf)
{
        char b[STRFMT_UINT_MAX];
        return (*buf = strdup(strfmt_uint(b, v)));
}

const char *format_get_property(struct device *dev, const char *dev_root, const char *key, char **buf)
{
        enum derived_key k = derived_key(key);
        const char *v;

        *buf = NULL;
        switch (k) {
        case DERIVED_NONE:
                return props_get(&dev->props, key);
        case DERIVED_DEVNAME:
                v = props_get(&dev->props, key);
                if (v || !dev->devname)
                        return v;
                if (dev->devname[0] == '/')
                        return dev->devname;
                return (*buf = strfmt_concat(dev_root ? dev_root : "/dev", "/", dev->devname, NULL));
        case DERIVED_DEVLINKS:
        case DERIVED_TAGS:
        case DERIVED_CURRENT_TAGS: {
                struct device_udev *u = dev->udev;
                if (!u)
                        return NULL;
                if (k == DERIVED_DEVLINKS)
                        return (*buf = export_links_string(u->links, dev_root ? dev_root : "/dev"));
                /* ":a:b:", NULL for none */
                return (*buf = export_tags_string(k == DERIVED_TAGS ? u->tags : u->current_tags));
        }
        default:
                break;
        }

        v = props_get(&dev->props, key);
        if (v)
                return v;
        switch (k) {
        case DERIVED_DEVPATH:
                return dev->devpath;
        case DERIVED_SUBSYSTEM:
                return dev->subsystem;
        case DERIVED_DEVTYPE:
                return dev->devtype;
        case DERIVED_DRIVER:
                return dev->driver;
        case DERIVED_MAJOR:
                return dev->devnum_type ? uint_string(major(dev->devnum), buf) : NULL;
        case DERIVED_MINOR:
                return dev->devnum_type ? uint_string(minor(dev->devnum), buf) : NULL;
        case DERIVED_IFINDEX:
                return dev->ifindex > 0 ? uint_string((unsigned)dev->ifindex, buf) : NULL;
        default:
                return NULL;
        }
}

/* The attribute value for %s{attr}: of the device, else of the matched parent. */
static int subst_attr(const struct format_ctx *c, const char *attr, char **ret)
{
        if (attr[0] == '[') {
                char *v;
                int r = format_resolve_subsys(c->sysfs_root, attr, true, &v);
                if (r < 0)
                        return r;
                *ret = v;
                return 0;
        }
        const char *v = NULL;
        int r = device_get_sysattr(c->dev, c->sysfs_root, attr, &v);
        if ((r < 0 || !v) && c->parent && c->parent != c->dev)
                r = device_get_sysattr(c->parent, c->sysfs_root, attr, &v);
        if (r < 0)
                return r;
        if (!(*ret = strdup(strempty(v))))
                return -ENOMEM;
        format_strip_trailing(*ret);
        return 0;
}

/* The Nth (1-based) whitespace-separated word of s, or from it to the end with plus. */
static int result_word(const char *s, unsigned long idx, bool plus, char **ret)
{
        const char *p = s;
        for (unsigned long i = 1;; i++) {
                while (*p == ' ')
                        p++;
                if (!*p)
                        return -ENOENT;
                if (i == idx)
                        break;
                while (*p && *p != ' ')
                        p++;
        }
        size_t n = plus ? strlen(p) : strcspn(p, " ");
        return (*ret = strndup(p, n)) ? 0 : -ENOMEM;
}

static const char *strip_dev(const char *devname, const char *dev_root)
{
        const char *p;
        if (!devname)
                return NULL;
        if (dev_root && (p = startswith(devname, dev_root)) && *p == '/')
                return p + 1;
        if ((p = startswith(devname, "/dev/")))
                return p;
        return devname;
}

static int expand_one(const struct format_ctx *c, int type, const char *attr, struct sbuf *b,
                      bool replace_whitespace)
{
        struct device *dev = c->dev;
        _cleanup_free_ char *owned = NULL;
        const char *v = NULL;
        int r;

        switch (type) {
        case SUBST_DEVPATH:
                v = dev->devpath;
                break;
        case SUBST_KERNEL:
                v = dev->sysname;
                break;
        case SUBST_KERNEL_NUMBER:
                v = dev->sysnum;
                break;
        case SUBST_ID:
                v = c->parent ? c->parent->sysname : NULL;
                break;
        case SUBST_DRIVER:
                if (c->parent &&
                    (r = device_get_driver_now(c->parent, c->sysfs_root ? c->sysfs_root : "/sys", &v)) < 0)
                        return r;
                break;
        case SUBST_MAJOR:
        case SUBST_MINOR:
                if (asprintf(&owned, "%u",
                             dev->devnum_type ? (type == SUBST_MAJOR ? major(dev->devnum) : minor(dev->devnum)) : 0) < 0)
                        return -ENOMEM;
                v = owned;
                break;
        case SUBST_RESULT:
                if (!c->program_result)
                        break;
                if (attr) {
                        bool plus;
                        unsigned long idx = parse_result_index(attr, strlen(attr), &plus);
                        if (idx == 0 || result_word(c->program_result, idx, plus, &owned) < 0) {
                                log_debug("%%c{%s}: no such part in result \"%s\"", attr, c->program_result);
                                break;
                        }
                        v = owned;
                } else
                        v = c->program_result;
                break;
        case SUBST_ATTR:
                if (!attr)
                        break;
                r = subst_attr(c, attr, &owned);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        log_debug("%s: attribute '%s' not found: %s", dev->devpath, attr, strerror(-r));
                        break;
                }
                strenc_replace_chars(owned, FORMAT_ALLOWED_CHARS_INPUT);
                v = owned;
                break;
        case SUBST_PARENT: {
                struct device *p = device_get_parent(dev);
                v = p ? strip_dev(p->devname, c->dev_root) : NULL;
                break;
        }
        case SUBST_DEVNODE:
                if (dev->devname) {
                        if (asprintf(&owned, "%s/%s", c->dev_root ? c->dev_root : "/dev",
                                     strip_dev(dev->devname, c->dev_root)) < 0)
                                return -ENOMEM;
                        v = owned;
                }
                break;
        case SUBST_NAME:
                v = c->name ? c->name : dev->devname ? strip_dev(dev->devname, c->dev_root) : dev->sysname;
                break;
        case SUBST_LINKS:
                if (dev->udev && dev->udev->links) {
                        if (!(owned = strv_join(dev->udev->links, NULL, " ")))
                                return -ENOMEM;
                        v = owned;
                }
                break;
        case SUBST_ROOT:
                v = c->dev_root ? c->dev_root : "/dev";
                break;
        case SUBST_SYS:
                v = c->sysfs_root ? c->sysfs_root : "/sys";
                break;
        case SUBST_ENV:
                if (attr)
                        v = format_get_property(dev, c->dev_root, attr, &owned);
                break;
        default:
                break;
        }
        /* a program's result keeps its spaces (udev 252 too): SYMLINK+="%c{2+}" makes one link
         * per word, as a literal SYMLINK+="a b" does */
        return v ? add_value(b, v, replace_whitespace && type != SUBST_RESULT) : 0;
}

int format_apply(const struct format_ctx *c, const char *s, bool replace_whitespace, char **ret)
{
        struct sbuf b = {0};
        int r = sbuf_add(&b, "");
        if (r < 0)
                return r;

        for (const char *p = s; *p;) {
                size_t lit = strcspn(p, "%$");
                if (lit > 0) {
                        if ((r = sbuf_addn(&b, p, lit)) < 0)
                                goto fail;
                        p += lit;
                        continue;
                }
                size_t len, alen;
                int type;
                const char *a, *hint;
                if (parse_subst(p, &len, &type, &a, &alen, &hint) < 0) {
                        /* rejected at parse time; keep the character literally */
                        if ((r = sbuf_addn(&b, p, 1)) < 0)
                                goto fail;
                        p++;
                        continue;
                }
                if (type == -1)
                        r = sbuf_addn(&b, p, 1);
                else {
                        _cleanup_free_ char *attr = a ? strndup(a, alen) : NULL;
                        if (a && !attr) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        r = expand_one(c, type, attr, &b, replace_whitespace);
                }
                if (r < 0)
                        goto fail;
                p += len;
        }
        *ret = b.s;
        return 0;
fail:
        free(b.s);
        return r;
}
