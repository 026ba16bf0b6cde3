/* SPDX-License-Identifier: MIT */
#include "encode.h"

#include <ctype.h>
#include <stdint.h>

#include "macros.h"
#include "strfmt.h"

static bool plain_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("#+-.:=@_", c) != NULL;
}

static int utf8_seq_len(unsigned char c)
{
        if (c < 0x80)
                return 1;
        if ((c & 0xe0) == 0xc0)
                return 2;
        if ((c & 0xf0) == 0xe0)
                return 3;
        if ((c & 0xf8) == 0xf0)
                return 4;
        return -1;
}

/* The length of the shortest encoding of code point u. */
static int utf8_min_len(uint32_t u)
{
        if (u < 0x80)
                return 1;
        if (u < 0x800)
                return 2;
        if (u < 0x10000)
                return 3;
        return 4;
}

int utf8_valid_char_len(const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        int n = utf8_seq_len(p[0]);
        if (n <= 1)
                return n;
        uint32_t u = p[0] & (0x7f >> n);
        for (int i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
                        return -1;
                u = (u << 6) | (p[i] & 0x3f);
        }
        if (utf8_min_len(u) != n)
                return -1;
        /* libblkid's range: no surrogates, no U+FDD0..U+FDEF, nothing ending in FFFF */
        if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff) || (u >= 0xfdd0 && u <= 0xfdef) || (u & 0xffff) == 0xffff)
                return -1;
        return n;
}

int encode_string(const char *s, char **ret)
{
        /* worst case: every byte becomes four */
        char *out = malloc(strlen(s) * 4 + 1);
        if (!out)
                return -ENOMEM;
        char *o = out;
        for (const char *p = s; *p;) {
                int n = utf8_valid_char_len(p);
                if (n > 1) {
                        memcpy(o, p, n);
                        o += n;
                        p += n;
                        continue;
                }
                if (*p == '\\' || !plain_char(*p))
                        o = strfmt_hex_escape(o, (unsigned char)*p);
                else
                        *o++ = *p;
                p++;
        }
        *o = '\0';
        *ret = out;
        return 0;
}

int encode_safe_string(const char *s, char **ret)
{
        size_t len = strlen(s);
        while (len > 0 && isspace((unsigned char)s[len - 1]))
                len--;
        size_t i = 0;
        while (i < len && isspace((unsigned char)s[i]))
                i++;

        char *out = malloc(len - i + 1);
        if (!out)
                return -ENOMEM;
        size_t j = 0;
        while (i < len) {
                if (isspace((unsigned char)s[i])) {
                        while (isspace((unsigned char)s[i]))
                                i++;
                        out[j++] = '_';
                        continue;
                }
                out[j++] = s[i++];
        }
        out[j] = '\0';

        /* ASCII stays as it is; of the rest only valid UTF-8 */
        for (char *p = out; *p;) {
                int n = utf8_valid_char_len(p);
                if (n >= 1) {
                        p += n;
                        continue;
                }
                *p++ = '_';
        }
        *ret = out;
        return 0;
}
