/* SPDX-License-Identifier: MIT */
/*
 * The printf-free string helpers (core/base/strfmt.h) against snprintf's output, and the device ids
 * built with them (device_get_id()) in each of their forms.
 */
#include <inttypes.h>
#include <sys/sysmacros.h>

#include "device.h"
#include "strfmt.h"
#include "test-util.h"

static void test_uint(void)
{
        static const uint64_t values[] = {0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u, UINT64_MAX};
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                char buf[STRFMT_UINT_MAX], want[32];
                snprintf(want, sizeof(want), "%" PRIu64, values[i]);
                char *s = strfmt_uint(buf, values[i]);
                CHECK_STR(s, want);
                CHECK(s >= buf && s + strlen(s) < buf + sizeof(buf));
        }
}

static void test_int(void)
{
        static const int64_t values[] = {0, 1, -1, 9, -10, 100, -100, INT32_MIN, INT64_MAX, INT64_MIN};
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                char buf[STRFMT_UINT_MAX], want[32];
                snprintf(want, sizeof(want), "%" PRId64, values[i]);
                char *s = strfmt_int(buf, values[i]);
                CHECK_STR(s, want);
                CHECK(s >= buf && s + strlen(s) < buf + sizeof(buf));
        }
}

static void test_parse_uint(void)
{
        uint64_t v = 99;
        CHECK_INT(strfmt_parse_uint("0", 10, UINT64_MAX, &v), 0);
        CHECK_INT(v, 0);
        CHECK_INT(strfmt_parse_uint("761002", 10, (1u << 20) - 1, &v), 0);
        CHECK_INT(v, 761002);
        CHECK_INT(strfmt_parse_uint("18446744073709551615", 10, UINT64_MAX, &v), 0);
        CHECK(v == UINT64_MAX);
        CHECK_INT(strfmt_parse_uint("0660", 8, 07777, &v), 0);
        CHECK_INT(v, 0660);
        v = 7;
        /* what strtoull() would take in part or with a sign is refused, v untouched */
        static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "12a", "1.5"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                CHECK_INT(strfmt_parse_uint(bad[i], 10, UINT64_MAX, &v), -EINVAL);
        CHECK_INT(strfmt_parse_uint(NULL, 10, UINT64_MAX, &v), -EINVAL);
        CHECK_INT(strfmt_parse_uint("8", 8, 07777, &v), -EINVAL);
        CHECK_INT(v, 7);
        /* above max, and above what 64 bits hold */
        CHECK_INT(strfmt_parse_uint("4096", 10, 4095, &v), -ERANGE);
        CHECK_INT(strfmt_parse_uint("5", 10, 4, &v), -ERANGE);
        CHECK_INT(strfmt_parse_uint("18446744073709551616", 10, UINT64_MAX, &v), -ERANGE);
        CHECK_INT(strfmt_parse_uint("99999999999999999999999", 10, UINT64_MAX, &v), -ERANGE);
        CHECK_INT(v, 7);
}

static void test_parse_int(void)
{
        int64_t v = 99;
        CHECK_INT(strfmt_parse_int("-10", INT32_MIN, INT32_MAX, &v), 0);
        CHECK_INT(v, -10);
        CHECK_INT(strfmt_parse_int("2147483647", INT32_MIN, INT32_MAX, &v), 0);
        CHECK_INT(v, INT32_MAX);
        CHECK_INT(strfmt_parse_int("-2147483648", INT32_MIN, INT32_MAX, &v), 0);
        CHECK_INT(v, INT32_MIN);
        CHECK_INT(strfmt_parse_int("-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
        CHECK(v == INT64_MIN);
        v = 7;
        CHECK_INT(strfmt_parse_int("2147483648", INT32_MIN, INT32_MAX, &v), -ERANGE);
        CHECK_INT(strfmt_parse_int("-2147483649", INT32_MIN, INT32_MAX, &v), -ERANGE);
        CHECK_INT(strfmt_parse_int("-", INT32_MIN, INT32_MAX, &v), -EINVAL);
        CHECK_INT(strfmt_parse_int("--1", INT32_MIN, INT32_MAX, &v), -EINVAL);
        CHECK_INT(strfmt_parse_int("+1", INT32_MIN, INT32_MAX, &v), -EINVAL);
        CHECK_INT(v, 7);
}

static void test_hex_escape(void)
{
        char buf[8];
        char *end = strfmt_hex_escape(buf, '/');
        CHECK(end == buf + 4);
        *end = '\0';
        CHECK_STR(buf, "\\x2f");
        *strfmt_hex_escape(buf, 0xe9) = '\0';
        CHECK_STR(buf, "\\xe9");
        *strfmt_hex_escape(buf, 0x00) = '\0';
        CHECK_STR(buf, "\\x00");
}

static void test_concat(void)
{
        char *s = strfmt_concat("+", "block", ":", "sda", NULL);
        CHECK_STR(s, "+block:sda");
        free(s);
        s = strfmt_concat("", NULL);
        CHECK_STR(s, "");
        free(s);
        s = strfmt_concat("only", NULL);
        CHECK_STR(s, "only");
        free(s);
        char big[5000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        s = strfmt_concat(big, "/", big, NULL);
        CHECK(s != NULL);
        CHECK_INT(strlen(s), 2 * (sizeof(big) - 1) + 1);
        CHECK(s && s[sizeof(big) - 1] == '/' && s[2 * (sizeof(big) - 1)] == 'x');
        free(s);
}

static void check_id(struct device *d, int want_r, const char *want)
{
        char *id = NULL;
        CHECK_INT(device_get_id(d, &id), want_r);
        if (want)
                CHECK_STR(id, want);
        free(id);
}

static void test_device_id(void)
{
        struct device *d = NULL;
        CHECK_INT(device_new("/devices/virtual/block/loop26000", &d), 0);
        check_id(d, -ENODATA, NULL); /* no subsystem, no devt, no ifindex */
        CHECK_INT(device_set_subsystem(d, "block"), 0);
        check_id(d, 0, "+block:loop26000");
        d->devnum_type = 'b';
        d->devnum = makedev(7, 26000);
        check_id(d, 0, "b7:26000");
        d->devnum_type = 'c';
        d->devnum = makedev(4294, 1048575);
        check_id(d, 0, "c4294:1048575");
        d->devnum = makedev(0, 5); /* major 0: not a node id */
        check_id(d, 0, "+block:loop26000");
        d->devnum_type = 0;
        d->ifindex = 2147483647;
        check_id(d, 0, "n2147483647");
        device_unref(d);

        CHECK_INT(device_new("/devices/pci0000:00/0000:00:1f.2/host0/cciss!c0d0", &d), 0);
        CHECK_INT(device_set_subsystem(d, "block"), 0);
        check_id(d, 0, "+block:cciss!c0d0"); /* the raw basename */
        device_unref(d);

        CHECK_INT(device_new("/bus/usb/drivers/usbfs", &d), 0);
        CHECK_INT(device_set_subsystem(d, "drivers"), 0);
        check_id(d, 0, "+drivers:usb:usbfs");
        device_unref(d);
}

static void test_buf(void)
{
        struct strfmt_buf b = {0};
        strfmt_buf_append(&b, "", NULL);
        CHECK_STR(b.s, "");
        CHECK_INT(b.len, 0);
        strfmt_buf_append(&b, "S:", "disk/by-id/x", "\n", NULL);
        strfmt_buf_append(&b, "V:1\n", NULL);
        CHECK_STR(b.s, "S:disk/by-id/x\nV:1\n");
        CHECK_INT(b.len, strlen("S:disk/by-id/x\nV:1\n"));
        /* growth well past the first allocation keeps every byte */
        for (int i = 0; i < 1000; i++)
                strfmt_buf_append(&b, "E:KEY=", "0123456789", "\n", NULL);
        CHECK_INT(b.len, strlen("S:disk/by-id/x\nV:1\n") + 1000 * strlen("E:KEY=0123456789\n"));
        CHECK(!b.failed);
        CHECK(b.len + 1 <= b.cap);
        CHECK(strncmp(b.s + b.len - 17, "E:KEY=0123456789\n", 17) == 0);
        CHECK_INT(strlen(b.s), b.len);
        free(b.s);
}

TEST_MAIN(TEST(test_uint), TEST(test_int), TEST(test_parse_uint), TEST(test_parse_int), TEST(test_hex_escape), TEST(test_concat), TEST(test_buf), TEST(test_device_id))
