/* SPDX-License-Identifier: MIT */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test-tmpdir.h"

char *test_tmpdir_new(const char *tag)
{
        const char *base = getenv("TMPDIR");
        char *path;

        if (asprintf(&path, "%s/devman-%s.XXXXXX", base && *base ? base : "/tmp", tag) < 0)
                abort();
        if (!mkdtemp(path)) {
                perror("mkdtemp");
                abort();
        }
        return path;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)ftw;
        if (flag == FTW_DP)
                rmdir(path);
        else
                unlink(path);
        return 0;
}

char *test_tmpdir_remove(char *path)
{
        if (path)
                nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        free(path);
        return NULL;
}
