/* SPDX-License-Identifier: MIT */
/* NULL-terminated string arrays (links, tags, argv). An strv owns its strings. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macros.h"

char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char *, strv_free)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);
/* The value of key in an environment list ("KEY=VALUE" entries), or NULL. */
const char *strv_env_get(char *const *env, const char *key);
/* Appends a copy of s (always, duplicates allowed); 0 or -ENOMEM. */
int strv_push_copy(char ***l, const char *s);
/* Appends a copy of s unless present; 1 if added, 0 if present, -ENOMEM. */
int strv_add_unique(char ***l, const char *s);
/* Removes every occurrence of s; returns how many. */
int strv_remove(char **l, const char *s);
int strv_copy(char *const *l, char ***ret);
void strv_sort(char **l);
bool strv_equal(char *const *a, char *const *b);
/* Joins with sep into a new string (empty string for an empty list); NULL on ENOMEM. */
char *strv_join(char *const *l, const char *prefix, const char *sep);
/* Splits at any of the separator characters, skipping empty fields. */
int strv_split(const char *s, const char *separators, char ***ret);

/* A list built by appending many strings (a directory's entries, every device's path): its
 * length and capacity are kept, so each append is O(1) where strv_push_copy() walks the list. */
struct strv_builder {
        char **v; /* NULL-terminated once anything was appended; owned */
        size_t n, cap;
};
/* Appends a copy of s; 0 or -ENOMEM. */
int strv_builder_push_copy(struct strv_builder *b, const char *s);
/* Appends s itself, which the builder then owns (freed on failure too); 0 or -ENOMEM. */
int strv_builder_push(struct strv_builder *b, char *s);
/* The list (an empty one when nothing was appended; NULL on ENOMEM); the builder is reset. */
char **strv_builder_take(struct strv_builder *b);
void strv_builder_done(struct strv_builder *b);
#define _cleanup_strv_builder_ _cleanup_(strv_builder_done)

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
