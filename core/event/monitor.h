/* SPDX-License-Identifier: MIT */
/*
 * The udev monitor protocol: processed events broadcast on NETLINK_KOBJECT_UEVENT multicast
 * group 2 in libudev's wire format (what udev_monitor_new_from_netlink(udev, "udev")
 * receives), and a receiver for both the kernel's group 1 and group 2 (devmanadm monitor).
 *
 * A group-2 message (systemd 252's layout; all fields 32-bit):
 *   char prefix[8]            "libudev\0"
 *   magic                     0xfeedcafe, network byte order
 *   header_size               40, host byte order
 *   properties_off            40, host byte order
 *   properties_len            host byte order
 *   filter_subsystem_hash     MurmurHash2(subsystem, seed 0), network byte order
 *   filter_devtype_hash       MurmurHash2(devtype), network byte order (0 when none)
 *   filter_tag_bloom_hi/lo    64-bit bloom filter of all tags, each half network byte order
 * then "KEY=VALUE\0…" (see export.h for the set). libudev's in-kernel socket filter matches
 * subsystem/devtype/tag filters against the hashes, so they must be exact. libudev drops
 * messages of 8192 bytes or more and messages without SUBSYSTEM or a non-zero SEQNUM.
 *
 * The daemon's uevent listener joins group 1 only, so it never reads its own broadcasts
 * back as input; the sending socket created here joins no group at all.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "macros.h"
#include "props.h"

#define MONITOR_GROUP_KERNEL 1U
#define MONITOR_GROUP_UDEV 2U
#define MONITOR_MAGIC 0xfeedcafeU
#define MONITOR_HEADER_SIZE 40U
/* libudev receives into an 8192-byte buffer and drops anything that fills it */
#define MONITOR_MESSAGE_MAX 8191U

/* systemd's string hash for the socket filter: MurmurHash2 of the bytes, seed 0. */
uint32_t monitor_string_hash32(const char *s);
/* The tag's four bits in the 64-bit bloom filter. */
uint64_t monitor_string_bloom64(const char *s);

/* Pure: the complete group-2 message for d (export_properties() with action and seqnum),
 * in a new buffer. -EINVAL without subsystem or with seqnum 0 (libudev would drop it),
 * -EMSGSIZE when it exceeds MONITOR_MESSAGE_MAX, -ENOMEM. */
int monitor_build_message(const char *dev_root, const char *action, const struct device *d, uint64_t seqnum,
                          char **ret, size_t *ret_len);

struct monitor;

/* A socket for broadcasting. dev_root is the node directory DEVNAME/DEVLINKS are published
 * under: "/dev" for anything libudev receives (it aborts on a DEVNAME outside /dev/), even
 * when the daemon makes its nodes elsewhere. 0 or -errno. */
int monitor_new(const char *dev_root, struct monitor **ret);
struct monitor *monitor_free(struct monitor *m); /* returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(struct monitor, monitor_free)

/* Broadcasts one processed event. No listener is not an error. 0 or -errno (see
 * monitor_build_message()). */
int monitor_send_device(struct monitor *m, const char *action, const struct device *d, uint64_t seqnum);

/* ---- receiving ---- */

enum monitor_source {
        MONITOR_SOURCE_KERNEL,
        MONITOR_SOURCE_UDEV,
};

struct monitor_event {
        enum monitor_source source;
        struct props props;    /* every KEY=VALUE of the message */
        const char *action;    /* point into props */
        const char *devpath;
        const char *subsystem; /* may be NULL */
        const char *devtype;   /* may be NULL */
};

struct monitor_event *monitor_event_free(struct monitor_event *e); /* returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(struct monitor_event, monitor_event_free)

/* Pure: parses a message of either format (a libudev header or the kernel's "ACTION@DEVPATH").
 * Treats the buffer as hostile. 0, or -EBADMSG with a static reason in *why. */
int monitor_parse_message(const void *buf, size_t len, struct monitor_event **ret, const char **why);
/* Whether the event carries tag in TAGS. */
bool monitor_event_has_tag(const struct monitor_event *e, const char *tag);

struct monitor_receiver;

/* A non-blocking socket joined to the kernel group, the udev group, or both. 0 or -errno. */
int monitor_receiver_new(bool kernel, bool udev, struct monitor_receiver **ret);
struct monitor_receiver *monitor_receiver_free(struct monitor_receiver *r); /* returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(struct monitor_receiver, monitor_receiver_free)
int monitor_receiver_fd(const struct monitor_receiver *r);

/* Reads one message. 1 with *ret set; 0 when a message was dropped (sender not root, a
 * group-1 message not from the kernel, malformed: logged at debug level); -EAGAIN when
 * nothing is pending; other -errno. */
int monitor_receive(struct monitor_receiver *r, struct monitor_event **ret);
