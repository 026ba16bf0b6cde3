/* SPDX-License-Identifier: MIT */
/*
 * usb_id: identification of a USB device or of a device behind a USB interface (ID_VENDOR,
 * ID_MODEL, ID_SERIAL, ID_TYPE, … and their ID_USB_* twins), as systemd-udevd 252 sets them.
 */
#pragma once

#include <stddef.h>

#include "builtin.h"

/* Builtin entry point (see struct builtin). -ENOENT and friends when the device is not on USB. */
int builtin_usb_id_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);

/* ":ccsspp:ccsspp:" — class, subclass, protocol of each distinct interface in a USB device's
 * raw descriptors (the `descriptors` attribute), in order of appearance; "" when there is none.
 * Corrupt data ends the list where it is, without the closing ':' (as the reference leaves
 * it). New string in *ret. 0, -EIO for data shorter than a device descriptor, -ENOMEM. */
int usb_id_interfaces(const unsigned char *buf, size_t size, char **ret);

/* The type names the reference derives from an interface class, a mass-storage subclass and
 * a SCSI peripheral type. */
const char *usb_id_iftype(unsigned if_class);
const char *usb_id_storage_subtype(const char *subclass, int *ret_protocol);
const char *usb_id_scsi_type(const char *type);
