/* SPDX-License-Identifier: MIT */
/*
 * Reading one netlink uevent datagram for the bench helpers (floor, probe).
 *
 * The kernel sends group-1 messages as "ACTION@DEVPATH\0KEY=VALUE\0…" with no header.
 * udev daemons send group-2 messages with a "libudev\0" prefix, a 32-bit magic in network
 * byte order and, at byte offsets 16 and 20, the offset and length of the same NUL-separated
 * KEY=VALUE block (host byte order). The parser only points into the caller's buffer: a
 * struct uevent_msg owns nothing and lives as long as that buffer.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct uevent_msg {
        bool from_udev; /* group 2 (libudev framing) rather than the kernel's */
        const char *action, *devpath, *subsystem, *devname, *major, *minor, *seqnum;
};

/* Parses buf[0..len) in place (buf[len] must be writable and is set to NUL).
 * Returns 0, or -EBADMSG when the datagram has neither framing. */
int uevent_msg_parse(char *buf, size_t len, struct uevent_msg *ret);
