/* SPDX-License-Identifier: MIT */
/* The cache of sysfs parent directory fds, on a private tree: every fd it returns must be the
 * directory the path names now, also after directories were removed and made again. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"
#include "sysdir-cache.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;

static void mkdirs(const char *rel)
{
        char *p = NULL;
        CHECK(asprintf(&p, "mkdir -p '%s%s'", root, rel) > 0);
        CHECK_INT(system(p), 0);
        free(p);
}

static void rmtree(const char *rel)
{
        char *p = NULL;
        CHECK(asprintf(&p, "rm -rf '%s%s'", root, rel) > 0);
        CHECK_INT(system(p), 0);
        free(p);
}

/* fd names the directory root+rel: same inode and device. */
static bool is_dir(int fd, const char *rel)
{
        char *p = NULL;
        struct stat a, b;
        bool same = asprintf(&p, "%s%s", root, rel) > 0 && fd >= 0 && fstat(fd, &a) == 0 && stat(p, &b) == 0 &&
                    a.st_ino == b.st_ino && a.st_dev == b.st_dev;
        free(p);
        if (fd >= 0)
                close(fd);
        return same;
}

static void test_cache(void)
{
        root = test_tmpdir_new("sysdir");
        struct sysdir_cache *c = sysdir_cache_new(root);
        CHECK(c);

        mkdirs("/devices/virtual/block/loop0");
        mkdirs("/devices/virtual/block/loop1");
        CHECK(is_dir(sysdir_cache_open(c, "/devices/virtual/block/loop0"), "/devices/virtual/block/loop0"));
        CHECK(is_dir(sysdir_cache_open(c, "/devices/virtual/block/loop1"), "/devices/virtual/block/loop1"));
        CHECK_INT(sysdir_cache_open(c, "/devices/virtual/block/loop2"), -ENOENT);
        CHECK(is_dir(sysdir_cache_open(c, "/devices"), "/devices"));

        /* the cached parent is removed and made again: the fd in the cache is dead */
        rmtree("/devices/virtual/block");
        CHECK_INT(sysdir_cache_open(c, "/devices/virtual/block/loop0"), -ENOENT);
        mkdirs("/devices/virtual/block/loop7");
        CHECK(is_dir(sysdir_cache_open(c, "/devices/virtual/block/loop7"), "/devices/virtual/block/loop7"));

        /* more parents than slots: older ones are evicted, every answer stays right */
        for (int round = 0; round < 2; round++)
                for (int i = 0; i < 20; i++) {
                        char rel[64];
                        snprintf(rel, sizeof(rel), "/devices/p%d/dev%d", i, i);
                        if (round == 0)
                                mkdirs(rel);
                        CHECK(is_dir(sysdir_cache_open(c, rel), rel));
                }
        CHECK(is_dir(sysdir_cache_open(c, "/devices/virtual/block/loop7"), "/devices/virtual/block/loop7"));

        sysdir_cache_free(c);
        root = test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_cache))
