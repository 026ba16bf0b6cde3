/* SPDX-License-Identifier: MIT */
#include "strfmt.h"

#include <errno.h>
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

char *strfmt_int(char buf[static STRFMT_UINT_MAX], int64_t v)
{
        if (v >= 0)
                return strfmt_uint(buf, (uint64_t)v);
        /* the magnitude of INT64_MIN has 19 digits: room for the sign is left */
        char *q = strfmt_uint(buf, -(uint64_t)v);
        *--q = '-';
        return q;
}

char *strfmt_hex_escape(char *out, unsigned char c)
{
        static const char hex[] = "0123456789abcdef";
        *out++ = '\\';
        *out++ = 'x';
        *out++ = hex[c >> 4];
        *out++ = hex[c & 15];
        return out;
}

/* The length of first and of the strings after it, up to the NULL that ends the list. */
static size_t list_len(const char *first, va_list ap)
{
        size_t len = 0;
        for (const char *s = first; s; s = va_arg(ap, const char *))
                len += strlen(s);
        return len;
}

/* Copies the same strings to p and NUL-terminates them. */
static void list_copy(char *p, const char *first, va_list ap)
{
        for (const char *s = first; s; s = va_arg(ap, const char *)) {
                size_t l = strlen(s);
                memcpy(p, s, l);
                p += l;
        }
        *p = '\0';
}

int strfmt_parse_uint(const char *s, unsigned base, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;
        if (!s || !*s || (base != 8 && base != 10))
                return -EINVAL;
        for (; *s; s++) {
                unsigned d = (unsigned char)*s - '0';
                if (d >= base)
                        return -EINVAL;
                if (d > max || v > (max - d) / base)
                        return -ERANGE;
                v = v * base + d;
        }
        *ret = v;
        return 0;
}

int strfmt_parse_int(const char *s, int64_t min, int64_t max, int64_t *ret)
{
        bool negative = s && s[0] == '-';
        uint64_t magnitude;
        int r = strfmt_parse_uint(negative ? s + 1 : s, 10, negative ? (uint64_t)-(min + 1) + 1 : (uint64_t)max,
                                  &magnitude);
        if (r < 0)
                return r;
        *ret = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
        return 0;
}

char *strfmt_concat(const char *first, ...)
{
        va_list ap;
        va_start(ap, first);
        size_t len = list_len(first, ap);
        va_end(ap);

        char *r = malloc(len + 1);
        if (!r)
                return NULL;
        va_start(ap, first);
        list_copy(r, first, ap);
        va_end(ap);
        return r;
}

void strfmt_buf_append(struct strfmt_buf *b, const char *first, ...)
{
        va_list ap;
        if (b->failed)
                return;
        va_start(ap, first);
        size_t add = list_len(first, ap);
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
        va_start(ap, first);
        list_copy(b->s + b->len, first, ap);
        va_end(ap);
        b->len += add;
}
