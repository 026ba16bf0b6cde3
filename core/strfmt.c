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
