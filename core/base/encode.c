/* SPDX-License-Identifier: MIT */
#include "encode.h"

#include <ctype.h>

#include "macros.h"
#include "strenc.h"

int encode_blkid_safe_string(const char *s, char **ret)
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
                int n = strenc_utf8_char_len(p, STRENC_UTF8_BLKID);
                if (n >= 1) {
                        p += n;
                        continue;
                }
                *p++ = '_';
        }
        *ret = out;
        return 0;
}
