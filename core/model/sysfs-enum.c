/* SPDX-License-Identifier: MIT */
#include "sysfs-enum.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fs-util.h"
#include "macros.h"
#include "strfmt.h"
#include "strv.h"
#include "sysfs.h"

/* getdents64 reads many entries per call; no DIR stream, whose fdopendir() costs an fcntl and
 * an fstat per directory. */
#define DENTS_BUFFER_SIZE (32 * 1024)

struct enum_ctx {
        enum sysfs_enum_type type;
        const char *root;
        int rootfd;
        char *root_real; /* realpath of the root, made when a link needs it */
        char *link;      /* readlinkat buffer, grown as needed */
        size_t link_size;
        struct strv_builder paths; /* what is found */
};

static void enum_ctx_done(struct enum_ctx *c)
{
        if (c->rootfd >= 0)
                close(c->rootfd);
        free(c->root_real);
        free(c->link);
        strv_builder_done(&c->paths);
}

static unsigned char entry_type(int dirfd, const struct dirent64 *de)
{
        struct stat st;
        if (de->d_type != DT_UNKNOWN)
                return de->d_type;
        if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return DT_UNKNOWN;
        return S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
}

typedef int (*entry_fn)(struct enum_ctx *c, int dirfd, const char *dir, const char *name, unsigned char type);

/* Calls fn for every entry of dir (relative to the root, opened as name relative to atfd) but
 * "." and "..". A directory that cannot be opened is empty: it may have gone with its device. */
static int for_each_entry_at(struct enum_ctx *c, int atfd, const char *name, const char *dir, entry_fn fn)
{
        _cleanup_close_ int fd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        /* one buffer per level: fn may list a subdirectory */
        _cleanup_free_ char *buf = malloc(DENTS_BUFFER_SIZE);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n = getdents64(fd, buf, DENTS_BUFFER_SIZE);
                if (n < 0)
                        return errno == ENOENT ? 0 : negative_errno();
                if (n == 0)
                        return 0;
                for (ssize_t off = 0; off < n;) {
                        struct dirent64 *de = (struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        if (fs_dot_or_dotdot(de->d_name))
                                continue;
                        int r = fn(c, fd, dir, de->d_name, entry_type(fd, de));
                        if (r < 0)
                                return r;
                }
        }
}

static int for_each_entry(struct enum_ctx *c, const char *dir, entry_fn fn)
{
        return for_each_entry_at(c, c->rootfd, dir + 1, dir, fn);
}

static int read_link(struct enum_ctx *c, int dirfd, const char *name)
{
        for (;;) {
                if (!c->link) {
                        c->link_size = c->link_size ? c->link_size * 2 : 256;
                        if (c->link_size > 1024 * 1024)
                                return -ENAMETOOLONG;
                        c->link = malloc(c->link_size);
                        if (!c->link)
                                return -ENOMEM;
                }
                ssize_t n = readlinkat(dirfd, name, c->link, c->link_size);
                if (n < 0)
                        return negative_errno();
                if ((size_t)n < c->link_size) {
                        c->link[n] = '\0';
                        return 0;
                }
                free(c->link); /* truncated: try a larger buffer */
                c->link = NULL;
        }
}

/* Resolves a relative link target against the directory holding the link (both relative to
 * the root) by its text alone: sysfs links are relative paths between real directories.
 * -EXDEV when the target is absolute or climbs out of the root: the caller then asks the file
 * system. */
static int resolve_lexically(const char *dir, const char *target, char **ret)
{
        if (target[0] == '/')
                return -EXDEV;
        size_t dl = strlen(dir), tl = strlen(target);
        _cleanup_free_ char *p = malloc(dl + tl + 2);
        if (!p)
                return -ENOMEM;
        memcpy(p, dir, dl + 1);
        size_t len = dl;
        for (const char *s = target; *s;) {
                const char *e = strchrnul(s, '/');
                size_t cl = (size_t)(e - s);
                if (cl == 2 && s[0] == '.' && s[1] == '.') {
                        char *slash = len > 0 ? memrchr(p, '/', len) : NULL;
                        if (!slash)
                                return -EXDEV;
                        len = (size_t)(slash - p);
                } else if (cl > 0 && !(cl == 1 && s[0] == '.')) {
                        p[len++] = '/';
                        memcpy(p + len, s, cl);
                        len += cl;
                }
                p[len] = '\0';
                s = *e ? e + 1 : e;
        }
        if (len == 0)
                return -EXDEV; /* the root itself is no device */
        *ret = TAKE_PTR(p);
        return 0;
}

/* The devpath of the link <dir>/<name> when its text does not tell it: the real path of the
 * target, which must lie under the root's real path; -EXDEV when it does not. */
static int resolve_on_disk(struct enum_ctx *c, const char *dir, const char *name, char **ret)
{
        if (!c->root_real && !(c->root_real = realpath(c->root, NULL)))
                return negative_errno();
        _cleanup_free_ char *d = path_join(c->root, dir);
        _cleanup_free_ char *link = d ? path_join(d, name) : NULL;
        if (!link)
                return -ENOMEM;
        _cleanup_free_ char *real = realpath(link, NULL);
        if (!real)
                return negative_errno();
        size_t rl = streq(c->root_real, "/") ? 0 : strlen(c->root_real);
        if (strncmp(real, c->root_real, rl) != 0 || real[rl] != '/' || real[rl + 1] == '\0')
                return -EXDEV;
        char *devpath = strdup(real + rl);
        if (!devpath)
                return -ENOMEM;
        *ret = devpath;
        return 0;
}

static int add_link(struct enum_ctx *c, int dirfd, const char *dir, const char *name)
{
        char *devpath = NULL;
        int r = read_link(c, dirfd, name);
        if (r >= 0) {
                r = resolve_lexically(dir, c->link, &devpath);
                if (r == -EXDEV)
                        r = resolve_on_disk(c, dir, name, &devpath);
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* gone meanwhile, or leads outside the root */
        return strv_builder_push(&c->paths, devpath);
}

/* The real directory <dir>/<name> is listed when it has a uevent file (a device, or a
 * subsystem-level kobject); *ret_added tells. */
static int add_dir_if_device(struct enum_ctx *c, int dirfd, const char *dir, const char *name, bool *ret_added)
{
        _cleanup_free_ char *uevent = path_join(name, "uevent");
        if (!uevent)
                return -ENOMEM;
        *ret_added = false;
        if (faccessat(dirfd, uevent, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return 0;
        *ret_added = true;
        return strv_builder_push(&c->paths, path_join(dir, name));
}

/* A real directory with a uevent file: a device nested in an old-layout device directory, or a
 * subsystem-level kobject (/bus/<b>/drivers/<d>, /module/<m>). */
static int on_kobject_dir(struct enum_ctx *c, int dirfd, const char *dir, const char *name,
                          unsigned char type)
{
        bool added;
        return type == DT_DIR ? add_dir_if_device(c, dirfd, dir, name, &added) : 0;
}

/* Entries of a class directory, of bus/<b>/devices and of block/: links into /devices, or the
 * directories of the old layout. */
static int on_device_entry(struct enum_ctx *c, int dirfd, const char *dir, const char *name, unsigned char type)
{
        bool added = false;
        if (type == DT_LNK) /* all devices: the walk of /devices finds where it leads */
                return c->type == SYSFS_ENUM_ALL_DEVICES ? 0 : add_link(c, dirfd, dir, name);
        if (type != DT_DIR)
                return 0; /* attributes such as class/net/bonding_masters */
        int r = add_dir_if_device(c, dirfd, dir, name, &added);
        if (r < 0 || !added)
                return r;
        /* directories inside it with a uevent file are devices too: /class/input/input0/event0,
         * /block/sda/sda1 */
        return for_each_entry(c, c->paths.v[c->paths.n - 1], on_kobject_dir);
}

/* Every directory below /devices with a uevent file, parents first; links are not followed. */
static int on_devices_entry(struct enum_ctx *c, int dirfd, const char *dir, const char *name,
                            unsigned char type)
{
        bool added;
        if (type != DT_DIR)
                return 0;
        int r = add_dir_if_device(c, dirfd, dir, name, &added);
        if (r < 0)
                return r;
        _cleanup_free_ char *sub = path_join(dir, name);
        return sub ? for_each_entry_at(c, dirfd, name, sub, on_devices_entry) : -ENOMEM;
}

static int on_subsystem(struct enum_ctx *c, int dirfd, const char *dir, const char *name, unsigned char type)
{
        if (type != DT_DIR)
                return 0;
        bool added;
        int r = add_dir_if_device(c, dirfd, dir, name, &added);
        if (r < 0)
                return r;
        _cleanup_free_ char *drivers = strfmt_concat(dir, "/", name, "/drivers", NULL);
        return drivers ? for_each_entry(c, drivers, on_kobject_dir) : -ENOMEM;
}

static int on_class(struct enum_ctx *c, int dirfd, const char *dir, const char *name, unsigned char type)
{
        if (type != DT_DIR)
                return 0;
        _cleanup_free_ char *sub = path_join(dir, name);
        return sub ? for_each_entry(c, sub, on_device_entry) : -ENOMEM;
}

static int on_bus(struct enum_ctx *c, int dirfd, const char *dir, const char *name, unsigned char type)
{
        if (type != DT_DIR)
                return 0;
        _cleanup_free_ char *sub = strfmt_concat(dir, "/", name, "/devices", NULL);
        return sub ? for_each_entry(c, sub, on_device_entry) : -ENOMEM;
}

/* /devices paths first, then old-layout class directories, then old-layout block directories:
 * a class device of the old layout has its parent under /devices. */
static int rank(const char *devpath)
{
        if (startswith(devpath, "/devices/"))
                return 0;
        if (startswith(devpath, "/class/"))
                return 1;
        if (startswith(devpath, "/block/"))
                return 2;
        return 3;
}

static int devpath_compare(const void *a, const void *b)
{
        const char *x = *(const char *const *)a, *y = *(const char *const *)b;
        int rx = rank(x), ry = rank(y);
        return rx != ry ? rx - ry : strcmp(x, y);
}

/* Name by name: a bus is followed by its drivers, before the next bus ("/bus/pci/drivers/x"
 * before "/bus/pci-x"), and the buses come before the modules. */
static int kobject_compare(const void *a, const void *b)
{
        const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
        for (; *x && *x == *y; x++, y++)
                ;
        if (*x == *y)
                return 0;
        if (!*x || !*y)
                return *x ? 1 : -1; /* a path before the paths below it */
        if (*x == '/' || *y == '/')
                return *x == '/' ? -1 : 1;
        return *x < *y ? -1 : 1;
}

int sysfs_enumerate(const char *sysfs_root, enum sysfs_enum_type type, char ***ret, size_t *ret_n)
{
        struct enum_ctx c = {.type = type, .root = sysfs_root, .rootfd = -1};
        int r;

        c.rootfd = open(sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (c.rootfd < 0)
                return negative_errno();
        if (type == SYSFS_ENUM_SUBSYSTEMS) {
                r = for_each_entry(&c, "/bus", on_subsystem);
                if (r >= 0)
                        r = for_each_entry(&c, "/module", on_kobject_dir);
        } else {
                if (type == SYSFS_ENUM_ALL_DEVICES)
                        r = for_each_entry(&c, "/devices", on_devices_entry);
                else
                        r = for_each_entry(&c, "/bus", on_bus);
                if (r >= 0)
                        r = for_each_entry(&c, "/class", on_class);
                /* kernels before the class/block directory list disks and partitions only here;
                 * all devices: an old-layout disk directory beside class/block too */
                if (r >= 0 &&
                    (type == SYSFS_ENUM_ALL_DEVICES || faccessat(c.rootfd, "class/block", F_OK, 0) < 0))
                        r = for_each_entry(&c, "/block", on_device_entry);
        }
        if (r < 0) {
                enum_ctx_done(&c);
                return r;
        }

        struct strv_builder *b = &c.paths;
        if (b->n > 0)
                qsort(b->v, b->n, sizeof(char *),
                      type == SYSFS_ENUM_SUBSYSTEMS ? kobject_compare : devpath_compare);
        size_t n = 0;
        for (size_t i = 0; i < b->n; i++) {
                if (n > 0 && streq(b->v[n - 1], b->v[i]))
                        free(b->v[i]);
                else
                        b->v[n++] = b->v[i];
        }
        if (b->v)
                b->v[n] = NULL;
        b->n = n;
        char **paths = strv_builder_take(b);
        if (!paths) {
                enum_ctx_done(&c);
                return -ENOMEM;
        }
        *ret = paths;
        if (ret_n)
                *ret_n = n;
        enum_ctx_done(&c);
        return 0;
}
