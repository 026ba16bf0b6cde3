/* SPDX-License-Identifier: MIT */
/*
 * Reading sysfs: attribute files of any length, link targets, the `uevent` file, the `dev`
 * attribute. Paths are absolute (sysfs root already applied). Whole-file reads and path joining
 * are core/fs-util.h's.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "props.h"

/* Reads a small file whose content must fit max bytes; -EFBIG when it does not. */
int read_file_bounded(const char *path, size_t max, char **ret);
/* Basename of a symlink's target (e.g. "<syspath>/driver" -> "e1000"); -ENOENT, -EINVAL. */
int readlink_basename(const char *path, char **ret);
int readlink_basename_at(int dirfd, const char *path, char **ret);
/* Writes value to an attribute file (one write); 0 or -errno. */
int write_attr(const char *path, const char *value);
int write_attr_at(int dirfd, const char *path, const char *value);

/* Parses "MAJOR:MINOR\n"; -EINVAL when malformed. */
int parse_devnum(const char *s, dev_t *ret);
/* Parses the lines of a uevent file into props with PROP_KERNEL (bad lines are skipped). */
int parse_uevent_file(const char *content, struct props *props);

/* Strips trailing whitespace (and newlines) in place; returns s. */
char *strip_trailing_space(char *s);
