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

char *export_links_string(char *const *links, const char *dev_root)
{
        if (!links || !links[0])
                return NULL;
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

/* Emits key=<the list's string> (a new string, or NULL on ENOMEM). */
static int emit_list(export_emit_t emit, void *userdata, const char *key, size_t keylen, char *s)
{
        _cleanup_free_ char *owned = s;
        if (!s)
                return -ENOMEM;
        return emit(userdata, key, keylen, s, 0);
}

int export_each(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum, export_emit_t emit,
                void *userdata)
{
        const struct device_udev *u = d->udev;
        _cleanup_free_ char *devname = NULL;
        char num[STRFMT_UINT_MAX];
        const char *entry;
        bool had_devname = false;
        size_t it = 0;
        int r;

        if (action && (r = emit(userdata, "ACTION", 6, action, PROP_KERNEL)) < 0)
                return r;
        if (d->devname) {
                const char *sep = dev_root[0] && dev_root[strlen(dev_root) - 1] == '/' ? "" : "/";
                devname = strfmt_concat(dev_root, sep, d->devname, NULL);
                if (!devname)
                        return -ENOMEM;
        }
        while (props_next(&d->props, &it, &entry, NULL)) {
                size_t kl = props_key_len(entry);
                if (entry[0] == '.' || derived_key(entry, kl))
                        continue;
                /* the record's DEVNAME names the daemon's node root; clients get dev_root's */
                bool is_devname = kl == 7 && memcmp(entry, "DEVNAME", 7) == 0;
                had_devname = had_devname || is_devname;
                const char *value = devname && is_devname ? devname : entry + kl + 1;
                if ((r = emit(userdata, entry, kl, value, PROP_KERNEL)) < 0)
                        return r;
        }
        if (devname && !had_devname && (r = emit(userdata, "DEVNAME", 7, devname, PROP_KERNEL)) < 0)
                return r;
        if (seqnum > 0 && (r = emit(userdata, "SEQNUM", 6, strfmt_uint(num, seqnum), PROP_KERNEL)) < 0)
                return r;
        if (!u)
                return 0;
        if (u->usec_initialized > 0 &&
            (r = emit(userdata, "USEC_INITIALIZED", 16, strfmt_uint(num, u->usec_initialized), 0)) < 0)
                return r;
        if (u->links && u->links[0] && d->devnum_type &&
            (r = emit_list(emit, userdata, "DEVLINKS", 8, export_links_string(u->links, dev_root))) < 0)
                return r;
        if (u->tags && u->tags[0] && (r = emit_list(emit, userdata, "TAGS", 4, export_tags_string(u->tags))) < 0)
                return r;
        if (u->current_tags && u->current_tags[0] &&
            (r = emit_list(emit, userdata, "CURRENT_TAGS", 12, export_tags_string(u->current_tags))) < 0)
                return r;
        return 0;
}

static int emit_append(void *userdata, const char *key, size_t keylen, const char *value, unsigned flags)
{
        /* keys are unique: the record's are, and export_each() skips those it adds itself */
        return props_append(userdata, key, keylen, value, flags);
}

int export_properties(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum,
                      struct props *ret)
{
        struct props p = PROPS_INIT;
        props_clear(ret);
        /* the record's entries and a few more: room for all of them in one allocation */
        int r = props_reserve(&p, d->props.len + 128);
        if (r >= 0)
                r = export_each(d, dev_root, action, seqnum, emit_append, &p);
        if (r < 0) {
                props_clear(&p);
                return r;
        }
        *ret = p;
        return 0;
}
