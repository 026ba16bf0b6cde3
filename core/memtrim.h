/* SPDX-License-Identifier: MIT */
/*
 * Giving memory back when the daemon is idle. An event storm grows the heap and faults in
 * pages of the libraries' code; both stay resident long after. When the queue has been empty
 * for a while the daemon:
 *  - returns free heap to the kernel (malloc_trim);
 *  - drops the read-only file-backed pages of its mappings (library code and constants) from
 *    its page tables (MADV_DONTNEED): they stay in the page cache and come back on the next
 *    fault, so only what the next event touches is resident again.
 * Writable and anonymous mappings are never touched. Costs a read of /proc/self/maps.
 */
#pragma once

/* Returns the number of mappings trimmed, or -errno. */
int memtrim_idle(void);
