/* SPDX-License-Identifier: MIT */
/* Replays a corpus through a fuzz target without libFuzzer (the gcc build, ASan/UBSan,
 * valgrind): every file named, or every file in each directory named, is one input.
 * Prints how many inputs ran; fails when there were none (an empty corpus tests nothing). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
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
        /* an exact-size copy, so ASan sees reads past the input's end */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact) {
                free(buf);
                return -ENOMEM;
        }
        memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned long n = 0, failed = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "%s: %m\n", argv[i]);
                        failed++;
                        continue;
                }
                if (!S_ISDIR(st.st_mode)) {
                        replay_file(argv[i]) < 0 ? failed++ : n++;
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
                                replay_file(path) < 0 ? failed++ : n++;
                                free(path);
                        }
                        free(names[j]);
                }
                free(names);
        }
        printf("%lu inputs replayed, %lu unreadable\n", n, failed);
        return n > 0 && failed == 0 ? 0 : 1;
}
