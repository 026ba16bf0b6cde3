/* SPDX-License-Identifier: MIT */
/*
 * The daemon's request for a short scheduler slice.
 *
 * Its work comes in bursts of a few tens of microseconds per event. Under the kernel's EEVDF
 * scheduler (Linux 6.6+) a task may ask for a slice of its own through sched_attr's
 * sched_runtime (honoured since 6.12, clamped to 0.1-100 ms); a waking task whose slice is
 * shorter than the running task's may preempt it. With the default slice (0.75 ms times a
 * factor of the CPU count, 1.4 ms on 2 CPUs) a woken daemon waited for a busy kernel thread
 * (kdamond, kdevtmpfs) to finish its slice while events queued: the storm's slowest nodes.
 * The weight (nice value) is unchanged: the daemon gets its turn sooner, not a larger share.
 * Children (PROGRAM, RUN) are created with the default slice (SCHED_FLAG_RESET_ON_FORK, which
 * also gives them nice 0 if the daemon runs with a negative nice value).
 */
#pragma once

#include <stdint.h>

/* The slice devmand asks for unless told otherwise. */
#define SCHED_SLICE_DEFAULT_USEC 100

/* Asks for a slice of usec (0: the kernel's default) for the calling thread, when its policy
 * is SCHED_OTHER (an administrator's real-time or batch policy is left alone). 1 when
 * applied, 0 when the policy is another one, -errno when the kernel refused (older kernels
 * accept and ignore the value). */
int sched_slice_request(uint64_t usec);
