/* SPDX-License-Identifier: MIT */
/* The driver of every fuzz target without libFuzzer (the gcc build, ASan/UBSan, valgrind):
 *     replay-NAME [--mutations N] FILE|DIR...
 * Every file named, or every file in each directory named, is one input; with --mutations,
 * N deterministic mutations of each input (fuzz-mutate.c) run after it. Prints how many
 * inputs ran; fails when there were none (an empty corpus tests nothing). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Each input in a buffer of its exact size, so ASan sees reads past the input's end. */
static int run_exact(const uint8_t *data, size_t len)
{
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact)
                return -ENOMEM;
        memcpy(exact, data, len);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        return 0;
}

static int run_mutations(struct fuzz_rng *rng, const uint8_t *data, size_t len, unsigned long rounds)
{
        size_t cap = len * 2 + 64;
        uint8_t *m = malloc(cap);
        int r = 0;

        if (!m)
                return -ENOMEM;
        for (unsigned long i = 0; i < rounds && r == 0; i++)
                r = run_exact(m, fuzz_mutate(rng, data, len, m, cap));
        free(m);
        return r;
}

static int replay_file(const char *path, struct fuzz_rng *rng, unsigned long mutations)
{
        FILE *f = fopen(path, "re");
        if (!f) {
                fprintf(stderr, "%s: %m\n", path);
                return -errno;
        }
        size_t cap = 4096, len = 0;
        uint8_t *buf = malloc(cap);
        while (buf) {
                len += fread(buf + len, 1, cap - len, f);
                if (len < cap)
                        break;
                uint8_t *n = realloc(buf, cap * 2);
                if (!n) {
                        free(buf);
                        buf = NULL;
                        break;
                }
                buf = n;
                cap *= 2;
        }
        int err = ferror(f);
        fclose(f);
        if (!buf || err) {
                free(buf);
                fprintf(stderr, "%s: cannot read\n", path);
                return -EIO;
        }
        int r = run_exact(buf, len);
        if (r == 0)
                r = run_mutations(rng, buf, len, mutations);
        free(buf);
        return r;
}

int main(int argc, char **argv)
{
        unsigned long n = 0, failed = 0, mutations = 0;
        struct fuzz_rng rng = {FUZZ_RNG_SEED};
        int first = 1;

        if (argc > 2 && strcmp(argv[1], "--mutations") == 0) {
                char *end;
                errno = 0;
                mutations = strtoul(argv[2], &end, 10);
                if (errno || *end || !*argv[2]) {
                        fprintf(stderr, "--mutations: not a number: %s\n", argv[2]);
                        return 2;
                }
                first = 3;
        }
        for (int i = first; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "%s: %m\n", argv[i]);
                        failed++;
                        continue;
                }
                if (!S_ISDIR(st.st_mode)) {
                        replay_file(argv[i], &rng, mutations) < 0 ? failed++ : n++;
                        continue;
                }
                struct dirent **names = NULL;
                int k = scandir(argv[i], &names, NULL, alphasort);
                if (k < 0) {
                        fprintf(stderr, "%s: %m\n", argv[i]);
                        failed++;
                        continue;
                }
                for (int j = 0; j < k; j++) {
                        char *path = NULL;
                        if (names[j]->d_name[0] != '.' && asprintf(&path, "%s/%s", argv[i], names[j]->d_name) >= 0) {
                                replay_file(path, &rng, mutations) < 0 ? failed++ : n++;
                                free(path);
                        }
                        free(names[j]);
                }
                free(names);
        }
        printf("%lu inputs replayed, %lu mutations of each, %lu unreadable\n", n, mutations, failed);
        return n > 0 && failed == 0 ? 0 : 1;
}
