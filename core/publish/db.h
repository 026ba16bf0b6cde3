/* SPDX-License-Identifier: MIT */
/*
 * The udev database under a run directory (/run/udev on a real system), in the format
 * systemd 252's libudev reads:
 *
 *   <run>/data/<device-id>        one file per device (id from device_get_id()), lines:
 *       S:<link>      a /dev link, relative to /dev (only for devices with a node)
 *       L:<prio>      link priority, only when non-zero
 *       I:<usec>      CLOCK_MONOTONIC time of the first processed event
 *       E:KEY=VALUE   a property set by rules or builtins (PROP_DB)
 *       G:<tag>       every tag the device has had
 *       Q:<tag>       the tags set by the latest event
 *       V:1           database version (1 = Q: lines are meaningful)
 *     (no W: line: libudev 252 ignores the watch handle there; it belongs in watch/)
 *     file mode 01644 (sticky) marks OPTIONS+="db_persist", 0644 otherwise;
 *     an empty file marks a device with a node or ifindex but nothing else to record
 *     (libudev then still reports it initialized).
 *   <run>/tags/<tag>/<device-id>  empty files: the index libudev enumerates tags with
 *   <run>/queue                   exists exactly while events are queued or running
 *
 * Writes are atomic for readers: a new entry is an unnamed file (O_TMPFILE) linked in once
 * written; a replaced one is a temporary file in the same directory, then rename().
 * No fsync: the run directory is a tmpfs, whose content does not survive a crash anyway.
 *
 * Reading treats a file as hostile: any line length, unknown keys ignored, malformed lines
 * (bad syntax, unsafe link names, bad tags, non-numbers, NUL bytes) skipped with a warning
 * that names file and line.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "devdir.h"
#include "device.h"

struct model;

/* The way to the run directory: its path, and for the daemon its fd and a cache of the
 * directories below it (data/, tags/<tag>/) that entries are made in, so that it walks no path
 * from / for each event. With runfd -1 (DB_DIRS(path), the tools) the run directory is opened
 * for the call. */
struct db_dirs {
        const char *run_dir;
        int runfd;                  /* open (O_PATH is enough), or -1 */
        struct devdir_cache *cache; /* may be NULL */
};
#define DB_DIRS(path) (&(const struct db_dirs){.run_dir = (path), .runfd = -1})

/* What the caller knows of the entry on disk before a write, for the daemon, whose records
 * hold what it wrote: the entry then is not read. */
struct db_known {
        char **tags; /* the previous entry's tags, NULL for none */
};

/* Writes d's entry from d->udev and its PROP_DB properties (keys starting with '.' are
 * private and not written), and brings tags/<tag>/<id> in step: entries for tags the
 * previous entry had (old, or else read from the file) and d no longer has are removed. A
 * device with nothing to record and neither node nor ifindex has no entry (any old one is
 * removed). The run directory is made when missing. 0 or -errno. */
int db_update(const struct db_dirs *dirs, struct device *d, const struct db_known *old);

/* Removes d's entry, or with d NULL the entry called id (a device that is gone: crash
 * recovery), and its tag index entries (a remove event; db_persist does not keep an entry of
 * a device that is gone); the entry is read for its tags unless d->db_synced. 0 (also when
 * there was none), -EINVAL unless exactly one of d and id is given, -errno. */
int db_delete(const struct db_dirs *dirs, struct device *d, const char *id);

/* Loads d's entry: replaces d->udev's database fields (links, tags, current tags, link
 * priority, usec_initialized, db_persist from the sticky bit) and d's PROP_DB properties.
 * Kernel properties of d are never overwritten by E: lines. Returns 1 when an entry was
 * read, 0 when there is none (d unchanged), -errno on errors. */
int db_read(const char *run_dir, struct device *d);
/* The same for an explicit file. Both set d->db_synced when they return 0 or 1. */
int db_read_file(const char *path, struct device *d);
/* The same for an entry's contents in memory (fuzzing, tests): name is used in messages;
 * there is no sticky bit to read, so db_persist is cleared. 1 when read, 0 for an empty
 * buffer (d unchanged), -errno on errors. */
int db_read_buffer(const char *name, const void *buf, size_t len, struct device *d);

/* `--cleanup-db`: removes every data/ entry except db_persist ones, the tags/ and links/
 * index entries of removed devices, and static_node-tags/. watch/ is left alone.
 * Returns the number of data entries removed, or -errno when the run dir is unreadable. */
int db_cleanup(const char *run_dir);

/* One device in `udevadm info --query=all` format (P:, M:, R:, U:, T:, D:, I:, N:, L:, S:,
 * Q:, V:, E: lines; no trailing blank line). dev_root is where nodes live ("/dev"). */
int db_print_record(FILE *out, const struct device *d, const char *dev_root);
/* `--export-db`: every device of the model, sorted by devpath, with its database entry
 * loaded (db_read() into the model's records), each record followed by a blank line. */
int db_export(struct model *m, const char *run_dir, FILE *out);

/* The queue flag: creates (busy) or removes <run>/queue. 0 or -errno. */
int db_set_queue_busy(const char *run_dir, bool busy);
