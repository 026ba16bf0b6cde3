/* SPDX-License-Identifier: MIT */
/*
 * Processing one event end to end, in the order that publishes last:
 *
 *   model (apply the uevent; load the device's database entry after a restart)
 *     -> rules (PROGRAM / IMPORT{program} children waited for without blocking)
 *     -> interface rename (NAME= on network devices; a taken name is retried from a timer)
 *     -> mdev.conf matched, if one is loaded (a remove event runs its '$'/'*' commands here)
 *     -> node -> links -> database -> mdev.conf's '@'/'*' commands of other events
 *     -> RUN (builtins inline, programs as children, in order)
 *     -> broadcast to libudev clients
 *
 * so that node, links and database entry exist before RUN programs start and before any
 * client hears of the event (as the kernel sends its uevent only after sysfs is complete).
 *
 * Processing is a state machine (struct event_run): it runs synchronously until it needs a
 * child process and resumes from the child's completion, so the daemon's loop never blocks
 * and needs no worker processes. Tools (devmanadm test, snapshot) run the same steps with the
 * same spawner on a private event loop (process_event_wait), so a child is started, limited,
 * timed out, signalled and reported exactly as in the daemon.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "builtin.h"
#include "model.h"
#include "node.h"
#include "queue.h"

struct rules;
struct mdev_conf;
struct rules_exec;
struct monitor;
struct spawn_manager;
struct publish_retry;
struct sd_event;
struct devdir_cache;

struct process_ctx {
        struct model *model;
        const char *dev_root;
        const char *run_root;     /* database, tags, link claims; NULL: nothing is published */
        int devfd;                /* the /dev root, owned by the caller */
        struct devdir_cache *devdirs; /* directories below devfd kept open (daemon), or NULL */
        int runfd;                /* the run dir, owned by the caller; -1 when there is none */
        struct devdir_cache *rundirs; /* directories below runfd kept open (daemon), or NULL */
        struct rules *rules;      /* compiled rules, or NULL */
        const struct mdev_conf *mdev; /* busybox mdev.conf, applied after the rules: its lines
                                       * decide the nodes, their access and links, and add
                                       * commands (mdev-conf.h); NULL: none */
        struct builtin_ctx *builtins;
        struct monitor *monitor;  /* broadcaster, or NULL */
        struct spawn_manager *spawn; /* children (the daemon's; a private one in process_event_wait) */
        struct publish_retry *retry; /* devices whose node, links or database entry could not
                                      * be written wait here (daemon), or NULL: then every
                                      * failure is logged */
        struct sd_event *event;   /* the loop of spawn, for retry timers */
        const char *program_dir;  /* where relative program names live (NULL: UDEVLIBDIR) */
        const struct props *global_props; /* added to every event's device (udevadm control -p), or NULL */
        uint64_t event_timeout_usec;
        int timeout_signal;
        bool dry_run;             /* evaluate only: no node, link, database, RUN or broadcast */
        /* Called when an event is done, before its rules state is freed (devmanadm test prints
         * the matched rules and results from it), or NULL. x is NULL when no rules ran. */
        void (*report)(const struct event *e, struct device *dev, struct rules_exec *x, void *userdata);
        void *report_userdata;
        unsigned long n_processed;
        unsigned long n_failed;
};

/* For a kernel add event that nothing queued before it holds back: makes its node now, with
 * the safest access (0600 root), as devtmpfs does when the kernel adds a device, instead of
 * when the events ahead of it are done; its processing gives it the rules' access. Only for
 * the live /sys, a /dev without the node, and when rules will run. 1 when made, 0 when not
 * needed, -errno (the event's processing tries again). */
int process_make_node_early(struct process_ctx *ctx, struct event *e);

/* Called once when the event's processing is over (result 0 or the -errno of the step that
 * failed; an event always completes and failures are logged). The device (a borrowed
 * reference, NULL when the event could not be applied) is the processed record. */
typedef void (*process_done_t)(struct event *e, struct device *dev, int result, void *userdata);

/* Starts processing e. done may be called before this returns (no child needed). 0, or
 * -errno when the event could not start (done is then not called). */
int process_event(struct process_ctx *ctx, struct event *e, process_done_t done, void *userdata);

/* Publishes d's current state again: makes its node, claims and creates its links (no
 * previous links are released) and writes its database entry. For devices in ctx->retry.
 * 0 or the first -errno. */
int process_republish(struct process_ctx *ctx, struct device *d);

/* The mode and owner the node of d is given: the rules' MODE/OWNER/GROUP, else the kernel's
 * DEVMODE/DEVUID/DEVGID, else NODE_*_UNSET (an existing node keeps its own; a new one gets
 * node_access_for_new()'s); 0660 when only a group other than root was decided. */
struct node_access process_node_access(const struct device *d);

/* For tools: processes e to completion on a private sd-event loop with its own spawner (no
 * limit on children), with SIGCHLD blocked meanwhile (the previous mask is restored). ctx->event
 * and ctx->spawn must be NULL (-EINVAL otherwise) and are NULL again on return. done is called
 * before a 0 return; -errno when the event could not start or the loop failed. */
int process_event_wait(struct process_ctx *ctx, struct event *e, process_done_t done, void *userdata);

/* Gives up on a running event (daemon exit): its children are left to the spawn manager's
 * teardown, done is not called. */
void process_event_abort(struct event *e);
