/* SPDX-License-Identifier: MIT */
/*
 * The event queue: kernel events in arrival (SEQNUM) order, each QUEUED until it may start
 * and RUNNING until its processing completes (including any PROGRAM/RUN child it waits for).
 *
 * Ordering rule (the state machine):
 *   QUEUED --(no earlier unfinished event is related)--> RUNNING --(done)--> freed
 * Two events are related when they concern the same device (devpath, DEVPATH_OLD, devt or
 * ifindex) or one device is an ancestor of the other (devpath prefix). An event waits for
 * every earlier related event; unrelated events never wait for each other. Because events
 * that need no child process complete as soon as they start, the unfinished events before
 * any queued event are few (those waiting on children), so the scan stays short.
 *
 * The queue owns its events and their uevents.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "device.h"
#include "uevent.h"

enum event_state {
        EVENT_QUEUED,
        EVENT_RUNNING,
};

struct event {
        struct event *prev, *next;
        struct uevent *uevent; /* owned */
        uint64_t seqnum;       /* the kernel's, or a queue-local number for synthetic events */
        char devnum_type;      /* 'c', 'b' or 0 */
        dev_t devnum;
        int ifindex;
        enum event_state state;
        uint64_t queued_usec;  /* CLOCK_MONOTONIC */
        bool node_made;        /* its node (and M:m link) was made when it was queued */
        enum device_removal removal; /* given to its device while it runs (set by the daemon) */
        void *data;            /* the processing state of a running event (owned by the runner) */
};

struct event_queue {
        struct event *head, *tail;
        size_t n_queued, n_running;
        size_t n_removals;     /* remove events in the queue (queued or running) */
        uint64_t last_seqnum;
};

/* Appends an event for ev, taking ownership of ev (freed on failure too). */
int event_queue_push(struct event_queue *q, struct uevent *ev, uint64_t now_usec, struct event **ret);
/* Whether an earlier unfinished event is related to e. */
bool event_queue_blocked(const struct event_queue *q, const struct event *e);
/* The first QUEUED event not blocked by an earlier unfinished one, or NULL. */
struct event *event_queue_next_ready(struct event_queue *q);
void event_queue_set_running(struct event_queue *q, struct event *e);
/* Removes and frees a (running or queued) event. */
void event_queue_finish(struct event_queue *q, struct event *e);
/* Frees every event (data must have been released by the runner). */
void event_queue_clear(struct event_queue *q);
/* Whether a remove event of devpath is in the queue behind `after` (NULL: anywhere). Costs
 * nothing while the queue holds no remove event at all. */
bool event_queue_removal_queued(const struct event_queue *q, const struct event *after, const char *devpath);
/* What e's device can know of its removal: QUEUED when a remove event of its devpath is queued
 * behind e, else NONE when the queue holds every event the kernel sent so far (complete), else
 * UNKNOWN. */
enum device_removal event_queue_removal(const struct event_queue *q, const struct event *e, bool complete);

static inline bool event_queue_is_empty(const struct event_queue *q)
{
        return !q->head;
}

/* Whether a and b are related in the sense above (exposed for tests). */
bool events_related(const struct event *a, const struct event *b);
