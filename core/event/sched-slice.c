/* SPDX-License-Identifier: MIT */
#include "sched-slice.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macros.h"

/* The kernel's struct sched_attr as first published (SCHED_ATTR_SIZE_VER0, 48 bytes): its
 * header clashes with glibc's <sched.h>, and glibc 2.36 has no sched_setattr() wrapper. */
struct kernel_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime; /* for SCHED_OTHER since Linux 6.12: the slice asked for, in ns */
        uint64_t sched_deadline;
        uint64_t sched_period;
};
#define KERNEL_SCHED_FLAG_RESET_ON_FORK 0x01

int sched_slice_request(uint64_t usec)
{
        int policy = sched_getscheduler(0);
        if (policy < 0)
                return negative_errno();
        if (policy != SCHED_OTHER)
                return 0;
        /* the nice value is part of the attributes set: keep the current one */
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, 0);
        if (nice == -1 && errno != 0)
                return negative_errno();
        struct kernel_sched_attr attr = {
                .size = sizeof(attr),
                .sched_policy = SCHED_OTHER,
                .sched_flags = KERNEL_SCHED_FLAG_RESET_ON_FORK,
                .sched_nice = nice,
                .sched_runtime = usec * 1000,
        };
        if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
                return negative_errno();
        return 1;
}
