/* SPDX-License-Identifier: MIT */
/*
 * Helpers the builtins share: attribute values the way udev's sd-device hands them out
 * (trailing newline dropped), and finding a device by subsystem and name.
 */
#pragma once

#include "builtin.h"
#include "device.h"

/* The value of attribute attr of d without its trailing newline, as a new string in *ret.
 * 0, -ENOENT when absent, other -errno. */
int builtin_sysattr(const struct builtin_ctx *ctx, struct device *d, const char *attr, char **ret);

/* Like builtin_sysattr(), but returns NULL on any failure (for optional attributes). */
char *builtin_sysattr_opt(const struct builtin_ctx *ctx, struct device *d, const char *attr);

/* The device called sysname in subsystem (/sys/class/<subsystem>/<sysname> or
 * /sys/bus/<subsystem>/devices/<sysname>), found through the model that holds ref.
 * *ret is borrowed from the model. 0, -ENODEV when there is none or ref has no model. */
int builtin_device_by_subsystem_sysname(const struct device *ref, const char *subsystem, const char *sysname,
                                        struct device **ret);

/* The device's DEVTYPE; for USB and SCSI devices without one (pre-2.6.18 kernels exported
 * none) the type their name implies: usb_device/usb_interface, scsi_host/scsi_target/
 * scsi_device. NULL when unknown. */
const char *builtin_devtype(const struct device *d);

/* The nearest ancestor (not d itself) of subsystem and, if devtype is non-NULL, of that
 * builtin_devtype(). Borrowed, NULL if none. */
struct device *builtin_find_parent(struct device *d, const char *subsystem, const char *devtype);

/* On the legacy layout a class device nested in another one (/class/input/input0/event0):
 * the enclosing class device, whose record is not its parent (that is the physical device).
 * NULL otherwise. Borrowed. */
struct device *builtin_enclosing_class_device(const struct device *d);

/* True when the device record's subsystem is s. */
static inline bool device_subsystem_is(const struct device *d, const char *s)
{
        return d->subsystem && streq(d->subsystem, s);
}
