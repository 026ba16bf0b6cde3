/* SPDX-License-Identifier: MIT */
/*
 * String lists (core/base/strv.h): the NULL-terminated list helpers, and the builder that grows a
 * list of every device's path in O(1) per entry.
 */
#include <stdlib.h>

#include "strv.h"
#include "test-util.h"

static void test_push_and_unique(void)
{
        _cleanup_strv_free_ char **l = NULL;
        CHECK_INT(strv_length(l), 0);
        CHECK_INT(strv_push_copy(&l, "b"), 0);
        CHECK_INT(strv_push_copy(&l, "a"), 0);
        CHECK_INT(strv_add_unique(&l, "b"), 0);
        CHECK_INT(strv_add_unique(&l, "c"), 1);
        CHECK_INT(strv_length(l), 3);
        strv_sort(l);
        _cleanup_free_ char *joined = strv_join(l, NULL, ",");
        CHECK_STR(joined, "a,b,c");
        CHECK_INT(strv_remove(l, "b"), 1);
        CHECK_INT(strv_length(l), 2);
        CHECK(!strv_contains(l, "b"));
}

static void test_builder(void)
{
        _cleanup_strv_builder_ struct strv_builder b = {0};
        char name[32];
        /* many entries, as a class directory of a large machine has: order and count kept */
        for (int i = 0; i < 5000; i++) {
                snprintf(name, sizeof(name), "dev%d", i);
                CHECK_INT(strv_builder_push_copy(&b, name), 0);
        }
        char *own = strdup("owned");
        CHECK_INT(strv_builder_push(&b, own), 0);
        CHECK_INT(b.n, 5001);
        CHECK(b.v[b.n] == NULL);
        CHECK_STR(b.v[0], "dev0");
        CHECK_STR(b.v[4999], "dev4999");
        CHECK(b.v[5000] == own);
        /* a failed strdup() passed on is reported, and the list stays as it was */
        CHECK_INT(strv_builder_push(&b, NULL), -ENOMEM);
        CHECK_INT(b.n, 5001);

        _cleanup_strv_free_ char **l = strv_builder_take(&b);
        CHECK(l != NULL);
        CHECK_INT(strv_length(l), 5001);
        CHECK(b.v == NULL && b.n == 0 && b.cap == 0);
}

static void test_builder_empty(void)
{
        struct strv_builder b = {0};
        /* nothing appended: an empty list, not NULL (NULL means out of memory) */
        _cleanup_strv_free_ char **l = strv_builder_take(&b);
        CHECK(l != NULL);
        CHECK_INT(strv_length(l), 0);
        strv_builder_done(&b); /* harmless after take() */
        CHECK(b.v == NULL);
}

static void test_env_get(void)
{
        char *env[] = {"PATH=/bin", "PATHX=no", "EMPTY=", "NOEQUALS", NULL};
        CHECK_STR(strv_env_get(env, "PATH"), "/bin");
        CHECK_STR(strv_env_get(env, "EMPTY"), "");
        CHECK(strv_env_get(env, "PAT") == NULL);      /* a prefix of a key is not the key */
        CHECK(strv_env_get(env, "NOEQUALS") == NULL); /* an entry without '=' holds no value */
        CHECK(strv_env_get(NULL, "PATH") == NULL);
}

TEST_MAIN(TEST(test_push_and_unique), TEST(test_builder), TEST(test_builder_empty), TEST(test_env_get))
