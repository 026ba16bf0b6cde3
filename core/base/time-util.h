/* SPDX-License-Identifier: MIT */
/* The clock every timeout, queue age and database time stamp is measured on. */
#pragma once

#include <stdint.h>

/* CLOCK_MONOTONIC in microseconds (what sd-event's CLOCK_MONOTONIC timers and the database's
 * "I:" field use). */
uint64_t time_now_usec(void);
