/* SPDX-License-Identifier: MIT */
#include "memtrim.h"

#include <malloc.h>
#include <stdio.h>
#include <sys/mman.h>

#include "macros.h"

/* Requests of this size and more get mappings of their own (returned to the kernel on free);
 * the top of the heap is given back once this much of it is free. Fixed values also stop
 * glibc from raising the mmap threshold after the first large free, which would put later
 * large buffers on the heap for good. */
#define LARGE_REQUEST (64 * 1024)

int memtrim_configure(void)
{
        /* fastbins keep small free chunks apart from the free lists until a consolidation:
         * with none, a freed chunk merges with its neighbours at once */
        if (mallopt(M_MXFAST, 0) != 1 || mallopt(M_TRIM_THRESHOLD, LARGE_REQUEST) != 1 ||
            mallopt(M_MMAP_THRESHOLD, LARGE_REQUEST) != 1)
                return -EINVAL;
        return 0;
}

bool memtrim_tuned(void)
{
        const char *t = getenv("GLIBC_TUNABLES");
        return t && strstr(t, "glibc.malloc.tcache_count");
}

int memtrim_exec_tuned(char **argv)
{
        if (memtrim_tuned())
                return 0;
        const char *preload = getenv("LD_PRELOAD");
        if (preload && strstr(preload, "vgpreload"))
                return 0; /* valgrind: exec would run the program without it */

        const char *old = getenv("GLIBC_TUNABLES");
        _cleanup_free_ char *saved = old ? strdup(old) : NULL, *value = NULL;
        if ((old && !saved) || asprintf(&value, "%s%s%s", strempty(old), isempty(old) ? "" : ":", MEMTRIM_TUNABLE) < 0)
                return -ENOMEM;
        if (setenv("GLIBC_TUNABLES", value, 1) < 0)
                return negative_errno();
        execv("/proc/self/exe", argv);
        int r = negative_errno();
        if (saved)
                (void)setenv("GLIBC_TUNABLES", saved, 1);
        else
                (void)unsetenv("GLIBC_TUNABLES");
        return r;
}

struct range {
        unsigned long start, end;
};

struct ranges {
        struct range *v;
        size_t n, cap;
};

static int ranges_add(struct ranges *r, unsigned long start, unsigned long end)
{
        if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 64;
                struct range *v = reallocarray(r->v, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                r->v = v;
                r->cap = cap;
        }
        r->v[r->n++] = (struct range){start, end};
        return 0;
}

/* How much of the stack below the caller's frame stays: the frames of the calls that drop
 * the rest (madvise() itself) live there. */
#define STACK_KEEP (64 * 1024)

/* Collects the mappings whose pages can be dropped: file-backed and not writable, and either
 * shared or private without a private copy of any page (relocated RELRO data is read-only
 * too, but its pages differ from the file and must stay); and the part of the stack deeper
 * than STACK_KEEP below stack_now, which no live frame uses (a deep call during a storm would
 * otherwise keep its pages resident for good). */
static int collect(struct ranges *out, unsigned long stack_now)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/smaps", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        unsigned long start = 0, end = 0;
        bool pending = false, shared = false;

        if (!f)
                return negative_errno();
        while (getline(&line, &cap, f) > 0) {
                unsigned long s, e, inode, kb;
                char perms[5];
                int path_off = 0;
                /* a mapping: "start-end perms offset dev inode path" */
                if (sscanf(line, "%lx-%lx %4s %*x %*x:%*x %lu %n", &s, &e, perms, &inode, &path_off) >= 4) {
                        if (startswith(line + path_off, "[stack]") && stack_now >= s && stack_now < e &&
                            stack_now - s > STACK_KEEP) {
                                unsigned long limit = (stack_now - STACK_KEEP) & ~4095UL;
                                if (limit > s && ranges_add(out, s, limit) < 0)
                                        return -ENOMEM;
                        }
                        pending = inode != 0 && perms[1] != 'w' && !strstr(line + path_off, "[v");
                        shared = perms[3] == 's';
                        start = s;
                        end = e;
                        continue;
                }
                /* "Anonymous:" closes the fields we need for the current mapping */
                if (pending && sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
                        pending = false;
                        if ((shared || kb == 0) && ranges_add(out, start, end) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

int memtrim_idle(void)
{
        struct ranges r = {0};
        int n = 0;

        int k = collect(&r, (unsigned long)__builtin_frame_address(0));
        malloc_trim(0); /* after collect(): its buffers are free again */
        /* No library call between the drops but madvise() itself: code that runs after its
         * mapping was dropped faults it back in (and the kernel maps a whole fault-around
         * window, 64 KiB, each time). */
        for (size_t i = 0; k >= 0 && i < r.n; i++)
                if (madvise((void *)r.v[i].start, r.v[i].end - r.v[i].start, MADV_DONTNEED) == 0)
                        n++;
        free(r.v);
        return k < 0 ? k : n;
}
