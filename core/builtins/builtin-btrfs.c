/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <linux/btrfs.h>
#include <sys/ioctl.h>

#include "builtin-btrfs.h"
#include "log.h"
#include "model.h"

int builtin_btrfs_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        (void)ctx;
        if (argc != 3 || !streq(argv[1], "ready"))
                return log_error_errno(EINVAL, "%s: expected: btrfs ready DEVNODE", dev->devpath);

        const char *dev_root = dev->model ? model_dev_root(dev->model) : "/dev";
        _cleanup_free_ char *control = NULL;
        if (asprintf(&control, "%s/btrfs-control", streq(dev_root, "/") ? "" : dev_root) < 0)
                return log_oom();
        _cleanup_close_ int fd = open(control, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT || errno == ENXIO || errno == ENODEV) {
                        log_debug("%s: %s absent: btrfs volume not ready", dev->devpath, control);
                        return builtin_add_property(dev, test, "ID_BTRFS_READY", "0");
                }
                return log_debug_errno(errno, "%s: cannot open %s: %m", dev->devpath, control);
        }

        struct btrfs_ioctl_vol_args args = {0};
        if (strlen(argv[2]) >= sizeof(args.name))
                return log_debug_errno(ENAMETOOLONG, "%s: btrfs: device path too long", dev->devpath);
        strcpy(args.name, argv[2]);
        int r = ioctl(fd, BTRFS_IOC_DEVICES_READY, &args);
        if (r < 0)
                return log_debug_errno(errno, "%s: BTRFS_IOC_DEVICES_READY on %s: %m", dev->devpath, argv[2]);
        return builtin_add_property(dev, test, "ID_BTRFS_READY", r == 0 ? "1" : "0");
}
