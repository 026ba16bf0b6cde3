/* SPDX-License-Identifier: MIT */
#include "props.h"
#include "strv.h"
#include "test-util.h"

static void test_props(void)
{
        struct props p = PROPS_INIT;
        CHECK_INT(props_set(&p, "A", "1", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "B", "2", PROP_DB), 0);
        CHECK_INT(props_set(&p, "C", "", PROP_KERNEL), 0);
        CHECK_STR(props_get(&p, "A"), "1");
        CHECK_STR(props_get(&p, "C"), "");
        CHECK(props_get(&p, "AB") == NULL);
        CHECK_INT(props_set(&p, "A", "11", PROP_KERNEL), 0);
        CHECK_STR(props_get(&p, "A"), "11");
        CHECK_INT(p.n, 3);
        CHECK_INT(props_set(&p, "", "x", 0), -EINVAL);
        CHECK_INT(props_set(&p, "X=Y", "x", 0), -EINVAL);

        size_t it = 0;
        const char *e;
        unsigned flags, n = 0, db = 0;
        while (props_next(&p, &it, &e, &flags)) {
                n++;
                if (flags & PROP_DB) {
                        db++;
                        CHECK_STR(e, "B=2");
                }
        }
        CHECK_INT(n, 3);
        CHECK_INT(db, 1);

        struct props copy = PROPS_INIT;
        CHECK_INT(props_copy(&copy, &p), 0);
        props_unset_flagged(&p, PROP_KERNEL);
        CHECK_INT(p.n, 1);
        CHECK(props_get(&p, "A") == NULL);
        CHECK_STR(props_get(&copy, "A"), "11");
        CHECK_INT(props_unset(&copy, "A"), 1);
        CHECK_INT(props_unset(&copy, "A"), 0);
        CHECK_INT(props_set(&copy, "B", NULL, 0), 0);
        CHECK(props_get(&copy, "B") == NULL);
        CHECK_INT(props_setf(&copy, "N", PROP_DB, "%d:%d", 8, 1), 0);
        CHECK_STR(props_get(&copy, "N"), "8:1");
        props_clear(&p);
        props_clear(&copy);
}

static bool skip_b(const char *entry)
{
        return entry[0] == 'B';
}

static void test_merge(void)
{
        struct props a = PROPS_INIT, b = PROPS_INIT;
        CHECK_INT(props_set(&a, "A", "old", PROP_DB), 0);
        CHECK_INT(props_set(&b, "A", "new", 0), 0);
        CHECK_INT(props_set(&b, "B", "skipped", 0), 0);
        CHECK_INT(props_set(&b, "C", "3", 0), 0);
        CHECK_INT(props_merge(&a, &b, PROP_KERNEL, skip_b), 0);
        CHECK_STR(props_get(&a, "A"), "new");
        CHECK(props_get(&a, "B") == NULL);
        CHECK_STR(props_get(&a, "C"), "3");
        size_t it = 0;
        const char *e;
        unsigned flags, kernel = 0;
        while (props_next(&a, &it, &e, &flags))
                kernel += (flags & PROP_KERNEL) != 0;
        CHECK_INT(kernel, 2);
        props_clear(&a);
        props_clear(&b);
}

/* A value that lives in the set itself survives the set growing or shrinking. */
static void test_self_alias(void)
{
        struct props p = PROPS_INIT;
        CHECK_INT(props_set(&p, "A", "alpha", 0), 0);
        for (int i = 0; i < 50; i++) {
                char k[16];
                snprintf(k, sizeof(k), "K%d", i);
                CHECK_INT(props_set(&p, k, props_get(&p, "A"), 0), 0); /* grows: realloc */
        }
        CHECK_STR(props_get(&p, "K49"), "alpha");
        CHECK_INT(props_set(&p, "A", props_get(&p, "K3"), PROP_DB), 0); /* same value */
        CHECK_INT(props_set(&p, "K0", props_get(&p, "K1"), 0), 0);
        CHECK_INT(props_set(&p, "NEW", props_get(&p, "K49"), 0), 0);
        CHECK_STR(props_get(&p, "NEW"), "alpha");
        props_clear(&p);
}

/* Entries of any length: "KEY=VALUE" lengths around 255 (where an entry's stored length
 * gives way to measuring it) are found, stepped over, replaced, removed and iterated. */
static void test_long_entries(void)
{
        static const size_t lens[] = {0, 1, 250, 251, 252, 253, 254, 255, 256, 300, 5000};
        struct props p = PROPS_INIT;
        char key[16];
        for (size_t i = 0; i < ELEMENTSOF(lens); i++) {
                char *v = malloc(lens[i] + 1);
                CHECK(v != NULL);
                memset(v, 'a' + (int)i, lens[i]);
                v[lens[i]] = '\0';
                snprintf(key, sizeof(key), "K%zu", i); /* "K<i>=" is 3 or 4 bytes */
                CHECK_INT(props_set(&p, key, v, 0), 0);
                free(v);
        }
        CHECK_INT(props_set(&p, "LAST", "z", PROP_DB), 0);
        for (size_t i = 0; i < ELEMENTSOF(lens); i++) {
                snprintf(key, sizeof(key), "K%zu", i);
                const char *v = props_get(&p, key);
                CHECK(v != NULL);
                CHECK_INT(strlen(v), lens[i]);
                CHECK(lens[i] == 0 || (v[0] == 'a' + (int)i && v[lens[i] - 1] == 'a' + (int)i));
        }
        CHECK_STR(props_get(&p, "LAST"), "z");

        size_t it = 0, n = 0;
        const char *e;
        unsigned flags;
        while (props_next(&p, &it, &e, &flags)) {
                if (n < ELEMENTSOF(lens)) {
                        snprintf(key, sizeof(key), "K%zu=", n);
                        CHECK(strncmp(e, key, strlen(key)) == 0);
                        CHECK_INT(strlen(e), strlen(key) + lens[n]);
                } else
                        CHECK_STR(e, "LAST=z");
                n++;
        }
        CHECK_INT(n, ELEMENTSOF(lens) + 1);
        size_t text = 0;
        it = 0;
        while (props_next(&p, &it, &e, NULL))
                text += strlen(e) + 1;
        CHECK_INT(props_text_size(&p), text);

        /* the same value again only changes the flags; a shorter one replaces a long one */
        CHECK_INT(props_set(&p, "K9", props_get(&p, "K9"), PROP_DB), 0);
        CHECK_INT(strlen(props_get(&p, "K9")), 300);
        CHECK_INT(props_set(&p, "K10", "short", 0), 0);
        CHECK_STR(props_get(&p, "K10"), "short");
        CHECK_INT(props_unset(&p, "K7"), 1);
        CHECK(props_get(&p, "K7") == NULL);
        CHECK_INT(strlen(props_get(&p, "K8")), 256);
        unsigned n_before = p.n;
        props_unset_flagged(&p, PROP_GLOBAL); /* none has it (long ones stepped over): no change */
        CHECK_INT(p.n, n_before);
        CHECK_INT(strlen(props_get(&p, "K8")), 256);
        CHECK_STR(props_get(&p, "K10"), "short");
        props_unset_flagged(&p, PROP_DB); /* K9 and LAST */
        CHECK(props_get(&p, "K9") == NULL);
        CHECK(props_get(&p, "LAST") == NULL);
        CHECK_INT(strlen(props_get(&p, "K6")), 254);
        CHECK_STR(props_get(&p, "K10"), "short");
        CHECK_INT(p.n, ELEMENTSOF(lens) - 2);
        text = 0;
        for (size_t i = 0; i < ELEMENTSOF(lens); i++)
                if (i != 7 && i != 9)
                        text += (i < 10 ? 3 : 4) + (i == 10 ? 5 : lens[i]) + 1; /* "Ki=" or "K10=", value, NUL */
        CHECK_INT(props_text_size(&p), text);

        struct props copy = PROPS_INIT;
        CHECK_INT(props_merge(&copy, &p, PROP_KERNEL, NULL), 0);
        CHECK_INT(copy.n, p.n);
        CHECK_INT(strlen(props_get(&copy, "K8")), 256);
        CHECK_INT(props_merge(&copy, &copy, 0, NULL), 0); /* onto itself: values unchanged */
        CHECK_INT(copy.n, p.n);
        CHECK_INT(strlen(props_get(&copy, "K5")), 253);
        props_clear(&copy);
        props_clear(&p);
}

/* props_set_n() takes the key from a longer string; props_reserve() makes room once. */
static void test_set_n_reserve(void)
{
        struct props p = PROPS_INIT;
        const char *line = "DEVNAME=loop7";
        CHECK_INT(props_reserve(&p, 100), 0);
        CHECK(p.cap >= 100);
        char *buf = p.buf;
        CHECK_INT(props_set_n(&p, line, 7, line + 8, PROP_KERNEL), 0);
        CHECK_STR(props_get(&p, "DEVNAME"), "loop7");
        CHECK(props_get(&p, "DEVNAME=loop7") == NULL);
        CHECK_INT(props_set_n(&p, "MAJOR=7", 5, "7", PROP_KERNEL), 0);
        CHECK_INT(props_set_n(&p, "MAJORX", 5, "8", PROP_KERNEL), 0); /* same key: replaced */
        CHECK_STR(props_get(&p, "MAJOR"), "8");
        CHECK_INT(p.n, 2);
        CHECK(p.buf == buf); /* 2 entries of 3 + 13 and 3 + 7 bytes fit the reserved 100 */
        CHECK_INT(props_set_n(&p, "A=B", 3, "x", 0), -EINVAL);
        CHECK_INT(props_set_n(&p, "", 0, "x", 0), -EINVAL);
        CHECK_INT(props_set_n(&p, "A\0B", 3, "x", 0), -EINVAL);
        CHECK_INT(props_reserve(&p, 0), 0);
        CHECK_INT(props_reserve(&p, 4096), 0);
        CHECK(p.cap - p.len >= 4096);
        CHECK_STR(props_get(&p, "DEVNAME"), "loop7");
        props_clear(&p);
}

static void test_strv(void)
{
        char **l = NULL;
        CHECK_INT(strv_add_unique(&l, "b"), 1);
        CHECK_INT(strv_add_unique(&l, "a"), 1);
        CHECK_INT(strv_add_unique(&l, "b"), 0);
        CHECK_INT(strv_length(l), 2);
        strv_sort(l);
        char *j = strv_join(l, "/dev/", " ");
        CHECK_STR(j, "/dev/a /dev/b");
        free(j);
        CHECK_INT(strv_remove(l, "a"), 1);
        CHECK_INT(strv_length(l), 1);
        strv_free(l);
        CHECK_INT(strv_split("  x y\tz ", " \t", &l), 0);
        CHECK_INT(strv_length(l), 3);
        CHECK_STR(l[2], "z");
        strv_free(l);
}

/* Shrinking keeps every entry and leaves no growth room; later changes still work. */
static void test_shrink(void)
{
        struct props p = PROPS_INIT;
        CHECK_INT(props_set(&p, "DEVNAME", "loop7", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "ID_FS_TYPE", "ext4", PROP_DB), 0);
        CHECK_INT(props_set(&p, "LONG", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0), 0);
        CHECK_INT(props_set(&p, "LONG", NULL, 0), 0); /* leaves room behind */
        CHECK(p.cap > p.len);
        size_t len = p.len;
        props_shrink(&p);
        CHECK_INT(p.cap, len);
        CHECK_INT(p.len, len);
        CHECK_INT(p.n, 2);
        CHECK_STR(props_get(&p, "DEVNAME"), "loop7");
        CHECK_STR(props_get(&p, "ID_FS_TYPE"), "ext4");
        CHECK_INT(props_set(&p, "MORE", "1", 0), 0);
        CHECK_STR(props_get(&p, "MORE"), "1");
        CHECK_INT(props_unset(&p, "DEVNAME"), 1); /* 1: it was there */
        CHECK_INT(props_unset(&p, "ID_FS_TYPE"), 1);
        CHECK_INT(props_unset(&p, "MORE"), 1);
        props_shrink(&p); /* empty: no buffer at all */
        CHECK(p.buf == NULL);
        CHECK_INT(p.cap, 0);
        props_clear(&p);
}

static void test_numbers_and_append(void)
{
        struct props p = PROPS_INIT;
        CHECK_INT(props_set_uint(&p, "Z", 0, PROP_KERNEL), 0);
        CHECK_INT(props_set_uint(&p, "BIG", UINT64_MAX, PROP_KERNEL), 0);
        CHECK_INT(props_set_uint(&p, "Z", 259, PROP_DB), 0);
        CHECK_STR(props_get(&p, "Z"), "259");
        CHECK_STR(props_get(&p, "BIG"), "18446744073709551615");
        CHECK_INT(props_append(&p, "KEYxxx", 3, "v", PROP_KERNEL), 0);
        CHECK_STR(props_get(&p, "KEY"), "v");
        CHECK(props_get(&p, "KEYxxx") == NULL);
        CHECK_INT((int)p.n, 3);
        /* a key that is a prefix of another is not found in it */
        CHECK(props_get(&p, "B") == NULL && props_get(&p, "BI") == NULL);
        props_unset_flagged(&p, PROP_DB);
        CHECK(props_get(&p, "Z") == NULL);
        CHECK_STR(props_get(&p, "BIG"), "18446744073709551615");
        CHECK_STR(props_get(&p, "KEY"), "v");
        CHECK_INT(props_set(&p, "Z", "again", PROP_DB), 0);
        CHECK_STR(props_get(&p, "Z"), "again");
        struct props q = PROPS_INIT;
        CHECK_INT(props_copy(&q, &p), 0);
        CHECK_STR(props_get(&q, "KEY"), "v");
        props_clear(&q);
        props_clear(&p);
}

TEST_MAIN(TEST(test_props), TEST(test_merge), TEST(test_self_alias), TEST(test_strv), TEST(test_numbers_and_append),
          TEST(test_shrink), TEST(test_long_entries),
          TEST(test_set_n_reserve))
