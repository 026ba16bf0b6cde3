/* SPDX-License-Identifier: MIT */
/*
 * The kernel's uevent socket: NETLINK_KOBJECT_UEVENT, multicast group 1 (the kernel group).
 * devman only ever listens on group 1; its own broadcasts go to group 2 (monitor.c) and are
 * never read back as input.
 *
 * Only messages from the kernel are accepted: sender port 0 and, when credentials come with
 * the message, uid 0. Everything else is dropped with a log line.
 *
 * For a daemon on a fake sysfs tree (tests), a local listener stands in for the kernel socket:
 * an AF_UNIX datagram socket that takes the kernel's message format from uid 0 only, so that a
 * test can hand the daemon a synthetic uevent to process as if the kernel had sent it. The same
 * parser (uevent_parse) checks those messages; a malformed one is dropped with its reason.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uevent.h"

struct uevent_listener;

/* libnl's NLE_* codes are not errno: every libnl caller converts them with this (-errno,
 * -EIO for codes without an errno counterpart). */
int nl_error_to_errno(int nle);

struct sockaddr_nl;

/* One datagram from the netlink socket fd (non-blocking) into buf: its length (truncated to size;
 * *ret_truncated says whether it was), or -errno (-EAGAIN, -EINTR, -ENOBUFS on overflow, ...).
 * *ret_sender is the sender's address (all zero when the kernel gave a short one); *ret_uid the
 * uid of the SCM_CREDENTIALS the message carried, (uid_t)-1 when it carried none. Both the
 * kernel listener and the libudev monitor receiver read through here, so they check senders
 * the same way. */
ssize_t netlink_recv_datagram(int fd, void *buf, size_t size, struct sockaddr_nl *ret_sender, uid_t *ret_uid,
                              bool *ret_truncated);

/* Opens the socket (or adopts fd, e.g. from socket activation, when fd >= 0) with a receive
 * buffer of rcvbuf bytes (SO_RCVBUFFORCE when permitted, else SO_RCVBUF). 0 or -errno. */
int uevent_listener_new(int fd, int rcvbuf, struct uevent_listener **ret);
/* The local listener: binds a datagram socket at path (mode 0600; -EADDRINUSE when the file
 * exists) and takes messages only with SCM_CREDENTIALS of uid 0. Freeing removes the file.
 * 0 or -errno. */
int uevent_listener_new_local(const char *path, struct uevent_listener **ret);
struct uevent_listener *uevent_listener_free(struct uevent_listener *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct uevent_listener, uevent_listener_free)

int uevent_listener_fd(const struct uevent_listener *l);
/* Changes the receive buffer size (tests shrink it to provoke overflows). */
int uevent_listener_set_rcvbuf(struct uevent_listener *l, int rcvbuf);

/* Receives one message without blocking. Returns 1 with *ret set, 0 when nothing is pending,
 * -ENOBUFS when the kernel dropped messages (the caller must resynchronise), -EBADMSG for a
 * message that was dropped (already logged: malformed, truncated, foreign sender). */
int uevent_listener_receive(struct uevent_listener *l, struct uevent **ret);

/* Counters, for tests and `devmanadm control`'s status. */
struct uevent_listener_stats {
        unsigned long received, dropped_malformed, dropped_sender, overflows;
};
void uevent_listener_get_stats(const struct uevent_listener *l, struct uevent_listener_stats *ret);
