/* SPDX-License-Identifier: MIT */
/*
 * An open-addressing hash map (linear probing, backward-shift deletion) from a key to a
 * value pointer. The map owns neither keys nor values: a key usually points into the value
 * it indexes (a device's devpath, say), so it lives exactly as long as the entry.
 *
 * The table grows at a load factor of 3/4 and shrinks when removal leaves it 1/8 full.
 *
 * Keys are strings (hashmap_new_string) or integers stored in the pointer itself
 * (hashmap_new_uint, key = (const void *)(uintptr_t)n).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap;

struct hashmap_iter {
        size_t pos;
};
#define HASHMAP_ITER_INIT ((struct hashmap_iter){0})

struct hashmap *hashmap_new_string(void);
struct hashmap *hashmap_new_uint(void);
struct hashmap *hashmap_free(struct hashmap *m); /* frees the table only */

size_t hashmap_size(const struct hashmap *m);
void *hashmap_get(const struct hashmap *m, const void *key);
/* 0 on insert, -EEXIST when the key is present (nothing changed), -ENOMEM. */
int hashmap_put(struct hashmap *m, const void *key, void *value);
/* Inserts or replaces; returns the previous value through *old (may be NULL). */
int hashmap_replace(struct hashmap *m, const void *key, void *value, void **old);
/* Removes the key and returns its value, or NULL. */
void *hashmap_remove(struct hashmap *m, const void *key);
/* Rebuilds the table at the size its entries need (the size adding them one by one gives:
 * load factor at most 3/4, so never a larger table than the current one; no table when
 * empty). Removal already shrinks a table that lost most of its entries; this also undoes what
 * a storm of adds and removes left (a table between 1/8 and 1/2 full), so an idle daemon's
 * tables depend on what it holds, not on its history. 0 or -ENOMEM (the map is unchanged). */
int hashmap_compact(struct hashmap *m);
/* Number of slots of the table (memory accounting, tests). */
size_t hashmap_slots(const struct hashmap *m);
/* Iteration in table order; returns false at the end. The map must not be modified while
 * iterating (removal shifts entries): collect first, then remove. */
bool hashmap_iterate(const struct hashmap *m, struct hashmap_iter *it, const void **key, void **value);

uint64_t hash_string(const char *s);
