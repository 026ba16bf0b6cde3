/* SPDX-License-Identifier: MIT */
/*
 * The cross-architecture hwdb test's one program per architecture (tests/cross/files.py):
 *   hwdb-batch compile ROOT OUT    devman's compiler on ROOT's hwdb.d sources, written to OUT
 *   hwdb-batch query FILE          one modalias per line on stdin; for each, "> MODALIAS" and
 *                                  the "KEY=VALUE" lines devman's reader gives from FILE
 * One process for thousands of lookups: under qemu-user, starting a program costs more than
 * the lookups themselves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdb-compile.h"
#include "hwdb.h"

static int query(const char *file)
{
        struct hwdb *h = NULL;
        char *line = NULL;
        size_t alloc = 0;
        ssize_t n;
        int r = hwdb_open(NULL, file, &h);
        if (r < 0) {
                fprintf(stderr, "hwdb-batch: %s: %s\n", file, strerror(-r));
                return 1;
        }
        while ((n = getline(&line, &alloc, stdin)) >= 0) {
                if (n > 0 && line[n - 1] == '\n')
                        line[n - 1] = '\0';
                const struct hwdb_property *p;
                r = hwdb_lookup(h, line, &p);
                if (r < 0)
                        break;
                printf("> %s\n", line);
                for (int i = 0; i < r; i++)
                        printf("%s=%s\n", p[i].key, p[i].value);
        }
        free(line);
        hwdb_free(h);
        if (r < 0) {
                fprintf(stderr, "hwdb-batch: lookup: %s\n", strerror(-r));
                return 1;
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
        if (argc == 4 && strcmp(argv[1], "compile") == 0) {
                int r = hwdb_update(argv[2], argv[3], true);
                if (r < 0)
                        fprintf(stderr, "hwdb-batch: compile: %s\n", strerror(-r));
                return r < 0 ? 1 : 0;
        }
        if (argc == 3 && strcmp(argv[1], "query") == 0)
                return query(argv[2]);
        fprintf(stderr, "usage: hwdb-batch compile ROOT OUT | query FILE\n");
        return 2;
}
