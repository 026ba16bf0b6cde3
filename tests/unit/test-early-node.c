/* SPDX-License-Identifier: MIT */
/* process_make_node_early(): the node of a kernel add event is made when it is queued (0600,
 * root, with its M:m link), and only then: not for other actions, made-up events, names that
 * are not safe, or a fake sysfs root. mknod needs root (the unit suite runs as root). */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "macros.h"
#include "model.h"
#include "process.h"
#include "queue.h"
#include "rules-parse.h"
#include "test-tmpdir.h"
#include "test-util.h"

static struct event *queue_kernel(struct event_queue *q, const char *msg, size_t len)
{
        struct uevent *ev = NULL;
        const char *why;
        struct event *e = NULL;
        CHECK_INT(uevent_parse(msg, len, &ev, &why), 0);
        CHECK_INT(event_queue_push(q, ev, 0, &e), 0);
        return e;
}

static void test_early_node(void)
{
        char *dir = test_tmpdir_new("early-node");
        int devfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct model *m = NULL;
        /* the node comes from the event alone: any tree will do, marked as the kernel's */
        CHECK_INT(model_new(dir, &m), 0);
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        CHECK(rules);
        struct process_ctx ctx = {.model = m, .dev_root = dir, .devfd = devfd, .runfd = -1, .rules = rules};
        struct event_queue q = {0};

        static const char add[] = "add@/devices/virtual/misc/devman-early\0ACTION=add\0"
                                  "DEVPATH=/devices/virtual/misc/devman-early\0SUBSYSTEM=misc\0MAJOR=10\0"
                                  "MINOR=250\0DEVNAME=devman/early\0SEQNUM=1";
        struct event *e = queue_kernel(&q, add, sizeof(add));
        /* not on a fake tree: its events do not describe this machine */
        CHECK_INT(process_make_node_early(&ctx, e), 0);
        CHECK(faccessat(devfd, "devman/early", F_OK, AT_SYMLINK_NOFOLLOW) < 0);
        model_set_live(m, true);
        CHECK_INT(process_make_node_early(&ctx, e), 1);
        CHECK(e->node_made);
        struct stat st;
        CHECK(fstatat(devfd, "devman/early", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
              st.st_rdev == makedev(10, 250) && (st.st_mode & 07777) == 0600 && st.st_uid == 0);
        char target[64] = "";
        CHECK(readlinkat(devfd, "char/10:250", target, sizeof(target) - 1) > 0 && streq(target, "../devman/early"));
        /* there already: nothing to do */
        CHECK_INT(process_make_node_early(&ctx, e), 0);

        static const char chg[] = "change@/devices/virtual/misc/devman-other\0ACTION=change\0"
                                  "DEVPATH=/devices/virtual/misc/devman-other\0SUBSYSTEM=misc\0MAJOR=10\0"
                                  "MINOR=251\0DEVNAME=devman-other\0SEQNUM=2";
        e = queue_kernel(&q, chg, sizeof(chg));
        CHECK_INT(process_make_node_early(&ctx, e), 0);
        static const char bad[] = "add@/devices/virtual/misc/devman-bad\0ACTION=add\0"
                                  "DEVPATH=/devices/virtual/misc/devman-bad\0SUBSYSTEM=misc\0MAJOR=10\0"
                                  "MINOR=252\0DEVNAME=../escape\0SEQNUM=3";
        e = queue_kernel(&q, bad, sizeof(bad));
        CHECK_INT(process_make_node_early(&ctx, e), 0);
        CHECK(faccessat(devfd, "devman-other", F_OK, AT_SYMLINK_NOFOLLOW) < 0);

        /* a made-up event (trigger, resync) waits for its processing */
        struct props p = {0};
        CHECK_INT(props_set(&p, "SUBSYSTEM", "misc", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "MAJOR", "10", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "MINOR", "253", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "DEVNAME", "devman-synth", PROP_KERNEL), 0);
        struct uevent *ev = NULL;
        CHECK_INT(uevent_new(UEVENT_ADD, "/devices/virtual/misc/devman-synth", &p, &ev), 0);
        CHECK_INT(event_queue_push(&q, ev, 0, &e), 0);
        CHECK_INT(process_make_node_early(&ctx, e), 0);
        CHECK(faccessat(devfd, "devman-synth", F_OK, AT_SYMLINK_NOFOLLOW) < 0);
        props_clear(&p);

        /* a related earlier event holds it back */
        CHECK(event_queue_blocked(&q, e) == false);
        static const char again[] = "add@/devices/virtual/misc/devman-early/sub\0ACTION=add\0"
                                    "DEVPATH=/devices/virtual/misc/devman-early/sub\0SUBSYSTEM=misc\0SEQNUM=5";
        e = queue_kernel(&q, again, sizeof(again));
        CHECK(event_queue_blocked(&q, e));

        event_queue_clear(&q);
        rules_free(rules);
        model_free(m);
        close(devfd);
        test_tmpdir_remove(dir);
}

TEST_MAIN(TEST(test_early_node))
