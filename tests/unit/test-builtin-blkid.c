/* SPDX-License-Identifier: MIT */
/*
 * The blkid builtin on image files holding real filesystems and partition tables (made with
 * mkfs.ext4, mkfs.vfat and sfdisk with chosen labels and UUIDs). libblkid probes regular
 * files like block devices, so no loop device is needed; the device record's DEVNAME points
 * at the image. Expected values are the ones given to the tools. 77 without the tools.
 */
#include <sys/stat.h>

#include "builtin.h"
#include "macros.h"
#include "device.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *tmp;

/* Runs a shell command with $IMG set to img. */
static int sh(const char *cmd, const char *img)
{
        setenv("IMG", img, 1);
        return system(cmd);
}

static char *image(const char *name)
{
        char *p;
        if (asprintf(&p, "%s/%s", tmp, name) < 0)
                abort();
        return p;
}

/* Runs "cmdline" on a fresh record whose node is `node`; returns the builtin's result. */
static int run(const char *node, const char *cmdline, struct device **ret)
{
        struct device *d;
        CHECK_INT(device_new("/devices/virtual/block/fake0", &d), 0);
        if (node)
                CHECK_INT(props_set(&d->props, "DEVNAME", node, PROP_KERNEL), 0);
        struct builtin_ctx ctx = {.sysfs_root = "/nonexistent"};
        int r = builtin_run(builtin_lookup("blkid"), &ctx, d, cmdline, false);
        *ret = d;
        return r;
}

static void check_prop(struct device *d, const char *key, const char *value)
{
        const char *v = device_get_property(d, key);
        if (!value) {
                CHECK(!v);
                if (v)
                        fprintf(stderr, "  unexpected %s=%s\n", key, v);
                return;
        }
        CHECK_STR(v, value);
        if (!v || !streq(v, value))
                fprintf(stderr, "  for %s\n", key);
}

static void test_ext4(void)
{
        _cleanup_free_ char *img = image("ext4.img");
        CHECK_INT(sh("truncate -s 8M \"$IMG\" && mkfs.ext4 -q -F -L ' my  lab\xe2\x82\xac""l\\x ' "
                     "-U 01234567-89ab-cdef-0123-456789abcdef \"$IMG\"",
                     img),
                  0);
        struct device *d;
        CHECK_INT(run(img, "blkid", &d), 0);
        check_prop(d, "ID_FS_TYPE", "ext4");
        check_prop(d, "ID_FS_USAGE", "filesystem");
        check_prop(d, "ID_FS_VERSION", "1.0");
        check_prop(d, "ID_FS_UUID", "01234567-89ab-cdef-0123-456789abcdef");
        check_prop(d, "ID_FS_UUID_ENC", "01234567-89ab-cdef-0123-456789abcdef");
        /* libblkid drops the label's trailing blanks; safe: leading ones trimmed too, inner runs
         * become one '_'; encoded: \xNN, UTF-8 kept, '\' escaped */
        check_prop(d, "ID_FS_LABEL", "my_lab\xe2\x82\xac""l\\x");
        check_prop(d, "ID_FS_LABEL_ENC", "\\x20my\\x20\\x20lab\xe2\x82\xac""l\\x5cx");
        check_prop(d, "ID_PART_TABLE_TYPE", NULL);
        device_unref(d);
}

static void test_vfat(void)
{
        _cleanup_free_ char *img = image("vfat.img");
        CHECK_INT(sh("truncate -s 16M \"$IMG\" && mkfs.vfat -F 16 -n 'EFI SYS' -i 1234ABCD \"$IMG\" >/dev/null", img), 0);
        struct device *d;
        CHECK_INT(run(img, "blkid", &d), 0);
        check_prop(d, "ID_FS_TYPE", "vfat");
        check_prop(d, "ID_FS_VERSION", "FAT16");
        check_prop(d, "ID_FS_UUID", "1234-ABCD");
        check_prop(d, "ID_FS_LABEL", "EFI_SYS");
        check_prop(d, "ID_FS_LABEL_ENC", "EFI\\x20SYS");
        device_unref(d);
}

/* A GPT disk with an ext4 filesystem in its first partition (at 1 MiB): the disk shows the
 * table, --offset reaches the filesystem. */
static void test_gpt_and_offset(void)
{
        _cleanup_free_ char *fs = image("part.img"), *img = image("gpt.img");
        CHECK_INT(sh("truncate -s 8M \"$IMG\" && mkfs.ext4 -q -F -L inner -U aaaaaaaa-0000-1111-2222-333333333333 \"$IMG\"", fs),
                  0);
        CHECK_INT(sh("truncate -s 24M \"$IMG\" && printf 'label: gpt\\nlabel-id: 11111111-2222-3333-4444-555555555555\\n"
                     "start=2048, size=16384, name=\"root fs\"\\n' | sfdisk -q \"$IMG\"",
                     img),
                  0);
        char *cmd;
        CHECK(asprintf(&cmd, "dd if=%s of=%s bs=1M seek=1 conv=notrunc status=none", fs, img) > 0);
        CHECK_INT(system(cmd), 0);
        free(cmd);

        struct device *d;
        CHECK_INT(run(img, "blkid", &d), 0);
        check_prop(d, "ID_PART_TABLE_TYPE", "gpt");
        check_prop(d, "ID_PART_TABLE_UUID", "11111111-2222-3333-4444-555555555555");
        check_prop(d, "ID_FS_TYPE", NULL);
        device_unref(d);

        CHECK_INT(run(img, "blkid --offset=1048576", &d), 0);
        check_prop(d, "ID_FS_TYPE", "ext4");
        check_prop(d, "ID_FS_LABEL", "inner");
        check_prop(d, "ID_FS_UUID", "aaaaaaaa-0000-1111-2222-333333333333");
        device_unref(d);
        CHECK_INT(run(img, "blkid -o 1048576 --noraid", &d), 0);
        check_prop(d, "ID_FS_TYPE", "ext4");
        device_unref(d);
        /* a probing hint (ISO 9660 session offsets) does not disturb other filesystems */
        CHECK_INT(run(img, "blkid --hint=session_offset=0 --offset 1048576", &d), 0);
        check_prop(d, "ID_FS_LABEL", "inner");
        device_unref(d);
}

static void test_dos(void)
{
        _cleanup_free_ char *img = image("dos.img");
        CHECK_INT(sh("truncate -s 8M \"$IMG\" && printf 'label: dos\\nlabel-id: 0x12345678\\nstart=2048, type=83\\n' | "
                     "sfdisk -q \"$IMG\"",
                     img),
                  0);
        struct device *d;
        CHECK_INT(run(img, "blkid", &d), 0);
        check_prop(d, "ID_PART_TABLE_TYPE", "dos");
        check_prop(d, "ID_PART_TABLE_UUID", "12345678");
        device_unref(d);
}

static void test_nothing_and_errors(void)
{
        _cleanup_free_ char *zero = image("zero.img");
        CHECK_INT(sh("truncate -s 4M \"$IMG\"", zero), 0);
        struct device *d;
        CHECK_INT(run(zero, "blkid", &d), 0); /* nothing found is not an error */
        check_prop(d, "ID_FS_TYPE", NULL);
        device_unref(d);

        _cleanup_free_ char *gone = image("gone.img");
        CHECK_INT(run(gone, "blkid", &d), 0); /* the device went away: ignored */
        device_unref(d);

        CHECK_INT(run(NULL, "blkid", &d), -ENOENT);
        device_unref(d);
        CHECK_INT(run(zero, "blkid --offset=-1", &d), -EINVAL);
        device_unref(d);
        CHECK_INT(run(zero, "blkid --offset=12x", &d), -EINVAL);
        device_unref(d);
        CHECK_INT(run(zero, "blkid --offset", &d), -EINVAL);
        device_unref(d);
        CHECK_INT(run(zero, "blkid --bogus", &d), -EINVAL);
        device_unref(d);
}

/* Whether the device is gone: sysfs is asked only when the daemon's queue cannot tell
 * (dev->removal); the device's directory exists in this tree. */
static void test_removal_fact(void)
{
        _cleanup_free_ char *img = image("fact.img");
        _cleanup_free_ char *dir = image("sys/devices/virtual/block/fake0");
        CHECK_INT(sh("truncate -s 1M \"$IMG\"", img), 0);
        _cleanup_free_ char *mk = NULL;
        CHECK(asprintf(&mk, "mkdir -p '%s'", dir) > 0);
        CHECK_INT(system(mk), 0);
        _cleanup_free_ char *sys = image("sys");
        static const enum device_removal facts[] = {DEVICE_REMOVAL_UNKNOWN, DEVICE_REMOVAL_NONE,
                                                    DEVICE_REMOVAL_QUEUED};
        for (size_t i = 0; i < ELEMENTSOF(facts); i++) {
                struct device *d;
                CHECK_INT(device_new("/devices/virtual/block/fake0", &d), 0);
                CHECK_INT(props_set(&d->props, "DEVNAME", img, PROP_KERNEL), 0);
                d->removal = facts[i];
                struct builtin_ctx ctx = {.sysfs_root = sys};
                CHECK_INT(builtin_run(builtin_lookup("blkid"), &ctx, d, "blkid", false), 0);
                CHECK(d->sysfd_open == (facts[i] == DEVICE_REMOVAL_UNKNOWN));
                device_unref(d);
        }
}

int main(int argc, char **argv)
{
        if (system("command -v mkfs.ext4 >/dev/null && command -v mkfs.vfat >/dev/null && "
                   "command -v sfdisk >/dev/null") != 0) {
                printf("skipped: needs mkfs.ext4, mkfs.vfat and sfdisk\n");
                return 77;
        }
        tmp = test_tmpdir_new("blkid");
        static const struct test_case cases[] = {TEST(test_ext4), TEST(test_vfat), TEST(test_gpt_and_offset),
                                                 TEST(test_dos), TEST(test_nothing_and_errors),
                                                 TEST(test_removal_fact)};
        int r = test_run(cases, ELEMENTSOF(cases), argc, argv);
        tmp = test_tmpdir_remove(tmp);
        return r;
}

struct test_state test_state;
