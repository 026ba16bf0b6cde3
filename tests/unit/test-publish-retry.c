/* SPDX-License-Identifier: MIT */
/* The set of devices waiting to be published again: first-fault reporting, forgetting,
 * flushing with a publisher that fails then works, devices removed meanwhile. */
#include "model.h"
#include "publish-retry.h"
#include "test-tmpdir.h"
#include "test-util.h"

struct publisher {
        int fail_with; /* 0: publish works */
        unsigned calls;
};

static int publish(struct device *d, void *userdata)
{
        struct publisher *p = userdata;
        p->calls++;
        return p->fail_with;
}

/* A device held by a model (publish_retry drops devices no longer in one). */
static struct device *modelled(struct model *m, const char *devpath)
{
        struct device *d = NULL;
        struct uevent *ev = NULL;
        if (uevent_new(UEVENT_ADD, devpath, NULL, &ev) < 0 || model_apply_uevent(m, ev, &d) < 0)
                abort();
        uevent_free(ev);
        return d;
}

static void test_first_fault_and_flush(void)
{
        char *sysfs = test_tmpdir_new("retry"); /* an empty sysfs: devices come from events */
        struct model *m = NULL;
        CHECK_INT(model_new(sysfs, &m), 0);
        struct publish_retry *s = publish_retry_new();
        CHECK(s != NULL);
        struct device *a = modelled(m, "/devices/virtual/test/a"), *b = modelled(m, "/devices/virtual/test/b");
        CHECK(a->model == m && b->model == m);

        CHECK_INT(publish_retry_pending(s), 0);
        CHECK_INT(publish_retry_first_error(s), 0);
        CHECK_INT(publish_retry_add(s, a, -ENOSPC), 1); /* the first fault: the caller logs */
        CHECK_INT(publish_retry_add(s, b, -EROFS), 0);
        CHECK_INT(publish_retry_add(s, a, -EROFS), 0);  /* again: still one entry */
        CHECK_INT(publish_retry_pending(s), 2);
        CHECK_INT(publish_retry_first_error(s), -ENOSPC);
        CHECK_INT(publish_retry_failures(s), 3);

        struct publisher p = {.fail_with = -ENOSPC};
        size_t published = 99;
        CHECK_INT(publish_retry_flush(s, publish, &p, &published), 2);
        CHECK_INT(published, 0);
        CHECK_INT(p.calls, 2);
        CHECK_INT(publish_retry_failures(s), 5);

        publish_retry_forget(s, b); /* a later event published it */
        CHECK_INT(publish_retry_pending(s), 1);
        p = (struct publisher){0};
        CHECK_INT(publish_retry_flush(s, publish, &p, &published), 0);
        CHECK_INT(published, 1);
        CHECK_INT(p.calls, 1);
        CHECK_INT(publish_retry_first_error(s), 0);

        /* a fresh fault after the set emptied is a new first fault */
        CHECK_INT(publish_retry_add(s, b, -EROFS), 1);
        CHECK_INT(publish_retry_first_error(s), -EROFS);
        CHECK_INT(publish_retry_failures(s), 1);
        publish_retry_free(s);
        device_unref(a);
        device_unref(b);
        model_free(m);
        test_tmpdir_remove(sysfs);
}

static void test_removed_device_dropped(void)
{
        char *sysfs = test_tmpdir_new("retry"); /* an empty sysfs: devices come from events */
        struct model *m = NULL;
        CHECK_INT(model_new(sysfs, &m), 0);
        struct publish_retry *s = publish_retry_new();
        struct device *a = modelled(m, "/devices/virtual/test/gone");
        CHECK_INT(publish_retry_add(s, a, -ENOSPC), 1);
        struct uevent *ev = NULL;
        struct device *removed = NULL;
        CHECK_INT(uevent_new(UEVENT_REMOVE, "/devices/virtual/test/gone", NULL, &ev), 0);
        CHECK_INT(model_apply_uevent(m, ev, &removed), 0);
        uevent_free(ev);
        CHECK(a->model == NULL);
        struct publisher p = {0};
        size_t published = 99;
        CHECK_INT(publish_retry_flush(s, publish, &p, &published), 0);
        CHECK_INT(p.calls, 0); /* not published: it is gone */
        CHECK_INT(published, 0);
        device_unref(removed);
        device_unref(a);
        publish_retry_free(s); /* NULL-safe and frees what is left */
        CHECK(publish_retry_free(NULL) == NULL);
        model_free(m);
        test_tmpdir_remove(sysfs);
}

TEST_MAIN(TEST(test_first_fault_and_flush), TEST(test_removed_device_dropped))
