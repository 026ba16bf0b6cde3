/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator for data that lives and dies together (the compiled rules): many small
 * strings and arrays in a few large chunks, without per-allocation overhead. Nothing is freed
 * individually; arena_free() releases everything.
 */
#pragma once

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
struct arena *arena_free(struct arena *a); /* returns NULL */

/* size bytes aligned for any object; NULL on ENOMEM. */
void *arena_alloc(struct arena *a, size_t size);
/* Copies of n bytes / a string; NULL on ENOMEM. */
void *arena_memdup(struct arena *a, const void *p, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* Bytes handed out, and bytes reserved from malloc (for memory accounting). */
size_t arena_used(const struct arena *a);
size_t arena_reserved(const struct arena *a);
