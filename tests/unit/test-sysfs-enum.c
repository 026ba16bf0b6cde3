/* SPDX-License-Identifier: MIT */
/* sysfs_enumerate() on small hand-made trees: which entries are devices, how links are
 * resolved (by their text, and on disk when the text does not tell), the order, duplicates;
 * the subsystem-level kobjects and their order. */
#include <fcntl.h>
#include <sys/stat.h>

#include "macros.h"
#include "fs-util.h"
#include "strv.h"
#include "sysfs-enum.h"
#include "sysfs.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;

/* Creates <root>/<rel> as a directory, with its parents. */
static void mkdirs(const char *rel)
{
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", root, rel) < 0)
                abort();
        for (char *s = p + strlen(root) + 1;; s++) {
                if (*s == '/' || *s == '\0') {
                        char saved = *s;
                        *s = '\0';
                        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                                abort();
                        *s = saved;
                        if (!saved)
                                break;
                }
        }
}

static void touch(const char *rel)
{
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", root, rel) < 0)
                abort();
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                abort();
        close(fd);
}

/* A device directory of the unified layout: <rel>/uevent. */
static void device(const char *rel)
{
        mkdirs(rel);
        _cleanup_free_ char *u = path_join(rel, "uevent");
        touch(u);
}

static void link_at(const char *rel, const char *target)
{
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", root, rel) < 0 || symlink(target, p) < 0)
                abort();
}

static char **enumerate_type(enum sysfs_enum_type type, size_t *n)
{
        char **paths = NULL;
        CHECK_INT(sysfs_enumerate(root, type, &paths, n), 0);
        return paths;
}

static char **enumerate(size_t *n)
{
        return enumerate_type(SYSFS_ENUM_DEVICES, n);
}

static bool same(char **got, const char *const *want)
{
        size_t i = 0;
        for (; want[i]; i++)
                if (!got || !got[i] || !streq(got[i], want[i])) {
                        fprintf(stderr, "entry %zu: got %s, want %s\n", i, got && got[i] ? got[i] : "(end)", want[i]);
                        return false;
                }
        if (got && got[i]) {
                fprintf(stderr, "entry %zu: got %s, want the end\n", i, got[i]);
                return false;
        }
        return true;
}

static void test_unified(void)
{
        root = test_tmpdir_new("sysfs-enum");
        /* pci device with a network interface (glue directory "net") and a disk */
        device("devices/pci0000:00/0000:00:1f.2");
        device("devices/pci0000:00/0000:00:1f.2/net/eth0");
        mkdirs("devices/pci0000:00/0000:00:1f.2/net/eth0/queues/rx-0"); /* attribute groups: no device */
        device("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
        device("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1");
        /* the root bus device and /devices/platform have uevent files but no bus or class */
        device("devices/pci0000:00");
        device("devices/platform");
        device("devices/platform/serial8250");
        device("devices/virtual/misc/fuse");
        device("devices/virtual/mem/null");

        mkdirs("bus/pci/devices");
        mkdirs("bus/pci/drivers/ahci");
        touch("bus/pci/uevent");
        link_at("bus/pci/devices/0000:00:1f.2", "../../../devices/pci0000:00/0000:00:1f.2");
        mkdirs("bus/platform/devices");
        link_at("bus/platform/devices/serial8250", "../../../devices/platform/serial8250");
        mkdirs("bus/empty"); /* a bus without a devices directory */

        mkdirs("class/net");
        link_at("class/net/eth0", "../../devices/pci0000:00/0000:00:1f.2/net/eth0");
        touch("class/net/bonding_masters"); /* an attribute, not a device */
        /* a link that climbs out of the root, and an absolute one that points outside it */
        link_at("class/net/escape", "../../../../../etc");
        link_at("class/net/outside", "/etc");
        mkdirs("class/block");
        link_at("class/block/sda", "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
        link_at("class/block/sda1",
                "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1");
        /* /block holds the same disk again: listed once */
        mkdirs("block");
        link_at("block/sda", "../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
        /* an absolute link into the tree is resolved on disk; "./" and "//" in a target are harmless */
        mkdirs("class/misc");
        _cleanup_free_ char *abs = path_join(root, "devices/virtual/misc/fuse");
        link_at("class/misc/fuse", abs);
        mkdirs("class/mem");
        link_at("class/mem/null", ".././../devices//virtual/mem/./null");

        size_t n = 0;
        char **paths = enumerate(&n);
        static const char *const want[] = {
                "/devices/pci0000:00/0000:00:1f.2",
                "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
                "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1",
                "/devices/pci0000:00/0000:00:1f.2/net/eth0",
                "/devices/platform/serial8250",
                "/devices/virtual/mem/null",
                "/devices/virtual/misc/fuse",
                NULL,
        };
        CHECK(same(paths, want));
        CHECK_INT(n, ELEMENTSOF(want) - 1);
        strv_free(paths);

        /* all devices: the walk of /devices, also the two without bus or class, in strcmp order;
         * no link is followed, attribute groups without uevent are not devices */
        paths = enumerate_type(SYSFS_ENUM_ALL_DEVICES, &n);
        CHECK_INT(n, ELEMENTSOF(want) - 1 + 2);
        CHECK(n > 5 && streq(paths[0], "/devices/pci0000:00") && streq(paths[5], "/devices/platform"));
        for (size_t i = 0; want[i]; i++)
                CHECK(strv_contains(paths, want[i]));
        for (size_t i = 1; i < n; i++)
                CHECK(strcmp(paths[i - 1], paths[i]) < 0);
        strv_free(paths);
        root = test_tmpdir_remove(root);
}

/* The old layout: class devices are directories with a uevent file (some nested in another),
 * and without class/block the disks and their partitions are directories in /block. */
static void test_legacy(void)
{
        root = test_tmpdir_new("sysfs-enum");
        device("devices/pci0000:00/0000:00:1d.0/usb1");
        mkdirs("bus/usb/devices");
        link_at("bus/usb/devices/usb1", "../../../devices/pci0000:00/0000:00:1d.0/usb1");
        device("class/usb_device/usbdev1.1");
        link_at("class/usb_device/usbdev1.1/device", "../../../devices/pci0000:00/0000:00:1d.0/usb1");
        device("class/input/input0");
        device("class/input/input0/event0");
        mkdirs("class/input/input0/capabilities"); /* attribute group: no uevent, not a device */
        mkdirs("class/input/stray");               /* no uevent: not a device */
        device("block/sda");
        device("block/sda/sda1");
        mkdirs("block/sda/queue");
        device("block/loop0");

        size_t n = 0;
        char **paths = enumerate(&n);
        /* parents first: /devices, then the class directories (whose `device` links lead into
         * /devices), then /block */
        static const char *const want[] = {
                "/devices/pci0000:00/0000:00:1d.0/usb1",
                "/class/input/input0",
                "/class/input/input0/event0",
                "/class/usb_device/usbdev1.1",
                "/block/loop0",
                "/block/sda",
                "/block/sda/sda1",
                NULL,
        };
        CHECK(same(paths, want));
        CHECK_INT(n, ELEMENTSOF(want) - 1);
        strv_free(paths);

        /* once class/block exists, /block is only a list of links and is not read */
        mkdirs("class/block");
        paths = enumerate(&n);
        static const char *const want_without_block[] = {
                "/devices/pci0000:00/0000:00:1d.0/usb1",
                "/class/input/input0",
                "/class/input/input0/event0",
                "/class/usb_device/usbdev1.1",
                NULL,
        };
        CHECK(same(paths, want_without_block));
        strv_free(paths);

        /* all devices: an old-layout disk directory beside class/block is still one (a
         * snapshot reports it as a duplicate) */
        paths = enumerate_type(SYSFS_ENUM_ALL_DEVICES, &n);
        CHECK(same(paths, want));
        strv_free(paths);
        root = test_tmpdir_remove(root);
}

static void test_empty_and_missing(void)
{
        root = test_tmpdir_new("sysfs-enum");
        size_t n = 99;
        char **paths = enumerate(&n);
        CHECK(paths && !paths[0]);
        CHECK_INT(n, 0);
        strv_free(paths);

        _cleanup_free_ char *missing = path_join(root, "nonexistent");
        paths = NULL;
        CHECK_INT(sysfs_enumerate(missing, SYSFS_ENUM_DEVICES, &paths, NULL), -ENOENT);
        CHECK_INT(sysfs_enumerate(missing, SYSFS_ENUM_SUBSYSTEMS, &paths, NULL), -ENOENT);
        CHECK(!paths);
        root = test_tmpdir_remove(root);
}

/* A long link target does not fit the first read buffer: it is read again with a larger one. */
static void test_long_link(void)
{
        root = test_tmpdir_new("sysfs-enum");
        _cleanup_free_ char *deep = strdup("devices/virtual");
        for (int i = 0; i < 40 && deep; i++) {
                char *d = NULL;
                if (asprintf(&d, "%s/level-%02d", deep, i) < 0)
                        abort();
                free(deep);
                deep = d;
        }
        if (!deep)
                abort();
        device(deep);
        mkdirs("class/deep");
        _cleanup_free_ char *target = path_join("../..", deep);
        link_at("class/deep/d", target);
        size_t n = 0;
        char **paths = enumerate(&n);
        _cleanup_free_ char *want = NULL;
        if (asprintf(&want, "/%s", deep) < 0)
                abort();
        CHECK_INT(n, 1);
        CHECK(paths && paths[0] && streq(paths[0], want));
        CHECK(strlen(target) > 256);
        strv_free(paths);
        root = test_tmpdir_remove(root);
}

/* --type=subsystems: buses and their drivers, then modules, each a directory with a uevent file;
 * a bus is followed by its drivers before the next bus whose name it begins. */
static void test_subsystems(void)
{
        root = test_tmpdir_new("sysfs-enum");
        device("bus/pci");
        device("bus/pci/drivers/ahci");
        device("bus/pci/drivers/ehci-pci");
        mkdirs("bus/pci/drivers/nouevent");
        mkdirs("bus/pci/devices");
        device("bus/pci-x");
        mkdirs("bus/empty/drivers"); /* no uevent of its own: not listed, its drivers are */
        device("bus/empty/drivers/lonely");
        touch("bus/attribute");
        device("module/usbcore");
        device("module/loop");
        mkdirs("module/builtin");
        device("devices/platform/serial8250"); /* devices are not subsystems */
        mkdirs("bus/platform/devices");
        link_at("bus/platform/devices/serial8250", "../../../devices/platform/serial8250");

        size_t n = 0;
        char **paths = enumerate_type(SYSFS_ENUM_SUBSYSTEMS, &n);
        /* a bus, its drivers, the next bus (whose name begins with the first's); modules last */
        static const char *const want[] = {
                "/bus/empty/drivers/lonely", "/bus/pci",   "/bus/pci/drivers/ahci",
                "/bus/pci/drivers/ehci-pci", "/bus/pci-x", "/module/loop",
                "/module/usbcore",           NULL};
        CHECK(same(paths, want));
        CHECK_INT(n, ELEMENTSOF(want) - 1);
        strv_free(paths);
        root = test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_unified), TEST(test_legacy), TEST(test_empty_and_missing), TEST(test_long_link),
          TEST(test_subsystems))
