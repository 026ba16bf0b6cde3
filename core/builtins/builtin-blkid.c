/* SPDX-License-Identifier: MIT */
/*
 * blkid [--offset=BYTES] [--hint=NAME=VALUE] [--noraid]: filesystem and partition probing with
 * libblkid on the device node (the DEVNAME property), published as udev does (ID_FS_*,
 * ID_PART_TABLE_*, ID_PART_ENTRY_*).
 */
#include <blkid/blkid.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "builtin-blkid.h"
#include "encode.h"
#include "log.h"
#include "strenc.h"
#include "strfmt.h"

static void blkid_free_probep(blkid_probe *p)
{
        if (*p)
                blkid_free_probe(*p);
}

/* Adds key=value, or its safe and/or encoded form. */
static int add_encoded(struct device *dev, bool test, const char *key, const char *key_enc, const char *value,
                       bool safe)
{
        int r;
        if (safe) {
                _cleanup_free_ char *s = NULL;
                r = encode_blkid_safe_string(value, &s);
                if (r < 0)
                        return r;
                r = builtin_add_property(dev, test, key, s);
                if (r < 0)
                        return r;
        }
        if (!key_enc)
                return 0;
        _cleanup_free_ char *e = strenc_encode_devnode(value, STRENC_UTF8_BLKID);
        if (!e)
                return -ENOMEM;
        return builtin_add_property(dev, test, key_enc, e);
}

/* The udev name for one libblkid value; names udev does not publish are skipped. */
static int add_value(struct device *dev, bool test, const char *name, const char *value)
{
        static const struct {
                const char *name, *key;
        } plain[] = {
                {"TYPE", "ID_FS_TYPE"},          {"USAGE", "ID_FS_USAGE"},
                {"VERSION", "ID_FS_VERSION"},    {"PTTYPE", "ID_PART_TABLE_TYPE"},
                {"PTUUID", "ID_PART_TABLE_UUID"},
        };
        static const struct {
                const char *name, *key, *key_enc;
        } safe_and_encoded[] = {
                {"UUID", "ID_FS_UUID", "ID_FS_UUID_ENC"},
                {"UUID_SUB", "ID_FS_UUID_SUB", "ID_FS_UUID_SUB_ENC"},
                {"LABEL", "ID_FS_LABEL", "ID_FS_LABEL_ENC"},
        };
        /* free-form strings (partition names, ISO 9660 volume descriptors): encoded only */
        static const struct {
                const char *name, *key;
        } encoded[] = {
                {"PART_ENTRY_NAME", "ID_PART_ENTRY_NAME"},
                {"PART_ENTRY_TYPE", "ID_PART_ENTRY_TYPE"},
                {"SYSTEM_ID", "ID_FS_SYSTEM_ID"},
                {"PUBLISHER_ID", "ID_FS_PUBLISHER_ID"},
                {"APPLICATION_ID", "ID_FS_APPLICATION_ID"},
                {"BOOT_SYSTEM_ID", "ID_FS_BOOT_SYSTEM_ID"},
                {"VOLUME_ID", "ID_FS_VOLUME_ID"},
                {"LOGICAL_VOLUME_ID", "ID_FS_LOGICAL_VOLUME_ID"},
                {"VOLUME_SET_ID", "ID_FS_VOLUME_SET_ID"},
                {"DATA_PREPARER_ID", "ID_FS_DATA_PREPARER_ID"},
        };

        for (size_t i = 0; i < ELEMENTSOF(plain); i++)
                if (streq(name, plain[i].name))
                        return builtin_add_property(dev, test, plain[i].key, value);
        for (size_t i = 0; i < ELEMENTSOF(safe_and_encoded); i++)
                if (streq(name, safe_and_encoded[i].name))
                        return add_encoded(dev, test, safe_and_encoded[i].key, safe_and_encoded[i].key_enc, value,
                                           true);
        for (size_t i = 0; i < ELEMENTSOF(encoded); i++)
                if (streq(name, encoded[i].name))
                        return add_encoded(dev, test, NULL, encoded[i].key, value, false);
        if (startswith(name, "PART_ENTRY_")) { /* SCHEME, UUID, FLAGS, NUMBER, OFFSET, SIZE, DISK */
                _cleanup_free_ char *key = NULL;
                if (asprintf(&key, "ID_%s", name) < 0)
                        return -ENOMEM;
                return builtin_add_property(dev, test, key, value);
        }
        if (streq(name, "FSSIZE") || streq(name, "FSLASTBLOCK") || streq(name, "FSBLOCKSIZE")) {
                _cleanup_free_ char *key = NULL; /* libblkid >= 2.39: FSSIZE -> ID_FS_SIZE */
                if (asprintf(&key, "ID_FS_%s", name + 2) < 0)
                        return -ENOMEM;
                return builtin_add_property(dev, test, key, value);
        }
        return 0;
}

/* udev's probe order: a small whole disk (a floppy) that holds a partition table is not probed
 * for filesystems; everything else gets partitions (with entry details) and superblocks.
 * 0 when something was found, 1 when nothing was, -errno. */
static int probe(blkid_probe pr, int fd)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;

        blkid_probe_enable_partitions(pr, 1);
        if (!S_ISCHR(st.st_mode) && blkid_probe_get_size(pr) <= 1024 * 1440 && blkid_probe_is_wholedisk(pr)) {
                blkid_probe_enable_superblocks(pr, 0);
                int r = blkid_do_fullprobe(pr);
                if (r < 0)
                        return -EIO;
                if (blkid_probe_lookup_value(pr, "PTTYPE", NULL, NULL) == 0)
                        return 0;
        }
        blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
        blkid_probe_enable_superblocks(pr, 1);
        int r = blkid_do_safeprobe(pr);
        /* -2 is "ambivalent" (several filesystems): like nothing found, not a failure */
        return r == -2 ? 1 : r < 0 ? -EIO : r;
}

/* Options as udev's: --offset=N/-oN/-o N, --hint=H/-H H (applied to pr at once; with pr NULL
 * the arguments are only checked), --noraid/-R. */
static int parse_args(int argc, char **argv, blkid_probe pr, int64_t *offset, bool *noraid)
{
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i], *v;
                char opt;
                if (streq(arg, "--noraid") || streq(arg, "-R")) {
                        *noraid = true;
                        continue;
                }
                if ((v = startswith(arg, "--offset=")))
                        opt = 'o';
                else if ((v = startswith(arg, "--hint=")))
                        opt = 'H';
                else if (streq(arg, "--offset") || streq(arg, "--hint") || streq(arg, "-o") || streq(arg, "-H")) {
                        if (i + 1 >= argc)
                                return log_error_errno(EINVAL, "blkid: %s needs a value", arg);
                        opt = streq(arg, "--offset") || streq(arg, "-o") ? 'o' : 'H';
                        v = argv[++i];
                } else if (arg[0] == '-' && (arg[1] == 'o' || arg[1] == 'H')) {
                        opt = arg[1];
                        v = arg + 2;
                } else
                        return log_error_errno(EINVAL, "blkid: unknown argument '%s'", arg);

                if (opt == 'H') {
                        if (pr && blkid_probe_set_hint(pr, v, 0) < 0)
                                return log_error_errno(EINVAL, "blkid: cannot use hint '%s'", v);
                        continue;
                }
                char *end;
                errno = 0;
                long long n = strtoll(v, &end, 10);
                if (errno || end == v || *end || n < 0)
                        return log_error_errno(EINVAL, "blkid: invalid offset '%s'", v);
                *offset = n;
        }
        return 0;
}

int builtin_blkid_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        const char *devnode = device_get_property(dev, "DEVNAME");
        if (!devnode)
                return log_debug_errno(ENOENT, "%s: blkid: no device node", dev->devpath);

        int64_t offset = 0;
        bool noraid = false;
        int r = parse_args(argc, argv, NULL, &offset, &noraid);
        if (r < 0)
                return r;

        /* A device that is gone must not be opened through its node: opening a loop (or md) node
         * of a missing minor makes the kernel create that device again (legacy autoload), so an
         * add event processed late, from a backlog, would bring back a removed device. The
         * daemon's queue tells (dev->removal); when it cannot, the directory is looked up again
         * from the directory fd: "..", then its name, both known to the dentry cache, which
         * checks that the sysfs node is still there. */
        bool gone = dev->removal == DEVICE_REMOVAL_QUEUED;
        if (dev->removal == DEVICE_REMOVAL_UNKNOWN) {
                int sysfd = device_sysfd(dev, ctx->sysfs_root);
                _cleanup_free_ char *self =
                        sysfd >= 0 ? strfmt_concat("../", strrchr(dev->devpath, '/') + 1, NULL) : NULL;
                if (sysfd >= 0 && !self)
                        return log_oom();
                gone = sysfd == -ENOENT ||
                       (sysfd >= 0 && faccessat(sysfd, self, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT);
        }
        struct stat st;
        if (gone && stat(devnode, &st) == 0 && S_ISBLK(st.st_mode))
                return log_debug_errno(ENODEV, "%s: blkid: the device is gone, not opening %s", dev->devpath,
                                       devnode), 0;

        _cleanup_close_ int fd = open(devnode, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                /* the device went away under us: nothing to probe, not an error */
                if (r == -ENOENT || r == -ENXIO || r == -ENODEV || r == -ENOMEDIUM)
                        return log_debug_errno(r, "%s: blkid: cannot open %s, ignoring", dev->devpath, devnode), 0;
                return log_debug_errno(r, "%s: blkid: cannot open %s", dev->devpath, devnode);
        }
        /* An empty device (a loop device with no file yet) holds nothing to find: no probe is
         * set up (it looks the disk up in sysfs), and libblkid is not entered at all (a storm of
         * empty loop devices would otherwise bring its code into memory for nothing). */
        uint64_t size;
        if (ioctl(fd, BLKGETSIZE64, &size) == 0 && size == 0)
                return log_debug_errno(ENODATA, "%s: blkid: %s is empty, nothing to probe", dev->devpath, devnode), 0;

        _cleanup_(blkid_free_probep) blkid_probe pr = blkid_new_probe();
        if (!pr)
                return log_oom();
        r = parse_args(argc, argv, pr, &offset, &noraid);
        if (r < 0)
                return r;
        blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE |
                                                      BLKID_SUBLKS_SECTYPE | BLKID_SUBLKS_USAGE |
                                                      BLKID_SUBLKS_VERSION
#ifdef BLKID_SUBLKS_FSINFO
                                                      | BLKID_SUBLKS_FSINFO
#endif
        );
        if (noraid)
                blkid_probe_filter_superblocks_usage(pr, BLKID_FLTR_NOTIN, BLKID_USAGE_RAID);
        if (blkid_probe_set_device(pr, fd, offset, 0) < 0)
                return log_debug_errno(EIO, "%s: blkid: cannot set up the probe of %s", dev->devpath, devnode);

        r = probe(pr, fd);
        if (r < 0)
                return log_debug_errno(r, "%s: blkid: probing %s failed", dev->devpath, devnode);

        /* a partition whose UUID the parent disk named as the auto-discovered root */
        const char *root_partition = device_get_property(dev, "ID_PART_GPT_AUTO_ROOT_UUID");
        int n = blkid_probe_numof_values(pr);
        for (int i = 0; i < n; i++) {
                const char *name, *data;
                if (blkid_probe_get_value(pr, i, &name, &data, NULL) < 0)
                        continue;
                r = add_value(dev, test, name, data);
                if (r < 0)
                        return r;
                if (root_partition && streq(name, "PART_ENTRY_UUID") && streq(data, root_partition)) {
                        r = builtin_add_property(dev, test, "ID_PART_GPT_AUTO_ROOT", "1");
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}
