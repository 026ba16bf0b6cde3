/* SPDX-License-Identifier: MIT */
/*
 * The daemon's memory policy: an allocator that can give memory back, and giving it back when
 * the daemon is idle.
 *
 * glibc's malloc keeps freed small chunks in per-thread caches (tcache, 7 chunks per size
 * class) and in fastbins, outside its free lists: malloc_trim() cannot release the pages they
 * sit on. After a storm of devices those chunks are scattered over the pages the storm used,
 * and the idle heap stays larger after every storm. The daemon therefore runs with both
 * turned off (memtrim_configure(), memtrim_exec_tuned()) and fixed trim/mmap thresholds, so
 * large transient buffers (rules files, start-up scans) are separate mappings returned on
 * free.
 *
 * When the queue has been empty for a while the daemon lets the builtins give back their
 * caches (builtin_trim_all(): the hwdb reader's blocks), then calls memtrim_idle(), which:
 *  - returns free heap to the kernel (malloc_trim);
 *  - drops the read-only file-backed pages of its mappings (library code and constants) from
 *    its page tables (MADV_DONTNEED): they stay in the page cache and come
 *    back on the next fault, so only what the next event touches is resident again;
 *  - drops the stack pages deeper than 64 KiB below its own frame: no live frame is there,
 *    and the deepest call of a storm would otherwise stay resident.
 * Writable mappings and mappings holding private copies (relocated RELRO data) are never
 * touched. Costs a read of /proc/self/smaps.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The name of the glibc tunable memtrim_exec_tuned() sets, and its setting. */
#define MEMTRIM_TUNABLE "glibc.malloc.tcache_count=0"

/* Turns fastbins off and fixes the trim and mmap thresholds (mallopt). Call before the
 * daemon allocates anything large. Returns 0, or -EINVAL when the allocator refused. */
int memtrim_configure(void);

/* The per-thread cache has no mallopt: it is a tunable read when a program starts. Unless the
 * environment already sets it (the user's choice wins), re-executes the running program with
 * MEMTRIM_TUNABLE added to GLIBC_TUNABLES (and LD_BIND_NOW=1 unless set: every library's
 * symbols bound before the start-up trim, none looked up later). Does nothing under valgrind, whose allocator
 * replaces glibc's and which a re-exec would leave. Returns only when nothing was executed:
 * 0 when the tunable is already in force or not wanted, -errno when the exec failed (the
 * caller goes on with the default allocator). */
int memtrim_exec_tuned(char **argv);

/* Whether the tunable is set in this process's environment. */
bool memtrim_tuned(void);

/* One line of /proc/self/maps or smaps, "start-end perms offset major:minor inode   path":
 * false for any other, and for addresses that do not fit an unsigned long (not this
 * program's). *path points into line. Exposed for the tests. */
bool memtrim_parse_mapping(const char *line, unsigned long *start, unsigned long *end, char perms[static 5],
                           uint64_t *inode, const char **path);

/* Returns the number of mappings trimmed, or -errno. */
int memtrim_idle(void);
