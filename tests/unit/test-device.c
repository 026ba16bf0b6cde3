/* SPDX-License-Identifier: MIT */
/*
 * A device record's strings: shared names and a DEVNAME equal to the sysname are not copied,
 * anything else is; a rename and every change keep each string valid (run under valgrind
 * too, which sees a borrowed string freed or an owned one leaked).
 */
#include "device.h"
#include "test-util.h"

static void test_shared_names(void)
{
        struct device *a = NULL, *b = NULL;
        CHECK_INT(device_new("/devices/virtual/block/loop0", &a), 0);
        CHECK_INT(device_new("/devices/virtual/block/loop1", &b), 0);
        /* first, middle and last names of the table: one copy for both records */
        CHECK_INT(device_set_subsystem(a, "block"), 0);
        CHECK_INT(device_set_subsystem(b, "block"), 0);
        CHECK(a->subsystem == b->subsystem);
        CHECK_INT(device_set_devtype(a, "disk"), 0);
        CHECK_INT(device_set_devtype(b, "disk"), 0);
        CHECK(a->devtype == b->devtype);
        CHECK_INT(device_set_driver(a, "acpi"), 0);
        CHECK_INT(device_set_driver(b, "acpi"), 0);
        CHECK(a->driver == b->driver);
        CHECK_INT(device_set_driver(a, "xhci_hcd"), 0);
        CHECK_INT(device_set_driver(b, "xhci_hcd"), 0);
        CHECK(a->driver == b->driver);
        /* a name not in the table: each record its own copy */
        CHECK_INT(device_set_subsystem(a, "nvme-subsystem"), 0);
        CHECK_INT(device_set_subsystem(b, "nvme-subsystem"), 0);
        CHECK(a->subsystem != b->subsystem);
        CHECK_STR(a->subsystem, "nvme-subsystem");
        /* and back to a shared one, then none */
        CHECK_INT(device_set_subsystem(a, "bdi"), 0);
        CHECK_INT(device_set_subsystem(b, "bdi"), 0);
        CHECK_STR(a->subsystem, "bdi");
        CHECK(a->subsystem == b->subsystem);
        CHECK_INT(device_set_subsystem(a, NULL), 0);
        CHECK(a->subsystem == NULL);
        device_unref(a);
        device_unref(b);
}

static void test_devname_borrows_sysname(void)
{
        struct device *d = NULL;
        CHECK_INT(device_new("/devices/virtual/block/loop7", &d), 0);
        CHECK_INT(device_set_devname(d, "loop7"), 0);
        CHECK(d->devname == d->sysname);

        /* a move to another name: the DEVNAME stays what it was, now a copy */
        CHECK_INT(device_rename(d, "/devices/virtual/block/loop8"), 0);
        CHECK_STR(d->devname, "loop7");
        CHECK(d->devname != d->sysname);

        /* borrowed again, then a move that keeps the basename: it follows the new devpath */
        CHECK_INT(device_set_devname(d, "loop8"), 0);
        CHECK(d->devname == d->sysname);
        CHECK_INT(device_rename(d, "/devices/other/loop8"), 0);
        CHECK(d->devname == d->sysname);
        CHECK_STR(d->devname, "loop8");

        /* a name below a directory is never the sysname */
        CHECK_INT(device_set_devname(d, "input/loop8"), 0);
        CHECK_STR(d->devname, "input/loop8");
        CHECK(d->devname != d->sysname);
        device_unref(d);

        /* a '!' basename: the sysname has '/', and so has DEVNAME */
        CHECK_INT(device_new("/devices/x/block/cciss!c0d0", &d), 0);
        CHECK_INT(device_set_devname(d, "cciss/c0d0"), 0);
        CHECK(d->devname == d->sysname);
        CHECK_INT(device_rename(d, "/devices/y/block/cciss!c0d0"), 0);
        CHECK_STR(d->devname, "cciss/c0d0");
        CHECK(d->devname == d->sysname);
        device_unref(d);
}

TEST_MAIN(TEST(test_shared_names), TEST(test_devname_borrows_sysname))
