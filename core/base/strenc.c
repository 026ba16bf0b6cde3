/* SPDX-License-Identifier: MIT */
#include "strenc.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strfmt.h"

bool strenc_char_allowed(char c, const char *extra)
{
        if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
                return true;
        if (c != '\0' && strchr("#+-.:=@_", c))
                return true;
        return c != '\0' && extra && strchr(extra, c);
}

/* The length a sequence starting with lead byte c claims (1–4), or 0 for a continuation byte
 * or a lead byte of the obsolete 5- and 6-byte forms (never valid below U+110000). */
static int utf8_claimed_len(unsigned char c)
{
        if (c < 0x80)
                return 1;
        if ((c & 0xe0) == 0xc0)
                return 2;
        if ((c & 0xf0) == 0xe0)
                return 3;
        if ((c & 0xf8) == 0xf0)
                return 4;
        return 0;
}

/* The length of the shortest encoding of code point cp. */
static int utf8_shortest_len(uint32_t cp)
{
        if (cp < 0x80)
                return 1;
        if (cp < 0x800)
                return 2;
        if (cp < 0x10000)
                return 3;
        return 4;
}

int strenc_utf8_char_len(const char *s, unsigned flags)
{
        const unsigned char *u = (const unsigned char *)s;
        int len = utf8_claimed_len(u[0]);

        if (len == 0)
                return -EINVAL;
        if (len == 1)
                return 1;

        uint32_t cp = u[0] & (0x7f >> len);
        for (int i = 1; i < len; i++) {
                if ((u[i] & 0xc0) != 0x80) /* a NUL fails this too, so we never read past it */
                        return -EINVAL;
                cp = (cp << 6) | (u[i] & 0x3f);
        }
        if (utf8_shortest_len(cp) != len)
                return -EINVAL;
        if (cp >= 0x110000 || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xfdd0 && cp <= 0xfdef) ||
            (cp & 0xffff) == 0xffff)
                return -EINVAL;
        if ((cp & 0xffff) == 0xfffe && !(flags & STRENC_UTF8_BLKID))
                return -EINVAL;
        return len;
}

char *strenc_encode_devnode(const char *s, unsigned flags)
{
        size_t n = strlen(s);
        char *out = malloc(n * 4 + 1), *o = out;
        if (!out)
                return NULL;

        for (size_t i = 0; i < n;) {
                int l = strenc_utf8_char_len(s + i, flags);
                if (l > 1) {
                        memcpy(o, s + i, (size_t)l);
                        o += l;
                        i += (size_t)l;
                } else if (s[i] == '\\' || !strenc_char_allowed(s[i], NULL))
                        o = strfmt_hex_escape(o, (unsigned char)s[i++]);
                else
                        *o++ = s[i++];
        }
        *o = '\0';
        return out;
}

char *strenc_replace_whitespace(const char *s, size_t max)
{
        size_t n = strnlen(s, max);
        char *out = malloc(n + 1);
        size_t i = 0, j = 0;
        bool pending = false;

        if (!out)
                return NULL;
        while (i < n && isspace((unsigned char)s[i]))
                i++;
        for (; i < n && j < max; i++) {
                if (isspace((unsigned char)s[i])) {
                        pending = true;
                        continue;
                }
                if (pending) {
                        if (j + 1 >= max)
                                break;
                        out[j++] = '_';
                        pending = false;
                }
                out[j++] = s[i];
        }
        out[j] = '\0';
        return out;
}

size_t strenc_replace_chars(char *s, const char *allow)
{
        size_t replaced = 0;

        for (size_t i = 0; s[i];) {
                if (strenc_char_allowed(s[i], allow)) {
                        i++;
                        continue;
                }
                if (s[i] == '\\' && s[i + 1] == 'x') {
                        i += 2;
                        continue;
                }
                int l = strenc_utf8_char_len(s + i, 0);
                if (l > 1) {
                        i += (size_t)l;
                        continue;
                }
                if (isspace((unsigned char)s[i]) && allow && strchr(allow, ' '))
                        s[i] = ' ';
                else
                        s[i] = '_';
                i++;
                replaced++;
        }
        return replaced;
}

char *strenc_strip_newline(char *s)
{
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
                s[--n] = '\0';
        return s;
}
