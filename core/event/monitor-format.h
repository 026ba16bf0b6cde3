/* SPDX-License-Identifier: MIT */
/* devmanadm monitor's event filter and its output in udevadm monitor's format. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor.h"

/* Which events to show: subsystem filters ("S" or "S/T") apply to both sources, tag filters
 * only to udev events (kernel events carry no tags). Any match within a kind suffices. */
struct monitor_filter {
        char **subsystems; /* NULL-terminated, or NULL for all */
        char **tags;
};
bool monitor_filter_match(const struct monitor_filter *f, const struct monitor_event *e);

/* "KERNEL[sec.usec] add      /devices/… (subsystem)", then with properties every KEY=VALUE
 * and a blank line. now_usec is the CLOCK_MONOTONIC time printed. */
void monitor_print_event(FILE *out, const struct monitor_event *e, bool properties, uint64_t now_usec);
