/* SPDX-License-Identifier: MIT */
#include "snapshot-file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "strv.h"

void snapshot_put_escaped(FILE *f, const char *s, bool last)
{
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (*p == '\\' || *p < 0x20 || *p == 0x7f || (*p == ' ' && !last))
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
        }
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* Unescapes in place; -EBADMSG for a bad escape. */
static int unescape(char *s)
{
        char *w = s;
        for (char *r = s; *r; r++) {
                if (*r != '\\') {
                        *w++ = *r;
                        continue;
                }
                int hi, lo;
                if (r[1] != 'x' || (hi = hexval(r[2])) < 0 || (lo = hexval(r[3])) < 0 ||
                    (hi == 0 && lo == 0))
                        return -EBADMSG;
                *w++ = (char)(hi * 16 + lo);
                r += 3;
        }
        *w = '\0';
        return 0;
}

static void parent_clear(struct snapshot_parent *p)
{
        free(p->kind);
        free(p->subsystem);
        free(p->driver);
        free(p->sysname);
}

static void device_clear(struct snapshot_device *d)
{
        free(d->key);
        free(d->found);
        free(d->devpath);
        free(d->layout);
        free(d->subsystem);
        free(d->devtype);
        free(d->driver);
        free(d->devt);
        free(d->node);
        free(d->mode);
        free(d->owner);
        strv_free(d->links);
        strv_free(d->tags);
        strv_free(d->props);
        strv_free(d->kprops);
        for (size_t i = 0; i < d->n_parents; i++)
                parent_clear(&d->parents[i]);
        free(d->parents);
}

struct snapshot *snapshot_free(struct snapshot *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_devices; i++)
                device_clear(&s->devices[i]);
        free(s->devices);
        free(s->name);
        free(s->sysfs_root);
        free(s);
        return NULL;
}

/* A single-value field: "-" is NULL. */
static int set_value(char **field, const char *v)
{
        free(*field);
        *field = NULL;
        if (streq(v, "-"))
                return 0;
        *field = strdup(v);
        return *field ? 0 : -ENOMEM;
}

static int parse_parent(char *v, struct snapshot_parent *p)
{
        /* KIND SUBSYSTEM DRIVER SYSNAME, each escaped */
        char *f[4];
        for (int i = 0; i < 3; i++) {
                f[i] = v;
                v = strchr(v, ' ');
                if (!v)
                        return -EBADMSG;
                *v++ = '\0';
        }
        f[3] = v;
        for (int i = 0; i < 4; i++)
                if (unescape(f[i]) < 0 || !*f[i])
                        return -EBADMSG;
        if (!(p->kind = strdup(f[0])) || set_value(&p->subsystem, f[1]) < 0 ||
            set_value(&p->driver, f[2]) < 0 || !(p->sysname = strdup(f[3])))
                return -ENOMEM;
        return 0;
}

static int parse_devt(char *v, struct snapshot_device *d)
{
        if (streq(v, "-"))
                return 0;
        unsigned ma, mi;
        char t, extra;
        if (sscanf(v, "%c %u:%u%c", &t, &ma, &mi, &extra) != 3 || (t != 'c' && t != 'b'))
                return -EBADMSG;
        d->devt_type = t;
        return asprintf(&d->devt, "%u:%u", ma, mi) < 0 ? -ENOMEM : 0;
}

/* One "KEY VALUE" line inside a device stanza. */
static int parse_field(struct snapshot_device *d, const char *key, char *v)
{
        int r;
        if (streq(key, "parent")) {
                struct snapshot_parent *np = realloc(d->parents, (d->n_parents + 1) * sizeof(*np));
                if (!np)
                        return -ENOMEM;
                d->parents = np;
                np[d->n_parents] = (struct snapshot_parent){0};
                r = parse_parent(v, &np[d->n_parents]);
                if (r < 0) {
                        parent_clear(&np[d->n_parents]);
                        return r;
                }
                d->n_parents++;
                return 0;
        }
        if (unescape(v) < 0)
                return -EBADMSG;
        if (streq(key, "found"))
                return set_value(&d->found, v);
        if (streq(key, "devpath"))
                return set_value(&d->devpath, v);
        if (streq(key, "layout"))
                return set_value(&d->layout, v);
        if (streq(key, "subsystem"))
                return set_value(&d->subsystem, v);
        if (streq(key, "devtype"))
                return set_value(&d->devtype, v);
        if (streq(key, "driver"))
                return set_value(&d->driver, v);
        if (streq(key, "devt"))
                return parse_devt(v, d);
        if (streq(key, "node"))
                return set_value(&d->node, v);
        if (streq(key, "mode"))
                return set_value(&d->mode, v);
        if (streq(key, "owner"))
                return set_value(&d->owner, v);
        if (streq(key, "link"))
                return strv_push_copy(&d->links, v);
        if (streq(key, "tag"))
                return strv_push_copy(&d->tags, v);
        if (streq(key, "prop"))
                return strv_push_copy(&d->props, v);
        if (streq(key, "kprop"))
                return strv_push_copy(&d->kprops, v);
        return 0; /* a field of a later minor revision */
}

static int empty_strv(char ***l)
{
        if (*l) {
                strv_sort(*l);
                return 0;
        }
        *l = calloc(1, sizeof(char *));
        return *l ? 0 : -ENOMEM;
}

int snapshot_parse(FILE *f, const char *name, struct snapshot **ret)
{
        _cleanup_(snapshot_freep) struct snapshot *s = calloc(1, sizeof(*s));
        _cleanup_free_ char *line = NULL;
        size_t cap = 0, n_alloc = 0;
        unsigned lineno = 0;
        struct snapshot_device *cur = NULL;
        bool header = false;
        ssize_t len;
        int r;

        if (!s || !(s->name = strdup(name)))
                return log_oom();
        while ((len = getline(&line, &cap, f)) >= 0) {
                lineno++;
                /* a snapshot that went through a tty may have CR LF line ends */
                while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                        line[--len] = '\0';
                if (len == 0 || line[0] == '#')
                        continue;
                char *sp = strchr(line, ' ');
                char *v = sp ? sp + 1 : line + len;
                if (sp)
                        *sp = '\0';
                const char *key = line;

                if (!header) {
                        unsigned version;
                        if (!streq(key, "devman-snapshot") || sscanf(v, "%u", &version) != 1)
                                goto bad;
                        if (version > SNAPSHOT_FORMAT_VERSION) {
                                log_error(
                                        "%s:%u: snapshot format %u is newer than this devmanadm reads (%d)",
                                        name, lineno, version, SNAPSHOT_FORMAT_VERSION);
                                return -EPROTONOSUPPORT;
                        }
                        header = true;
                        continue;
                }
                if (!cur) {
                        if (streq(key, "device")) {
                                if (s->n_devices == n_alloc) {
                                        size_t na = n_alloc ? n_alloc * 2 : 64;
                                        struct snapshot_device *nd = realloc(s->devices, na * sizeof(*nd));
                                        if (!nd)
                                                return log_oom();
                                        s->devices = nd;
                                        n_alloc = na;
                                }
                                cur = &s->devices[s->n_devices++];
                                *cur = (struct snapshot_device){0};
                                if (unescape(v) < 0 || !*v)
                                        goto bad;
                                if (!(cur->key = strdup(v)))
                                        return log_oom();
                        } else if (streq(key, "sysfs-root")) {
                                if (unescape(v) < 0 || set_value(&s->sysfs_root, v) < 0)
                                        goto bad;
                        }
                        /* other header lines (devices, rules, created-by) are informational */
                        continue;
                }
                if (streq(key, "end")) {
                        if (!cur->devpath || !cur->layout)
                                goto bad;
                        if (empty_strv(&cur->links) < 0 || empty_strv(&cur->tags) < 0 ||
                            empty_strv(&cur->props) < 0 || empty_strv(&cur->kprops) < 0)
                                return log_oom();
                        cur = NULL;
                        continue;
                }
                if (!sp)
                        goto bad;
                r = parse_field(cur, key, v);
                if (r == -ENOMEM)
                        return log_oom();
                if (r < 0)
                        goto bad;
        }
        if (!header) {
                log_error("%s: not a devman snapshot (no 'devman-snapshot' header)", name);
                return -EBADMSG;
        }
        if (cur) {
                log_error("%s: truncated: the last device stanza has no 'end'", name);
                return -EBADMSG;
        }
        *ret = TAKE_PTR(s);
        return 0;
bad:
        log_error("%s:%u: malformed snapshot line", name, lineno);
        return -EBADMSG;
}

int snapshot_read(const char *path, struct snapshot **ret)
{
        if (streq(path, "-"))
                return snapshot_parse(stdin, "<stdin>", ret);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return log_error_errno(errno, "Cannot open snapshot %s: %m", path);
        return snapshot_parse(f, path, ret);
}
