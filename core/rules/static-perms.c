/* SPDX-License-Identifier: MIT */
#include "static-perms.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "devdir.h"
#include "log.h"
#include "macros.h"
#include "rules-static.h"
#include "strv.h"

struct apply_ctx {
        int devfd, runfd;
        const char *dev_root;
        int changed;
};

/* "input/event0" -> "input\x2fevent0": one directory entry per node */
static char *escape_node_name(const char *name)
{
        size_t n = 0;
        for (const char *c = name; *c; c++)
                n += *c == '/' ? 4 : 1;
        char *s = malloc(n + 1), *w = s;
        if (!s)
                return NULL;
        for (const char *c = name; *c; c++)
                w = *c == '/' ? stpcpy(w, "\\x2f") : (*w = *c, w + 1);
        *w = '\0';
        return s;
}

static int tag_node(struct apply_ctx *a, const char *tag, const char *name)
{
        _cleanup_free_ char *dir = NULL, *leaf = escape_node_name(name), *target = NULL;
        if (!leaf || asprintf(&dir, "static_node-tags/%s", tag) < 0 || asprintf(&target, "%s/%s", a->dev_root, name) < 0)
                return -ENOMEM;
        if (strchr(tag, '/') || tag[0] == '.')
                return -EINVAL;
        if (mkdirat(a->runfd, "static_node-tags", 0755) < 0 && errno != EEXIST)
                return negative_errno();
        if (mkdirat(a->runfd, dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        _cleanup_close_ int dfd = openat(a->runfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        int r = devdir_symlink_replace(dfd, leaf, target);
        return r < 0 ? r : 0;
}

static int apply_one(const char *name, mode_t mode, uid_t uid, gid_t gid, char *const *tags, void *userdata)
{
        struct apply_ctx *a = userdata;
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        if (!devdir_name_valid(name))
                return 0;
        r = devdir_open_parent(a->devfd, NULL, name, false, &dir);
        if (r < 0)
                return 0; /* no such node (yet): nothing to do */
        /* an O_PATH handle of the entry itself: a symlink planted there is never followed */
        fd = openat(dir.fd, dir.leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
                return 0;
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        /* as systemd-udevd 252: a rule that sets an owner or a group but no mode gives the node
         * 0660 with a group, else 0600 (kmod's static nodes start as 0600 root:root; under
         * systemd its tmpfiles set the same modes, under sysvinit nothing else does) */
        if (mode == (mode_t)-1 && (uid != (uid_t)-1 || gid != (gid_t)-1))
                mode = gid != (gid_t)-1 ? 0660 : 0600;
        bool changed = false;
        if ((uid != (uid_t)-1 && st.st_uid != uid) || (gid != (gid_t)-1 && st.st_gid != gid)) {
                if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH) < 0)
                        log_warning("Cannot set the owner of static node %s, ignoring: %m", name);
                else
                        changed = true;
        }
        if (mode != (mode_t)-1 && (st.st_mode & 07777) != (mode & 07777)) {
                if (chmod(proc, mode & 07777) < 0)
                        log_warning("Cannot set the mode of static node %s, ignoring: %m", name);
                else
                        changed = true;
        }
        STRV_FOREACH(t, tags) {
                r = a->runfd >= 0 ? tag_node(a, *t, name) : 0;
                if (r < 0)
                        log_warning_errno(r, "Cannot tag static node %s with %s, ignoring: %m", name, *t);
        }
        if (changed) {
                a->changed++;
                log_debug("Static node %s: mode %04o, owner %d:%d", name, (unsigned)(mode & 07777), (int)uid, (int)gid);
        }
        return 0;
}

int static_perms_apply(int devfd, const char *dev_root, int runfd, const struct rules *rules)
{
        struct apply_ctx a = {.devfd = devfd, .runfd = runfd, .dev_root = dev_root};
        int r = rules_foreach_static_node(rules, apply_one, &a);
        return r < 0 ? r : a.changed;
}
