/* SPDX-License-Identifier: MIT */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (16 * 1024)

struct chunk {
        struct chunk *prev;
        size_t size, used;
        alignas(max_align_t) unsigned char data[];
};

struct arena {
        struct chunk *head;
        size_t used, reserved;
};

struct arena *arena_new(void)
{
        return calloc(1, sizeof(struct arena));
}

struct arena *arena_free(struct arena *a)
{
        if (!a)
                return NULL;
        for (struct chunk *c = a->head, *p; c; c = p) {
                p = c->prev;
                free(c);
        }
        free(a);
        return NULL;
}

static void *alloc_aligned(struct arena *a, size_t size, size_t align)
{
        struct chunk *c = a->head;
        size_t pad = c ? (align - (c->used & (align - 1))) & (align - 1) : 0;
        if (!c || c->size - c->used < size + pad) {
                /* big requests get a chunk of their own, behind the current one */
                size_t cap = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;
                struct chunk *n = malloc(sizeof(*n) + cap);
                if (!n)
                        return NULL;
                n->size = cap;
                n->used = 0;
                a->reserved += cap;
                if (c && cap != CHUNK_SIZE) {
                        n->prev = c->prev;
                        c->prev = n;
                } else {
                        n->prev = c;
                        a->head = n;
                }
                c = n;
                pad = 0;
        }
        c->used += pad;
        void *p = c->data + c->used;
        c->used += size;
        a->used += size + pad;
        return p;
}

void *arena_alloc(struct arena *a, size_t size)
{
        return alloc_aligned(a, size ? size : 1, alignof(max_align_t));
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
        void *d = arena_alloc(a, n);
        if (d && n)
                memcpy(d, p, n);
        return d;
}

char *arena_strdup(struct arena *a, const char *s)
{
        size_t n = strlen(s) + 1;
        char *d = alloc_aligned(a, n, 1); /* strings need no alignment */
        if (d)
                memcpy(d, s, n);
        return d;
}

size_t arena_used(const struct arena *a)
{
        return a->used;
}

size_t arena_reserved(const struct arena *a)
{
        return a->reserved;
}
