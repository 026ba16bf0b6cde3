/* SPDX-License-Identifier: MIT */
/*
 * Processing one event end to end, in the order that publishes last:
 *
 *   model (apply the uevent) -> rules -> node -> links -> database -> RUN -> broadcast
 *
 * so that node, links and database entry exist before any client hears of the event (as
 * the kernel sends its uevent only after sysfs is complete).
 *
 * Processing is a state machine (struct event_run): it runs synchronously until it needs a
 * child process (PROGRAM, IMPORT{program}, RUN) and then resumes from the child's completion,
 * so the daemon's loop never blocks and needs no worker processes. Tools pass no spawner and
 * get the same steps with children waited for in place.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "queue.h"

struct rules;
struct monitor;
struct spawn_manager;

struct process_ctx {
        struct model *model;
        int devfd;                /* the /dev root, owned by the caller */
        int runfd;                /* the run dir, owned by the caller; -1 when there is none */
        struct rules *rules;      /* compiled rules, or NULL */
        struct monitor *monitor;  /* broadcaster, or NULL */
        struct spawn_manager *spawn; /* asynchronous children (daemon), or NULL (tools) */
        uint64_t event_timeout_usec;
        bool dry_run;             /* evaluate only: no node, link, database or RUN */
        unsigned long n_processed;
        unsigned long n_failed;
};

struct event_run;
/* Called once when the event's processing is over (result 0 or the -errno that ended it early;
 * an event always completes, failures are logged). The run is freed after the callback. */
typedef void (*process_done_t)(struct event *e, int result, void *userdata);

/* Starts processing e. done may be called before this returns (no child needed). 0, or
 * -errno when the event could not start (done is then not called). */
int process_event(struct process_ctx *ctx, struct event *e, process_done_t done, void *userdata);

/* Gives up on a running event (daemon exit): children are killed, done is not called. */
void process_event_abort(struct event *e);
