/* SPDX-License-Identifier: MIT */
#include "strfmt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *strfmt_uint(char buf[static STRFMT_UINT_MAX], uint64_t v)
{
        char *q = buf + STRFMT_UINT_MAX - 1;
        *q = '\0';
        do {
                *--q = (char)('0' + v % 10);
                v /= 10;
        } while (v > 0);
        return q;
}

char *strfmt_concat(const char *first, ...)
{
        va_list ap;
        size_t len = 0;
        va_start(ap, first);
        for (const char *s = first; s; s = va_arg(ap, const char *))
                len += strlen(s);
        va_end(ap);

        char *r = malloc(len + 1), *p = r;
        if (!r)
                return NULL;
        va_start(ap, first);
        for (const char *s = first; s; s = va_arg(ap, const char *)) {
                size_t l = strlen(s);
                memcpy(p, s, l);
                p += l;
        }
        va_end(ap);
        *p = '\0';
        return r;
}

void strfmt_buf_append(struct strfmt_buf *b, const char *first, ...)
{
        va_list ap;
        size_t add = 0;
        if (b->failed)
                return;
        va_start(ap, first);
        for (const char *s = first; s; s = va_arg(ap, const char *))
                add += strlen(s);
        va_end(ap);

        if (b->len + add + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 128;
                while (cap < b->len + add + 1)
                        cap *= 2;
                char *n = realloc(b->s, cap);
                if (!n) {
                        b->failed = true;
                        return;
                }
                b->s = n;
                b->cap = cap;
        }
        char *p = b->s + b->len;
        va_start(ap, first);
        for (const char *s = first; s; s = va_arg(ap, const char *)) {
                size_t l = strlen(s);
                memcpy(p, s, l);
                p += l;
        }
        va_end(ap);
        *p = '\0';
        b->len += add;
}
