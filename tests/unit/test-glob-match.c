/* SPDX-License-Identifier: MIT */
/*
 * glob_match() must give fnmatch(pattern, s, 0)'s answer for every input: hand-picked cases
 * with known answers, then a differential run over random patterns and strings drawn from
 * an alphabet rich in glob syntax.
 */
#include <fnmatch.h>

#include "glob-match.h"
#include "macros.h"
#include "test-util.h"

static void test_known(void)
{
        static const struct {
                const char *pattern, *s;
                bool match;
        } cases[] = {
                {"", "", true},
                {"", "a", false},
                {"*", "", true},
                {"*", "anything/at:all", true},
                {"a*", "a", true},
                {"a*b", "axxb", true},
                {"a*b", "axxbc", false},
                {"*b*", "abc", true},
                {"?", "", false},
                {"?", "x", true},
                {"??", "x", false},
                {"usb:v046Dp*", "usb:v046DpC52B", true},
                {"usb:v046Dp*", "usb:v046dpC52B", false},
                {"[abc]", "b", true},
                {"[abc]", "d", false},
                {"[a-c]x", "bx", true},
                {"[!a-c]", "b", false},
                {"[!a-c]", "d", true},
                {"[^a-c]", "d", true},
                {"[]]", "]", true},
                {"[]a]", "a", true},
                {"[!]]", "]", false},
                {"[a-]", "-", true},
                {"*[Tt]rack[Bb]all*", "Kensington TrackBall Pro", true},
                {"*[Tt]rack[Bb]all*", "Kensington trackXall", false},
                {"a\\*", "a*", true},
                {"a\\*", "ab", false},
                {"[[:digit:]]x", "7x", true},
                {"[[:digit:]]x", "ax", false},
                {"[abc", "[abc", true},
                {"*:dmi:*svnLENOVO*:pn*:*", "evdev:atkbd:dmi:bvnX:svnLENOVO:pnT14:", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool got = glob_match(cases[i].pattern, cases[i].s);
                if (got != cases[i].match)
                        fprintf(stderr, "pattern \"%s\" string \"%s\"\n", cases[i].pattern, cases[i].s);
                CHECK(got == cases[i].match);
                /* the table itself agrees with fnmatch */
                CHECK((fnmatch(cases[i].pattern, cases[i].s, 0) == 0) == cases[i].match);
        }
        /* the simple path handles the common forms itself */
        CHECK_INT(glob_match_simple("usb:v*p[0-9]?", "usb:v1p2x"), 1);
        CHECK_INT(glob_match_simple("a\\b", "ab"), -EOPNOTSUPP);
        CHECK_INT(glob_match_simple("[[:alpha:]]", "a"), -EOPNOTSUPP);
}

static uint64_t rng(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static void random_string(uint64_t *seed, const char *alphabet, char *out, size_t max)
{
        size_t n = rng(seed) % max, a = strlen(alphabet);
        for (size_t i = 0; i < n; i++)
                out[i] = alphabet[rng(seed) % a];
        out[n] = '\0';
}

/* A string that likely matches pattern: wildcards replaced by random text, some bytes
 * mutated. */
static void derive(uint64_t *seed, const char *pattern, char *out, size_t max)
{
        static const char text[] = "ab-]z:[";
        size_t n = 0;
        for (const char *p = pattern; *p && n + 4 < max; p++) {
                if (*p == '*') {
                        for (unsigned k = rng(seed) % 3; k > 0; k--)
                                out[n++] = text[rng(seed) % (sizeof(text) - 1)];
                } else if (*p == '?' || (rng(seed) % 8) == 0)
                        out[n++] = text[rng(seed) % (sizeof(text) - 1)];
                else
                        out[n++] = *p;
        }
        out[n] = '\0';
}

static void test_differential(void)
{
        uint64_t seed = 0x2545F4914F6CDD1DULL;
        char pattern[16], s[16];
        long mismatches = 0, simple = 0, matches = 0;
        const long rounds = 1000000;

        for (long i = 0; i < rounds; i++) {
                random_string(&seed, "ab-]z*?[!^\\:", pattern, sizeof(pattern));
                if (i % 2)
                        random_string(&seed, "ab-]z:[", s, 8);
                else
                        derive(&seed, pattern, s, sizeof(s));
                bool want = fnmatch(pattern, s, 0) == 0;
                bool got = glob_match(pattern, s);
                if (glob_match_simple(pattern, s) >= 0)
                        simple++;
                matches += want;
                if (want != got && mismatches++ < 10)
                        fprintf(stderr, "mismatch: pattern \"%s\" string \"%s\": fnmatch %d\n", pattern, s, want);
        }
        fprintf(stderr, "%ld rounds, %ld matches, %ld on the simple path\n", rounds, matches, simple);
        CHECK_INT(mismatches, 0);
        CHECK(matches > rounds / 10);
        CHECK(simple > rounds / 4);
}

/* Pruning is safe: when a pattern matches, every prefix of it is viable. And it prunes: a
 * prefix that is not viable has no matching extension among the random patterns. */
static void test_prefix_pruning(void)
{
        uint64_t seed = 0x9E3779B97F4A7C15ULL;
        char pattern[16], s[16];
        uint64_t set[1];
        long unsafe = 0, pruned = 0, matched = 0;
        const long rounds = 300000;

        for (long i = 0; i < rounds; i++) {
                random_string(&seed, "ab-]z*?[!^:", pattern, sizeof(pattern));
                if (i % 2)
                        random_string(&seed, "ab-]z:[", s, 8);
                else
                        derive(&seed, pattern, s, sizeof(s));
                bool match = fnmatch(pattern, s, 0) == 0;
                matched += match;

                struct glob_text t;
                struct glob_state st = {.set = set};
                glob_text_init(&t, s);
                CHECK(t.words == 1);
                glob_state_start(&t, &st);
                for (size_t k = 0; pattern[k]; k++) {
                        glob_state_feed(&t, &st, pattern, k);
                        if (!glob_state_viable(&t, &st)) {
                                pruned++;
                                if (match && unsafe++ < 10)
                                        fprintf(stderr, "pruned a match: pattern \"%s\" at %zu, string \"%s\"\n",
                                                pattern, k, s);
                                /* no extension matches: check one wildcard extension too */
                                char ext[32];
                                snprintf(ext, sizeof(ext), "%.*s*", (int)(k + 1), pattern);
                                if (fnmatch(ext, s, 0) == 0 && unsafe++ < 10)
                                        fprintf(stderr, "pruned \"%s\" which matches \"%s\"\n", ext, s);
                                break;
                        }
                }
        }
        fprintf(stderr, "%ld rounds, %ld matched, %ld pruned\n", rounds, matched, pruned);
        CHECK_INT(unsafe, 0);
        CHECK(pruned > rounds / 4);
        CHECK(matched > rounds / 20);

        /* Long texts use several words. */
        char longtext[300];
        memset(longtext, 'a', sizeof(longtext) - 2);
        longtext[sizeof(longtext) - 2] = 'b';
        longtext[sizeof(longtext) - 1] = '\0';
        uint64_t big[8];
        struct glob_text t;
        struct glob_state st = {.set = big};
        glob_text_init(&t, longtext);
        CHECK_INT(t.words, 5);
        static const struct {
                const char *pattern;
                bool viable;
        } cases[] = {
                {"*b", true}, {"*ab", true}, {"*bb", false}, {"a*a?", true}, {"*b?", false},
                {"*[b]", true}, {"*[!a]?", false}, {"*[!a]", true}, {"?*b", true}, {"b", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                glob_state_start(&t, &st);
                CHECK(t.prune);
                for (size_t k = 0; cases[i].pattern[k]; k++)
                        glob_state_feed(&t, &st, cases[i].pattern, k);
                if (glob_state_viable(&t, &st) != cases[i].viable)
                        fprintf(stderr, "long text, pattern \"%s\"\n", cases[i].pattern);
                CHECK(glob_state_viable(&t, &st) == cases[i].viable);
        }
}

/* Texts the pruning does not model: every prefix stays viable. */
static void test_no_pruning(void)
{
        char *huge = malloc(100001);
        memset(huge, 'a', 100000);
        huge[100000] = '\0';
        static const char *const texts[] = {"caf\xc3\xa9", NULL};
        uint64_t set[2];
        struct glob_text t;
        struct glob_state st = {.set = set};

        for (int k = 0; k < 2; k++) {
                glob_text_init(&t, texts[k] ? texts[k] : huge);
                CHECK(!t.prune);
                CHECK_INT(t.words, 1);
                glob_state_start(&t, &st);
                const char *p = "zzz";
                for (size_t i = 0; p[i]; i++)
                        glob_state_feed(&t, &st, p, i);
                CHECK(glob_state_viable(&t, &st));
        }
        CHECK(glob_match("*a", huge));
        CHECK(!glob_match("*b", huge));
        CHECK(glob_match("caf?*", texts[0]));
        free(huge);
}

TEST_MAIN(TEST(test_known), TEST(test_differential), TEST(test_prefix_pruning), TEST(test_no_pruning))
