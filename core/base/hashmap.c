/* SPDX-License-Identifier: MIT */
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct entry {
        const void *key; /* NULL marks an empty slot (integer key 0 is stored as a separate flag) */
        void *value;
        uint32_t hash;
        bool used;
};

/* The smallest table: maps of a few entries stay one small allocation. */
#define MIN_SLOTS 16
/* Tables of this size and more get a mapping of their own. On the heap, a table that grew in
 * a storm and shrank after it lands somewhere else than before: it may straddle one more page,
 * or sit at the top of the heap and keep it from being trimmed. */
#define TABLE_MAPPED_BYTES (16 * 1024)

struct hashmap {
        struct entry *slots;
        size_t n_slots; /* power of two, or 0 */
        size_t n_items;
        bool string_keys;
};

uint64_t hash_string(const char *s)
{
        /* FNV-1a: small, good enough for paths and names. */
        uint64_t h = 0xcbf29ce484222325ULL;
        for (; *s; s++) {
                h ^= (unsigned char)*s;
                h *= 0x100000001b3ULL;
        }
        return h;
}

static uint32_t hash_key(const struct hashmap *m, const void *key)
{
        if (m->string_keys)
                return (uint32_t)hash_string(key);
        uint64_t x = (uint64_t)(uintptr_t)key;
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return (uint32_t)x;
}

static bool key_eq(const struct hashmap *m, const void *a, const void *b)
{
        return m->string_keys ? strcmp(a, b) == 0 : a == b;
}

static struct hashmap *hashmap_new(bool string_keys)
{
        struct hashmap *m = calloc(1, sizeof(*m));
        if (m)
                m->string_keys = string_keys;
        return m;
}

struct hashmap *hashmap_new_string(void)
{
        return hashmap_new(true);
}

struct hashmap *hashmap_new_uint(void)
{
        return hashmap_new(false);
}

/* A zeroed table of n slots (n > 0). */
static struct entry *table_new(size_t n)
{
        size_t bytes = n * sizeof(struct entry);
        if (bytes < TABLE_MAPPED_BYTES)
                return calloc(n, sizeof(struct entry));
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
}

static void table_free(struct entry *slots, size_t n)
{
        size_t bytes = n * sizeof(struct entry);
        if (bytes < TABLE_MAPPED_BYTES)
                free(slots);
        else if (slots)
                munmap(slots, bytes);
}

struct hashmap *hashmap_free(struct hashmap *m)
{
        if (m) {
                table_free(m->slots, m->n_slots);
                free(m);
        }
        return NULL;
}

size_t hashmap_slots(const struct hashmap *m)
{
        return m ? m->n_slots : 0;
}

size_t hashmap_size(const struct hashmap *m)
{
        return m ? m->n_items : 0;
}

static struct entry *find(const struct hashmap *m, const void *key, uint32_t h)
{
        if (m->n_slots == 0)
                return NULL;
        size_t mask = m->n_slots - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
                struct entry *e = &m->slots[i];
                if (!e->used)
                        return NULL;
                if (e->hash == h && key_eq(m, e->key, key))
                        return e;
        }
}

void *hashmap_get(const struct hashmap *m, const void *key)
{
        if (!m)
                return NULL;
        struct entry *e = find(m, key, hash_key(m, key));
        return e ? e->value : NULL;
}

static void insert_slot(struct entry *slots, size_t n_slots, const struct entry *src)
{
        size_t mask = n_slots - 1;
        size_t i = src->hash & mask;
        while (slots[i].used)
                i = (i + 1) & mask;
        slots[i] = *src;
}

/* Moves every entry into a table of n slots (a power of two, or 0 for none). */
static int resize(struct hashmap *m, size_t n)
{
        struct entry *slots = NULL;
        if (n > 0 && !(slots = table_new(n)))
                return -ENOMEM;
        for (size_t i = 0; i < m->n_slots; i++)
                if (m->slots[i].used)
                        insert_slot(slots, n, &m->slots[i]);
        table_free(m->slots, m->n_slots);
        m->slots = slots;
        m->n_slots = n;
        return 0;
}

static int grow(struct hashmap *m)
{
        /* Keep the load factor at most 3/4. */
        if ((m->n_items + 1) * 4 <= m->n_slots * 3)
                return 0;
        return resize(m, m->n_slots ? m->n_slots * 2 : MIN_SLOTS);
}

/* The smallest table (a power of two, MIN_SLOTS at least; 0 for no entries) that holds n
 * entries at a load of at most num/den. */
static size_t slots_for(size_t n, size_t num, size_t den)
{
        if (n == 0)
                return 0;
        size_t slots = MIN_SLOTS;
        while (slots * num < n * den)
                slots *= 2;
        return slots;
}

int hashmap_compact(struct hashmap *m)
{
        if (!m)
                return 0;
        /* Never larger than the table adding them made: a compaction at load 1/2 doubled a
         * table between 1/2 and 3/4 full, and the idle trim's peak became the daemon's. */
        size_t n = slots_for(m->n_items, 3, 4); /* the size grow() gives them, one by one */
        return n == m->n_slots ? 0 : resize(m, n);
}

/* A map that held many entries and lost most of them gives the table back: a storm of
 * devices must not leave its peak-sized tables behind. Shrinks at a load of 1/8 to a load of
 * at most 1/2, so adding and removing around one size never resizes back and forth. */
static void shrink(struct hashmap *m)
{
        if (m->n_items > 0 && (m->n_slots <= MIN_SLOTS || m->n_items * 8 > m->n_slots))
                return;
        (void)resize(m, slots_for(m->n_items, 1, 2)); /* out of memory: the larger table stays */
}

int hashmap_replace(struct hashmap *m, const void *key, void *value, void **old)
{
        uint32_t h = hash_key(m, key);
        struct entry *e = find(m, key, h);
        if (e) {
                if (old)
                        *old = e->value;
                e->key = key;
                e->value = value;
                return 0;
        }
        if (old)
                *old = NULL;
        int r = grow(m);
        if (r < 0)
                return r;
        insert_slot(m->slots, m->n_slots, &(struct entry){.key = key, .value = value, .hash = h, .used = true});
        m->n_items++;
        return 0;
}

int hashmap_put(struct hashmap *m, const void *key, void *value)
{
        if (find(m, key, hash_key(m, key)))
                return -EEXIST;
        return hashmap_replace(m, key, value, NULL);
}

void *hashmap_remove(struct hashmap *m, const void *key)
{
        if (!m)
                return NULL;
        struct entry *e = find(m, key, hash_key(m, key));
        if (!e)
                return NULL;
        void *value = e->value;
        size_t mask = m->n_slots - 1;
        size_t i = (size_t)(e - m->slots);
        /* Backward-shift deletion: pull later entries of the probe run into the hole. */
        for (size_t j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
                size_t home = m->slots[j].hash & mask;
                bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
                if (movable) {
                        m->slots[i] = m->slots[j];
                        i = j;
                }
        }
        memset(&m->slots[i], 0, sizeof(m->slots[i]));
        m->n_items--;
        shrink(m);
        return value;
}

bool hashmap_iterate(const struct hashmap *m, struct hashmap_iter *it, const void **key, void **value)
{
        if (!m)
                return false;
        for (; it->pos < m->n_slots; it->pos++) {
                struct entry *e = &m->slots[it->pos];
                if (e->used) {
                        if (key)
                                *key = e->key;
                        if (value)
                                *value = e->value;
                        it->pos++;
                        return true;
                }
        }
        return false;
}
