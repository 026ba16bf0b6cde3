/* SPDX-License-Identifier: MIT */
/*
 * Device symlinks with priority claims, as udev keeps them: several devices may claim one
 * link (disk/by-label/x); the claimant with the highest link priority owns it, and among
 * equal priorities the newest claim wins. When the owner releases its claim the link moves
 * to the next claimant, or is removed when none is left.
 *
 * Claims live in the run directory, so a daemon restart keeps them, in the layout systemd 252's
 * udevd keeps there (a directory per link, an entry per claimant; its clean-up skips anything
 * else in links/; the entries' targets are devman's own records):
 *   <run>/links/<escaped link>/<escaped device id>
 * Each claim is a symlink whose target is the record
 *   "<priority>\n<sequence>\n<devname>\n<device id>\n<link>"
 * written atomically (made in place in a directory made for it, else a temporary renamed over
 * it). A released claim goes first, then, when it was the last, the /dev link, then the
 * directory: after a crash links_gc() finds the empty directory and settles its link. A claim
 * an earlier devman kept as one symlink directly in links/ is moved into its directory when
 * met (links_gc() at start).
 * The sequence number orders claims of one link (newest = highest); re-asserting an
 * unchanged claim keeps its place, so change events do not make links flap between devices.
 * Escaping: '/' -> "\x2f", '\' -> "\x5c", a leading '.' -> "\x2e"; names whose escaped form
 * exceeds NAME_MAX use "\#<64-bit FNV-1a hex>" (the record carries the real names).
 *
 * Links are relative symlinks inside the /dev root (devfd), made with devdir.c: never outside
 * the root, never replacing anything that is not a symlink (a device node, a file, a
 * directory), and their emptied parent directories are removed. A device that owns a link
 * alone (the common case) makes and drops it without reading other claims.
 *
 * Both fds belong to the caller. Functions return 0/positive or -errno and do not log; when
 * several links are processed, every one is attempted and the first error is returned.
 */
#pragma once

#include <stdbool.h>

#include "devdir.h"

/* Brings the claims of device_id (whose node is devname, relative to the /dev root) from
 * old_links to new_links (NULL-terminated arrays of link names; either may be NULL), with
 * the given link priority, and fixes every link concerned. Links in both sets are claimed
 * anew (the priority or devname may have changed). -EINVAL for an invalid device id or
 * devname, or (after the others were processed) for an invalid link name; -EEXIST when a
 * link could not be made because something other than a symlink is in its place. */
int links_update(int devfd, struct devdir_cache *devdirs, int runfd, const char *device_id,
                 const char *devname, char **old_links, char **new_links, int priority);

/* Releases every claim of device_id: those on the listed links, or, with links NULL, all of
 * them found in the run directory (slower: scans every claim). */
int links_remove_all(int devfd, struct devdir_cache *devdirs, int runfd, const char *device_id,
                     char **links);

/* Crash recovery: drops the claims of devices for which is_live(device_id, userdata) is false
 * and unreadable claim records, then re-resolves every claimed link (repairing links left
 * half-updated). Returns the number of claims dropped, or -errno. */
int links_gc(int devfd, int runfd, bool (*is_live)(const char *device_id, void *userdata), void *userdata);

/* The owner of a link according to the claims: its device id and devname as new strings (either
 * pointer may be NULL). 1 when the link has an owner, 0 when it has no claim, -errno. */
int links_get_owner(int runfd, const char *link, char **ret_device_id, char **ret_devname);
