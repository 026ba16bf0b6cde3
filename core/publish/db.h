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

/* Writes d's entry from d->udev and its PROP_DB properties (keys starting with '.' are
 * private and not written), and brings tags/<tag>/<id> in step: entries for tags the
 * previous version of the file had and d no longer has are removed. A device with nothing
 * to record and neither node nor ifindex has no entry (any old one is removed).
 * 0 or -errno. */
int db_update(const char *run_dir, struct device *d);

/* The way to the run directory: its path, its fd and a cache of the directories below it
 * (data/, tags/<tag>/) that entries are made in, so that the daemon walks no path from / for
 * each event. The functions taking a run_dir path open it for the call. */
struct db_dirs {
        const char *run_dir;
        int runfd;                  /* open (O_PATH is enough) */
        struct devdir_cache *cache; /* may be NULL */
};

/* db_update() through dirs. */
int db_update_at(const struct db_dirs *dirs, struct device *d);

/* As db_update(), when the caller knows the tags of the previous entry (old_tags, NULL for
 * none): the file is then not read. For the daemon, whose records hold what it wrote. */
int db_update_known(const struct db_dirs *dirs, struct device *d, char **old_tags);

/* Removes d's entry and its tag index entries (a remove event; db_persist does not keep
 * an entry of a device that is gone); the entry is read for its tags unless d->db_synced.
 * 0 (also when there was none) or -errno. */
int db_delete(const char *run_dir, struct device *d);
/* The same through the daemon's dirs. */
int db_delete_known(const struct db_dirs *dirs, struct device *d);
/* The same by device id, for entries whose device is gone (crash recovery). */
int db_delete_id(const char *run_dir, const char *id);

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
