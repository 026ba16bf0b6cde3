/* SPDX-License-Identifier: MIT */
#include "cmdline.h"

#include <ctype.h>

#include "strv.h"

int cmdline_split(const char *s, char ***ret)
{
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        size_t n_words = 0;

        for (;;) {
                while (*s && isspace((unsigned char)*s))
                        s++;
                if (!*s)
                        break;

                _cleanup_free_ char *w = malloc(strlen(s) + 1);
                if (!w)
                        return -ENOMEM;
                size_t n = 0;
                while (*s && !isspace((unsigned char)*s)) {
                        if (*s == '\'' || *s == '"') {
                                char q = *s++;
                                const char *end = strchr(s, q);
                                if (!end)
                                        return -EINVAL;
                                memcpy(w + n, s, (size_t)(end - s));
                                n += (size_t)(end - s);
                                s = end + 1;
                        } else
                                w[n++] = *s++;
                }
                w[n] = '\0';
                char **nl = realloc(l, (n_words + 2) * sizeof(char *));
                if (!nl)
                        return -ENOMEM;
                l = nl;
                l[n_words++] = TAKE_PTR(w);
                l[n_words] = NULL;
        }
        *ret = TAKE_PTR(l);
        return 0;
}
