/* SPDX-License-Identifier: MIT */
/*
 * What differs between architectures (tests/cross/README.md), checked on each one the cross
 * runs build for:
 *  - hwdb.bin is little-endian everywhere: the field helpers write and read fixed bytes;
 *  - duplicate keys in hwdb.bin are ordered by the decoded line number: two records whose lines
 *    straddle 256 (a raw big-endian comparison of the stored bytes orders them the other way,
 *    as libsystemd 252's sd-hwdb does on s390x);
 *  - dev_t: 12-bit majors and 20-bit minors survive parsing and makedev() (dev_t is 64-bit in
 *    glibc on every architecture, also armhf);
 *  - the monitor's filter hash reads 4-byte words in host order, as libudev's does on the same
 *    machine: a big-endian libudev filters with the big-endian value;
 *  - armhf is built with 64-bit time_t and off_t (tests/cross/arm-linux-gnueabihf.ini);
 *  - input capability bitmaps: the kernel prints words of the reading program's long (a 64-bit
 *    kernel shows a 32-bit program 32-bit words); under qemu-user a 32-bit program reads a
 *    64-bit kernel's 64-bit words and must split them, not saturate them;
 *  - memory maps: an address beyond unsigned long is not the program's own mapping (a 32-bit
 *    program under qemu-user reads the 64-bit emulator's smaps; truncated, those addresses
 *    made the idle trim drop the program's live memory), inode numbers are 64-bit.
 */
#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "builtin-input_id.h"
#include "hwdb-compile.h"
#include "hwdb-format.h"
#include "hwdb.h"
#include "memtrim.h"
#include "monitor.h"
#include "sysfs.h"
#include "test-tmpdir.h"
#include "test-util.h"

static void test_hwdb_fields_little_endian(void)
{
        static const uint8_t le[8] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
        uint8_t b[8];

        CHECK(hwdb_rd64(le) == UINT64_C(0x0102030405060708));
        CHECK(hwdb_rd32(le) == UINT32_C(0x05060708));
        CHECK(hwdb_rd16(le) == 0x0708);
        memset(b, 0, sizeof(b));
        hwdb_wr64(b, UINT64_C(0x0102030405060708));
        CHECK(memcmp(b, le, 8) == 0);
        memset(b, 0, sizeof(b));
        hwdb_wr32(b, 0x05060708);
        CHECK(memcmp(b, le, 4) == 0 && b[4] == 0);
        memset(b, 0, sizeof(b));
        hwdb_wr16(b, 0x0708);
        CHECK(memcmp(b, le, 2) == 0 && b[2] == 0);
}

/* The same key from a record near line 250 and one near line 257: the later line wins. */
static void test_hwdb_line_order_past_255(void)
{
        char *root = test_tmpdir_new("test-arch");
        char *dir, *src, *bin;
        CHECK(asprintf(&dir, "%s/lib/udev/hwdb.d", root) > 0);
        CHECK(asprintf(&src, "%s/50-arch.hwdb", dir) > 0);
        CHECK(asprintf(&bin, "%s/hwdb.bin", root) > 0);
        static const char *const parts[] = {"/lib", "/lib/udev", "/lib/udev/hwdb.d"};
        for (size_t i = 0; i < 3; i++) {
                char *d;
                CHECK(asprintf(&d, "%s%s", root, parts[i]) > 0);
                CHECK_INT(mkdir(d, 0755), 0);
                free(d);
        }

        FILE *f = fopen(src, "we");
        CHECK(f != NULL);
        if (f) {
                unsigned line = 1;
                for (; line < 249; line++)
                        fprintf(f, "# filler %u\n", line);
                fprintf(f, "archtest:v1*\n ARCH_KEY=early\n ARCH_EARLY=1\n\n"); /* lines 249-252 */
                line += 4;
                for (; line < 257; line++)
                        fprintf(f, "# filler %u\n", line);
                fprintf(f, "archtest:v*\n ARCH_KEY=late\n");                   /* lines 257-258 */
                CHECK_INT(fclose(f), 0);
        }
        CHECK_INT(hwdb_update(root, bin, true), 0);

        struct hwdb *h = NULL;
        CHECK_INT(hwdb_open(NULL, bin, &h), 0);
        if (h) {
                const struct hwdb_property *props;
                int n = hwdb_lookup(h, "archtest:v1", &props);
                CHECK_INT(n, 2);
                for (int i = 0; i < n; i++) {
                        if (strcmp(props[i].key, "ARCH_KEY") == 0) {
                                CHECK_STR(props[i].value, "late");
                                CHECK(props[i].line > 255);
                        } else {
                                CHECK_STR(props[i].key, "ARCH_EARLY");
                                CHECK(props[i].line < 256);
                        }
                }
                hwdb_free(h);
        }
        free(dir);
        free(src);
        free(bin);
        test_tmpdir_remove(root);
}

static void test_devnum(void)
{
        dev_t d = 0;

        CHECK(sizeof(dev_t) == 8);
        CHECK_INT(parse_devnum("4095:1048575", &d), 0);
        CHECK_INT(major(d), 4095);
        CHECK_INT(minor(d), 1048575);
        CHECK_INT(parse_devnum("259:65536\n", &d), 0);
        CHECK_INT(major(d), 259);
        CHECK_INT(minor(d), 65536);
        CHECK(d == makedev(259, 65536));
        CHECK_INT(parse_devnum("8:", &d), -EINVAL);
        CHECK_INT(parse_devnum("8:1x", &d), -EINVAL);
}

static void test_monitor_hash_host_order(void)
{
        /* shorter than one word: the same everywhere */
        CHECK(monitor_string_hash32("usb") == 0x0577c5e5U);
#if __BYTE_ORDER == __LITTLE_ENDIAN
        CHECK(monitor_string_hash32("block") == 0xf0031db7U);
        CHECK(monitor_string_hash32("input") == 0xc1a28470U);
        CHECK(monitor_string_hash32("partition") == 0xcb234489U);
#else
        CHECK(monitor_string_hash32("block") == 0xf272d586U);
        CHECK(monitor_string_hash32("input") == 0x733b9863U);
        CHECK(monitor_string_hash32("partition") == 0xcedca793U);
#endif
}

static void test_time_and_offsets(void)
{
        /* every supported build: 64-bit time (armhf via _TIME_BITS=64) and file offsets */
        CHECK(sizeof(time_t) == 8);
        CHECK(sizeof(off_t) == 8);
        struct timespec ts = {.tv_sec = (time_t)INT64_C(4102444800)}; /* 2100-01-01 */
        CHECK(ts.tv_sec > INT32_MAX);
        struct stat st;
        CHECK_INT(stat("/", &st), 0);
        CHECK(sizeof(st.st_mtim.tv_sec) == 8);
}

static bool bit_set(const unsigned long *w, size_t bit)
{
        return (w[bit / INPUT_BITS_PER_LONG] >> (bit % INPUT_BITS_PER_LONG)) & 1;
}

static void test_input_bitmap_kernel_words(void)
{
        unsigned long w[INPUT_NLONGS(256)];
        size_t set = 0;

        /* a 64-bit kernel's key bitmap: KEY_ESC..KEY_Q-ish in the low word, bit 148 high up,
         * bit 63 at the top of the first word */
        input_parse_bitmap("100000 0000000000000000 800000000000fffe\n", w, ELEMENTSOF(w));
        for (size_t b = 0; b < 256; b++)
                set += bit_set(w, b);
        for (size_t b = 1; b < 16; b++)
                CHECK(bit_set(w, b));
        CHECK(bit_set(w, 63));
        CHECK(bit_set(w, 128 + 20));
        CHECK_INT(set, 17);
        /* one short word: the same bits on every kernel */
        input_parse_bitmap("120013", w, ELEMENTSOF(w));
        CHECK(bit_set(w, 0) && bit_set(w, 1) && bit_set(w, 4) && bit_set(w, 17) && bit_set(w, 20));
        CHECK(!bit_set(w, 2) && !bit_set(w, 32));
}

/* bits (ascending, ending with SIZE_MAX) as the kernel prints a bitmap in words of width bits:
 * most significant word first, leading zero words left out, "0" when empty */
static void format_bitmap(const size_t *bits, unsigned width, char *buf, size_t size)
{
        uint64_t words[16] = {0}; /* up to bit 511 in 32-bit words */
        size_t top = 0;
        for (const size_t *b = bits; *b != SIZE_MAX; b++) {
                words[*b / width] |= UINT64_C(1) << (*b % width);
                if (*b / width > top)
                        top = *b / width;
        }
        size_t len = 0;
        for (size_t i = top + 1; i-- > 0;)
                len += snprintf(buf + len, size - len, "%s%llx", i == top ? "" : " ", (unsigned long long)words[i]);
}

static bool bitmap_is(const unsigned long *w, size_t n, const size_t *bits)
{
        for (size_t b = 0; b < n * INPUT_BITS_PER_LONG; b++) {
                bool want = false;
                for (const size_t *x = bits; *x != SIZE_MAX; x++)
                        want |= *x == b;
                if (bit_set(w, b) != want)
                        return false;
        }
        return true;
}

static void test_input_bitmap_reader_words(void)
{
        /* a keyboard's keys across word boundaries (31/32, 63/64), a mouse's buttons only in
         * the fifth 64-bit word (BTN_LEFT..BTN_EXTRA), the empty bitmap */
        static const size_t keys[] = {1, 2, 15, 31, 32, 63, 64, 148, 200, 255, SIZE_MAX};
        static const size_t buttons[] = {272, 273, 274, 275, 276, SIZE_MAX};
        static const size_t none[] = {SIZE_MAX};
        const size_t *sets[] = {keys, buttons, none};
        unsigned long w[INPUT_NLONGS(512)];
        char text[256];

        for (size_t i = 0; i < ELEMENTSOF(sets); i++) {
                /* what a kernel shows this program: words of its own long, read exactly */
                format_bitmap(sets[i], INPUT_BITS_PER_LONG, text, sizeof(text));
                input_parse_bitmap(text, w, ELEMENTSOF(w));
                CHECK(bitmap_is(w, ELEMENTSOF(w), sets[i]));
                /* the other width */
                format_bitmap(sets[i], INPUT_BITS_PER_LONG == 64 ? 32 : 64, text, sizeof(text));
                input_parse_bitmap(text, w, ELEMENTSOF(w));
                if (INPUT_BITS_PER_LONG == 32)
                        /* 64-bit words (qemu-user): read exactly when a word is wider than 8
                         * digits (the keys); all-short ones (the buttons: "1f0000 0 0 0 0")
                         * are taken for 32-bit words, why the fixture writes the build's
                         * width (gen-sysfs.py --long-bits) */
                        CHECK(bitmap_is(w, ELEMENTSOF(w), sets[i]) == (sets[i] != buttons));
                else
                        /* 32-bit words are not what a kernel shows a 64-bit program: they
                         * read as 64-bit words, shifted, except where no word is above the
                         * first */
                        CHECK(bitmap_is(w, ELEMENTSOF(w), sets[i]) == (sets[i] == none));
        }
        format_bitmap(keys, 32, text, sizeof(text));
        CHECK_STR(text, "80000000 100 0 100000 0 1 80000001 80008006");
        format_bitmap(keys, 64, text, sizeof(text));
        CHECK_STR(text, "8000000000000100 100000 1 8000000180008006");
        format_bitmap(buttons, 64, text, sizeof(text));
        CHECK_STR(text, "1f0000 0 0 0 0");
}

static void test_maps_line_widths(void)
{
        unsigned long start, end;
        uint64_t inode;
        char perms[5];
        const char *path;

        CHECK(memtrim_parse_mapping("3f6bb000-3f7c5000 r--p 00000000 fe:00 1559368    /lib/libc.so.6", &start,
                                    &end, perms, &inode, &path));
        CHECK(start == 0x3f6bb000UL && end == 0x3f7c5000UL && inode == 1559368);
        CHECK_STR(perms, "r--p");
        CHECK_STR(path, "/lib/libc.so.6");
        /* a 64-bit inode number fits everywhere */
        CHECK(memtrim_parse_mapping("1000-2000 r--p 00000000 00:2a 8589934593 /x", &start, &end, perms, &inode,
                                    &path));
        CHECK(inode == UINT64_C(8589934593));
        /* a 64-bit address: this program's own only where unsigned long holds it */
        bool wide = memtrim_parse_mapping("7f1234567000-7f1234568000 r--p 00000000 fe:00 12 /q", &start, &end,
                                          perms, &inode, &path);
#if ULONG_MAX > 0xffffffffUL
        CHECK(wide && start == 0x7f1234567000UL);
#else
        CHECK(!wide);
#endif
        /* more than 64 bits: nobody's */
        CHECK(!memtrim_parse_mapping("1ffffffffffffffff-2ffffffffffffffff r--p 0 0:0 0 /z", &start, &end, perms,
                                     &inode, &path));
}

TEST_MAIN(TEST(test_hwdb_fields_little_endian), TEST(test_hwdb_line_order_past_255), TEST(test_devnum),
          TEST(test_monitor_hash_host_order), TEST(test_time_and_offsets),
          TEST(test_maps_line_widths), TEST(test_input_bitmap_kernel_words), TEST(test_input_bitmap_reader_words))
