/* SPDX-License-Identifier: MIT */
/*
 * Fuzzing the rules parser. LLVMFuzzerTestOneInput() is the libFuzzer entry point (build
 * with -DFUZZ_LIBFUZZER -fsanitize=fuzzer). Without it, main() replays: every file named on
 * the command line (directories: their files), then a fixed number of deterministic
 * mutations of each (byte flips, truncations, duplicated and spliced ranges, inserted
 * metacharacters). Run under ASan/UBSan this is the suite's robustness check.
 */
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

#include "log.h"
#include "rules-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct rules *rules = rules_new(RESOLVE_NAMES_NEVER);
        if (!rules)
                return 0;
        (void)rules_parse_buffer(rules, "fuzz.rules", (const char *)data, size);
        /* the compiled form must be self-consistent */
        for (size_t i = 0; i < rules->n_lines; i++) {
                const struct rule_line *l = &rules->lines[i];
                if ((l->flags & LINE_HAS_GOTO) && (l->goto_line <= i || l->goto_line >= rules->n_lines))
                        abort();
                for (unsigned k = 1; k < l->n_tokens; k++)
                        if (l->tokens[k - 1].type > l->tokens[k].type)
                                abort();
        }
        rules_free(rules);
        return 0;
}

#ifndef FUZZ_LIBFUZZER
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static void mutate_and_run(const char *buf, size_t len, unsigned rounds)
{
        static const char meta[] = "\"\\{}=!+-:,|*?[]%$#\n e";
        size_t cap = len * 2 + 64;
        char *m = malloc(cap);
        if (!m)
                abort();
        for (unsigned r = 0; r < rounds; r++) {
                size_t n = len;
                memcpy(m, buf, len);
                unsigned edits = 1 + next() % 8;
                for (unsigned e = 0; e < edits && n > 0; e++) {
                        size_t pos = next() % n;
                        switch (next() % 5) {
                        case 0:
                                m[pos] ^= (char)(1u << (next() % 8));
                                break;
                        case 1:
                                m[pos] = meta[next() % (sizeof(meta) - 1)];
                                break;
                        case 2:
                                n = pos;
                                break;
                        case 3: { /* duplicate a range */
                                size_t l = next() % 32;
                                if (pos + l > n)
                                        l = n - pos;
                                if (n + l <= cap) {
                                        memmove(m + pos + l, m + pos, n - pos);
                                        n += l;
                                }
                                break;
                        }
                        default: /* splice from elsewhere in the input */
                                if (len > 0) {
                                        size_t from = next() % len, l = next() % 16;
                                        if (from + l > len)
                                                l = len - from;
                                        if (pos + l > n)
                                                l = n - pos;
                                        memcpy(m + pos, buf + from, l);
                                }
                                break;
                        }
                }
                LLVMFuzzerTestOneInput((const uint8_t *)m, n);
        }
        free(m);
}

static int replay_file(const char *path, unsigned rounds)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        char chunk[4096];
        size_t k;
        while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, k, mem);
        fclose(f);
        fclose(mem);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
        mutate_and_run(buf, len, rounds);
        free(buf);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned rounds = 3000, files = 0;
        log_set_max_level(LOG_CRIT); /* the mutations are meant to be wrong */
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0)
                        continue;
                if (!S_ISDIR(st.st_mode)) {
                        files += replay_file(argv[i], rounds) == 0;
                        continue;
                }
                DIR *d = opendir(argv[i]);
                struct dirent *de;
                while (d && (de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        char *p;
                        if (asprintf(&p, "%s/%s", argv[i], de->d_name) < 0)
                                abort();
                        files += replay_file(p, rounds) == 0;
                        free(p);
                }
                if (d)
                        closedir(d);
        }
        printf("replayed %u files, %u mutations each\n", files, rounds);
        return files > 0 ? 0 : 1;
}
#endif
