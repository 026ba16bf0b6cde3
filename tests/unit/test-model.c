/* SPDX-License-Identifier: MIT */
/*
 * The model on small trees built here, in both class layouts: the same devices, nodes and
 * physical parents must come out of each. (The full fixture machine is tests/helpers/gen-sysfs.py.)
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "model.h"
#include "strv.h"
#include "sysfs.h"
#include "test-util.h"

static char root[256];

static void mkdirs(const char *rel)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        mkdir(p, 0755);
}

static void put(const char *rel, const char *content)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        char *slash = strrchr(p, '/');
        *slash = '\0';
        mkdirs(p + strlen(root));
        *slash = '/';
        FILE *f = fopen(p, "we");
        fputs(content, f);
        fclose(f);
}

static void link_to(const char *rel, const char *target)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        char *slash = strrchr(p, '/');
        *slash = '\0';
        mkdirs(p + strlen(root));
        *slash = '/';
        CHECK_INT(symlink(target, p), 0);
}

#define USB1 "/devices/pci0000:00/0000:00:1d.0/usb1"

static void make_common(void)
{
        snprintf(root, sizeof(root), "/tmp/devman-test-model-XXXXXX");
        CHECK(mkdtemp(root) != NULL);
        mkdirs("/bus/usb");
        mkdirs("/bus/pci");
        put("/devices/pci0000:00/uevent", "");
        put("/devices/pci0000:00/0000:00:1d.0/uevent", "DRIVER=uhci_hcd\nPCI_CLASS=C0300\n");
        link_to("/devices/pci0000:00/0000:00:1d.0/subsystem", "../../../bus/pci");
        put(USB1 "/uevent", "DEVTYPE=usb_device\nDRIVER=usb\nPRODUCT=1d6b/1/206\n");
        link_to(USB1 "/subsystem", "../../../../bus/usb");
        link_to(USB1 "/driver", "../../../../bus/usb/drivers/usb");
        /* the bus lists that enumeration reads (sysfs-enum.h) */
        link_to("/bus/pci/devices/0000:00:1d.0", "../../../devices/pci0000:00/0000:00:1d.0");
        link_to("/bus/usb/devices/usb1", "../../../devices/pci0000:00/0000:00:1d.0/usb1");
        link_to("/bus/usb/devices/1-1", "../../../devices/pci0000:00/0000:00:1d.0/usb1/1-1");
        link_to("/bus/usb/devices/1-1:1.0", "../../../devices/pci0000:00/0000:00:1d.0/usb1/1-1/1-1:1.0");
}

static void make_converted(void)
{
        make_common();
        put("/devices/virtual/mem/null/uevent", "MAJOR=1\nMINOR=3\nDEVNAME=null\nDEVMODE=0666\n");
        put("/devices/virtual/mem/null/dev", "1:3\n");
        link_to("/devices/virtual/mem/null/subsystem", "../../../../class/mem");
        link_to("/class/mem/null", "../../devices/virtual/mem/null");
        put(USB1 "/usb_device/usbdev1.1/uevent", "MAJOR=189\nMINOR=0\nDEVNAME=bus/usb/001/001\n");
        put(USB1 "/usb_device/usbdev1.1/dev", "189:0\n");
        link_to(USB1 "/usb_device/usbdev1.1/subsystem", "../../../../../../class/usb_device");
        link_to(USB1 "/usb_device/usbdev1.1/device", "../../../usb1");
        link_to("/class/usb_device/usbdev1.1", "../../devices/pci0000:00/0000:00:1d.0/usb1/usb_device/usbdev1.1");
        put(USB1 "/1-1/uevent", "DEVTYPE=usb_device\n");
        link_to(USB1 "/1-1/subsystem", "../../../../../bus/usb");
        put(USB1 "/1-1/1-1:1.0/uevent", "DEVTYPE=usb_interface\n");
        link_to(USB1 "/1-1/1-1:1.0/subsystem", "../../../../../../bus/usb");
        put("/devices/virtual/block/loop0/uevent", "MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n");
        put("/devices/virtual/block/loop0/dev", "7:0\n");
        link_to("/devices/virtual/block/loop0/subsystem", "../../../../class/block");
        put("/devices/virtual/block/loop0/loop0p1/uevent", "MAJOR=259\nMINOR=0\nDEVNAME=loop0p1\nDEVTYPE=partition\n");
        put("/devices/virtual/block/loop0/loop0p1/dev", "259:0\n");
        link_to("/devices/virtual/block/loop0/loop0p1/subsystem", "../../../../../class/block");
        link_to("/class/block/loop0", "../../devices/virtual/block/loop0");
        link_to("/class/block/loop0p1", "../../devices/virtual/block/loop0/loop0p1");
        link_to("/block/loop0", "../devices/virtual/block/loop0");
        put("/devices/virtual/net/lo/uevent", "INTERFACE=lo\nIFINDEX=1\n");
        link_to("/devices/virtual/net/lo/subsystem", "../../../../class/net");
        link_to("/class/net/lo", "../../devices/virtual/net/lo");
}

static void make_legacy(void)
{
        make_common();
        put("/class/mem/null/uevent", "MAJOR=1\nMINOR=3\n");
        put("/class/mem/null/dev", "1:3\n");
        put("/class/usb_device/usbdev1.1/uevent", "MAJOR=189\nMINOR=0\nDEVNAME=bus/usb/001/001\n");
        put("/class/usb_device/usbdev1.1/dev", "189:0\n");
        link_to("/class/usb_device/usbdev1.1/device", "../../../devices/pci0000:00/0000:00:1d.0/usb1");
        put(USB1 "/1-1/uevent", "DEVTYPE=usb_device\n");
        link_to(USB1 "/1-1/subsystem", "../../../../../bus/usb");
        put(USB1 "/1-1/1-1:1.0/uevent", "DEVTYPE=usb_interface\n");
        link_to(USB1 "/1-1/1-1:1.0/subsystem", "../../../../../../bus/usb");
        put("/block/loop0/uevent", "MAJOR=7\nMINOR=0\n");
        put("/block/loop0/dev", "7:0\n");
        put("/block/loop0/loop0p1/uevent", "MAJOR=259\nMINOR=0\n");
        put("/block/loop0/loop0p1/dev", "259:0\n");
        put("/class/net/lo/uevent", "INTERFACE=lo\nIFINDEX=1\n");
}

static void cleanup(void)
{
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        CHECK_INT(system(cmd), 0);
}

/* "subsystem sysname devt devname parent-sysname" lines, sorted: what userspace sees. */
static char **visible(struct model *m)
{
        char **l = NULL;
        size_t it = 0;
        struct device *d;
        while (model_iterate(m, &it, &d)) {
                char *line;
                if (!d->devnum_type && !d->ifindex)
                        continue;
                asprintf(&line, "%s %s %c%u:%u %s parent=%s", d->subsystem, d->sysname, d->devnum_type ? d->devnum_type : '-',
                         major(d->devnum), minor(d->devnum), d->devname ? d->devname : "-",
                         d->parent ? d->parent->sysname : "-");
                strv_push_copy(&l, line);
                free(line);
        }
        strv_sort(l);
        return l;
}

static void check_common_model(struct model *m)
{
        struct device *null = model_get_by_devnum(m, 'c', makedev(1, 3));
        CHECK(null != NULL);
        if (null) {
                CHECK_STR(null->subsystem, "mem");
                CHECK_STR(null->devname, "null");
                CHECK_STR(device_get_property(null, "DEVNAME"), "/dev/null");
        }
        struct device *usbdev = model_get_by_devnum(m, 'c', makedev(189, 0));
        CHECK(usbdev != NULL);
        if (usbdev) {
                CHECK_STR(usbdev->subsystem, "usb_device");
                CHECK_STR(usbdev->sysname, "usbdev1.1");
                CHECK_STR(usbdev->sysnum, "1");
                CHECK_STR(usbdev->devname, "bus/usb/001/001");
                CHECK(usbdev->parent && streq(usbdev->parent->devpath, USB1));
        }
        CHECK(model_get_by_devnum(m, 'b', makedev(1, 3)) == NULL);
        struct device *part = model_get_by_devnum(m, 'b', makedev(259, 0));
        CHECK(part && part->parent && streq(part->parent->sysname, "loop0"));
        struct device *usb1 = model_get(m, USB1);
        CHECK(usb1 && streq_ptr(usb1->driver, "usb") && streq_ptr(usb1->subsystem, "usb"));
        CHECK(usb1 && usb1->layout == DEVICE_LAYOUT_BUS);
        struct device *pci = model_get(m, "/devices/pci0000:00/0000:00:1d.0");
        CHECK(pci && usb1 && usb1->parent == pci);
        CHECK(pci && pci->parent && streq(pci->parent->devpath, "/devices/pci0000:00"));

        struct device *lo = model_first_of_subsystem(m, "net");
        CHECK(lo && lo->ifindex == 1 && !lo->subsys_next);
        char *id = NULL;
        if (lo && device_get_id(lo, &id) == 0)
                CHECK_STR(id, "n1");
        free(id);
        id = NULL;
        if (usbdev && device_get_id(usbdev, &id) == 0)
                CHECK_STR(id, "c189:0");
        free(id);
}

static void test_both_layouts_same_devices(void)
{
        struct model *conv = NULL, *leg = NULL;
        make_converted();
        CHECK_INT(model_new(root, &conv), 0);
        CHECK(model_scan(conv) >= 9);
        check_common_model(conv);
        struct device *d = model_get_by_devnum(conv, 'c', makedev(189, 0));
        CHECK(d && d->layout == DEVICE_LAYOUT_CONVERTED);
        CHECK(d && streq(d->devpath, USB1 "/usb_device/usbdev1.1"));
        CHECK_INT(model_class_entry_layout(conv, "usb_device", "usbdev1.1"), DEVICE_LAYOUT_CONVERTED);
        /* a class path resolves to the canonical devices path */
        struct device *r = NULL;
        CHECK_INT(model_resolve(conv, "/class/usb_device/usbdev1.1", &r), 0);
        CHECK(r == d);
        char sys[PATH_MAX];
        snprintf(sys, sizeof(sys), "%s/class/mem/null", root);
        CHECK_INT(model_resolve(conv, sys, &r), 0);
        CHECK(r && streq(r->devpath, "/devices/virtual/mem/null"));
        char **vc = visible(conv);
        cleanup();

        make_legacy();
        CHECK_INT(model_new(root, &leg), 0);
        CHECK(model_scan(leg) >= 9);
        check_common_model(leg);
        d = model_get_by_devnum(leg, 'c', makedev(189, 0));
        CHECK(d && d->layout == DEVICE_LAYOUT_LEGACY);
        CHECK(d && streq(d->devpath, "/class/usb_device/usbdev1.1"));
        CHECK_INT(model_class_entry_layout(leg, "usb_device", "usbdev1.1"), DEVICE_LAYOUT_LEGACY);
        char **vl = visible(leg);

        CHECK(strv_equal(vc, vl));
        if (!strv_equal(vc, vl))
                for (size_t i = 0; i < strv_length(vc) || i < strv_length(vl); i++)
                        fprintf(stderr, "  %-60s | %s\n", i < strv_length(vc) ? vc[i] : "", i < strv_length(vl) ? vl[i] : "");
        strv_free(vc);
        strv_free(vl);
        model_free(conv);
        model_free(leg);
        cleanup();
}

static void test_events(void)
{
        struct model *m = NULL;
        struct device *d = NULL;
        struct uevent *ev = NULL;
        const char *why;

        make_converted();
        CHECK_INT(model_new(root, &m), 0);
        CHECK(model_scan(m) > 0);
        size_t before = model_size(m);

        /* remove of a parent drops its children */
        static const char rm[] = "remove@" USB1 "\0ACTION=remove\0DEVPATH=" USB1 "\0SUBSYSTEM=usb\0SEQNUM=10";
        CHECK_INT(uevent_parse(rm, sizeof(rm), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->model == NULL);
        CHECK(d && d->seqnum == 10); /* the remove's own, not the last event's before it */
        CHECK(model_get(m, USB1) == NULL);
        CHECK(model_get(m, USB1 "/1-1/1-1:1.0") == NULL);
        CHECK(model_get_by_devnum(m, 'c', makedev(189, 0)) == NULL);
        CHECK_INT(model_size(m), before - 4);
        device_unref(d);
        uevent_free(ev);

        /* add of a device whose sysfs dir vanished: the event's data is kept */
        static const char add[] = "add@/devices/virtual/misc/ghost\0ACTION=add\0DEVPATH=/devices/virtual/misc/ghost\0"
                                  "SUBSYSTEM=misc\0MAJOR=10\0MINOR=99\0DEVNAME=ghost\0SEQNUM=11";
        CHECK_INT(uevent_parse(add, sizeof(add), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->devnum == makedev(10, 99) && d->devnum_type == 'c' && streq_ptr(d->devname, "ghost"));
        CHECK(model_get_by_devnum(m, 'c', makedev(10, 99)) == d);
        device_unref(d);
        uevent_free(ev);

        /* remove of a device the model never knew: a record from the event, in no index */
        static const char rmu[] = "remove@/devices/virtual/misc/unknown\0ACTION=remove\0"
                                  "DEVPATH=/devices/virtual/misc/unknown\0SUBSYSTEM=misc\0MAJOR=10\0MINOR=98\0"
                                  "DEVNAME=unknown\0SEQNUM=15";
        CHECK_INT(uevent_parse(rmu, sizeof(rmu), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->model == NULL && streq_ptr(d->devname, "unknown") && d->seqnum == 15);
        device_unref(d);
        uevent_free(ev);
        for (struct device *x = model_first_of_subsystem(m, "misc"); x; x = x->subsys_next)
                CHECK(!streq(x->devpath, "/devices/virtual/misc/unknown"));
        CHECK(model_get_by_devnum(m, 'c', makedev(10, 98)) == NULL);

        /* MAJOR/MINOR that disagree with sysfs: sysfs wins */
        static const char chg[] = "change@/devices/virtual/mem/null\0ACTION=change\0DEVPATH=/devices/virtual/mem/null\0"
                                  "SUBSYSTEM=mem\0MAJOR=1\0MINOR=99\0DEVNAME=null\0SEQNUM=12";
        CHECK_INT(uevent_parse(chg, sizeof(chg), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->devnum == makedev(1, 3));
        CHECK(d && streq_ptr(device_get_property(d, "MINOR"), "3"));
        CHECK(d && d->seqnum == 12);
        device_unref(d);
        uevent_free(ev);

        /* move renames the record and its children */
        char from[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof(from), "%s/devices/virtual/block/loop0", root);
        snprintf(to, sizeof(to), "%s/devices/virtual/block/loop9", root);
        CHECK_INT(rename(from, to), 0);
        static const char mv[] = "move@/devices/virtual/block/loop9\0ACTION=move\0DEVPATH=/devices/virtual/block/loop9\0"
                                 "DEVPATH_OLD=/devices/virtual/block/loop0\0SUBSYSTEM=block\0SEQNUM=13";
        CHECK_INT(uevent_parse(mv, sizeof(mv), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && streq(d->devpath, "/devices/virtual/block/loop9") && streq(d->sysname, "loop9"));
        CHECK(model_get(m, "/devices/virtual/block/loop0") == NULL);
        struct device *p = model_get(m, "/devices/virtual/block/loop9/loop0p1");
        CHECK(p && p->parent == d);
        CHECK(model_get_by_devnum(m, 'b', makedev(259, 0)) == p);
        device_unref(d);
        uevent_free(ev);

        /* bind/unbind change the driver */
        static const char unbind[] = "unbind@/devices/pci0000:00/0000:00:1d.0\0ACTION=unbind\0"
                                     "DEVPATH=/devices/pci0000:00/0000:00:1d.0\0SUBSYSTEM=pci\0SEQNUM=14";
        CHECK_INT(uevent_parse(unbind, sizeof(unbind), &ev, &why), 0);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->driver == NULL && device_get_property(d, "DRIVER") == NULL);
        device_unref(d);
        uevent_free(ev);

        model_free(m);
        cleanup();
}

/* The scan reads every device sysfs shows (SYSFS_ENUM_ALL_DEVICES) with its parent: on the
 * legacy layout a class directory's physical parent comes through its `device` link, a nested
 * class device and a partition are children of the directory holding them. */
static void test_scan_parents(void)
{
        struct model *m = NULL;
        make_legacy();
        CHECK_INT(model_new(root, &m), 0);
        CHECK(model_scan(m) > 0);
        struct device *usbdev = model_get(m, "/class/usb_device/usbdev1.1");
        CHECK(usbdev && usbdev->parent && streq(usbdev->parent->devpath, USB1));
        struct device *part = model_get(m, "/block/loop0/loop0p1");
        CHECK(part && part->parent && streq(part->parent->devpath, "/block/loop0"));
        /* no bus and no class (the kernel sends no event for it), but a device: in the model */
        struct device *top = model_get(m, "/devices/pci0000:00");
        CHECK(top && !top->subsystem && !top->parent);
        CHECK(!model_get(m, "/devices"));
        model_free(m);
        cleanup();
}

/* On a live sysfs a kernel event's MAJOR/MINOR are the devt itself (no sysfs read); a made-up
 * event about the same device still takes the `dev` attribute (1:3 in the tree). On a tree
 * not marked live the kernel event does not win either (test_events). */
static void test_live_kernel_devt(void)
{
        struct model *m = NULL;
        struct device *d = NULL;
        struct uevent *ev = NULL;
        const char *why;

        make_converted();
        CHECK_INT(model_new(root, &m), 0);
        CHECK(!model_is_live(m));
        model_set_live(m, true);
        CHECK(model_is_live(m));
        static const char chg[] = "change@/devices/virtual/mem/null\0ACTION=change\0DEVPATH=/devices/virtual/mem/null\0"
                                  "SUBSYSTEM=mem\0MAJOR=1\0MINOR=99\0DEVNAME=null\0SEQNUM=12";
        CHECK_INT(uevent_parse(chg, sizeof(chg), &ev, &why), 0);
        CHECK(ev->from_kernel);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->devnum == makedev(1, 99) && d->devnum_type == 'c');
        device_unref(d);
        uevent_free(ev);

        struct props p = {0};
        CHECK_INT(props_set(&p, "SUBSYSTEM", "mem", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "MAJOR", "1", PROP_KERNEL), 0);
        CHECK_INT(props_set(&p, "MINOR", "99", PROP_KERNEL), 0);
        CHECK_INT(uevent_new(UEVENT_CHANGE, "/devices/virtual/mem/null", &p, &ev), 0);
        CHECK(!ev->from_kernel);
        CHECK_INT(model_apply_uevent(m, ev, &d), 0);
        CHECK(d && d->devnum == makedev(1, 3));
        device_unref(d);
        uevent_free(ev);
        props_clear(&p);
        model_free(m);
        cleanup();
}

/* More glue directories than the model remembers: every device still gets its parent across
 * the glue, before and after the cache starts over; compaction keeps every look-up working. */
static void test_glue_bounded(void)
{
        enum { N = 1100 };
        struct model *m = NULL;
        snprintf(root, sizeof(root), "/tmp/devman-test-model-XXXXXX");
        CHECK(mkdtemp(root) != NULL);
        put("/devices/virtual/top/uevent", "");
        for (int i = 0; i < N; i++) {
                char rel[128];
                snprintf(rel, sizeof(rel), "/devices/virtual/top/glue%d/dev%d/uevent", i, i);
                put(rel, "");
        }
        CHECK_INT(model_new(root, &m), 0);
        for (int i = 0; i < N; i++) {
                char msg[256], devpath[128];
                const char *why;
                struct uevent *ev = NULL;
                struct device *d = NULL;
                snprintf(devpath, sizeof(devpath), "/devices/virtual/top/glue%d/dev%d", i, i);
                int len = snprintf(msg, sizeof(msg), "add@%s%cACTION=add%cDEVPATH=%s%cSUBSYSTEM=misc%cSEQNUM=%d",
                                   devpath, 0, 0, devpath, 0, 0, 100 + i);
                CHECK_INT(uevent_parse(msg, (size_t)len + 1, &ev, &why), 0);
                CHECK_INT(model_apply_uevent(m, ev, &d), 0);
                CHECK(d && d->parent && streq(d->parent->devpath, "/devices/virtual/top"));
                device_unref(d);
                uevent_free(ev);
        }
        CHECK_INT(model_size(m), N + 1);
        CHECK_INT(model_compact(m), 0);
        CHECK(model_get(m, "/devices/virtual/top/glue7/dev7") != NULL);
        CHECK(model_get(m, "/devices/virtual/top/glue1099/dev1099") != NULL);
        model_free(m);
        cleanup();
}

TEST_MAIN(TEST(test_both_layouts_same_devices), TEST(test_events), TEST(test_scan_parents),
          TEST(test_live_kernel_devt), TEST(test_glue_bounded))
