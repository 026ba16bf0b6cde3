/* SPDX-License-Identifier: MIT */
#include "memtrim.h"

#include <malloc.h>
#include <stdio.h>
#include <sys/mman.h>

#include "macros.h"

struct mapping {
        unsigned long start, end;
        bool candidate; /* private, not writable, file-backed */
};

/* Drops the mapping's pages if none of them is a private copy (relocated RELRO data is
 * read-only too, but its pages differ from the file and must stay). */
static int trim(const struct mapping *m, unsigned long anonymous_kb)
{
        if (!m->candidate || anonymous_kb > 0)
                return 0;
        return madvise((void *)m->start, m->end - m->start, MADV_DONTNEED) == 0 ? 1 : 0;
}

int memtrim_idle(void)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        struct mapping cur = {0};
        bool have = false;
        size_t cap = 0;
        int n = 0;

        malloc_trim(0);
        f = fopen("/proc/self/smaps", "re");
        if (!f)
                return negative_errno();
        while (getline(&line, &cap, f) > 0) {
                unsigned long start, end, inode, kb;
                char perms[5];
                int path_off = 0;
                /* a mapping: "start-end perms offset dev inode path" */
                if (sscanf(line, "%lx-%lx %4s %*x %*x:%*x %lu %n", &start, &end, perms, &inode, &path_off) >= 4) {
                        cur = (struct mapping){
                                .start = start,
                                .end = end,
                                .candidate = inode != 0 && perms[1] != 'w' && perms[3] == 'p' &&
                                             !strstr(line + path_off, "[v"),
                        };
                        have = true;
                        continue;
                }
                /* "Anonymous:" closes the fields we need for the current mapping */
                if (have && sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
                        n += trim(&cur, kb);
                        have = false;
                }
        }
        return n;
}
