/* SPDX-License-Identifier: MIT */
/*
 * O_PATH fds of a few sysfs directories that hold devices (/sys/devices/virtual/block, a PCI
 * function ...), most recently used kept. A device's directory is then opened with one
 * component looked up, not the whole path from the root: in a storm the kernel holds the sysfs
 * tree's lock for every device it adds, and each component looked up waits for it.
 *
 * A directory that is removed leaves a dead fd behind: opening through it fails, the entry is
 * dropped and the path is walked from the root again, so a stale entry costs one extra
 * look-up and never gives a wrong result. The cache owns its fds and strings.
 */
#pragma once

struct sysdir_cache;

/* root: the sysfs root the devpaths are relative to (copied). NULL when out of memory. */
struct sysdir_cache *sysdir_cache_new(const char *root);
struct sysdir_cache *sysdir_cache_free(struct sysdir_cache *c);

/* A new O_PATH|O_DIRECTORY fd (the caller owns it) of root + devpath, an absolute devpath
 * such as "/devices/virtual/block/loop0". -errno (-ENOENT when it does not exist). */
int sysdir_cache_open(struct sysdir_cache *c, const char *devpath);

/* The root given to sysdir_cache_new(). */
const char *sysdir_cache_root(const struct sysdir_cache *c);
