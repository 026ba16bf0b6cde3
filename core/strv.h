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

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
