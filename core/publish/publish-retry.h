/* SPDX-License-Identifier: MIT */
/*
 * Devices whose results could not be published (their node, link claims or database entry
 * could not be written: /dev or the run directory full or read-only), kept to be published again later, so
 * that a passing fault of /dev or /run costs clients nothing once it is gone, and the log says it
 * once instead of once per event.
 *
 * The set holds a reference to each pending device, keyed by a copy of its devpath. An entry
 * leaves the set when it is published (by a later event or by publish_retry_flush()), when its
 * device is removed, or when the set is freed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "macros.h"

struct publish_retry;

struct publish_retry *publish_retry_new(void); /* NULL on ENOMEM */
struct publish_retry *publish_retry_free(struct publish_retry *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct publish_retry, publish_retry_free)

/* Records that d could not be published (error: the -errno of the failed write). Returns 1
 * when the set was empty before (the caller logs the fault once), 0 when it was not, or
 * -ENOMEM. */
int publish_retry_add(struct publish_retry *s, struct device *d, int error);

/* d was published or removed: it no longer waits. */
void publish_retry_forget(struct publish_retry *s, const struct device *d);

size_t publish_retry_pending(const struct publish_retry *s);

/* The error of the first failure since the set was last empty (0 when empty), and how many
 * publications have failed since then. */
int publish_retry_first_error(const struct publish_retry *s);
unsigned long publish_retry_failures(const struct publish_retry *s);

/* Calls publish(d, userdata) for every pending device still in a model (the others are
 * dropped); those it returns >= 0 for leave the set. Returns the number still pending;
 * *published gets the number published. Logs nothing. */
size_t publish_retry_flush(struct publish_retry *s, int (*publish)(struct device *d, void *userdata), void *userdata,
                           size_t *published);
