/* SPDX-License-Identifier: MIT */
#include "queue.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "strfmt.h"

static struct event *event_free(struct event *e)
{
        if (e) {
                uevent_free(e->uevent);
                free(e);
        }
        return NULL;
}

int event_queue_push(struct event_queue *q, struct uevent *ev, uint64_t now_usec, struct event **ret)
{
        struct event *e = calloc(1, sizeof(*e));
        if (!e) {
                uevent_free(ev);
                return -ENOMEM;
        }
        e->uevent = ev;
        e->seqnum = ev->seqnum ? ev->seqnum : q->last_seqnum + 1;
        if (e->seqnum > q->last_seqnum)
                q->last_seqnum = e->seqnum;
        e->devnum = ev->devnum;
        if (e->devnum)
                e->devnum_type = streq_ptr(ev->subsystem, "block") ? 'b' : 'c';
        uint64_t ifindex;
        if (strfmt_parse_uint(props_get(&ev->props, "IFINDEX"), 10, INT_MAX, &ifindex) == 0)
                e->ifindex = (int)ifindex;
        e->state = EVENT_QUEUED;
        e->queued_usec = now_usec;
        e->prev = q->tail;
        if (q->tail)
                q->tail->next = e;
        else
                q->head = e;
        q->tail = e;
        q->n_queued++;
        if (ev->action == UEVENT_REMOVE)
                q->n_removals++;
        if (ret)
                *ret = e;
        return 0;
}

/* a is b, or an ancestor of b, by path */
static bool path_is_prefix(const char *a, const char *b)
{
        size_t l = strlen(a);
        return strncmp(a, b, l) == 0 && (b[l] == '\0' || b[l] == '/');
}

bool events_related(const struct event *a, const struct event *b)
{
        const char *pa = a->uevent->devpath, *pb = b->uevent->devpath;
        const char *oa = a->uevent->devpath_old, *ob = b->uevent->devpath_old;

        if (a->devnum_type && a->devnum_type == b->devnum_type && a->devnum == b->devnum)
                return true;
        if (a->ifindex > 0 && a->ifindex == b->ifindex)
                return true;
        if (path_is_prefix(pa, pb) || path_is_prefix(pb, pa))
                return true;
        if (oa && (path_is_prefix(oa, pb) || path_is_prefix(pb, oa)))
                return true;
        if (ob && (path_is_prefix(ob, pa) || path_is_prefix(pa, ob)))
                return true;
        return false;
}

bool event_queue_blocked(const struct event_queue *q, const struct event *e)
{
        (void)q;
        for (const struct event *earlier = e->prev; earlier; earlier = earlier->prev)
                if (events_related(earlier, e))
                        return true;
        return false;
}

struct event *event_queue_next_ready(struct event_queue *q)
{
        for (struct event *e = q->head; e; e = e->next) {
                if (e->state != EVENT_QUEUED)
                        continue;
                bool blocked = false;
                for (struct event *earlier = e->prev; earlier && !blocked; earlier = earlier->prev)
                        blocked = events_related(earlier, e);
                if (!blocked)
                        return e;
        }
        return NULL;
}

void event_queue_set_running(struct event_queue *q, struct event *e)
{
        if (e->state == EVENT_QUEUED) {
                e->state = EVENT_RUNNING;
                q->n_queued--;
                q->n_running++;
        }
}

void event_queue_finish(struct event_queue *q, struct event *e)
{
        if (e->prev)
                e->prev->next = e->next;
        else
                q->head = e->next;
        if (e->next)
                e->next->prev = e->prev;
        else
                q->tail = e->prev;
        if (e->state == EVENT_QUEUED)
                q->n_queued--;
        else
                q->n_running--;
        if (e->uevent->action == UEVENT_REMOVE)
                q->n_removals--;
        event_free(e);
}

bool event_queue_removal_queued(const struct event_queue *q, const struct event *after, const char *devpath)
{
        if (q->n_removals == 0)
                return false;
        for (const struct event *e = after ? after->next : q->head; e; e = e->next)
                if (e->uevent->action == UEVENT_REMOVE && streq(e->uevent->devpath, devpath))
                        return true;
        return false;
}

enum device_removal event_queue_removal(const struct event_queue *q, const struct event *e, bool complete)
{
        if (event_queue_removal_queued(q, e, e->uevent->devpath))
                return DEVICE_REMOVAL_QUEUED;
        return complete ? DEVICE_REMOVAL_NONE : DEVICE_REMOVAL_UNKNOWN;
}

void event_queue_clear(struct event_queue *q)
{
        while (q->head)
                event_queue_finish(q, q->head);
}
