/* SPDX-License-Identifier: MIT */
/* memtrim_idle() must leave the process working: code, relocated read-only data (RELRO),
 * writable data and the heap keep their contents after trimming. */
#include <stdlib.h>

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

TEST_MAIN(TEST(test_trim_keeps_everything))
