/* SPDX-License-Identifier: MIT */
#include "strv.h"

#include <stdlib.h>
#include <string.h>

char **strv_free(char **l)
{
        if (l) {
                for (char **s = l; *s; s++)
                        free(*s);
                free(l);
        }
        return NULL;
}

size_t strv_length(char *const *l)
{
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

bool strv_contains(char *const *l, const char *s)
{
        STRV_FOREACH(i, l)
                if (streq(*i, s))
                        return true;
        return false;
}

const char *strv_env_get(char *const *env, const char *key)
{
        size_t n = strlen(key);
        STRV_FOREACH(e, env)
                if (strncmp(*e, key, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

int strv_push_copy(char ***l, const char *s)
{
        size_t n = strv_length(*l);
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        char **nl = realloc(*l, (n + 2) * sizeof(char *));
        if (!nl) {
                free(c);
                return -ENOMEM;
        }
        nl[n] = c;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

int strv_add_unique(char ***l, const char *s)
{
        if (strv_contains(*l, s))
                return 0;
        int r = strv_push_copy(l, s);
        return r < 0 ? r : 1;
}

int strv_remove(char **l, const char *s)
{
        int removed = 0;
        char **w = l;
        if (!l)
                return 0;
        for (char **r = l; *r; r++) {
                if (streq(*r, s)) {
                        free(*r);
                        removed++;
                } else
                        *w++ = *r;
        }
        *w = NULL;
        return removed;
}

int strv_copy(char *const *l, char ***ret)
{
        char **n = calloc(strv_length(l) + 1, sizeof(char *));
        if (!n)
                return -ENOMEM;
        size_t i = 0;
        STRV_FOREACH(s, l) {
                n[i] = strdup(*s);
                if (!n[i++]) {
                        strv_free(n);
                        return -ENOMEM;
                }
        }
        *ret = n;
        return 0;
}

int strv_builder_push(struct strv_builder *b, char *s)
{
        if (!s)
                return -ENOMEM;
        if (b->n + 2 > b->cap) {
                size_t cap = b->cap ? b->cap * 2 : 16;
                char **v = reallocarray(b->v, cap, sizeof(char *));
                if (!v) {
                        free(s);
                        return -ENOMEM;
                }
                b->v = v;
                b->cap = cap;
        }
        b->v[b->n++] = s;
        b->v[b->n] = NULL;
        return 0;
}

int strv_builder_push_copy(struct strv_builder *b, const char *s)
{
        return strv_builder_push(b, strdup(s));
}

char **strv_builder_take(struct strv_builder *b)
{
        char **v = b->v ? b->v : calloc(1, sizeof(char *));
        *b = (struct strv_builder){0};
        return v;
}

void strv_builder_done(struct strv_builder *b)
{
        strv_free(b->v);
        *b = (struct strv_builder){0};
}

static int cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **l)
{
        if (l)
                qsort(l, strv_length(l), sizeof(char *), cmp);
}

bool strv_equal(char *const *a, char *const *b)
{
        size_t n = strv_length(a);
        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

char *strv_join(char *const *l, const char *prefix, const char *sep)
{
        size_t len = 1, lp = prefix ? strlen(prefix) : 0, ls = strlen(sep);
        STRV_FOREACH(s, l)
                len += lp + strlen(*s) + ls;
        char *out = malloc(len), *p = out;
        if (!out)
                return NULL;
        *p = '\0';
        STRV_FOREACH(s, l) {
                if (s != l)
                        p = stpcpy(p, sep);
                if (prefix)
                        p = stpcpy(p, prefix);
                p = stpcpy(p, *s);
        }
        return out;
}

int strv_split(const char *s, const char *separators, char ***ret)
{
        char **l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        while (*s) {
                s += strspn(s, separators);
                size_t n = strcspn(s, separators);
                if (n == 0)
                        break;
                char *w = strndup(s, n);
                if (!w || strv_push_copy(&l, w) < 0) {
                        free(w);
                        strv_free(l);
                        return -ENOMEM;
                }
                free(w);
                s += n;
        }
        *ret = l;
        return 0;
}
