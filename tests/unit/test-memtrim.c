/* SPDX-License-Identifier: MIT */
/* memtrim_idle() must leave the process working: code, relocated read-only data (RELRO),
 * writable data and the heap keep their contents after trimming. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrim.h"
#include "strv.h"
#include "test-util.h"

static const char *const table[] = {"alpha", "beta", "gamma", NULL}; /* relocated pointers: RELRO */
static int counter = 41;

static void test_trim_keeps_everything(void)
{
        char *heap = strdup("heap contents");
        int r = memtrim_idle();
        CHECK(r > 0); /* at least the code of this program and libc */
        /* everything still works afterwards */
        CHECK_STR(table[1], "beta");
        CHECK_INT(++counter, 42);
        CHECK_STR(heap, "heap contents");
        char **l = NULL;
        CHECK_INT(strv_push_copy(&l, table[2]), 0);
        CHECK_STR(l[0], "gamma");
        strv_free(l);
        free(heap);
        CHECK(memtrim_idle() > 0); /* and again */
        CHECK_STR(table[0], "alpha");
}

/* The allocator settings take: no fastbin holds freed small chunks, and a large buffer is a
 * mapping of its own (returned on free), whatever was freed before. */
static void test_configure(void)
{
#if defined(__SANITIZE_ADDRESS__)
        /* AddressSanitizer's allocator replaces glibc's: its settings do not apply (the normal
         * build checks them) */
        printf("# allocator replaced by AddressSanitizer: glibc's settings not checked\n");
        return;
#endif
        CHECK_INT(memtrim_configure(), 0);
        enum { N = 4096 };
        char **v = calloc(N, sizeof(char *));
        CHECK(v);
        for (size_t i = 0; i < N; i++) {
                v[i] = malloc(16 + i % 96);
                CHECK(v[i]);
                memset(v[i], 1, 16 + i % 96);
        }
        for (size_t i = 0; i < N; i++)
                free(v[i]);
        free(v);
        CHECK_INT(mallinfo2().fsmblks, 0);

        for (int round = 0; round < 2; round++) { /* the 2nd time too: the threshold is fixed */
                size_t mapped = mallinfo2().hblkhd;
                char *big = malloc(256 * 1024);
                CHECK(big);
                memset(big, 2, 256 * 1024);
                CHECK(mallinfo2().hblkhd >= mapped + 256 * 1024);
                free(big);
                CHECK_INT(mallinfo2().hblkhd, mapped);
        }
        CHECK(memtrim_idle() > 0);
}

/* The tunable is recognised in the environment, and an exec is skipped when it is there. */
static void test_tuned(void)
{
        CHECK_INT(setenv("GLIBC_TUNABLES", "glibc.malloc.check=0:" MEMTRIM_TUNABLE, 1), 0);
        CHECK(memtrim_tuned());
        char *argv[] = {(char *)"/nonexistent", NULL};
        CHECK_INT(memtrim_exec_tuned(argv), 0); /* returns: nothing to do */
        CHECK_INT(setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=3", 1), 0);
        CHECK(memtrim_tuned()); /* the user's own setting wins */
        CHECK_INT(unsetenv("GLIBC_TUNABLES"), 0);
        CHECK(!memtrim_tuned());
}

static long stack_rss_kib(void)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        char line[512];
        bool in_stack = false;
        long kib = -1;
        while (f && fgets(line, sizeof(line), f)) {
                unsigned long a, b;
                if (sscanf(line, "%lx-%lx ", &a, &b) == 2) /* a mapping's first line */
                        in_stack = strstr(line, "[stack]") != NULL;
                else if (in_stack && sscanf(line, "Rss: %ld kB", &kib) == 1)
                        in_stack = false;
        }
        if (f)
                fclose(f);
        return kib;
}

/* Touches about 1 MiB of stack below the caller, then returns: those pages stay resident. */
static __attribute__((noinline)) int deep(int depth)
{
        volatile char block[16 * 1024];
        memset((char *)block, depth, sizeof(block));
        return depth > 0 ? deep(depth - 1) + block[100] : block[100];
}

/* Pages deeper than the trimming frame go; the frames above it keep their contents. */
static void test_trim_stack(void)
{
        char mine[4096];
        memset(mine, 'x', sizeof(mine));
        CHECK(deep(64) >= 0);
        long before = stack_rss_kib();
        CHECK(memtrim_idle() > 0);
        long after = stack_rss_kib();
        CHECK(before >= 1024);
        CHECK(after >= 0 && after <= before - 512);
        CHECK(mine[0] == 'x' && mine[4095] == 'x');
        CHECK(deep(8) >= 0); /* the dropped pages come back as needed */
}

TEST_MAIN(TEST(test_trim_keeps_everything), TEST(test_configure), TEST(test_tuned), TEST(test_trim_stack))
