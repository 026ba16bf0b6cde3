/* SPDX-License-Identifier: MIT */
/*
 * Reader for the compiled hardware database (hwdb.bin, systemd's format; see hwdb-format.h).
 *
 * The file is read with pread() through a cache of 64 of its 4 KiB blocks, never mapped (a
 * mapping counts the page cache's folios whole in the reader's RSS, up to 2 MiB per touch).
 * Opening checks the header; every offset met during a lookup is bounds-checked before use,
 * so a corrupt or truncated file yields -EBADMSG and never a crash. Lookups allocate nothing
 * per trie step: the handle keeps a few scratch arrays that grow to the largest lookup seen
 * and are reused.
 *
 * A handle is not thread-safe (lookups reuse its scratch space).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hwdb;

/* One property of a lookup result. The array and its strings are owned by the handle and
 * valid until its next lookup. */
struct hwdb_property {
        const char *key;      /* without the leading space of the on-disk key */
        const char *value;
        const char *filename; /* source file; NULL in v1 files without source information */
        uint32_t line;        /* source line, 0 when unknown */
        uint16_t file_priority;
};

/* Opens a database. With path, opens exactly root+path; otherwise the first existing file of
 * the standard locations (those systemd 252 searches, /etc first) under root. root may be
 * NULL or "" for "/". Returns 0, -ENOENT when no database exists, -EBADMSG when the header
 * is invalid, or another -errno. Does not log. */
int hwdb_open(const char *root, const char *path, struct hwdb **ret);
struct hwdb *hwdb_free(struct hwdb *h);

/* The file that was opened. */
const char *hwdb_get_path(const struct hwdb *h);

/* True when the database file on disk was replaced or modified since the handle was opened,
 * no longer exists, or (for a handle opened by searching) a database now exists at a location
 * searched earlier: the caller should reopen. */
bool hwdb_is_stale(const struct hwdb *h);

/* Gives back the block cache (256 KiB) and the scratch of straddling reads; the next lookup
 * reads the blocks it needs again. A long-running caller trims when it goes idle. */
void hwdb_trim(struct hwdb *h);

/* Blocks read from the file since the handle was opened (cache misses): what lookups cost in
 * I/O, for benchmarks and tests. */
uint64_t hwdb_blocks_read(const struct hwdb *h);

/* Looks up a modalias-like string. Properties from every matching record are merged: for the
 * same key the entry with the higher file priority wins, then the later line (v1 files: the
 * last one met). Order is that of first appearance, as in systemd.
 * Returns the number of properties (>= 0) and sets *ret (may be NULL when 0) to an array
 * owned by the handle; -EBADMSG on a corrupt file, -ENOMEM. */
int hwdb_lookup(struct hwdb *h, const char *modalias, const struct hwdb_property **ret);

/* Convenience: calls cb for each property of hwdb_lookup(); stops at and returns the first
 * negative value cb returns. Returns the number of properties otherwise. */
int hwdb_foreach(struct hwdb *h, const char *modalias,
                 int (*cb)(const struct hwdb_property *p, void *userdata), void *userdata);

/* The query helper behind `devmanadm hwdb --test=`: opens the database as hwdb_open() does,
 * looks modalias up and prints "KEY=VALUE" lines to out, as `systemd-hwdb query` does.
 * Returns the number of properties or -errno (not logged). */
int hwdb_query(const char *root, const char *path, const char *modalias, FILE *out);

/* Standard locations searched by hwdb_open(), NULL-terminated. */
extern const char *const hwdb_bin_paths[];
