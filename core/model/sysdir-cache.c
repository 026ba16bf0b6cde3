/* SPDX-License-Identifier: MIT */
#include "sysdir-cache.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "macros.h"

/* Devices of a storm share one parent; a handful covers the parents a machine's events
 * alternate between (block, bdi, net, a USB hub ...). */
#define SYSDIR_SLOTS 8

struct sysdir_slot {
        char *path; /* devpath of the directory, NULL when the slot is free */
        int fd;
        uint64_t used; /* tick of the last use: the smallest is evicted */
};

struct sysdir_cache {
        char *root;
        uint64_t tick;
        struct sysdir_slot slots[SYSDIR_SLOTS];
};

struct sysdir_cache *sysdir_cache_new(const char *root)
{
        struct sysdir_cache *c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->root = strdup(root);
        if (!c->root)
                return mfree(c);
        return c;
}

static void slot_clear(struct sysdir_slot *s)
{
        if (s->path)
                close(s->fd);
        s->path = mfree(s->path);
        s->used = 0;
}

struct sysdir_cache *sysdir_cache_free(struct sysdir_cache *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < SYSDIR_SLOTS; i++)
                slot_clear(&c->slots[i]);
        free(c->root);
        return mfree(c);
}

static int open_path(const struct sysdir_cache *c, const char *devpath, size_t len)
{
        size_t rl = strlen(c->root);
        _cleanup_free_ char *p = malloc(rl + len + 1);
        if (!p)
                return -ENOMEM;
        memcpy(p, c->root, rl);
        memcpy(p + rl, devpath, len);
        p[rl + len] = '\0';
        int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd >= 0 ? fd : -errno;
}

/* The slot of the parent directory (devpath's first len bytes), opened and cached when it is
 * not; NULL when it cannot be opened. */
static struct sysdir_slot *parent_slot(struct sysdir_cache *c, const char *devpath, size_t len)
{
        struct sysdir_slot *victim = &c->slots[0];

        for (size_t i = 0; i < SYSDIR_SLOTS; i++) {
                struct sysdir_slot *s = &c->slots[i];
                if (s->path && strlen(s->path) == len && strncmp(s->path, devpath, len) == 0)
                        return s;
                if (!s->path || (victim->path && s->used < victim->used))
                        victim = s;
        }
        int fd = open_path(c, devpath, len);
        if (fd < 0)
                return NULL;
        char *path = strndup(devpath, len);
        if (!path) {
                close(fd);
                return NULL;
        }
        slot_clear(victim);
        victim->path = path;
        victim->fd = fd;
        return victim;
}

const char *sysdir_cache_root(const struct sysdir_cache *c)
{
        return c->root;
}

int sysdir_cache_open(struct sysdir_cache *c, const char *devpath)
{
        const char *slash = strrchr(devpath, '/');
        if (!slash || slash == devpath || !slash[1])
                return open_path(c, devpath, strlen(devpath));

        size_t len = (size_t)(slash - devpath);
        for (int attempt = 0; attempt < 2; attempt++) {
                struct sysdir_slot *s = parent_slot(c, devpath, len);
                if (!s)
                        break;
                s->used = ++c->tick;
                int fd = openat(s->fd, slash + 1, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0)
                        return fd;
                if (errno != ENOENT)
                        return -errno;
                /* gone, or the cached directory itself is gone (a dead fd): once afresh */
                slot_clear(s);
        }
        return open_path(c, devpath, strlen(devpath));
}
