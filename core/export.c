/* SPDX-License-Identifier: MIT */
#include "export.h"

#include <inttypes.h>

#include "strv.h"

/* Keys export_properties() derives itself, whatever the record's set says. */
static bool derived_key(const char *entry, size_t kl)
{
        static const char *const keys[] = {
                "ACTION", "SEQNUM", "USEC_INITIALIZED", "DEVLINKS", "TAGS", "CURRENT_TAGS",
        };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (strlen(keys[i]) == kl && strncmp(entry, keys[i], kl) == 0)
                        return true;
        return false;
}

char *export_tags_string(char *const *tags)
{
        if (!tags || !tags[0])
                return NULL;
        _cleanup_free_ char *inner = strv_join(tags, NULL, ":");
        if (!inner)
                return NULL;
        char *s = NULL;
        if (asprintf(&s, ":%s:", inner) < 0)
                return NULL;
        return s;
}

static char *join_links(char *const *links, const char *dev_root)
{
        size_t len = 0, rl = strlen(dev_root);
        STRV_FOREACH(l, links)
                len += rl + 1 + strlen(*l) + 1;
        char *s = malloc(len + 1), *p = s;
        if (!s)
                return NULL;
        STRV_FOREACH(l, links) {
                if (p != s)
                        *p++ = ' ';
                p = stpcpy(p, dev_root);
                if (rl == 0 || dev_root[rl - 1] != '/')
                        *p++ = '/';
                p = stpcpy(p, *l);
        }
        *p = '\0';
        return s;
}

int export_properties(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum,
                      struct props *ret)
{
        struct props p = PROPS_INIT;
        const struct device_udev *u = d->udev;
        _cleanup_free_ char *devname = NULL; /* before any goto: cleaned up at fail too */
        const char *entry;
        size_t it = 0;
        int r = 0;

        props_clear(ret);
        if (action && (r = props_set(&p, "ACTION", action, PROP_KERNEL)) < 0)
                goto fail;
        if (d->devname) {
                const char *sep = dev_root[0] && dev_root[strlen(dev_root) - 1] == '/' ? "" : "/";
                if (asprintf(&devname, "%s%s%s", dev_root, sep, d->devname) < 0) {
                        devname = NULL;
                        r = -ENOMEM;
                        goto fail;
                }
        }
        while (props_next(&d->props, &it, &entry, NULL)) {
                size_t kl = props_key_len(entry);
                if (entry[0] == '.' || derived_key(entry, kl))
                        continue;
                /* the record's DEVNAME names the daemon's node root; clients get dev_root's */
                bool is_devname = kl == 7 && memcmp(entry, "DEVNAME", 7) == 0;
                const char *value = devname && is_devname ? devname : entry + kl + 1;
                /* keys of a set are unique and ACTION was skipped: no look-up needed */
                if ((r = props_append(&p, entry, kl, value, PROP_KERNEL)) < 0)
                        goto fail;
        }
        if (devname && !props_get(&p, "DEVNAME") && (r = props_set(&p, "DEVNAME", devname, PROP_KERNEL)) < 0)
                goto fail;
        if (seqnum > 0 && (r = props_set_uint(&p, "SEQNUM", seqnum, PROP_KERNEL)) < 0)
                goto fail;
        if (u) {
                if (u->usec_initialized > 0 &&
                    (r = props_set_uint(&p, "USEC_INITIALIZED", u->usec_initialized, 0)) < 0)
                        goto fail;
                if (u->links && u->links[0] && d->devnum_type) {
                        _cleanup_free_ char *s = join_links(u->links, dev_root);
                        if (!s || (r = props_set(&p, "DEVLINKS", s, 0)) < 0) {
                                r = s ? r : -ENOMEM;
                                goto fail;
                        }
                }
                if (u->tags && u->tags[0]) {
                        _cleanup_free_ char *s = export_tags_string(u->tags);
                        if (!s || (r = props_set(&p, "TAGS", s, 0)) < 0) {
                                r = s ? r : -ENOMEM;
                                goto fail;
                        }
                }
                if (u->current_tags && u->current_tags[0]) {
                        _cleanup_free_ char *s = export_tags_string(u->current_tags);
                        if (!s || (r = props_set(&p, "CURRENT_TAGS", s, 0)) < 0) {
                                r = s ? r : -ENOMEM;
                                goto fail;
                        }
                }
        }
        *ret = p;
        return 0;
fail:
        props_clear(&p);
        return r;
}
