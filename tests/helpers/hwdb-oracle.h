/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the hwdb tests: render lookup results of devman's reader and of
 * systemd's reader (libsystemd's sd-hwdb, the oracle) as "KEY=VALUE\n" text, derive lookup
 * strings from hwdb sources, and small file utilities. Test code only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-hwdb.h>

#include "hwdb.h"

/* A growable list of owned strings. */
struct strlist {
        char **v;
        size_t n, alloc;
};
void strlist_add(struct strlist *l, const char *s);
void strlist_done(struct strlist *l);

/* Results as "KEY=VALUE\n" lines in the reader's order; NULL on a reader error. Caller frees. */
char *render_devman(struct hwdb *h, const char *modalias);
char *render_systemd(sd_hwdb *h, const char *modalias);

/* Adds lookup strings derived from the match lines of a .hwdb file: each glob instantiated
 * with empty, short and odd wildcard expansions, plus the raw pattern. Every keep-th match
 * line is used. */
void modaliases_from_source(struct strlist *out, const char *path, unsigned keep);
/* Same for every *.hwdb in dir. */
void modaliases_from_dir(struct strlist *out, const char *dir, unsigned keep);

/* Writes text to path (creating it); aborts the test program on failure. */
void write_file(const char *path, const char *text);
/* Copies a file; returns 0 or -errno. */
int copy_file(const char *from, const char *to);
/* mkdir -p */
void mkdir_p(const char *path);
/* rm -rf of a test's temporary directory (refuses anything outside /tmp). */
void rm_rf_tmp(const char *path);
