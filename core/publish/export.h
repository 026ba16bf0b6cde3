/* SPDX-License-Identifier: MIT */
/*
 * The property set a libudev client sees for a device: what the udev monitor broadcasts
 * (monitor.c) and what `devmanadm info` prints (db.c), in systemd 252's conventions.
 */
#pragma once

#include <stdint.h>

#include "device.h"
#include "props.h"

/* Fills *ret (cleared first; the caller owns it and releases it with props_clear()) with:
 * ACTION (when action is non-NULL), the device's properties (kernel and rules; keys that
 * start with '.' are private to rules and left out), DEVNAME (under dev_root), SEQNUM (when
 * seqnum > 0),
 * USEC_INITIALIZED, DEVLINKS (space-separated absolute paths under dev_root), TAGS and
 * CURRENT_TAGS (":a:b:"). Links of a device without a device node are not published, like
 * udev. 0 or -ENOMEM.
 * What libudev clients receive must use "/dev" as dev_root: libudev 252 aborts on a DEVNAME
 * outside /dev/. */
int export_properties(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum,
                      struct props *ret);

/* What export_each() hands over per entry: the key (keylen bytes, not NUL-terminated) and
 * value, and the props flags export_properties() gives the entry. A negative return stops
 * the walk and is returned. */
typedef int (*export_emit_t)(void *userdata, const char *key, size_t keylen, const char *value, unsigned flags);
/* The same set as export_properties(), in the same order, entry by entry, without building it
 * (the monitor writes the entries straight into its message). 0, -ENOMEM, or emit's error. */
int export_each(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum, export_emit_t emit,
                void *userdata);

/* "<dev_root>/a <dev_root>/b" for a non-empty link list, NULL for an empty one (or on ENOMEM). */
char *export_links_string(char *const *links, const char *dev_root);
/* ":a:b:" for a non-empty tag list, NULL for an empty one (or on ENOMEM: check errno). */
char *export_tags_string(char *const *tags);
