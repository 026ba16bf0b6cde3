/* SPDX-License-Identifier: MIT */
#include "glob-match.h"

#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <string.h>

/* Matches the bracket expression at *pp (just after '[') against c and advances *pp past
 * the closing ']'. Returns 1/0, or -EOPNOTSUPP for forms left to fnmatch(). */
static int bracket(const unsigned char **pp, unsigned char c)
{
        const unsigned char *p = *pp;
        bool negate = false, found = false;

        if (*p == '!' || *p == '^') {
                negate = true;
                p++;
        }
        for (bool first = true; first || *p != ']'; first = false) {
                unsigned char lo = *p;
                if (lo == '\0' || lo == '\\' || lo == '[' || lo >= 0x80)
                        return -EOPNOTSUPP;
                p++;
                if (p[0] == '-' && p[1] != ']') {
                        unsigned char hi = p[1];
                        if (hi == '\0' || hi == '\\' || hi == '[' || hi >= 0x80 || hi < lo)
                                return -EOPNOTSUPP;
                        if (c >= lo && c <= hi)
                                found = true;
                        p += 2;
                } else if (c == lo)
                        found = true;
        }
        *pp = p + 1;
        return found != negate;
}

/* A pattern byte that matches only itself (the fast path's view: ASCII, no syntax). */
static bool is_literal(unsigned char c)
{
        return c != '\0' && c != '*' && c != '?' && c != '[' && c != '\\' && c < 0x80;
}

int glob_match_simple(const char *pattern, const char *s)
{
        const unsigned char *p = (const unsigned char *)pattern, *t = (const unsigned char *)s;
        const unsigned char *star_p = NULL, *star_t = NULL;

        /* Every token but '*' consumes exactly one character, so remembering only the
         * last star and retrying it one character further is a complete search. */
        for (;;) {
                if (*t >= 0x80)
                        return -EOPNOTSUPP;
                if (*p == '*') {
                        while (*p == '*')
                                p++;
                        star_p = p;
                        star_t = t;
                        if (is_literal(*p)) {
                                /* the star can only end where its next literal occurs */
                                star_t = (const unsigned char *)strchr((const char *)t, *p);
                                if (!star_t)
                                        return 0;
                                t = star_t;
                        }
                        continue;
                }
                if (*t == '\0') {
                        if (*p == '\0')
                                return 1;
                        goto backtrack;
                }
                switch (*p) {
                case '\0':
                        goto backtrack;
                case '\\':
                        return -EOPNOTSUPP;
                case '?':
                        p++;
                        t++;
                        continue;
                case '[': {
                        const unsigned char *q = p + 1;
                        int r = bracket(&q, *t);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                goto backtrack;
                        p = q;
                        t++;
                        continue;
                }
                default:
                        if (*p >= 0x80)
                                return -EOPNOTSUPP;
                        if (*p != *t)
                                goto backtrack;
                        p++;
                        t++;
                        continue;
                }
        backtrack:
                if (!star_p || *star_t == '\0')
                        return 0;
                p = star_p;
                star_t++;
                if (is_literal(*p)) {
                        star_t = (const unsigned char *)strchr((const char *)star_t, *p);
                        if (!star_t)
                                return 0;
                }
                t = star_t;
        }
}

bool glob_match(const char *pattern, const char *s)
{
        int r = glob_match_simple(pattern, s);
        if (r >= 0)
                return r;
        return fnmatch(pattern, s, 0) == 0;
}

enum {
        MODE_NORMAL,
        MODE_BRACKET, /* inside "[...", not closed yet */
        MODE_OFF,     /* no pruning for this pattern any more */
};

/* Texts longer than this are matched without pruning: a position set per trie level would
 * cost more than it saves (lookup strings are modaliases, well below this). */
#define GLOB_PRUNE_MAX_LEN 8192

void glob_text_init(struct glob_text *t, const char *s)
{
        t->s = s;
        t->len = strlen(s);
        t->prune = t->len <= GLOB_PRUNE_MAX_LEN;
        for (size_t i = 0; t->prune && i < t->len; i++)
                if ((unsigned char)s[i] >= 0x80)
                        t->prune = false;
        t->words = t->prune ? t->len / 64 + 1 : 1;
}

void glob_state_start(const struct glob_text *t, struct glob_state *st)
{
        memset(st->set, 0, t->words * sizeof(uint64_t));
        st->set[0] = 1;
        st->mode = t->prune ? MODE_NORMAL : MODE_OFF;
        st->bracket_start = 0;
}

void glob_state_copy(const struct glob_text *t, struct glob_state *dst, const struct glob_state *src)
{
        if (src->mode != MODE_OFF)
                memcpy(dst->set, src->set, t->words * sizeof(uint64_t));
        dst->mode = src->mode;
        dst->bracket_start = src->bracket_start;
}

/* One single-character token: keeps j + 1 for every reachable j whose text byte passes.
 * kind: 0 literal c, 1 any ('?'), 2 bracket expression at br (after '['). Returns false when
 * the bracket needs fnmatch(). Words are processed from the top, so bits moved up into an
 * already processed word are never seen twice. */
static bool step(const struct glob_text *t, uint64_t *set, int kind, unsigned char c, const char *br)
{
        for (size_t w = t->words; w-- > 0;) {
                uint64_t bits = set[w];
                set[w] = 0;
                while (bits) {
                        size_t j = w * 64 + (size_t)__builtin_ctzll(bits);
                        bits &= bits - 1;
                        if (j >= t->len)
                                continue;
                        unsigned char x = (unsigned char)t->s[j];
                        bool ok;
                        if (kind == 0)
                                ok = x == c;
                        else if (kind == 1)
                                ok = true;
                        else {
                                const unsigned char *q = (const unsigned char *)br;
                                int r = bracket(&q, x);
                                if (r < 0)
                                        return false;
                                ok = r;
                        }
                        if (ok)
                                set[(j + 1) / 64] |= 1ULL << ((j + 1) % 64);
                }
        }
        return true;
}

void glob_state_feed(const struct glob_text *t, struct glob_state *st, const char *pattern, size_t pos)
{
        unsigned char c = (unsigned char)pattern[pos];

        if (st->mode == MODE_OFF)
                return;
        if (c >= 0x80 || c == '\\') {
                st->mode = MODE_OFF;
                return;
        }

        if (st->mode == MODE_BRACKET) {
                /* ']' closes unless it is the first member (after an optional '!' or '^'). */
                size_t first = st->bracket_start + 1;
                if (pattern[first] == '!' || pattern[first] == '^')
                        first++;
                if (c == '[') {
                        st->mode = MODE_OFF; /* "[:class:]" and friends */
                        return;
                }
                if (c != ']' || pos == first)
                        return;
                if (!step(t, st->set, 2, 0, pattern + st->bracket_start + 1))
                        st->mode = MODE_OFF;
                else
                        st->mode = MODE_NORMAL;
                return;
        }

        switch (c) {
        case '*': {
                size_t w = 0;
                while (w < t->words && st->set[w] == 0)
                        w++;
                if (w == t->words)
                        return;
                /* every position from the lowest reachable one on */
                uint64_t low = st->set[w] & (~st->set[w] + 1);
                st->set[w] = ~(low - 1);
                for (w++; w < t->words; w++)
                        st->set[w] = ~0ULL;
                /* clear bits past len */
                size_t last = t->len % 64;
                st->set[t->words - 1] &= last == 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
                return;
        }
        case '?':
                step(t, st->set, 1, 0, NULL);
                return;
        case '[':
                st->mode = MODE_BRACKET;
                st->bracket_start = pos;
                return;
        default:
                step(t, st->set, 0, c, NULL);
                return;
        }
}

bool glob_state_viable(const struct glob_text *t, const struct glob_state *st)
{
        if (st->mode != MODE_NORMAL)
                return true; /* not modelled, or inside a bracket: cannot tell yet */
        for (size_t w = 0; w < t->words; w++)
                if (st->set[w])
                        return true;
        return false;
}
