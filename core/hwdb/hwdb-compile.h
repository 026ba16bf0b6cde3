/* SPDX-License-Identifier: MIT */
/*
 * Compiler for hardware database sources (hwdb.d/ *.hwdb) into the binary format systemd 252
 * reads (hwdb-format.h).
 *
 * Sources: every "*.hwdb" (not hidden) in /etc/udev/hwdb.d, /usr/lib/udev/hwdb.d and
 * /lib/udev/hwdb.d, all sorted together by file name; a name in an earlier directory hides
 * the same name in later ones (so a /dev/null symlink in /etc masks a file). Files get
 * ascending priorities in that order: later files win, and later lines within a file.
 *
 * Syntax (as systemd's): records of one or more match lines (globs, starting in column 0)
 * followed by " KEY=VALUE" lines starting with a space; an empty line ends a record; '#'
 * starts a comment. Syntax errors are logged as warnings with file:line and the offending
 * line or record is skipped; everything else still compiles.
 *
 * Output: the same trie systemd-hwdb builds (same nodes, children, value order, v2 entries with
 * file, line and priority), laid out for locality: the nodes of big subtrees first, the rest
 * children-first, strings in node order, so a lookup touches few regions of the file.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct hwdb_compiler;

struct hwdb_compiler *hwdb_compiler_new(void);
struct hwdb_compiler *hwdb_compiler_free(struct hwdb_compiler *c);

/* Parses one source file. name is what is recorded in the database and in messages (NULL:
 * path). priority orders files (higher wins) and must be > 0. Returns the number of syntax
 * errors found (>= 0; they were logged) or -errno when the file cannot be read (not logged). */
int hwdb_compiler_add_file(struct hwdb_compiler *c, const char *path, const char *name, uint16_t priority);

/* Writes the database atomically (temporary file in the same directory, then rename), mode
 * 0444. Returns 0 or -errno (not logged). */
int hwdb_compiler_write(struct hwdb_compiler *c, const char *output);

/* Lists the source files under root (NULL or "" for "/") in processing order, as an strv of
 * root-prefixed paths the caller frees with strv_free(). Returns the number of files or
 * -errno. */
int hwdb_source_files(const char *root, char ***ret);

/* Compiles all sources under root into output (NULL: <root>/etc/udev/hwdb.bin; an explicit
 * output is used as given, not below root), creating missing parent directories. With no sources, removes the output, as systemd does.
 * Logs its own errors. Returns 0, or -EINVAL in strict mode when any source had syntax
 * errors (the database is written all the same), or another -errno on failure. */
int hwdb_update(const char *root, const char *output_path, bool strict);
