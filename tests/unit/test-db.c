/* SPDX-License-Identifier: MIT */
/* The udev database: write/read round trip, atomic replacement, tag index, hostile files,
 * --cleanup-db, the record printer. Works in a private temporary run directory. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "db.h"
#include "device.h"
#include "fs-util.h"
#include "sysfs.h"
#include "strv.h"
#include "test-util.h"

static char run_dir[] = "/tmp/test-db.XXXXXX";

static void teardown(void)
{
        char *cmd = NULL;
        if (asprintf(&cmd, "rm -rf '%s'", run_dir) > 0)
                (void)!system(cmd);
        free(cmd);
}

/* The private run directory, made on first use and removed at exit. */
static void ensure_run_dir(void)
{
        static bool made;
        if (made)
                return;
        if (!mkdtemp(run_dir))
                abort();
        made = true;
        atexit(teardown);
}

static char *run_path(const char *rel)
{
        char *p = NULL;
        if (asprintf(&p, "%s/%s", run_dir, rel) < 0)
                abort();
        return p;
}

static bool exists(const char *rel)
{
        _cleanup_free_ char *p = run_path(rel);
        return access(p, F_OK) == 0;
}

static char *slurp(const char *rel)
{
        _cleanup_free_ char *p = run_path(rel);
        char *s = NULL;
        size_t l;
        if (read_full_file(p, &s, &l) < 0)
                return NULL;
        return s;
}

static void spew(const char *rel, const char *content, size_t len)
{
        _cleanup_free_ char *p = run_path(rel);
        FILE *f = fopen(p, "we");
        if (!f)
                abort();
        fwrite(content, 1, len, f);
        fclose(f);
}

/* /dev/null as the kernel describes it */
static struct device *null_device(void)
{
        struct device *d = NULL;
        if (device_new("/devices/virtual/mem/null", &d) < 0)
                abort();
        device_set_subsystem(d, "mem");
        device_set_devname(d, "null");
        d->devnum = makedev(1, 3);
        d->devnum_type = 'c';
        props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        props_set(&d->props, "SUBSYSTEM", "mem", PROP_KERNEL);
        props_set(&d->props, "MAJOR", "1", PROP_KERNEL);
        props_set(&d->props, "MINOR", "3", PROP_KERNEL);
        props_set(&d->props, "DEVNAME", "/dev/null", PROP_KERNEL);
        return d;
}

static void set_udev(struct device *d, const char *const *links, const char *const *tags, const char *const *cur)
{
        struct device_udev *u = device_get_udev(d);
        strv_free(u->links);
        strv_free(u->tags);
        strv_free(u->current_tags);
        u->links = u->tags = u->current_tags = NULL;
        for (; links && *links; links++)
                strv_push_copy(&u->links, *links);
        for (; tags && *tags; tags++)
                strv_push_copy(&u->tags, *tags);
        for (; cur && *cur; cur++)
                strv_push_copy(&u->current_tags, *cur);
}

static void test_round_trip(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *d = null_device();
        set_udev(d, (const char *[]){"zero/null", "by-id/x", NULL}, (const char *[]){"seat", "systemd", NULL},
                 (const char *[]){"systemd", NULL});
        d->udev->link_priority = -5;
        d->udev->usec_initialized = 123456789;
        props_set(&d->props, "ID_FOO", "bar baz", PROP_DB);
        props_set(&d->props, "ID_EMPTYISH", "=x", PROP_DB);
        props_set(&d->props, ".PRIVATE", "1", PROP_DB);

        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "S:zero/null\nS:by-id/x\nL:-5\nI:123456789\nE:ID_FOO=bar baz\nE:ID_EMPTYISH==x\n"
                     "G:seat\nG:systemd\nQ:systemd\nV:1\n");
        _cleanup_free_ char *p = run_path("data/c1:3");
        struct stat st;
        CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);

        _cleanup_device_unref_ struct device *e = null_device();
        CHECK_INT(db_read(run_dir, e), 1);
        CHECK(e->udev != NULL);
        if (e->udev) {
                CHECK_INT(strv_length(e->udev->links), 2);
                CHECK(strv_contains(e->udev->links, "zero/null"));
                CHECK(strv_contains(e->udev->links, "by-id/x"));
                CHECK_INT(strv_length(e->udev->tags), 2);
                CHECK(strv_contains(e->udev->tags, "seat"));
                CHECK_INT(strv_length(e->udev->current_tags), 1);
                CHECK(strv_contains(e->udev->current_tags, "systemd"));
                CHECK_INT(e->udev->link_priority, -5);
                CHECK_INT(e->udev->usec_initialized, 123456789);
                CHECK(!e->udev->db_persist);
        }
        CHECK_STR(props_get(&e->props, "ID_FOO"), "bar baz");
        CHECK_STR(props_get(&e->props, "ID_EMPTYISH"), "=x");
        CHECK(props_get(&e->props, ".PRIVATE") == NULL);

        /* persist: the sticky bit, and back */
        d->udev->db_persist = true;
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 01644);
        CHECK_INT(db_read(run_dir, e), 1);
        CHECK(e->udev && e->udev->db_persist);

        /* a second read replaces, it does not accumulate */
        props_set(&d->props, "ID_FOO", NULL, 0);
        set_udev(d, NULL, (const char *[]){"seat", NULL}, NULL);
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        CHECK_INT(db_read(run_dir, e), 1);
        CHECK(props_get(&e->props, "ID_FOO") == NULL);
        CHECK_INT(strv_length(e->udev->links), 0);
        CHECK_INT(strv_length(e->udev->tags), 1);

        CHECK_INT(db_delete(DB_DIRS(run_dir), d, NULL), 0);
        CHECK(!exists("data/c1:3"));
        CHECK_INT(db_read(run_dir, e), 0);
}

static void test_empty_entries(void)
{
        ensure_run_dir();
        /* a node but nothing to say: an empty file (libudev: initialized) */
        _cleanup_device_unref_ struct device *d = null_device();
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "");
        CHECK_INT(db_delete(DB_DIRS(run_dir), d, NULL), 0);

        /* no node, no ifindex, nothing: no file */
        _cleanup_device_unref_ struct device *b = NULL;
        CHECK_INT(device_new("/devices/platform/serial8250", &b), 0);
        device_set_subsystem(b, "platform");
        CHECK_INT(db_update(DB_DIRS(run_dir), b, NULL), 0);
        CHECK(!exists("data/+platform:serial8250"));
        /* with a property it gets one, named by subsystem:sysname */
        props_set(&b->props, "ID_X", "1", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(run_dir), b, NULL), 0);
        _cleanup_free_ char *t = slurp("data/+platform:serial8250");
        CHECK_STR(t, "E:ID_X=1\nV:1\n");
        /* links of a device without a node are not recorded (udev does the same) */
        set_udev(b, (const char *[]){"foo", NULL}, NULL, NULL);
        CHECK_INT(db_update(DB_DIRS(run_dir), b, NULL), 0);
        free(t);
        t = slurp("data/+platform:serial8250");
        CHECK_STR(t, "E:ID_X=1\nV:1\n");
        CHECK_INT(db_delete(DB_DIRS(run_dir), b, NULL), 0);

        /* a network interface: n<ifindex> */
        _cleanup_device_unref_ struct device *n = NULL;
        CHECK_INT(device_new("/devices/virtual/net/lo", &n), 0);
        device_set_subsystem(n, "net");
        n->ifindex = 1;
        CHECK_INT(db_update(DB_DIRS(run_dir), n, NULL), 0);
        CHECK(exists("data/n1"));
        CHECK_INT(db_delete(DB_DIRS(run_dir), n, NULL), 0);
        CHECK(!exists("data/n1"));
}

static void test_atomic(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *d = null_device();
        props_set(&d->props, "ID_GEN", "one", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        _cleanup_free_ char *p = run_path("data/c1:3");
        struct stat a, b;
        CHECK(stat(p, &a) == 0);
        /* a reader that opened the old version keeps reading it, whole */
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        props_set(&d->props, "ID_GEN", "two", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        CHECK(stat(p, &b) == 0);
        CHECK(a.st_ino != b.st_ino); /* replaced by rename, not rewritten in place */
        char buf[64] = {0};
        CHECK(read(fd, buf, sizeof(buf) - 1) > 0);
        CHECK_STR(buf, "E:ID_GEN=one\nV:1\n");
        close(fd);
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "E:ID_GEN=two\nV:1\n");
        /* no temporary left behind */
        _cleanup_free_ char *dp = run_path("data");
        DIR *dir = opendir(dp);
        int n = 0;
        for (struct dirent *de; dir && (de = readdir(dir));)
                if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
                        n++;
        if (dir)
                closedir(dir);
        CHECK_INT(n, 1);
        CHECK_INT(db_delete(DB_DIRS(run_dir), d, NULL), 0);
}

static void test_tags_in_step(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *d = null_device();
        set_udev(d, NULL, (const char *[]){"a", "b", NULL}, (const char *[]){"b", NULL});
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        CHECK(exists("tags/a/c1:3"));
        CHECK(exists("tags/b/c1:3"));
        _cleanup_free_ char *p = run_path("tags/a/c1:3");
        struct stat st;
        CHECK(stat(p, &st) == 0 && st.st_size == 0 && (st.st_mode & 0777) == 0444);

        /* a new record state (e.g. after a daemon restart) that lost "a" and gained "c" */
        _cleanup_device_unref_ struct device *e = null_device();
        set_udev(e, NULL, (const char *[]){"b", "c", NULL}, (const char *[]){"c", NULL});
        CHECK_INT(db_update(DB_DIRS(run_dir), e, NULL), 0);
        CHECK(!exists("tags/a/c1:3"));
        CHECK(exists("tags/b/c1:3"));
        CHECK(exists("tags/c/c1:3"));
        /* a current tag is always a tag */
        set_udev(e, NULL, NULL, (const char *[]){"d", NULL});
        CHECK_INT(db_update(DB_DIRS(run_dir), e, NULL), 0);
        CHECK(exists("tags/d/c1:3"));
        CHECK(!exists("tags/b/c1:3"));
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "G:d\nQ:d\nV:1\n");
        /* an invalid tag never becomes a path */
        set_udev(e, NULL, (const char *[]){"../../evil", "ok", NULL}, NULL);
        CHECK_INT(db_update(DB_DIRS(run_dir), e, NULL), 0);
        CHECK(exists("tags/ok/c1:3"));
        CHECK(!exists("evil"));
        CHECK_INT(db_delete(DB_DIRS(run_dir), e, NULL), 0);
        CHECK(!exists("tags/ok/c1:3"));
        CHECK(!exists("tags/d/c1:3"));
}

/* The daemon's way: through the run directory's fd and a cache of data/ and tags/<tag>/, which
 * may be removed behind its back. */
static void test_dirs(void)
{
        ensure_run_dir();
        struct devdir_cache cache = {0};
        int runfd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(runfd >= 0);
        const struct db_dirs dirs = {.run_dir = run_dir, .runfd = runfd, .cache = &cache};

        _cleanup_device_unref_ struct device *d = null_device();
        d->db_synced = true; /* a new device: known to have no entry yet */
        set_udev(d, (const char *[]){"x", NULL}, (const char *[]){"a", "b", NULL},
                 (const char *[]){"b", NULL});
        CHECK_INT(db_update(&dirs, d, &(const struct db_known){NULL}), 0);
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "S:x\nG:a\nG:b\nQ:b\nV:1\n");
        CHECK(exists("tags/a/c1:3"));
        CHECK(exists("tags/b/c1:3"));

        /* removed by someone else: made again */
        _cleanup_free_ char *ta = run_path("tags/a/c1:3"), *tad = run_path("tags/a");
        _cleanup_free_ char *dp = run_path("data/c1:3"), *dd = run_path("data");
        CHECK_INT(unlink(ta), 0);
        CHECK_INT(rmdir(tad), 0);
        CHECK_INT(unlink(dp), 0);
        CHECK_INT(rmdir(dd), 0);
        _cleanup_device_unref_ struct device *e = null_device();
        e->db_synced = true;
        set_udev(e, NULL, (const char *[]){"a", NULL}, NULL);
        CHECK_INT(db_update(&dirs, e, &(const struct db_known){(char *[]){"a", "b", NULL}}), 0);
        free(s);
        s = slurp("data/c1:3");
        CHECK_STR(s, "G:a\nV:1\n");
        CHECK(exists("tags/a/c1:3"));
        CHECK(!exists("tags/b/c1:3"));

        CHECK_INT(db_delete(&dirs, e, NULL), 0);
        CHECK(!exists("data/c1:3"));
        CHECK(!exists("tags/a/c1:3"));
        devdir_cache_clear(&cache);
        close(runfd);
}

/* An entry whose device is gone (crash recovery) is deleted by its id, with the tag index
 * entries the file lists; a delete names the device or the id, not both or neither. */
static void test_delete_id(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *d = null_device();
        set_udev(d, NULL, (const char *[]){"a", "b", NULL}, NULL);
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        CHECK(exists("data/c1:3"));
        CHECK(exists("tags/b/c1:3"));

        CHECK_INT(db_delete(DB_DIRS(run_dir), d, "c1:3"), -EINVAL);
        CHECK_INT(db_delete(DB_DIRS(run_dir), NULL, NULL), -EINVAL);
        CHECK(exists("data/c1:3"));
        CHECK_INT(db_delete(DB_DIRS(run_dir), NULL, "c1:3"), 0);
        CHECK(!exists("data/c1:3"));
        CHECK(!exists("tags/a/c1:3"));
        CHECK(!exists("tags/b/c1:3"));
        CHECK_INT(db_delete(DB_DIRS(run_dir), NULL, "c1:3"), 0); /* none left: fine */
}

static void test_hostile(void)
{
        ensure_run_dir();
        /* valid lines among broken ones; a 100 KiB line; NUL bytes; CRLF */
        size_t big = 100 * 1024;
        char *longline = malloc(big + 3);
        memset(longline, 'x', big);
        memcpy(longline, "E:", 2);
        longline[big] = '\n';
        longline[big + 1] = '\0';
        const char head[] = "S:good/link\r\n"
                            "garbage without colon\n"
                            "S:../../etc/passwd\n"
                            "S:/abs\n"
                            "G:a/b\n"
                            "G:has space\n"
                            "G:fine\n"
                            "L:abc\n"
                            "L:99999999999999\n"
                            "I:-1\n"
                            "E:noequals\n"
                            "E:=v\n"
                            "E:ID_OK=1\n"
                            "E:DEVPATH=/devices/evil\n"
                            "Z:future key\n"
                            "W:3\n"
                            "\n"
                            "Q:\n";
        const char nul[] = "E:ID_NUL=a\0b\nE:ID_AFTER=2\n";
        _cleanup_free_ char *all = NULL;
        size_t len = strlen(head) + strlen(longline) + sizeof(nul) - 1 + strlen("V:1");
        all = malloc(len + 1);
        char *q = all;
        q = mempcpy(q, head, strlen(head));
        q = mempcpy(q, longline, strlen(longline));
        q = mempcpy(q, nul, sizeof(nul) - 1);
        q = mempcpy(q, "V:1", 3); /* no final newline */
        free(longline);
        _cleanup_free_ char *dp = run_path("data");
        mkdir(dp, 0755);
        spew("data/c1:3", all, len);

        _cleanup_device_unref_ struct device *d = null_device();
        CHECK_INT(db_read(run_dir, d), 1);
        CHECK(d->udev != NULL);
        if (d->udev) {
                CHECK_INT(strv_length(d->udev->links), 1);
                CHECK(strv_contains(d->udev->links, "good/link"));
                CHECK_INT(strv_length(d->udev->tags), 1);
                CHECK(strv_contains(d->udev->tags, "fine"));
                CHECK_INT(d->udev->link_priority, 0);
                CHECK_INT(d->udev->usec_initialized, 0);
        }
        CHECK_STR(props_get(&d->props, "ID_OK"), "1");
        CHECK_STR(props_get(&d->props, "ID_AFTER"), "2");
        CHECK(props_get(&d->props, "ID_NUL") == NULL);
        /* a database line never overrides what the kernel said */
        CHECK_STR(props_get(&d->props, "DEVPATH"), "/devices/virtual/mem/null");

        /* not a regular file */
        _cleanup_free_ char *p = run_path("data/c1:3");
        unlink(p);
        mkdir(p, 0755);
        CHECK(db_read(run_dir, d) < 0);
        rmdir(p);

        /* a version-0 entry: every tag is current */
        spew("data/c1:3", "G:old\n", 6);
        CHECK_INT(db_read(run_dir, d), 1);
        CHECK(d->udev && strv_contains(d->udev->current_tags, "old"));
        unlink(p);
}

static void test_cleanup(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *keep = null_device();
        set_udev(keep, NULL, (const char *[]){"kept", "shared", NULL}, NULL);
        keep->udev->db_persist = true;
        CHECK_INT(db_update(DB_DIRS(run_dir), keep, NULL), 0);

        _cleanup_device_unref_ struct device *drop = NULL;
        CHECK_INT(device_new("/devices/virtual/mem/zero", &drop), 0);
        device_set_subsystem(drop, "mem");
        drop->devnum = makedev(1, 5);
        drop->devnum_type = 'c';
        set_udev(drop, NULL, (const char *[]){"dropped", "shared", NULL}, NULL);
        CHECK_INT(db_update(DB_DIRS(run_dir), drop, NULL), 0);

        _cleanup_free_ char *snt = run_path("static_node-tags/uaccess");
        _cleanup_free_ char *sn = run_path("static_node-tags");
        mkdir(sn, 0755);
        mkdir(snt, 0755);
        spew("static_node-tags/uaccess/snd:seq", "", 0);
        _cleanup_free_ char *w = run_path("watch");
        mkdir(w, 0755);
        spew("watch/3", "", 0);
        _cleanup_free_ char *l = run_path("links");
        _cleanup_free_ char *ld = run_path("links/disk\\x2fby-id\\x2fx");
        mkdir(l, 0755);
        mkdir(ld, 0755);
        spew("links/disk\\x2fby-id\\x2fx/c1:5", "", 0);
        /* a claim (links.h) is kept with its device's entry; anything but a claim directory
         * in links/ goes */
        _cleanup_free_ char *kd = run_path("links/disk\\x2fby-id\\x2fkept");
        _cleanup_free_ char *sk = run_path("links/disk\\x2fby-id\\x2fkept/c1:3");
        _cleanup_free_ char *sg = run_path("links/garbage");
        mkdir(kd, 0755);
        CHECK_INT(symlink("0\n1\nnull3\nc1:3\ndisk/by-id/kept", sk), 0);
        CHECK_INT(symlink("no record", sg), 0);

        CHECK_INT(db_cleanup(run_dir), 1);
        struct stat st;
        CHECK(lstat(sk, &st) == 0 && S_ISLNK(st.st_mode));
        CHECK(lstat(sg, &st) < 0 && errno == ENOENT);
        CHECK(exists("data/c1:3"));
        CHECK(!exists("data/c1:5"));
        CHECK(exists("tags/kept/c1:3"));
        CHECK(exists("tags/shared/c1:3"));
        CHECK(!exists("tags/shared/c1:5"));
        CHECK(!exists("tags/dropped"));
        CHECK(!exists("links/disk\\x2fby-id\\x2fx"));
        CHECK(!exists("static_node-tags/uaccess"));
        CHECK(exists("watch/3"));
        CHECK_INT(db_delete(DB_DIRS(run_dir), keep, NULL), 0);
        CHECK(db_cleanup("/nonexistent/run") < 0);
}

static void test_print_record(void)
{
        ensure_run_dir();
        _cleanup_device_unref_ struct device *d = null_device();
        props_set(&d->props, "DEVMODE", "0666", PROP_KERNEL);
        set_udev(d, (const char *[]){"zero/null", NULL}, (const char *[]){"t1", NULL}, (const char *[]){"t1", NULL});
        d->udev->usec_initialized = 42;
        props_set(&d->props, "ID_X", "y", PROP_DB);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK_INT(db_print_record(f, d, "/dev"), 0);
        fclose(f);
        CHECK_STR(buf, "P: /devices/virtual/mem/null\n"
                       "M: null\n"
                       "U: mem\n"
                       "D: c 1:3\n"
                       "N: null\n"
                       "L: 0\n"
                       "S: zero/null\n"
                       "E: DEVPATH=/devices/virtual/mem/null\n"
                       "E: SUBSYSTEM=mem\n"
                       "E: MAJOR=1\n"
                       "E: MINOR=3\n"
                       "E: DEVNAME=/dev/null\n"
                       "E: DEVMODE=0666\n"
                       "E: ID_X=y\n"
                       "E: USEC_INITIALIZED=42\n"
                       "E: DEVLINKS=/dev/zero/null\n"
                       "E: TAGS=:t1:\n"
                       "E: CURRENT_TAGS=:t1:\n");
        free(buf);
}

static void test_queue(void)
{
        ensure_run_dir();
        CHECK_INT(db_set_queue_busy(run_dir, true), 0);
        CHECK(exists("queue"));
        CHECK_INT(db_set_queue_busy(run_dir, true), 0);
        CHECK_INT(db_set_queue_busy(run_dir, false), 0);
        CHECK(!exists("queue"));
        CHECK_INT(db_set_queue_busy(run_dir, false), 0);
}

/* The in-memory reader (fuzzing's entry point) reads what the file reader reads and skips the
 * same hostile lines; it has no sticky bit to read, so db_persist is off. */
static void test_read_buffer(void)
{
        static const char entry[] = "S:disk/by-id/x\nS:../../etc/passwd\nL:7\nI:42\nE:ID_A=1\nE:.P=2\n"
                                    "G:seat\nG:a/b\nQ:seat\nV:1\n";
        _cleanup_device_unref_ struct device *d = null_device();
        CHECK_INT(db_read_buffer("mem", entry, sizeof(entry) - 1, d), 1);
        CHECK(d->udev != NULL);
        if (d->udev) {
                CHECK_INT(strv_length(d->udev->links), 1);
                CHECK(strv_contains(d->udev->links, "disk/by-id/x"));
                CHECK_INT(d->udev->link_priority, 7);
                CHECK_INT(d->udev->usec_initialized, 42);
                CHECK_INT(strv_length(d->udev->tags), 1);
                CHECK(strv_contains(d->udev->current_tags, "seat"));
                CHECK(!d->udev->db_persist);
        }
        CHECK_STR(device_get_property(d, "ID_A"), "1");
        CHECK(device_get_property(d, ".P") == NULL);
        _cleanup_device_unref_ struct device *e = null_device();
        CHECK_INT(db_read_buffer("empty", "", 0, e), 0);
        CHECK(e->udev == NULL);
}

/* A device whose record knows it has no entry: the entry appears whole (an unnamed file linked
 * in), with its mode, no temporary left; and when an entry is there after all (made behind the
 * record's back), it is replaced, not kept. */
static void test_new_entry(void)
{
        ensure_run_dir();
        _cleanup_free_ char *p = run_path("data/c1:3"), *dp = run_path("data");
        (void)unlink(p);
        _cleanup_device_unref_ struct device *d = null_device();
        props_set(&d->props, "ID_NEW", "1", PROP_DB);
        d->db_synced = true;
        d->db_exists = false;
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        _cleanup_free_ char *s = slurp("data/c1:3");
        CHECK_STR(s, "E:ID_NEW=1\nV:1\n");
        struct stat st;
        CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_nlink == 1);
        CHECK(d->db_synced && d->db_exists);

        d->db_exists = false; /* the record is wrong: the entry exists */
        props_set(&d->props, "ID_NEW", "2", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(run_dir), d, NULL), 0);
        free(s);
        s = slurp("data/c1:3");
        CHECK_STR(s, "E:ID_NEW=2\nV:1\n");

        DIR *dir = opendir(dp);
        int n = 0;
        for (struct dirent *de; dir && (de = readdir(dir));)
                n += de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
        if (dir)
                closedir(dir);
        CHECK_INT(n, 0);
        CHECK_INT(unlink(p), 0);
}

TEST_MAIN(TEST(test_round_trip), TEST(test_new_entry), TEST(test_read_buffer), TEST(test_empty_entries),
          TEST(test_atomic), TEST(test_tags_in_step), TEST(test_dirs), TEST(test_delete_id), TEST(test_hostile),
          TEST(test_cleanup), TEST(test_print_record), TEST(test_queue))
