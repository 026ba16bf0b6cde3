/* SPDX-License-Identifier: MIT */
/*
 * Shell-glob matching with exactly fnmatch(pattern, s, 0)'s result, faster: '*', '?' and
 * plain bracket expressions ("[abc]", "[a-z]", "[!x]", "[^x]") on ASCII text are matched here
 * without fnmatch's locale machinery; anything else (backslash escapes, "[:class:]" and
 * other bracket forms, unterminated brackets, non-ASCII bytes) is handed to fnmatch().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1 on a match, 0 on none, -EOPNOTSUPP when the pattern or string needs fnmatch(). */
int glob_match_simple(const char *pattern, const char *s);

/* fnmatch(pattern, s, 0) == 0. */
bool glob_match(const char *pattern, const char *s);

/* Incremental pruning for a pattern that grows one byte at a time (a walk down a trie of
 * patterns) against a fixed text. The state is the set of text positions the pattern so far
 * can have consumed up to; when it is empty no pattern starting with these bytes can match,
 * and the walk may skip the whole subtree. Conservative: syntax the fast path does not model
 * (escapes, bracket classes, non-ASCII) switches pruning off for the rest of that pattern;
 * non-ASCII or very long texts are not pruned at all.
 * The final decision is still glob_match()'s. */
struct glob_text {
        const char *s;
        size_t len;
        size_t words; /* bitset size in 64-bit words: positions 0..len */
        bool prune;   /* false for non-ASCII or very long texts: states stay "viable" */
};

struct glob_state {
        uint64_t *set;        /* caller-provided, text->words words */
        unsigned char mode;   /* internal */
        size_t bracket_start; /* index of the open '[' in the pattern, in bracket mode */
};

void glob_text_init(struct glob_text *t, const char *s);
/* Empty pattern: only position 0 is reachable. */
void glob_state_start(const struct glob_text *t, struct glob_state *st);
void glob_state_copy(const struct glob_text *t, struct glob_state *dst, const struct glob_state *src);
/* Accounts for pattern[pos], the newest byte; pattern[0..pos] is the pattern so far. */
void glob_state_feed(const struct glob_text *t, struct glob_state *st, const char *pattern, size_t pos);
/* False when no pattern with this prefix can match the text. */
bool glob_state_viable(const struct glob_text *t, const struct glob_state *st);
