/* SPDX-License-Identifier: MIT */
/*
 * A device's property set: KEY=VALUE pairs in insertion order, packed in one buffer
 * ("<flags><length>KEY=VALUE\0" per entry; the length byte lets look-ups step over entries
 * without strlen) so that a record with a handful of properties costs one allocation. Each
 * entry carries flags saying where it came from: the kernel's uevent, or rules and builtins
 * (PROP_DB: written to the udev database as E: lines).
 *
 * Keys are non-empty and contain no '=' or NUL; values contain no NUL. A props struct is
 * embedded by value in its owner and released with props_clear().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
        PROP_KERNEL = 1 << 0, /* from the kernel's uevent (or the uevent file) */
        PROP_DB = 1 << 1,     /* set by rules or builtins: persisted in the database */
        PROP_GLOBAL = 1 << 2, /* set for every event through the control socket; not persisted */
};

struct props {
        char *buf;    /* entries, each: flags byte, length byte, "KEY=VALUE", NUL (props.c) */
        uint32_t len; /* bytes used */
        uint32_t cap;
        unsigned n;
        uint64_t keys[2]; /* one bit per key ever added (key_slot() in props.c): a clear bit proves
                           * a key absent, so most look-ups of missing keys skip the scan */
};

#define PROPS_INIT ((struct props){0})

void props_clear(struct props *p);
/* Deep copy; 0 or -ENOMEM. */
int props_copy(struct props *dst, const struct props *src);

/* Gives back the room the buffer grew beyond its entries (it grows by doubling): for a set
 * that is kept, like a device's after its event. */
void props_shrink(struct props *p);

/* A key's slot in the sets' key filter, for a key checked against many sets (a rule line's
 * pre-filter): props_slot_may_exist() false proves no key with that slot is in p. */
unsigned props_key_slot(const char *key, size_t keylen);
bool props_slot_may_exist(const struct props *p, unsigned slot);

/* The value of key, or NULL. The pointer is valid until the next change of the set. */
const char *props_get(const struct props *p, const char *key);
/* Sets (replacing any previous value and its flags); a NULL value removes the key.
 * 0, or -EINVAL for a bad key/value, -ENOMEM. */
int props_set(struct props *p, const char *key, const char *value, unsigned flags);
/* props_set() with the first keylen bytes of key as the key (no NUL needed after them). */
int props_set_n(struct props *p, const char *key, size_t keylen, const char *value, unsigned flags);
/* Makes room for bytes more bytes of entries (each takes 3 + strlen("KEY=VALUE")), so a set
 * built from a known input grows once. 0 or -ENOMEM. */
int props_reserve(struct props *p, size_t bytes);
/* props_set() with a decimal number as the value (no printf: set for every event). */
int props_set_uint(struct props *p, const char *key, uint64_t value, unsigned flags);
/* Adds key (its first keylen bytes, a valid key) with value, which the caller knows is not in
 * the set yet: no look-up (building a set from another one). key and value must not point
 * into p. 0 or -ENOMEM. */
int props_append(struct props *p, const char *key, size_t keylen, const char *value, unsigned flags);
int props_setf(struct props *p, const char *key, unsigned flags, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Removes key; returns 1 if it was present, 0 if not. */
int props_unset(struct props *p, const char *key);
/* Sets every entry of src in dst with the given flags (replacing values of the same keys),
 * except those for which skip(entry) is true (skip may be NULL). 0 or -ENOMEM. */
int props_merge(struct props *dst, const struct props *src, unsigned flags, bool (*skip)(const char *entry));

/* Removes every entry that has any of the given flags. */
void props_unset_flagged(struct props *p, unsigned flags);

/* Iteration: start with *it = 0; returns false at the end. *entry is "KEY=VALUE", *flags the
 * entry's flags. The set must not change during iteration. */
bool props_next(const struct props *p, size_t *it, const char **entry, unsigned *flags);

/* The bytes of all entries written as "KEY=VALUE\0" strings back to back (a wire message's
 * or an environment block's property part), without iterating. */
size_t props_text_size(const struct props *p);

/* Length of the key in an entry "KEY=VALUE". */
size_t props_key_len(const char *entry);
