/* SPDX-License-Identifier: MIT */
#include "builtin-uaccess.h"
#include "devnode-acl.h"
#include "log.h"

/* ACTIVE_UID= of logind's seat file; (uid_t)-1 when the seat has no active session. */
static int seat_active_uid(const char *prefix, const char *seat, uid_t *ret)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        if (asprintf(&path, "%s/run/systemd/seats/%s", prefix, seat) < 0)
                return -ENOMEM;
        *ret = (uid_t)-1;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        size_t sz = 0;
        ssize_t n;
        while ((n = getline(&line, &sz, f)) >= 0) {
                if (n > 0 && line[n - 1] == '\n')
                        line[n - 1] = '\0';
                const char *v = startswith(line, "ACTIVE_UID=");
                if (!v)
                        continue;
                char *end;
                errno = 0;
                unsigned long u = strtoul(v, &end, 10);
                if (errno || end == v || *end || u >= (uid_t)-1)
                        return -EBADMSG;
                *ret = (uid_t)u;
        }
        return 0;
}

int builtin_uaccess_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        (void)argc;
        (void)argv;
        const char *prefix = ctx->root && !streq(ctx->root, "/") ? ctx->root : "";
        _cleanup_free_ char *seats = NULL;
        if (asprintf(&seats, "%s/run/systemd/seats/", prefix) < 0)
                return log_oom();
        if (access(seats, F_OK) < 0)
                return 0; /* no logind: ACLs are not ours to manage */

        const char *node = device_get_property(dev, "DEVNAME");
        if (!node)
                return log_debug_errno(ENOENT, "%s: uaccess: no device node", dev->devpath);
        const char *seat = device_get_property(dev, "ID_SEAT");
        if (isempty(seat))
                seat = "seat0";
        uid_t uid;
        int r = seat_active_uid(prefix, seat, &uid);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read the active user of %s: %m", dev->devpath, seat);
        if (test) {
                if (uid == (uid_t)-1)
                        printf("uaccess: %s: no active user on %s, remove user ACLs\n", node, seat);
                else
                        printf("uaccess: %s: grant uid %u rw (%s)\n", node, (unsigned)uid, seat);
                return 0;
        }
        r = devnode_acl_set_user(node, uid);
        if (r == -ENOENT)
                return log_debug_errno(r, "%s: uaccess: %s is gone", dev->devpath, node);
        if (r < 0)
                return log_error_errno(r, "%s: cannot set the ACL of %s: %m", dev->devpath, node);
        return 0;
}
