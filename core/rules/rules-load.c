/* SPDX-License-Identifier: MIT */
#include "rules-load.h"

#include <sys/stat.h>

#include "fs-util.h"
#include "hashmap.h"
#include "log.h"
#include "strv.h"

const char *const rules_default_dirs[] = {
        "/etc/udev/rules.d",
        "/run/udev/rules.d",
        "/usr/local/lib/udev/rules.d",
        "/usr/lib/udev/rules.d",
        "/lib/udev/rules.d",
        NULL,
};

struct candidate {
        char *name; /* basename, the key */
        char *path;
};

static int cmp_candidate(const void *a, const void *b)
{
        return strcmp(((const struct candidate *)a)->name, ((const struct candidate *)b)->name);
}

static bool has_rules_suffix(const char *n)
{
        size_t l = strlen(n);
        return l > 6 && streq(n + l - 6, ".rules") && n[0] != '.';
}

/* Adds the *.rules files of dir that no earlier directory provided. */
static int scan_dir(const char *dir, struct hashmap *seen, struct candidate **c, size_t *n)
{
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!has_rules_suffix(de->d_name) || hashmap_get(seen, de->d_name))
                        continue;
                struct candidate *nc = realloc(*c, (*n + 1) * sizeof(**c));
                if (!nc)
                        return -ENOMEM;
                *c = nc;
                char *name = strdup(de->d_name), *path = NULL;
                if (!name || asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        free(name);
                        return -ENOMEM;
                }
                (*c)[*n] = (struct candidate){.name = name, .path = path};
                int r = hashmap_put(seen, name, (void *)1);
                (*n)++;
                if (r < 0)
                        return r;
        }
        return 0;
}

static char *prefixed(const char *root, const char *dir)
{
        char *p;
        if (isempty(root))
                return strdup(dir);
        return asprintf(&p, "%s%s%s", root, dir[0] == '/' ? "" : "/", dir) < 0 ? NULL : p;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        return h;
}

static uint64_t stat_stamp(const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return 0x51a7; /* absent: a fixed value, so appearing changes the stamp */
        uint64_t h = mix(0, (uint64_t)st.st_ino);
        h = mix(h, (uint64_t)st.st_size);
        h = mix(h, (uint64_t)st.st_mtim.tv_sec);
        return mix(h, (uint64_t)st.st_mtim.tv_nsec);
}

static uint64_t compute_stamp(const struct rules *rules)
{
        uint64_t h = 0;
        for (char **d = rules->dirs; d && *d; d++)
                h = mix(h, stat_stamp(*d));
        for (size_t i = 0; i < rules->n_files; i++)
                h = mix(h, stat_stamp(rules->files[i].name));
        return h;
}

bool rules_changed_since_load(const struct rules *rules)
{
        return compute_stamp(rules) != rules->stamp;
}

static int load_one_file(struct rules *rules, const char *path)
{
        int r = rules_parse_file(rules, path);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_error("%s: failed to read rules file: %s", path, strerror(-r));
                rules->n_errors++;
        }
        return 0;
}

int rules_load(const struct rules_load_options *o, struct rules **ret)
{
        _cleanup_rules_free_ struct rules *rules = rules_new(o->resolve_names);
        struct candidate *c = NULL;
        size_t n = 0;
        struct hashmap *seen = hashmap_new_string();
        int r = 0;

        if (!rules || !seen) {
                r = -ENOMEM;
                goto finish;
        }

        const char *const *dirs = o->dirs ? (const char *const *)o->dirs : rules_default_dirs;
        for (size_t i = 0; dirs[i]; i++) {
                _cleanup_free_ char *d = prefixed(o->root, dirs[i]);
                if (!d || (r = strv_push_copy(&rules->dirs, d)) < 0) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = scan_dir(d, seen, &c, &n);
                if (r == -ENOMEM)
                        goto finish;
                if (r < 0) {
                        log_error("%s: cannot read rules directory: %s", d, strerror(-r));
                        rules->n_errors++;
                        r = 0;
                }
        }
        if (n > 0) /* qsort() must not get the NULL of an empty list */
                qsort(c, n, sizeof(*c), cmp_candidate);
        for (size_t i = 0; i < n; i++) {
                if (fs_is_masked(c[i].path)) {
                        log_debug("%s: masked, skipping", c[i].path);
                        continue;
                }
                if ((r = load_one_file(rules, c[i].path)) < 0)
                        goto finish;
        }

        /* extra files or directories named by the caller (devmanadm verify/test) */
        for (char *const *f = o->files; f && *f; f++) {
                struct stat st;
                if (stat(*f, &st) == 0 && S_ISDIR(st.st_mode)) {
                        struct candidate *dc = NULL;
                        size_t dn = 0;
                        struct hashmap *dseen = hashmap_new_string();
                        r = dseen ? scan_dir(*f, dseen, &dc, &dn) : -ENOMEM;
                        hashmap_free(dseen);
                        if (r >= 0) {
                                if (dn > 0)
                                        qsort(dc, dn, sizeof(*dc), cmp_candidate);
                                for (size_t i = 0; i < dn && r >= 0; i++)
                                        r = load_one_file(rules, dc[i].path);
                        }
                        for (size_t i = 0; i < dn; i++) {
                                free(dc[i].name);
                                free(dc[i].path);
                        }
                        free(dc);
                        if (r == -ENOMEM)
                                goto finish;
                        if (r < 0) {
                                log_error("%s: cannot read rules directory: %s", *f, strerror(-r));
                                rules->n_errors++;
                        }
                        r = strv_push_copy(&rules->dirs, *f);
                        if (r < 0)
                                goto finish;
                } else if ((r = load_one_file(rules, *f)) < 0)
                        goto finish;
        }

        if (rules->n_lines > 0 && rules->n_lines < rules->cap_lines) {
                struct rule_line *fit = realloc(rules->lines, rules->n_lines * sizeof(*fit));
                if (fit) {
                        rules->lines = fit;
                        rules->cap_lines = rules->n_lines;
                }
        }
        rules->stamp = compute_stamp(rules);
        r = (int)rules->n_errors;
        *ret = TAKE_PTR(rules);

finish:
        for (size_t i = 0; i < n; i++) {
                free(c[i].name);
                free(c[i].path);
        }
        free(c);
        hashmap_free(seen);
        return r;
}
