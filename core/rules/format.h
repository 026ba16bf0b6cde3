/* SPDX-License-Identifier: MIT */
/*
 * udev's string substitutions (udev(7), "String substitutions"): %k $kernel, %n $number,
 * %p $devpath, %b $id, %d $driver, %s{attr} $attr{attr} (also "[subsystem/sysname]attr"),
 * %E{key} $env{key}, %M $major, %m $minor, %c $result (%c{N}, %c{N+}), %P $parent,
 * %N $tempnode $devnode, %D $name, %L $links, %r $root, %S $sys, %% $$.
 *
 * Also the character sanitizing udev applies to values that become names, links and program
 * results. All results are heap strings owned by the caller.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "device.h"

/* Characters kept in attribute values and program results besides the always-safe ones
 * (strenc_replace_chars()). */
#define FORMAT_ALLOWED_CHARS_INPUT "/ $%?,"

/* What a substitution can refer to. Only dev is required. */
struct format_ctx {
        struct device *dev;
        struct device *parent;      /* the parent matched by KERNELS/SUBSYSTEMS/DRIVERS/ATTRS/TAGS, or NULL */
        const char *sysfs_root;     /* "/sys" */
        const char *dev_root;       /* "/dev" */
        const char *name;           /* NAME= assigned so far, or NULL */
        const char *program_result; /* output of the last PROGRAM, or NULL */
};

/* Checks the substitutions of s without expanding them. 0, or -EINVAL with the byte offset of
 * the bad substitution in *ret_offset and a static reason in *ret_hint (both optional). */
int format_check(const char *s, size_t *ret_offset, const char **ret_hint);

/* True when s contains a substitution character ('%' or '$'). */
bool format_has_subst(const char *s);

/* Expands s. With replace_whitespace, whitespace inside each substituted value except a
 * PROGRAM result (%c, $result) is collapsed to '_' (leading/trailing dropped), so one attribute
 * or property cannot split a SYMLINK list while a result's words become separate links. Unknown
 * substitutions (which format_check() rejects at parse time) expand to nothing.
 * 0 or -ENOMEM. */
int format_apply(const struct format_ctx *c, const char *s, bool replace_whitespace, char **ret);

/* Drops trailing whitespace in place. */
void format_strip_trailing(char *s);

/* The device property key as udev presents it to rules and programs: the property set first,
 * then values derived from the record (DEVPATH, SUBSYSTEM, DEVTYPE, DRIVER, MAJOR, MINOR,
 * IFINDEX, DEVNAME as an absolute path below dev_root, DEVLINKS, TAGS, CURRENT_TAGS).
 * Returns a borrowed pointer, or one owned by *buf (freed by the caller); NULL when absent. */
const char *format_get_property(struct device *dev, const char *dev_root, const char *key, char **buf);
/* Whether format_get_property() can give key a value the property set does not have. */
bool format_property_is_derived(const char *key);

/* Resolves "[subsystem/sysname]attr": with read_value the attribute's value (trailing whitespace
 * stripped), else its path (for "[subsystem/sysname]" alone the device's sysfs directory).
 * -EINVAL when s has no such form, -ENOENT/-errno when the device or attribute is missing. */
int format_resolve_subsys(const char *sysfs_root, const char *s, bool read_value, char **ret);
