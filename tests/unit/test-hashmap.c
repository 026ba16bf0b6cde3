/* SPDX-License-Identifier: MIT */
#include <malloc.h>

#include "hashmap.h"
#include "macros.h"
#include "test-util.h"

static void test_string_keys(void)
{
        struct hashmap *m = hashmap_new_string();
        char keys[2000][16];

        for (int i = 0; i < 2000; i++) {
                snprintf(keys[i], sizeof(keys[i]), "/devices/%d", i);
                CHECK_INT(hashmap_put(m, keys[i], keys[i]), 0);
        }
        CHECK_INT(hashmap_put(m, keys[5], NULL), -EEXIST);
        CHECK_INT(hashmap_size(m), 2000);
        CHECK(hashmap_get(m, "/devices/1999") == keys[1999]);
        CHECK(hashmap_get(m, "/devices/2000") == NULL);
        for (int i = 0; i < 2000; i += 2)
                CHECK(hashmap_remove(m, keys[i]) == keys[i]);
        CHECK_INT(hashmap_size(m), 1000);
        int found = 0;
        for (int i = 0; i < 2000; i++)
                found += hashmap_get(m, keys[i]) != NULL;
        CHECK_INT(found, 1000);

        struct hashmap_iter it = HASHMAP_ITER_INIT;
        int n = 0;
        void *v;
        while (hashmap_iterate(m, &it, NULL, &v))
                n++;
        CHECK_INT(n, 1000);
        hashmap_free(m);
}

static void test_uint_keys(void)
{
        struct hashmap *m = hashmap_new_uint();
        int values[100];
        for (uintptr_t i = 0; i < 100; i++)
                CHECK_INT(hashmap_put(m, (const void *)i, &values[i]), 0);
        CHECK(hashmap_get(m, (const void *)(uintptr_t)0) == &values[0]);
        void *old = NULL;
        CHECK_INT(hashmap_replace(m, (const void *)(uintptr_t)7, &values[8], &old), 0);
        CHECK(old == &values[7]);
        CHECK(hashmap_remove(m, (const void *)(uintptr_t)0) == &values[0]);
        CHECK(hashmap_get(m, (const void *)(uintptr_t)0) == NULL);
        CHECK_INT(hashmap_size(m), 99);
        hashmap_free(m);
}

/* A storm of adds and removes must not leave its peak-sized table behind. */
static void test_shrink(void)
{
        struct hashmap *m = hashmap_new_uint();
        CHECK_INT(hashmap_slots(m), 0);
        for (uintptr_t i = 1; i <= 100; i++)
                CHECK_INT(hashmap_put(m, (const void *)i, (void *)i), 0);
        size_t before = hashmap_slots(m);
        CHECK_INT(before, 256); /* 100 entries at a load of at most 3/4 */
        for (uintptr_t i = 1000; i < 5000; i++)
                CHECK_INT(hashmap_put(m, (const void *)i, (void *)i), 0);
        CHECK(hashmap_slots(m) >= 4096);
        /* removal shrinks as the table empties; every remaining entry stays reachable */
        for (uintptr_t i = 1000; i < 5000; i++) {
                CHECK(hashmap_remove(m, (const void *)i) == (void *)i);
                if (i % 500 == 0)
                        for (uintptr_t k = 1; k <= 100; k++)
                                CHECK(hashmap_get(m, (const void *)k) == (void *)k);
        }
        CHECK_INT(hashmap_size(m), 100);
        CHECK(hashmap_slots(m) <= 1024);
        /* compaction: the size 100 entries need, whatever the history */
        CHECK_INT(hashmap_compact(m), 0);
        CHECK_INT(hashmap_slots(m), 256);
        for (uintptr_t k = 1; k <= 100; k++)
                CHECK(hashmap_get(m, (const void *)k) == (void *)k);
        /* an empty map holds no table */
        for (uintptr_t k = 1; k <= 100; k++)
                CHECK(hashmap_remove(m, (const void *)k) == (void *)k);
        CHECK_INT(hashmap_slots(m), 0);
        CHECK(hashmap_get(m, (const void *)(uintptr_t)5) == NULL);
        CHECK_INT(hashmap_put(m, (const void *)(uintptr_t)5, (void *)(uintptr_t)5), 0);
        CHECK(hashmap_get(m, (const void *)(uintptr_t)5) == (void *)(uintptr_t)5);
        CHECK_INT(hashmap_compact(NULL), 0);
        /* a table grown by adds is never enlarged by compaction: 2457 entries (a loop-device
         * storm's model) fill 4096 slots at 60 %; compaction leaves them there */
        for (uintptr_t i = 10000; i < 10000 + 2456; i++)
                CHECK_INT(hashmap_put(m, (const void *)i, (void *)i), 0);
        CHECK_INT(hashmap_size(m), 2457);
        CHECK_INT(hashmap_slots(m), 4096);
        CHECK_INT(hashmap_compact(m), 0);
        CHECK_INT(hashmap_slots(m), 4096);
        hashmap_free(m);
}

/* A large table is a mapping of its own, not heap memory: a table that grows in a storm and
 * shrinks after it must not leave the heap fragmented. 1000 entries take 2048 slots (48 KiB),
 * below glibc's own mmap threshold. */
static void test_large_table_off_heap(void)
{
        struct hashmap *m = hashmap_new_uint();
        size_t heap_before = mallinfo2().uordblks;
        for (uintptr_t i = 1; i <= 1000; i++)
                CHECK_INT(hashmap_put(m, (const void *)i, (void *)i), 0);
        CHECK_INT(hashmap_slots(m), 2048);
        CHECK(mallinfo2().uordblks < heap_before + 16 * 1024);
        for (uintptr_t i = 1; i <= 1000; i++)
                CHECK(hashmap_get(m, (const void *)i) == (void *)i);
        for (uintptr_t i = 1; i <= 990; i++)
                CHECK(hashmap_remove(m, (const void *)i) == (void *)i);
        CHECK(hashmap_slots(m) <= 32);
        CHECK(hashmap_get(m, (const void *)(uintptr_t)995) == (void *)(uintptr_t)995);
        hashmap_free(m);
}

TEST_MAIN(TEST(test_string_keys), TEST(test_uint_keys), TEST(test_shrink), TEST(test_large_table_off_heap))
