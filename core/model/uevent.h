/* SPDX-License-Identifier: MIT */
/*
 * Kernel uevents: the parsed form of one NETLINK_KOBJECT_UEVENT group-1 message,
 * "ACTION@DEVPATH\0KEY=VALUE\0KEY=VALUE\0…" (no netlink header), or of a synthetic event
 * made by coldplug. Parsing is pure and treats the buffer as hostile.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macros.h"
#include "props.h"

enum uevent_action {
        UEVENT_ADD,
        UEVENT_REMOVE,
        UEVENT_CHANGE,
        UEVENT_MOVE,
        UEVENT_ONLINE,
        UEVENT_OFFLINE,
        UEVENT_BIND,
        UEVENT_UNBIND,
        _UEVENT_ACTION_MAX,
        _UEVENT_ACTION_INVALID = -EINVAL,
};

const char *uevent_action_to_string(enum uevent_action a);
enum uevent_action uevent_action_from_string(const char *s); /* or -EINVAL */

/* Largest message accepted (the kernel's own limit is 2048 bytes of environment). */
#define UEVENT_MAX_SIZE (8 * 1024)

struct uevent {
        enum uevent_action action;
        uint64_t seqnum;        /* 0 for synthetic events without SEQNUM */
        const char *devpath;    /* points into props (DEVPATH) */
        const char *devpath_old; /* DEVPATH_OLD for move, else NULL */
        const char *subsystem;  /* SUBSYSTEM, may be NULL */
        dev_t devnum;           /* what MAJOR and MINOR say when they are a valid devt (major
                                 * 1..4095, minor below 2^20, digits only), else 0 */
        struct props props;     /* every KEY=VALUE, flagged PROP_KERNEL, including ACTION/DEVPATH/SEQNUM */
        bool from_kernel;       /* parsed from a kernel message (uevent_parse), not made up */
};

/* Parses a kernel message. Rejects (with -EBADMSG and a reason in *why, a static string):
 * oversized or empty buffers, a missing '@' header, an unknown action, a DEVPATH that is not
 * absolute or contains "..", entries without '=', an ACTION/DEVPATH that contradicts the
 * header, a SEQNUM that is not a number, a missing trailing NUL. 0 on success. */
int uevent_parse(const char *buf, size_t len, struct uevent **ret, const char **why);

/* A synthetic event (coldplug, tests). props may be NULL. */
int uevent_new(enum uevent_action action, const char *devpath, const struct props *props, struct uevent **ret);

struct uevent *uevent_free(struct uevent *ev);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct uevent, uevent_free)
#define _cleanup_uevent_free_ _cleanup_(uevent_freep)

/* A DEVNAME/link name is safe when it is relative, has no "." or ".." component, no empty
 * component, no control characters and no component longer than NAME_MAX. */
bool devname_is_safe(const char *name);
