/* SPDX-License-Identifier: MIT */
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

TEST_MAIN(TEST(test_string_keys), TEST(test_uint_keys))
