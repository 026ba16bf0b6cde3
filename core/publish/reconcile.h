/* SPDX-License-Identifier: MIT */
/*
 * Reconciling after a restart (or a crash: kill -9 in the middle of a storm): what a previous
 * daemon published — database entries and tags, link claims, device nodes — is compared with
 * the devices sysfs has now.
 *  - Devices that are gone: their node (found through /dev/char|block/M:m), their link claims,
 *    database entry and tags are removed.
 *  - After a crash only (the previous daemon did not exit cleanly): every bus, driver and
 *    module (what the trigger's subsystems pass announces), then every present device, is
 *    listed for a synthetic add event. The events the daemon had read and not finished died
 *    with it and left no trace: a device with a node and a database entry may still have had a
 *    change queued, or an add cut short after its entry was written (RUN, broadcast). After a
 *    clean exit or on a fresh boot, coldplug is the trigger's job.
 * Nothing is removed that cannot be tied to a gone device, so nodes made by devtmpfs or by
 * hand stay untouched.
 */
#pragma once

#include <stdbool.h>

#include "model.h"

struct reconcile_stats {
        unsigned stale_entries; /* database entries of gone devices removed */
        unsigned stale_nodes;   /* nodes of gone devices removed */
        unsigned stale_claims;  /* link claims of gone devices dropped */
        unsigned to_add;        /* devices listed for an add event */
};

/* m must be scanned (model_scan). *ret_add gets the devpaths needing an add event (subsystem
 * kobjects first, then devices, parents first; NULL-terminated, owned by the caller). 0 or
 * -errno; single failures are logged and skipped. */
int reconcile(struct model *m, int devfd, int runfd, const char *run_root, bool after_crash, char ***ret_add,
              struct reconcile_stats *stats);
