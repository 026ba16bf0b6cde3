/* SPDX-License-Identifier: MIT */
#include "hwdb-oracle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
        perror(what);
        exit(99);
}

void strlist_add(struct strlist *l, const char *s)
{
        if (l->n + 1 > l->alloc) {
                l->alloc = l->alloc ? 2 * l->alloc : 256;
                l->v = realloc(l->v, l->alloc * sizeof(*l->v));
                if (!l->v)
                        die("realloc");
        }
        l->v[l->n] = strdup(s);
        if (!l->v[l->n])
                die("strdup");
        l->n++;
}

void strlist_done(struct strlist *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        *l = (struct strlist){0};
}

char *render_devman(struct hwdb *h, const char *modalias)
{
        const struct hwdb_property *p;
        char *buf = NULL;
        size_t len = 0;
        int n = hwdb_lookup(h, modalias, &p);
        if (n < 0)
                return NULL;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                die("open_memstream");
        for (int i = 0; i < n; i++)
                fprintf(f, "%s=%s\n", p[i].key, p[i].value);
        fclose(f);
        return buf;
}

char *render_systemd(sd_hwdb *h, const char *modalias)
{
        const char *key, *value;
        char *buf = NULL;
        size_t len = 0;
        if (sd_hwdb_seek(h, modalias) < 0)
                return NULL;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                die("open_memstream");
        while (sd_hwdb_enumerate(h, &key, &value) > 0)
                fprintf(f, "%s=%s\n", key, value);
        fclose(f);
        return buf;
}

/* Expands the glob pattern with one choice per wildcard kind. */
static void instantiate(struct strlist *out, const char *pat, const char *star, char question, bool last_of_set)
{
        size_t cap = strlen(pat) * (strlen(star) + 1) + 1;
        char *s = malloc(cap), *o = s;
        if (!s)
                die("malloc");
        for (const char *p = pat; *p; p++) {
                if (*p == '*') {
                        o = stpcpy(o, star);
                } else if (*p == '?') {
                        *o++ = question;
                } else if (*p == '[') {
                        const char *q = p + 1;
                        bool neg = *q == '!' || *q == '^';
                        if (neg)
                                q++;
                        const char *first = q;
                        if (*q == ']')
                                q++;
                        while (*q && *q != ']')
                                q++;
                        if (!*q) { /* no closing bracket: a literal '[' */
                                *o++ = '[';
                                continue;
                        }
                        if (neg)
                                *o++ = '~';
                        else
                                *o++ = last_of_set ? q[-1] : *first;
                        p = q;
                } else {
                        *o++ = *p;
                }
        }
        *o = '\0';
        strlist_add(out, s);
        free(s);
}

void modaliases_from_source(struct strlist *out, const char *path, unsigned keep)
{
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t alloc = 0;
        unsigned count = 0;

        if (!f)
                return;
        while (getline(&line, &alloc, f) > 0) {
                line[strcspn(line, "\r\n#")] = '\0';
                if (line[0] == '\0' || line[0] == ' ' || line[0] == '\t')
                        continue;
                if (count++ % keep != 0)
                        continue;
                instantiate(out, line, "", '0', false);
                instantiate(out, line, "a", 'A', true);
                instantiate(out, line, ":x*:", 'z', false);
                strlist_add(out, line);
        }
        free(line);
        fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

void modaliases_from_dir(struct strlist *out, const char *dir, unsigned keep)
{
        struct strlist names = {0};
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 5 && strcmp(de->d_name + l - 5, ".hwdb") == 0)
                        strlist_add(&names, de->d_name);
        }
        closedir(d);
        qsort(names.v, names.n, sizeof(*names.v), cmp_str);
        for (size_t i = 0; i < names.n; i++) {
                char *p;
                if (asprintf(&p, "%s/%s", dir, names.v[i]) < 0)
                        die("asprintf");
                modaliases_from_source(out, p, keep);
                free(p);
        }
        strlist_done(&names);
}

void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                die(path);
}

int copy_file(const char *from, const char *to)
{
        char buf[65536];
        int in = open(from, O_RDONLY | O_CLOEXEC), out;
        ssize_t n;

        if (in < 0)
                return -errno;
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0) {
                close(in);
                return -errno;
        }
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n) {
                        n = -1;
                        break;
                }
        close(in);
        if (close(out) < 0 || n < 0)
                return -EIO;
        return 0;
}

void mkdir_p(const char *path)
{
        char *p = strdup(path);
        if (!p)
                die("strdup");
        for (char *s = p + 1;; s++) {
                if (*s == '/' || *s == '\0') {
                        char c = *s;
                        *s = '\0';
                        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                                die(p);
                        if (!c)
                                break;
                        *s = c;
                }
        }
        free(p);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)ftw;
        if (flag == FTW_DP)
                return rmdir(path) < 0 ? -1 : 0;
        return unlink(path) < 0 ? -1 : 0;
}

void rm_rf_tmp(const char *path)
{
        if (strncmp(path, "/tmp/", 5) != 0 || strstr(path, ".."))
                return;
        (void)nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
