/* SPDX-License-Identifier: MIT */
/*
 * Private temporary directories for tests: made under $TMPDIR (or /tmp), removed recursively
 * (never following symlinks) at the end.
 */
#pragma once

/* Creates "<tmp>/devman-<tag>.XXXXXX"; returns a new string (abort on failure). */
char *test_tmpdir_new(const char *tag);
/* Removes the tree and frees the path; returns NULL. */
char *test_tmpdir_remove(char *path);
