/* SPDX-License-Identifier: MIT */
#include "queue.h"
#include "test-util.h"

static struct event *push(struct event_queue *q, const char *action, const char *devpath, const char *extra)
{
        struct props p = PROPS_INIT;
        struct uevent *ev = NULL;
        struct event *e = NULL;
        if (extra) {
                /* "K=V K=V" */
                char *copy = strdup(extra), *save = NULL;
                for (char *kv = strtok_r(copy, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
                        char *eq = strchr(kv, '=');
                        *eq = '\0';
                        props_set(&p, kv, eq + 1, PROP_KERNEL);
                }
                free(copy);
        }
        CHECK_INT(uevent_new(uevent_action_from_string(action), devpath, &p, &ev), 0);
        props_clear(&p);
        CHECK_INT(event_queue_push(q, ev, 0, &e), 0);
        return e;
}

static void test_ordering(void)
{
        struct event_queue q = {0};
        struct event *a = push(&q, "add", "/devices/pci0000:00/usb1", NULL);
        struct event *b = push(&q, "add", "/devices/pci0000:00/usb1/1-1", NULL);    /* child of a */
        struct event *c = push(&q, "add", "/devices/virtual/mem/null", "MAJOR=1 MINOR=3"); /* unrelated */
        struct event *d = push(&q, "change", "/devices/virtual/mem/null", NULL);          /* same as c */
        struct event *e = push(&q, "add", "/devices/virtual/misc/other", "MAJOR=1 MINOR=3"); /* same devt as c */
        struct event *f = push(&q, "add", "/devices/pci0000:00/usb10", NULL); /* prefix but not an ancestor */

        CHECK_INT(q.n_queued, 6);
        CHECK(event_queue_next_ready(&q) == a);
        event_queue_set_running(&q, a);
        /* b waits for its parent a; c is unrelated */
        CHECK(event_queue_next_ready(&q) == c);
        event_queue_set_running(&q, c);
        /* d waits for c, e (same devt) waits for c; f is unrelated to a ("usb10" is not under "usb1") */
        CHECK(event_queue_next_ready(&q) == f);
        event_queue_set_running(&q, f);
        CHECK(event_queue_next_ready(&q) == NULL);
        event_queue_finish(&q, a);
        CHECK(event_queue_next_ready(&q) == b);
        event_queue_finish(&q, c);
        CHECK(event_queue_next_ready(&q) == b); /* still first in order */
        event_queue_set_running(&q, b);
        CHECK(event_queue_next_ready(&q) == d);
        event_queue_set_running(&q, d);
        /* e shared its devt with c only, and c is done */
        CHECK(event_queue_next_ready(&q) == e);
        CHECK_INT(q.n_running, 3);
        CHECK_INT(q.n_queued, 1);
        event_queue_clear(&q);
        CHECK(event_queue_is_empty(&q));
        CHECK_INT(q.n_running + q.n_queued, 0);
}

static void test_move_relation(void)
{
        struct event_queue q = {0};
        struct event *a = push(&q, "move", "/devices/x/net/eth1", "DEVPATH_OLD=/devices/x/net/eth0 IFINDEX=3");
        struct event *b = push(&q, "change", "/devices/x/net/eth0", NULL);
        struct event *c = push(&q, "change", "/devices/x/net/wlan0", "IFINDEX=3");
        struct event *d = push(&q, "change", "/devices/y", NULL);
        CHECK(events_related(a, b));
        CHECK(events_related(a, c));
        CHECK(!events_related(a, d));
        CHECK(a->seqnum < b->seqnum && b->seqnum < c->seqnum);
        event_queue_clear(&q);
}

/* A removal the queue holds is found for its device only, and the count follows the queue. */
static void test_removal_queued(void)
{
        struct event_queue q = {0};
        struct event *a = push(&q, "add", "/devices/virtual/block/loop7", "MAJOR=7 MINOR=7");
        CHECK(!event_queue_removal_queued(&q, NULL, "/devices/virtual/block/loop7"));
        CHECK_INT(q.n_removals, 0);
        struct event *other = push(&q, "remove", "/devices/virtual/block/loop8", "MAJOR=7 MINOR=8");
        CHECK(!event_queue_removal_queued(&q, NULL, "/devices/virtual/block/loop7"));
        CHECK(event_queue_removal_queued(&q, NULL, "/devices/virtual/block/loop8"));
        struct event *r = push(&q, "remove", "/devices/virtual/block/loop7", "MAJOR=7 MINOR=7");
        CHECK_INT(q.n_removals, 2);
        CHECK(event_queue_removal_queued(&q, a, "/devices/virtual/block/loop7"));
        CHECK(!event_queue_removal_queued(&q, r, "/devices/virtual/block/loop7")); /* none behind it */
        event_queue_set_running(&q, r);
        CHECK(event_queue_removal_queued(&q, NULL, "/devices/virtual/block/loop7")); /* running counts */
        event_queue_finish(&q, r);
        event_queue_finish(&q, other);
        CHECK_INT(q.n_removals, 0);
        CHECK(!event_queue_removal_queued(&q, NULL, "/devices/virtual/block/loop7"));
        event_queue_clear(&q);
}

/* What a device learns of its removal when its event starts: a queued remove tells, else the
 * queue says "none" only when it holds every event the kernel sent. */
static void test_removal_fact(void)
{
        struct event_queue q = {0};
        struct event *a = push(&q, "add", "/devices/virtual/block/loop7", "MAJOR=7 MINOR=7");
        CHECK_INT(event_queue_removal(&q, a, true), DEVICE_REMOVAL_NONE);
        CHECK_INT(event_queue_removal(&q, a, false), DEVICE_REMOVAL_UNKNOWN);
        push(&q, "remove", "/devices/virtual/block/loop8", "MAJOR=7 MINOR=8");
        CHECK_INT(event_queue_removal(&q, a, true), DEVICE_REMOVAL_NONE);
        struct event *r = push(&q, "remove", "/devices/virtual/block/loop7", "MAJOR=7 MINOR=7");
        CHECK_INT(event_queue_removal(&q, a, true), DEVICE_REMOVAL_QUEUED);
        CHECK_INT(event_queue_removal(&q, a, false), DEVICE_REMOVAL_QUEUED);
        struct event *b = push(&q, "add", "/devices/virtual/block/loop7", "MAJOR=7 MINOR=7");
        CHECK_INT(event_queue_removal(&q, r, true), DEVICE_REMOVAL_NONE);
        CHECK_INT(event_queue_removal(&q, b, true), DEVICE_REMOVAL_NONE);
        event_queue_clear(&q);
}

TEST_MAIN(TEST(test_ordering), TEST(test_move_relation), TEST(test_removal_queued), TEST(test_removal_fact))
