/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "devdir.h"
#include "macros.h"

bool devdir_name_valid(const char *name)
{
        size_t total = 0, comp = 0;

        if (isempty(name) || name[0] == '/')
                return false;

        for (const char *p = name;; p++) {
                unsigned char c = (unsigned char)*p;

                if (c == '/' || c == 0) {
                        const char *start = p - comp;
                        if (comp == 0)
                                return false; /* empty component: "a//b", "a/" */
                        if ((comp == 1 && start[0] == '.') ||
                            (comp == 2 && start[0] == '.' && start[1] == '.'))
                                return false;
                        if (comp > NAME_MAX)
                                return false;
                        if (c == 0)
                                break;
                        comp = 0;
                } else if (c < 0x20 || c == 0x7f)
                        return false;
                else
                        comp++;
                if (++total > DEVDIR_NAME_MAX)
                        return false;
        }
        return true;
}

/* One directory below dirfd, never through a symlink. */
static int open_subdir(int dirfd, const char *comp, bool create)
{
        int fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT || !create)
                return fd >= 0 ? fd : -errno;

        bool made = mkdirat(dirfd, comp, 0700) >= 0;
        if (!made && errno != EEXIST)
                return -errno;
        fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* Created with 0700 so it is never wider than wanted under any umask; now the real mode.
         * A directory someone else made in the meantime keeps its mode. */
        if (made && fchmod(fd, 0755) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* The directories of a name, all in one openat2() call when they exist: it refuses symlinks and
 * escapes by itself. -ENOSYS (and what a seccomp filter or an old kernel answer) means: walk. */
static int open_dirs_at_once(int devfd, const char *dirs)
{
        struct open_how how = {
                .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, devfd, dirs, &how, sizeof(how));
        return fd >= 0 ? (int)fd : -errno;
}

/* Component by component, making what is missing with create. */
static int walk_dirs(int devfd, const char *name, bool create)
{
        _cleanup_close_ int fd = -1;
        const char *p = name;

        for (;;) {
                const char *slash = strchr(p, '/');
                if (!slash)
                        break;

                _cleanup_free_ char *comp = strndup(p, slash - p);
                if (!comp)
                        return -ENOMEM;
                /* O_NOFOLLOW on a symlink gives ELOOP; O_DIRECTORY on a file ENOTDIR. */
                int sub = open_subdir(fd >= 0 ? fd : devfd, comp, create);
                if (sub < 0)
                        return sub;
                if (fd >= 0)
                        close(fd);
                fd = sub;
                p = slash + 1;
        }
        return TAKE_FD(fd);
}

static void slot_free(struct devdir_cache_slot *s)
{
        free(s->dir);
        if (s->dir)
                close(s->fd);
        *s = (struct devdir_cache_slot){0};
}

void devdir_cache_clear(struct devdir_cache *c)
{
        for (unsigned i = 0; i < DEVDIR_CACHE_SLOTS; i++)
                slot_free(&c->slot[i]);
        c->next = 0;
}

static struct devdir_cache_slot *cache_find(struct devdir_cache *c, const char *dir, size_t len)
{
        for (unsigned i = 0; i < DEVDIR_CACHE_SLOTS; i++) {
                struct devdir_cache_slot *s = &c->slot[i];
                if (s->dir && strncmp(s->dir, dir, len) == 0 && s->dir[len] == 0)
                        return s;
        }
        return NULL;
}

/* A slot for a new directory: a free one, else the next one nobody uses (its directory is
 * closed). NULL when every slot is in use. */
static struct devdir_cache_slot *cache_take_slot(struct devdir_cache *c)
{
        for (unsigned i = 0; i < DEVDIR_CACHE_SLOTS; i++)
                if (!c->slot[i].dir)
                        return &c->slot[i];
        for (unsigned i = 0; i < DEVDIR_CACHE_SLOTS; i++) {
                struct devdir_cache_slot *s = &c->slot[(c->next + i) % DEVDIR_CACHE_SLOTS];
                if (s->pins == 0) {
                        c->next = (c->next + i + 1) % DEVDIR_CACHE_SLOTS;
                        slot_free(s);
                        return s;
                }
        }
        return NULL;
}

/* A cached directory found stale: it leaves the cache unless a caller still uses its fd.
 * Returns the cache to keep a new fd in: NULL while the old one is in use beside it. */
static struct devdir_cache *cache_drop(struct devdir_cache *c, struct devdir_cache_slot *s)
{
        if (s->pins > 0)
                return NULL;
        slot_free(s);
        return c;
}

static bool dir_has_name(int fd)
{
        struct stat st;
        return fstat(fd, &st) == 0 && st.st_nlink > 0;
}

void devdir_parent_done(struct devdir_parent *p)
{
        if (p->owned && p->fd >= 0)
                close(p->fd);
        if (p->pinned)
                p->pinned->pins--;
        *p = DEVDIR_PARENT_NULL;
}

/* check: a cached directory is fstat()ed first (a lookup through devdir_open_parent()); the
 * callers of devdir_lookup_parent() check only after a miss (at_leaf()). */
static int open_parent(int devfd, struct devdir_cache *cache, const char *name, bool create, bool check,
                       struct devdir_parent *ret)
{
        if (!devdir_name_valid(name))
                return -EINVAL;

        const char *last = strrchr(name, '/');
        if (!last) {
                *ret = (struct devdir_parent){.fd = devfd, .leaf = name, .owned = false};
                return 0;
        }
        struct devdir_cache_slot *s = cache ? cache_find(cache, name, last - name) : NULL;
        /* A lookup or removal must not find "nothing" in a directory removed (and perhaps made
         * again) meanwhile: one fstat() tells. A maker needs no check: making something in a
         * removed directory fails, and it reopens the directory (devdir_parent_reopen()). */
        if (s && (create || !check || dir_has_name(s->fd))) {
                s->pins++;
                *ret = (struct devdir_parent){.fd = s->fd, .leaf = last + 1, .pinned = s};
                return 0;
        }
        if (s)
                cache = cache_drop(cache, s);

        _cleanup_free_ char *dirs = strndup(name, last - name);
        if (!dirs)
                return -ENOMEM;
        int fd = open_dirs_at_once(devfd, dirs);
        if ((fd == -ENOENT && create) || fd == -ENOSYS || fd == -EPERM || fd == -E2BIG || fd == -EINVAL)
                fd = walk_dirs(devfd, name, create);
        if (fd < 0)
                return fd;
        s = cache ? cache_take_slot(cache) : NULL;
        if (!s) {
                *ret = (struct devdir_parent){.fd = fd, .leaf = last + 1, .owned = true};
                return 0;
        }
        *s = (struct devdir_cache_slot){.dir = TAKE_PTR(dirs), .fd = fd, .pins = 1};
        *ret = (struct devdir_parent){.fd = fd, .leaf = last + 1, .pinned = s};
        return 0;
}

int devdir_open_parent(int devfd, struct devdir_cache *cache, const char *name, bool create,
                       struct devdir_parent *ret)
{
        return open_parent(devfd, cache, name, create, true, ret);
}

int devdir_lookup_parent(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *ret)
{
        return open_parent(devfd, cache, name, false, false, ret);
}

/* After a look in p's directory (from devdir_lookup_parent()) found nothing: when that
 * directory came from the cache and was removed meanwhile, it leaves the cache and p is opened
 * again for name. 1 when p was reopened (look again), 0 when the miss is real, -errno (p is
 * then closed; -ENOENT: the directory is gone, so is the entry). */
static int parent_recheck(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p)
{
        struct devdir_cache_slot *s = p->pinned;
        if (!s || dir_has_name(p->fd))
                return 0; /* the miss is real */
        devdir_parent_done(p);
        int r = open_parent(devfd, cache_drop(cache, s), name, false, true, p);
        return r < 0 ? r : 1;
}

/* One look at p's leaf: 0 or -errno, -ENOENT when nothing is there. */
typedef int (*leaf_op)(int dirfd, const char *leaf, void *arg);

/* op on p's leaf, once more after parent_recheck() reopened a stale cached directory. */
static int at_leaf(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                   leaf_op op, void *arg)
{
        int r = op(p->fd, p->leaf, arg);
        if (r != -ENOENT)
                return r;
        r = parent_recheck(devfd, cache, name, p);
        return r > 0 ? op(p->fd, p->leaf, arg) : r == 0 ? -ENOENT : r;
}

static int op_unlink(int dirfd, const char *leaf, void *flags)
{
        return unlinkat(dirfd, leaf, *(const int *)flags) < 0 ? -errno : 0;
}

static int op_stat(int dirfd, const char *leaf, void *st)
{
        return fstatat(dirfd, leaf, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int op_readlink(int dirfd, const char *leaf, void *ret)
{
        return devdir_readlink(dirfd, leaf, ret);
}

int devdir_leaf_unlink(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                       int flags)
{
        return at_leaf(devfd, cache, name, p, op_unlink, &flags);
}

int devdir_leaf_stat(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                     struct stat *st)
{
        return at_leaf(devfd, cache, name, p, op_stat, st);
}

int devdir_leaf_readlink(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                         char **ret)
{
        return at_leaf(devfd, cache, name, p, op_readlink, ret);
}

int devdir_parent_reopen(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p)
{
        struct devdir_cache_slot *s = p->pinned;
        if (!s)
                return 0;
        devdir_parent_done(p);
        int r = devdir_open_parent(devfd, cache_drop(cache, s), name, true, p);
        return r < 0 ? r : 1;
}

void devdir_prune_parents(int devfd, struct devdir_cache *cache, const char *name)
{
        _cleanup_free_ char *path = strdup(name);
        if (!path)
                return;

        for (;;) {
                char *slash = strrchr(path, '/');
                if (!slash)
                        return;
                *slash = 0;
                /* Walk to the directory's parent safely too: a symlink planted higher up must
                 * not make us remove an empty directory outside the root. */
                _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
                if (devdir_lookup_parent(devfd, cache, path, &dir) < 0)
                        return;
                /* ENOTEMPTY proves the directory alive (devdir_lookup_parent()) */
                if (devdir_leaf_unlink(devfd, cache, path, &dir, AT_REMOVEDIR) < 0)
                        return;
                struct devdir_cache_slot *s = cache ? cache_find(cache, path, strlen(path)) : NULL;
                if (s && s->pins == 0)
                        slot_free(s);
        }
}

int devdir_tmp_name(char buf[static DEVDIR_TMP_SIZE])
{
        /* Unique enough without a syscall (the clock is read in the vDSO): callers create the
         * entry exclusively and retry on EEXIST, and only root can write where they are made. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t rnd = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)(uintptr_t)buf << 12);
        rnd *= 0x9e3779b97f4a7c15ULL; /* spread the bits */
        /* by hand: snprintf() would bring printf's code back into memory for every release */
        char *p = stpcpy(buf, DEVDIR_TMP_PREFIX);
        for (int shift = 60; shift >= 0; shift -= 4)
                *p++ = "0123456789abcdef"[(rnd >> shift) & 0xf];
        *p = '\0';
        return 0;
}

int devdir_readlink(int dirfd, const char *leaf, char **ret)
{
        size_t size = 256;

        for (;;) {
                _cleanup_free_ char *buf = malloc(size);
                if (!buf)
                        return -ENOMEM;
                ssize_t n = readlinkat(dirfd, leaf, buf, size);
                if (n < 0)
                        return -errno;
                if ((size_t)n < size) {
                        buf[n] = 0;
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (size >= 65536)
                        return -ENAMETOOLONG;
                size *= 2;
        }
}

int devdir_replace(int dirfd, const char *leaf, int (*make)(int dirfd, const char *tmp, void *data),
                   int (*finish)(int dirfd, const char *tmp, void *data), void *data)
{
        char tmp[DEVDIR_TMP_SIZE];
        int r;

        for (int attempt = 0;; attempt++) {
                devdir_tmp_name(tmp);
                r = make(dirfd, tmp, data);
                if (r >= 0)
                        break;
                if (r != -EEXIST || attempt >= 8)
                        return r;
        }
        r = finish ? finish(dirfd, tmp, data) : 0;
        if (r < 0)
                goto fail;
        if (renameat(dirfd, tmp, dirfd, leaf) < 0) {
                r = -errno;
                goto fail;
        }
        return 1;

fail:
        (void)unlinkat(dirfd, tmp, 0);
        return r;
}

struct symlink_replace {
        const char *leaf, *target;
};

static int symlink_make(int dirfd, const char *tmp, void *data)
{
        const struct symlink_replace *s = data;
        return symlinkat(s->target, dirfd, tmp) < 0 ? -errno : 0;
}

/* Between the first check and the rename a node may have appeared in the link's place: renameat
 * would replace it. RENAME_NOREPLACE cannot express "replace only a symlink", so re-check right
 * before the rename and accept the remaining window (only root writes in /dev). */
static int symlink_finish(int dirfd, const char *tmp _unused_, void *data)
{
        const struct symlink_replace *s = data;
        struct stat st;
        if (fstatat(dirfd, s->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
                return -EEXIST;
        return 0;
}

int devdir_symlink_replace(int dirfd, const char *leaf, const char *target)
{
        struct stat st;

        /* absent (the common case): made in place, atomically too */
        if (symlinkat(target, dirfd, leaf) == 0)
                return 1;
        if (errno != EEXIST)
                return -errno;
        if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (!S_ISLNK(st.st_mode))
                        return -EEXIST;
                _cleanup_free_ char *old = NULL;
                if (devdir_readlink(dirfd, leaf, &old) == 0 && streq(old, target))
                        return 0;
        } else if (errno != ENOENT)
                return -errno;

        return devdir_replace(dirfd, leaf, symlink_make, symlink_finish,
                              &(struct symlink_replace){.leaf = leaf, .target = target});
}

int devdir_relative_target(const char *link, const char *target, char **ret)
{
        if (!devdir_name_valid(link) || !devdir_name_valid(target))
                return -EINVAL;

        /* Skip the directory components both share. Only directories of the target count: its
         * last component is the file itself. */
        const char *l = link, *t = target;
        for (;;) {
                const char *ls = strchr(l, '/'), *ts = strchr(t, '/');
                if (!ls || !ts || ls - l != ts - t || strncmp(l, t, ls - l) != 0)
                        break;
                l = ls + 1;
                t = ts + 1;
        }

        size_t depth = 0;
        for (const char *p = l; (p = strchr(p, '/')); p++)
                depth++;

        size_t len = depth * 3 + strlen(t) + 1;
        char *s = malloc(len), *q = s;
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < depth; i++, q += 3)
                memcpy(q, "../", 3);
        strcpy(q, t);
        *ret = s;
        return 0;
}

int devdir_symlink_put(int devfd, struct devdir_cache *cache, const char *name, const char *target)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        int r = devdir_open_parent(devfd, cache, name, true, &dir);
        if (r < 0)
                return r;
        r = devdir_symlink_replace(dir.fd, dir.leaf, target);
        if (r == -ENOENT && devdir_parent_reopen(devfd, cache, name, &dir) > 0)
                r = devdir_symlink_replace(dir.fd, dir.leaf, target);
        return r;
}
