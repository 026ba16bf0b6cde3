/* SPDX-License-Identifier: MIT */
#include "props.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"
#include "strfmt.h"

void props_clear(struct props *p)
{
        free(p->buf);
        *p = PROPS_INIT;
}

int props_copy(struct props *dst, const struct props *src)
{
        struct props n = PROPS_INIT;
        if (src->len > 0) {
                n.buf = malloc(src->len);
                if (!n.buf)
                        return -ENOMEM;
                memcpy(n.buf, src->buf, src->len);
                n.len = n.cap = src->len;
                n.n = src->n;
                memcpy(n.keys, src->keys, sizeof(n.keys));
        }
        props_clear(dst);
        *dst = n;
        return 0;
}

void props_shrink(struct props *p)
{
        if (p->len == 0) {
                props_clear(p);
                return;
        }
        if (p->cap - p->len < 32) /* not worth a realloc */
                return;
        char *b = realloc(p->buf, p->len);
        if (!b)
                return; /* keeps the larger buffer */
        p->buf = b;
        p->cap = p->len;
}

size_t props_key_len(const char *entry)
{
        const char *eq = strchr(entry, '=');
        return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The key's bit in struct props' keys (0..127): a hash of its length and of its last and middle
 * bytes (the bytes that differ most among "ID_..." keys). Computed for every get and set, so it
 * reads two bytes rather than the whole key. */
static unsigned key_slot(const char *key, size_t keylen)
{
        if (keylen == 0)
                return 0;
        uint32_t h = (uint32_t)keylen * 0x9e3779b1u ^ (unsigned char)key[keylen - 1] * 0x85ebca77u ^
                     (unsigned char)key[keylen / 2] * 0xc2b2ae3du;
        return h >> 25;
}

static bool slot_set(const struct props *p, unsigned slot)
{
        return p->keys[slot >> 6] & (UINT64_C(1) << (slot & 63));
}

static void slot_add(struct props *p, unsigned slot)
{
        p->keys[slot >> 6] |= UINT64_C(1) << (slot & 63);
}

unsigned props_key_slot(const char *key, size_t keylen)
{
        return key_slot(key, keylen);
}

bool props_slot_may_exist(const struct props *p, unsigned slot)
{
        return slot < 128 && slot_set(p, slot);
}

/* Each entry: flags byte, length byte, "KEY=VALUE", NUL. The length byte holds the length of
 * "KEY=VALUE" when it is below ENTRY_LONG (nearly always), so a scan steps over entries without
 * strlen(); ENTRY_LONG means "measure it". */
#define ENTRY_HDR 2
#define ENTRY_LONG 255u

static size_t entry_len(const struct props *p, size_t off)
{
        unsigned l = (unsigned char)p->buf[off + 1];
        return l < ENTRY_LONG ? l : strlen(p->buf + off + ENTRY_HDR);
}

/* Bytes the entry at off occupies, header and NUL included. */
static size_t entry_size(const struct props *p, size_t off)
{
        return ENTRY_HDR + entry_len(p, off) + 1;
}

/* Offset of the entry (its flags byte) for key, whose key_slot() is slot, or -1. */
static ssize_t find_slot(const struct props *p, const char *key, size_t keylen, unsigned slot)
{
        size_t off = 0;
        if (!slot_set(p, slot))
                return -1;
        while (off < p->len) {
                const char *e = p->buf + off + ENTRY_HDR;
                size_t elen = entry_len(p, off);
                /* the '=' at keylen first: most entries fail there without a compare; keys of
                 * the same length often share a prefix ("ID_"), rarely their last byte */
                if (elen > keylen && e[keylen] == '=' && e[keylen - 1] == key[keylen - 1] &&
                    memcmp(e, key, keylen) == 0)
                        return (ssize_t)off;
                off += ENTRY_HDR + elen + 1;
        }
        return -1;
}

static ssize_t find(const struct props *p, const char *key, size_t keylen)
{
        return find_slot(p, key, keylen, key_slot(key, keylen));
}

const char *props_get(const struct props *p, const char *key)
{
        size_t keylen = strlen(key);
        ssize_t off = find(p, key, keylen);
        return off < 0 ? NULL : p->buf + off + ENTRY_HDR + keylen + 1;
}

static void remove_at(struct props *p, size_t off)
{
        size_t elen = entry_size(p, off);
        memmove(p->buf + off, p->buf + off + elen, p->len - off - elen);
        p->len -= elen;
        p->n--;
}

int props_unset(struct props *p, const char *key)
{
        ssize_t off = find(p, key, strlen(key));
        if (off < 0)
                return 0;
        remove_at(p, (size_t)off);
        return 1;
}

void props_unset_flagged(struct props *p, unsigned flags)
{
        size_t off = 0;
        /* Most calls have nothing to remove (PROP_GLOBAL, set only through the control socket,
         * is cleared for every event): the flags bytes tell, stepping over entries by their
         * length bytes, and the key filter then stays as it is. */
        while (off < p->len && !((unsigned char)p->buf[off] & flags))
                off += entry_size(p, off);
        if (off >= p->len)
                return;
        off = 0;
        p->keys[0] = p->keys[1] = 0; /* rebuilt from what stays: the bits of removed keys go */
        while (off < p->len) {
                if ((unsigned char)p->buf[off] & flags)
                        remove_at(p, off);
                else {
                        const char *e = p->buf + off + ENTRY_HDR;
                        slot_add(p, key_slot(e, props_key_len(e)));
                        off += entry_size(p, off);
                }
        }
}

static bool points_into(const struct props *p, const char *s)
{
        return p->buf && s >= p->buf && s < p->buf + p->cap;
}

/* New room for at least bytes more, or -ENOMEM (also beyond struct props' 32-bit sizes). */
static int grow(struct props *p, size_t bytes)
{
        size_t cap = p->cap ? p->cap : 64;
        while (cap < (size_t)p->len + bytes)
                cap *= 2;
        if (cap > UINT32_MAX)
                return -ENOMEM;
        char *b = realloc(p->buf, cap);
        if (!b)
                return -ENOMEM;
        p->buf = b;
        p->cap = (uint32_t)cap;
        return 0;
}

static int append_slot(struct props *p, const char *key, size_t keylen, unsigned slot, const char *value, size_t vlen,
                       unsigned flags)
{
        size_t elen = keylen + 1 + vlen, need = ENTRY_HDR + elen + 1;
        if ((size_t)p->len + need > p->cap) {
                int r = grow(p, need);
                if (r < 0)
                        return r;
        }
        char *e = p->buf + p->len;
        e[0] = (char)flags;
        e[1] = (char)(elen < ENTRY_LONG ? elen : ENTRY_LONG);
        memcpy(e + ENTRY_HDR, key, keylen);
        e[ENTRY_HDR + keylen] = '=';
        memcpy(e + ENTRY_HDR + keylen + 1, value, vlen + 1);
        slot_add(p, slot);
        p->len += (uint32_t)need;
        p->n++;
        return 0;
}

/* props_set() for the first keylen bytes of key, a key already checked to be valid. */
static int set_n(struct props *p, const char *key, size_t keylen, const char *value, unsigned flags)
{
        /* A key or value taken from this very set (props_get) moves when the buffer is
         * reallocated or an entry removed: work on copies then. */
        if (points_into(p, key) || (value && points_into(p, value))) {
                _cleanup_free_ char *k = strndup(key, keylen), *v = value ? strdup(value) : NULL;
                if (!k || (value && !v))
                        return -ENOMEM;
                return set_n(p, k, keylen, v, flags);
        }
        unsigned slot = key_slot(key, keylen);
        ssize_t off = find_slot(p, key, keylen, slot);
        size_t vlen = value ? strlen(value) : 0;
        if (off >= 0) {
                const char *old = p->buf + off + ENTRY_HDR + keylen + 1;
                if (value && entry_len(p, (size_t)off) == keylen + 1 + vlen && memcmp(old, value, vlen) == 0) {
                        p->buf[off] = (char)flags;
                        return 0;
                }
                remove_at(p, (size_t)off);
        }
        if (!value)
                return 0;
        return append_slot(p, key, keylen, slot, value, vlen, flags);
}

int props_set(struct props *p, const char *key, const char *value, unsigned flags)
{
        size_t keylen = strlen(key);
        if (keylen == 0 || memchr(key, '=', keylen))
                return -EINVAL;
        return set_n(p, key, keylen, value, flags);
}

int props_set_n(struct props *p, const char *key, size_t keylen, const char *value, unsigned flags)
{
        if (keylen == 0 || memchr(key, '=', keylen) || memchr(key, '\0', keylen))
                return -EINVAL;
        return set_n(p, key, keylen, value, flags);
}

int props_reserve(struct props *p, size_t bytes)
{
        if (p->cap - p->len >= bytes)
                return 0;
        if (bytes > UINT32_MAX - p->len)
                return -ENOMEM;
        char *b = realloc(p->buf, p->len + bytes);
        if (!b)
                return -ENOMEM;
        p->buf = b;
        p->cap = (uint32_t)(p->len + bytes);
        return 0;
}

int props_append(struct props *p, const char *key, size_t keylen, const char *value, unsigned flags)
{
        return append_slot(p, key, keylen, key_slot(key, keylen), value, strlen(value), flags);
}

int props_set_uint(struct props *p, const char *key, uint64_t value, unsigned flags)
{
        char buf[STRFMT_UINT_MAX];
        return props_set(p, key, strfmt_uint(buf, value), flags);
}

int props_setf(struct props *p, const char *key, unsigned flags, const char *fmt, ...)
{
        _cleanup_free_ char *v = NULL;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&v, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return props_set(p, key, v, flags);
}

size_t props_text_size(const struct props *p)
{
        return p->len - (size_t)p->n * ENTRY_HDR;
}

bool props_next(const struct props *p, size_t *it, const char **entry, unsigned *flags)
{
        if (*it >= p->len)
                return false;
        if (flags)
                *flags = (unsigned char)p->buf[*it];
        *entry = p->buf + *it + ENTRY_HDR;
        *it += entry_size(p, *it);
        return true;
}

int props_merge(struct props *dst, const struct props *src, unsigned flags, bool (*skip)(const char *entry))
{
        size_t it = 0;
        const char *entry;
        while (props_next(src, &it, &entry, NULL)) {
                if (skip && skip(entry))
                        continue;
                size_t kl = props_key_len(entry);
                /* src's entries are valid keys; set_n() copies them when src is dst */
                int r = set_n(dst, entry, kl, entry + kl + 1, flags);
                if (r < 0)
                        return r;
        }
        return 0;
}
