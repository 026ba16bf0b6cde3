/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays: a pointer, its capacity in elements, and array_grow() to make room.
 */
#pragma once

#include <errno.h>
#include <stdlib.h>

/* Makes *p hold at least need elements of elem bytes, doubling the capacity *alloc (from 16)
 * so repeated appends cost amortised constant time. 0, or -ENOMEM with *p unchanged. */
static inline int array_grow(void **p, size_t *alloc, size_t need, size_t elem)
{
        if (need <= *alloc)
                return 0;
        size_t n = *alloc ? *alloc : 16;
        while (n < need)
                n *= 2;
        void *q = reallocarray(*p, n, elem);
        if (!q)
                return -ENOMEM;
        *p = q;
        *alloc = n;
        return 0;
}
