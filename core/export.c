/* SPDX-License-Identifier: MIT */
#include "export.h"

#include <inttypes.h>

#include "strfmt.h"
#include "strv.h"

/* Keys export_properties() derives itself, whatever the record's set says. */
static bool derived_key(const char *entry, size_t kl)
{
        switch (kl) {
        case 4:
                return memcmp(entry, "TAGS", 4) == 0;
        case 6:
                return memcmp(entry, "ACTION", 6) == 0 || memcmp(entry, "SEQNUM", 6) == 0;
        case 8:
                return memcmp(entry, "DEVLINKS", 8) == 0;
        case 12:
                return memcmp(entry, "CURRENT_TAGS", 12) == 0;
        case 16:
                return memcmp(entry, "USEC_INITIALIZED", 16) == 0;
        default:
                return false;
        }
}

char *export_tags_string(char *const *tags)
{
        if (!tags || !tags[0])
                return NULL;
        size_t len = 1;
        STRV_FOREACH(t, tags)
                len += strlen(*t) + 1;
        char *s = malloc(len + 1), *p = s;
        if (!s)
                return NULL;
        *p++ = ':';
        STRV_FOREACH(t, tags) {
                p = stpcpy(p, *t);
                *p++ = ':';
        }
        *p = '\0';
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

/* Appends key=<the list's string> when the list is not empty. */
static int append_list(struct props *p, const char *key, char *s)
{
        _cleanup_free_ char *owned = s;
        if (!s)
                return -ENOMEM;
        return props_append(p, key, strlen(key), s, 0);
}

int export_properties(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum,
                      struct props *ret)
{
        struct props p = PROPS_INIT;
        const struct device_udev *u = d->udev;
        _cleanup_free_ char *devname = NULL; /* before any goto: cleaned up at fail too */
        char num[STRFMT_UINT_MAX];
        const char *entry;
        bool had_devname = false;
        size_t it = 0;
        int r = 0;

        props_clear(ret);
        /* the record's entries and a few more: room for all of them in one allocation */
        if ((r = props_reserve(&p, d->props.len + 128)) < 0)
                goto fail;
        /* the set is empty, and every key added after the record's is one the loop skips
         * (derived_key()) or checks (DEVNAME): appended without look-ups */
        if (action && (r = props_append(&p, "ACTION", 6, action, PROP_KERNEL)) < 0)
                goto fail;
        if (d->devname) {
                const char *sep = dev_root[0] && dev_root[strlen(dev_root) - 1] == '/' ? "" : "/";
                devname = strfmt_concat(dev_root, sep, d->devname, NULL);
                if (!devname) {
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
                had_devname = had_devname || is_devname;
                const char *value = devname && is_devname ? devname : entry + kl + 1;
                if ((r = props_append(&p, entry, kl, value, PROP_KERNEL)) < 0)
                        goto fail;
        }
        if (devname && !had_devname && (r = props_append(&p, "DEVNAME", 7, devname, PROP_KERNEL)) < 0)
                goto fail;
        if (seqnum > 0 && (r = props_append(&p, "SEQNUM", 6, strfmt_uint(num, seqnum), PROP_KERNEL)) < 0)
                goto fail;
        if (u) {
                if (u->usec_initialized > 0 &&
                    (r = props_append(&p, "USEC_INITIALIZED", 16, strfmt_uint(num, u->usec_initialized), 0)) < 0)
                        goto fail;
                if (u->links && u->links[0] && d->devnum_type &&
                    (r = append_list(&p, "DEVLINKS", join_links(u->links, dev_root))) < 0)
                        goto fail;
                if (u->tags && u->tags[0] && (r = append_list(&p, "TAGS", export_tags_string(u->tags))) < 0)
                        goto fail;
                if (u->current_tags && u->current_tags[0] &&
                    (r = append_list(&p, "CURRENT_TAGS", export_tags_string(u->current_tags))) < 0)
                        goto fail;
        }
        *ret = p;
        return 0;
fail:
        props_clear(&p);
        return r;
}
