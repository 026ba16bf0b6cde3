/* SPDX-License-Identifier: MIT */
/*
 * libblkid's flavour of the encodings (strenc_encode_devnode() with STRENC_UTF8_BLKID and
 * core/base/encode.c): hand-checked cases from the udev encoding rules, then agreement with
 * libblkid's blkid_encode_string()/blkid_safe_string() (what the reference blkid builtin
 * uses) on many generated strings mixing ASCII, whitespace, escapes and (in)valid UTF-8.
 */
#include <blkid/blkid.h>

#include "encode.h"
#include "macros.h"
#include "strenc.h"
#include "test-util.h"

static char *enc(const char *s)
{
        char *r = strenc_encode_devnode(s, STRENC_UTF8_BLKID);
        CHECK(r != NULL);
        return r;
}

static char *safe(const char *s)
{
        char *r = NULL;
        CHECK_INT(encode_blkid_safe_string(s, &r), 0);
        return r;
}

static void test_encode_cases(void)
{
        struct {
                const char *in, *out;
        } cases[] = {
                {"", ""},
                {"plain-Label_1.0:x=y@z#+", "plain-Label_1.0:x=y@z#+"},
                {"my disk", "my\\x20disk"},
                {"a/b", "a\\x2fb"},
                {"back\\slash", "back\\x5cslash"},
                {"tab\there", "tab\\x09here"},
                {"\xc3\xa4pfel", "\xc3\xa4pfel"},            /* ä is valid UTF-8: kept */
                {"\xe2\x82\xac", "\xe2\x82\xac"},            /* € */
                {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},    /* 4-byte */
                {"\xc3", "\\xc3"},                           /* truncated */
                {"\xc0\xaf", "\\xc0\\xaf"},                  /* overlong '/' */
                {"\xed\xa0\x80", "\\xed\\xa0\\x80"},         /* surrogate */
                {"\xef\xbf\xbf", "\\xef\\xbf\\xbf"},         /* U+FFFF */
                {"\xef\xb7\x90", "\\xef\\xb7\\x90"},         /* U+FDD0 */
                {"\xef\xbf\xbe", "\xef\xbf\xbe"},               /* U+FFFE: valid for libblkid */
                {"\xc3\xc3", "\\xc3\\xc3"},                     /* bad trailing byte */
                {"\xf4\x8f\xbf\xbf", "\\xf4\\x8f\\xbf\\xbf"}, /* U+10FFFF */
                {"\xff", "\\xff"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *r = enc(cases[i].in);
                CHECK_STR(r, cases[i].out);
        }
}

static void test_safe_cases(void)
{
        struct {
                const char *in, *out;
        } cases[] = {
                {"", ""},
                {"  padded  ", "padded"},
                {"a  b\t\tc", "a_b_c"},
                {"a/b $%?,(*", "a/b_$%?,(*"},
                {"x\\y", "x\\y"},
                {"ctl\x01z\x7f", "ctl\x01z\x7f"},        /* control characters are not whitespace */
                {"\xc3\xa4", "\xc3\xa4"},
                {"\xc3(", "_("},
                {"\xed\xa0\x80", "___"},
                {"\t\n", ""},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *r = safe(cases[i].in);
                CHECK_STR(r, cases[i].out);
        }
}

/* xorshift: reproducible without global state */
static unsigned next_rand(unsigned *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 17;
        *s ^= *s << 5;
        return *s;
}

static void test_against_libblkid(void)
{
        static const char *pieces[] = {"a", "Z", "0", " ", "\t", "\n", "/", "\\", "\\x", "_", "-", ".", "$", "%",
                                       "?", ",", "\x01", "\x7f", "\xc3\xa4", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                       "\xc3", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xef\xbf\xbe", "\xff", "\x80",
                                       "\xf4\x90\x80\x80", "\xef\xb7\x90", "\xef\xbf\xbf", "\xf0\x9f\xbf\xbe", "#", "=", "@", "\"", "'", "*"};
        unsigned seed = 0x2545f491;
        int mismatches = 0;
        for (int n = 0; n < 20000; n++) {
                char in[128] = "";
                size_t len = 0;
                int k = next_rand(&seed) % 12;
                for (int i = 0; i < k; i++) {
                        const char *p = pieces[next_rand(&seed) % ELEMENTSOF(pieces)];
                        if (len + strlen(p) + 1 > sizeof(in))
                                break;
                        memcpy(in + len, p, strlen(p));
                        len += strlen(p);
                        in[len] = '\0';
                }
                char ref[1024];
                _cleanup_free_ char *mine = enc(in);
                CHECK_INT(blkid_encode_string(in, ref, sizeof(ref)), 0);
                if (!mine || strcmp(mine, ref) != 0)
                        mismatches++;
                _cleanup_free_ char *mine_safe = safe(in);
                CHECK_INT(blkid_safe_string(in, ref, sizeof(ref)), 0);
                if (!mine_safe || strcmp(mine_safe, ref) != 0) {
                        if (mismatches < 5)
                                fprintf(stderr, "safe mismatch: '%s' -> '%s' vs '%s'\n", in, mine_safe, ref);
                        mismatches++;
                }
        }
        CHECK_INT(mismatches, 0);
}

TEST_MAIN(TEST(test_encode_cases), TEST(test_safe_cases), TEST(test_against_libblkid))
