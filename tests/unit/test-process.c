/* SPDX-License-Identifier: MIT */
/* process_event(): what the daemon knows of a device's removal when its event starts
 * (event.removal) is what the builtins find on the device record (device.removal). */
#include "model.h"
#include "process.h"
#include "queue.h"
#include "test-tmpdir.h"
#include "test-util.h"

static void on_done(struct event *e, struct device *dev, int result, void *userdata)
{
        *(enum device_removal *)userdata = dev ? dev->removal : (enum device_removal)-1;
}

static void test_removal_given(void)
{
        char *root = test_tmpdir_new("process");
        struct model *m = NULL;
        CHECK_INT(model_new(root, &m), 0);
        struct process_ctx ctx = {.model = m, .dev_root = "/dev", .devfd = -1, .runfd = -1, .dry_run = true};
        static const enum device_removal facts[] = {DEVICE_REMOVAL_QUEUED, DEVICE_REMOVAL_NONE,
                                                    DEVICE_REMOVAL_UNKNOWN};
        for (size_t i = 0; i < ELEMENTSOF(facts); i++) {
                struct props p = PROPS_INIT;
                struct uevent *ev = NULL;
                CHECK_INT(props_set(&p, "SUBSYSTEM", "block", PROP_KERNEL), 0);
                CHECK_INT(uevent_new(UEVENT_CHANGE, "/devices/virtual/block/loop7", &p, &ev), 0);
                props_clear(&p);
                struct event e = {.uevent = ev, .seqnum = i + 1, .state = EVENT_RUNNING, .removal = facts[i]};
                enum device_removal seen = (enum device_removal)-1;
                CHECK_INT(process_event_wait(&ctx, &e, on_done, &seen), 0);
                CHECK_INT(seen, facts[i]);
                uevent_free(ev);
        }
        model_free(m);
        test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_removal_given))
