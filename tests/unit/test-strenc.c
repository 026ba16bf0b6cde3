/* SPDX-License-Identifier: MIT */
/* String helpers of the builtins (core/base/strenc.h) and the pure parts of usb_id and path_id:
 * expected values worked out by hand from udev's documented rules. */
#include "builtin-path_id.h"
#include "builtin-usb_id.h"
#include "macros.h"
#include "strenc.h"
#include "test-util.h"

static void test_char_allowed(void)
{
        CHECK(strenc_char_allowed('a', NULL));
        CHECK(strenc_char_allowed('Z', NULL));
        CHECK(strenc_char_allowed('7', NULL));
        for (const char *c = "#+-.:=@_"; *c; c++)
                CHECK(strenc_char_allowed(*c, NULL));
        CHECK(!strenc_char_allowed(' ', NULL));
        CHECK(!strenc_char_allowed('/', NULL));
        CHECK(!strenc_char_allowed('\\', NULL));
        CHECK(!strenc_char_allowed('\0', NULL));
        CHECK(!strenc_char_allowed('\0', "ab"));
        CHECK(strenc_char_allowed('/', "/ "));
}

static void test_utf8(void)
{
        CHECK_INT(strenc_utf8_char_len("a", 0), 1);
        CHECK_INT(strenc_utf8_char_len("", 0), 1);
        CHECK_INT(strenc_utf8_char_len("\xc3\xa9", 0), 2);         /* é */
        CHECK_INT(strenc_utf8_char_len("\xe2\x82\xac", 0), 3);     /* € */
        CHECK_INT(strenc_utf8_char_len("\xf0\x9f\x98\x80", 0), 4); /* U+1F600 */
        CHECK(strenc_utf8_char_len("\xc0\xaf", 0) < 0);            /* overlong '/' */
        CHECK(strenc_utf8_char_len("\xe0\x80\xaf", 0) < 0);        /* overlong '/' in 3 bytes */
        CHECK(strenc_utf8_char_len("\xc3", 0) < 0);                /* truncated at the NUL */
        CHECK(strenc_utf8_char_len("\xe2\x82", 0) < 0);
        CHECK(strenc_utf8_char_len("\xa9", 0) < 0);                /* lone continuation byte */
        CHECK(strenc_utf8_char_len("\xff", 0) < 0);
        CHECK(strenc_utf8_char_len("\xf8\x88\x80\x80\x80", 0) < 0); /* 5-byte form */
        /* a trailing byte must be 10xxxxxx, not just have its high bit set (udevd 252 and
         * libblkid both turn "\xc3\xc3" into two invalid bytes) */
        CHECK(strenc_utf8_char_len("\xc3\xc3", 0) < 0);
        CHECK(strenc_utf8_char_len("\xc3\xc3", STRENC_UTF8_BLKID) < 0);
        CHECK(strenc_utf8_char_len("\xe2\xc2\xac", 0) < 0);
}

/* The boundary code points, under udev's rule (flags 0) and libblkid's (STRENC_UTF8_BLKID):
 * what Debian's udevd 252 (PROGRAM results, ID_MODEL_ENC of usb_id) and libblkid 2.38
 * (blkid_encode_string) keep as characters. */
static void test_utf8_boundaries(void)
{
        static const struct {
                const char *s;
                bool udev, blkid;
        } t[] = {
                {"\xed\x9f\xbf", true, true},      /* U+D7FF */
                {"\xed\xa0\x80", false, false},    /* U+D800, surrogate */
                {"\xed\xbf\xbf", false, false},    /* U+DFFF, surrogate */
                {"\xee\x80\x80", true, true},      /* U+E000 */
                {"\xef\xb7\x8f", true, true},      /* U+FDCF */
                {"\xef\xb7\x90", false, false},    /* U+FDD0 */
                {"\xef\xb7\xaf", false, false},    /* U+FDEF */
                {"\xef\xb7\xb0", true, true},      /* U+FDF0 */
                {"\xef\xbf\xbd", true, true},      /* U+FFFD */
                {"\xef\xbf\xbe", false, true},     /* U+FFFE */
                {"\xef\xbf\xbf", false, false},    /* U+FFFF */
                {"\xf0\x90\x80\x80", true, true},  /* U+10000 */
                {"\xf0\x9f\xbf\xbd", true, true},  /* U+1FFFD */
                {"\xf0\x9f\xbf\xbe", false, true}, /* U+1FFFE */
                {"\xf0\x9f\xbf\xbf", false, false}, /* U+1FFFF */
                {"\xf4\x8f\xbf\xbd", true, true},  /* U+10FFFD */
                {"\xf4\x8f\xbf\xbe", false, true}, /* U+10FFFE */
                {"\xf4\x8f\xbf\xbf", false, false}, /* U+10FFFF */
                {"\xf4\x90\x80\x80", false, false}, /* U+110000 */
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                int want = (int)strlen(t[i].s);
                CHECK_INT(strenc_utf8_char_len(t[i].s, 0) == want, t[i].udev);
                CHECK_INT(strenc_utf8_char_len(t[i].s, STRENC_UTF8_BLKID) == want, t[i].blkid);
                if (strenc_utf8_char_len(t[i].s, 0) != want)
                        CHECK(strenc_utf8_char_len(t[i].s, 0) < 0);
        }

        /* the same through the users: udev's encoder and replacement, libblkid's encoder */
        char *s;
        CHECK_STR(s = strenc_encode_devnode("a\xef\xb7\x90" "b\xef\xbf\xbe" "c\xef\xb7\xb0", 0),
                  "a\\xef\\xb7\\x90b\\xef\\xbf\\xbec\xef\xb7\xb0");
        free(s);
        CHECK_STR(s = strenc_encode_devnode("a\xef\xb7\x90" "b\xef\xbf\xbe" "c\xef\xb7\xb0", STRENC_UTF8_BLKID),
                  "a\\xef\\xb7\\x90b\xef\xbf\xbe" "c\xef\xb7\xb0");
        free(s);
        char r[] = "a\xef\xb7\x90" "b\xef\xbf\xbe" "c\xc3\xc3" "d\xf4\x8f\xbf\xbd";
        CHECK_INT(strenc_replace_chars(r, "/ $%?,"), 8);
        CHECK_STR(r, "a___b___c__d\xf4\x8f\xbf\xbd");
}

static void test_encode(void)
{
        char *s;
        CHECK_STR(s = strenc_encode_devnode("SanDisk ", 0), "SanDisk\\x20");
        free(s);
        CHECK_STR(s = strenc_encode_devnode("a/b\\c", 0), "a\\x2fb\\x5cc");
        free(s);
        CHECK_STR(s = strenc_encode_devnode("Caf\xc3\xa9 #1", 0), "Caf\xc3\xa9\\x20#1");
        free(s);
        CHECK_STR(s = strenc_encode_devnode("\xff\t", 0), "\\xff\\x09");
        free(s);
        CHECK_STR(s = strenc_encode_devnode("", 0), "");
        free(s);
}

static void test_whitespace(void)
{
        char *s;
        CHECK_STR(s = strenc_replace_whitespace("  Cruzer Blade    ", 63), "Cruzer_Blade");
        free(s);
        CHECK_STR(s = strenc_replace_whitespace("a \t\n b  c", 63), "a_b_c");
        free(s);
        CHECK_STR(s = strenc_replace_whitespace("   ", 63), "");
        free(s);
        /* only max bytes of the input are read */
        CHECK_STR(s = strenc_replace_whitespace("abcdef", 4), "abcd");
        free(s);
        /* leading whitespace counts towards the bytes read */
        CHECK_STR(s = strenc_replace_whitespace("  abcdef", 4), "ab");
        free(s);
        /* an '_' that would be the last byte is dropped with the rest */
        CHECK_STR(s = strenc_replace_whitespace("abc def", 4), "abc");
        free(s);
}

static void test_replace_chars(void)
{
        char a[] = "Ve/nd*or\\x20\xc3\xa9 x";
        CHECK_INT(strenc_replace_chars(a, NULL), 3);
        CHECK_STR(a, "Ve_nd_or\\x20\xc3\xa9_x");
        char b[] = "a\tb c";
        CHECK_INT(strenc_replace_chars(b, " "), 1);
        CHECK_STR(b, "a b c");
        char c[] = "\xc0\xaf";
        CHECK_INT(strenc_replace_chars(c, NULL), 2);
        CHECK_STR(c, "__");
        /* the rules' forms: NAME/SYMLINK ("/ ", "/") and program results and $attr values */
        char f[] = "ab c/d\te\x01" "f\xc3\xa9g\xff" "h\\x2fi";
        CHECK_INT(strenc_replace_chars(f, NULL), 5);
        CHECK_STR(f, "ab_c_d_e_f\xc3\xa9g_h\\x2fi");
        char g[] = "ab c/d\te";
        CHECK_INT(strenc_replace_chars(g, "/ "), 1);
        CHECK_STR(g, "ab c/d e");
        char h[] = "x%$?,/ y";
        CHECK_INT(strenc_replace_chars(h, "/ $%?,"), 0);
        char d[] = "1.00\n\r";
        CHECK_STR(strenc_strip_newline(d), "1.00");
        char e[] = "x \n";
        CHECK_STR(strenc_strip_newline(e), "x ");
}

static void test_path_tag(void)
{
        char *s;
        CHECK_STR(s = path_id_tag("pci-0000:00:1f.2-ata-1.0"), "pci-0000_00_1f_2-ata-1_0");
        free(s);
        CHECK_STR(s = path_id_tag("::a::b.:"), "a_b");
        free(s);
        CHECK_STR(s = path_id_tag("platform-i8042-serio-0"), "platform-i8042-serio-0");
        free(s);
}

static void test_usb_types(void)
{
        int proto = -1;
        CHECK_STR(usb_id_iftype(3), "hid");
        CHECK_STR(usb_id_iftype(9), "hub");
        CHECK_STR(usb_id_iftype(0x0e), "video");
        CHECK_STR(usb_id_iftype(2), "generic");
        CHECK_STR(usb_id_iftype(0xff), "generic");
        CHECK_STR(usb_id_storage_subtype("06", &proto), "scsi");
        CHECK_INT(proto, 6);
        CHECK_STR(usb_id_storage_subtype("2", &proto), "atapi");
        CHECK_INT(proto, 2);
        CHECK_STR(usb_id_storage_subtype("x", &proto), "generic");
        CHECK_INT(proto, 0);
        CHECK_STR(usb_id_scsi_type("0"), "disk");
        CHECK_STR(usb_id_scsi_type("14"), "disk");
        CHECK_STR(usb_id_scsi_type("5"), "cd");
        CHECK_STR(usb_id_scsi_type("7"), "optical");
        CHECK_STR(usb_id_scsi_type("1"), "tape");
        CHECK_STR(usb_id_scsi_type("12"), "generic");
}

static void test_usb_interfaces(void)
{
        /* device descriptor, configuration, two interfaces of one kind (08/06/50), one HID
         * interface (03/01/02), an endpoint */
        static const unsigned char desc[] = {
                18, 1, 0, 2, 0, 0, 0, 64, 0x81, 0x07, 0x67, 0x55, 0, 1, 1, 2, 3, 1,
                9, 2, 32, 0, 1, 1, 0, 0x80, 50,
                9, 4, 0, 0, 2, 8, 6, 0x50, 0,
                7, 5, 0x81, 2, 0, 2, 0,
                9, 4, 1, 0, 2, 8, 6, 0x50, 0,
                9, 4, 2, 0, 1, 3, 1, 2, 0,
                7, 5, 0x82, 3, 8, 0, 10,
        };
        char *s = NULL;
        CHECK_INT(usb_id_interfaces(desc, sizeof(desc), &s), 0);
        CHECK_STR(s, ":080650:030102:");
        free(s);
        /* only a device descriptor: no interface */
        CHECK_INT(usb_id_interfaces(desc, 18 + 9, &s), 0);
        CHECK_STR(s, "");
        free(s);
        CHECK_INT(usb_id_interfaces(desc, 10, &s), -EIO);
        /* a length byte beyond the data ends the list where it is */
        unsigned char bad[sizeof(desc)];
        memcpy(bad, desc, sizeof(desc));
        bad[18 + 9 + 9 + 7] = 200;
        CHECK_INT(usb_id_interfaces(bad, sizeof(bad), &s), 0);
        CHECK_STR(s, ":080650");
        free(s);
}

TEST_MAIN(TEST(test_char_allowed), TEST(test_utf8), TEST(test_utf8_boundaries), TEST(test_encode), TEST(test_whitespace),
          TEST(test_replace_chars), TEST(test_path_tag), TEST(test_usb_types), TEST(test_usb_interfaces))
