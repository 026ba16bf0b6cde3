/* SPDX-License-Identifier: MIT */
#include "db.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "export.h"
#include "fs-util.h"
#include "log.h"
#include "model.h"
#include "strfmt.h"
#include "strv.h"
#include "sysfs.h"
#include "uevent.h"

/* Longer lines are not something udev writes: skip them rather than hold them. */
#define DB_LINE_MAX (64 * 1024)

/* The database fields of one entry, as parsed or about to be written. */
struct db_entry {
        char **links;
        char **tags;
        char **current_tags;
        int link_priority;
        uint64_t usec_initialized;
        unsigned version;
        struct props props; /* E: lines, flagged PROP_DB */
        bool persist;
};

static void db_entry_clear(struct db_entry *e)
{
        strv_free(e->links);
        strv_free(e->tags);
        strv_free(e->current_tags);
        props_clear(&e->props);
        *e = (struct db_entry){0};
}

static bool has_control_chars(const char *s)
{
        for (; *s; s++)
                if ((unsigned char)*s < ' ' || *s == 0x7f)
                        return true;
        return false;
}

/* A name that is one safe path component. */
static bool filename_is_safe(const char *s)
{
        return !isempty(s) && strlen(s) <= NAME_MAX && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..") &&
               !has_control_chars(s);
}

/* Tags become directory names and are joined with ':' in TAGS. */
static bool tag_is_valid(const char *t)
{
        return filename_is_safe(t) && !strchr(t, ':') && !strchr(t, ' ');
}

static bool db_key_is_valid(const char *k, size_t len)
{
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)k[i] <= ' ' || k[i] == 0x7f)
                        return false;
        return true;
}

/* Applies one "K:value" line; returns a static reason when it is malformed, NULL if used. */
static const char *db_entry_add_line(struct db_entry *e, char key, const char *value)
{
        uint64_t u;
        int64_t n;
        int r;

        switch (key) {
        case 'S':
                if (!devname_is_safe(value))
                        return "unsafe link name";
                r = strv_add_unique(&e->links, value);
                break;
        case 'L':
                if (strfmt_parse_int(value, INT_MIN, INT_MAX, &n) < 0)
                        return "link priority is not a number";
                e->link_priority = (int)n;
                return NULL;
        case 'I':
                if (strfmt_parse_uint(value, 10, UINT64_MAX, &e->usec_initialized) < 0)
                        return "initialization time is not a number";
                return NULL;
        case 'V':
                if (strfmt_parse_uint(value, 10, UINT_MAX, &u) < 0)
                        return "version is not a number";
                e->version = (unsigned)u;
                return NULL;
        case 'G':
        case 'Q':
                if (!tag_is_valid(value))
                        return "invalid tag";
                r = strv_add_unique(key == 'G' ? &e->tags : &e->current_tags, value);
                break;
        case 'E': {
                const char *eq = strchr(value, '=');
                if (!eq || !db_key_is_valid(value, (size_t)(eq - value)))
                        return "property is not KEY=VALUE";
                _cleanup_free_ char *k = strndup(value, (size_t)(eq - value));
                if (!k)
                        return "out of memory";
                if (k[0] == '.')
                        return "private property";
                /* "KEY=" unsets, as in libudev */
                r = props_set(&e->props, k, eq[1] ? eq + 1 : NULL, PROP_DB);
                break;
        }
        default: /* W: (watch handle, deprecated) and anything newer */
                return NULL;
        }
        return r < 0 ? "out of memory" : NULL;
}

/* Malformed lines of one file logged one by one; the rest are counted. */
#define DB_BAD_LINES_LOGGED 5

/* Parses an open database file. Malformed lines are logged (with path:line) and skipped. */
static int db_parse(FILE *f, const char *path, struct db_entry *e)
{
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        unsigned lineno = 0, bad = 0;
        ssize_t n;

        errno = 0;
        while ((n = getline(&line, &cap, f)) >= 0) {
                lineno++;
                size_t len = (size_t)n;
                while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                        line[--len] = '\0';
                if (len == 0)
                        continue;
                const char *why = NULL;
                if (len > DB_LINE_MAX)
                        why = "line too long";
                else if (strlen(line) != len)
                        why = "NUL byte in line";
                else if (len < 2 || line[1] != ':')
                        why = "not a K:value line";
                else
                        why = db_entry_add_line(e, line[0], line + 2);
                /* a hostile file must not flood the log: the first few, then a count */
                if (why && ++bad <= DB_BAD_LINES_LOGGED)
                        log_warning("%s:%u: %s, line ignored", path, lineno, why);
                errno = 0;
        }
        if (bad > DB_BAD_LINES_LOGGED)
                log_warning("%s: %u more malformed lines ignored (%u in all)", path, bad - DB_BAD_LINES_LOGGED,
                            bad);
        if (errno == ENOMEM)
                return -ENOMEM;
        if (ferror(f))
                return -EIO;
        /* before version 1, tags were not sticky: every tag is a current one */
        if (e->version < 1 && !e->current_tags && e->tags)
                return strv_copy(e->tags, &e->current_tags);
        return 0;
}

/* Reads the entry at path into *e; 1 when read, 0 when absent. */
static int db_load(const char *path, struct db_entry *e)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        struct stat st;
        if (fstat(fileno(f), &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        e->persist = (st.st_mode & S_ISVTX) != 0;
        int r = db_parse(f, path, e);
        return r < 0 ? r : 1;
}

static int device_db_id(const struct device *d, char **ret)
{
        _cleanup_free_ char *id = NULL;
        int r = device_get_id(d, &id);
        if (r < 0)
                return r;
        /* the id names a file: a sysname with '/' (from '!') must not make it a path */
        if (!filename_is_safe(id))
                return -EINVAL;
        *ret = TAKE_PTR(id);
        return 0;
}

/* tags/<tag>/<id>: create (add) or remove. */
static int tag_index(const struct db_dirs *rd, const char *tag, const char *id, bool add)
{
        _cleanup_free_ char *name = strfmt_concat("tags/", tag, "/", id, NULL);
        _cleanup_(devdir_parent_done) struct devdir_parent p = DEVDIR_PARENT_NULL;
        if (!name)
                return -ENOMEM;
        int r = add ? devdir_open_parent(rd->runfd, rd->cache, name, true, &p)
                    : devdir_lookup_parent(rd->runfd, rd->cache, name, &p);
        if (r < 0)
                return !add && r == -ENOENT ? 0 : r;
        if (!add) {
                r = devdir_leaf_unlink(rd->runfd, rd->cache, name, &p, 0);
                return r == -ENOENT ? 0 : r;
        }
        r = mknodat(p.fd, p.leaf, S_IFREG | 0444, 0) < 0 ? -errno : 0;
        if (r == -ENOENT && devdir_parent_reopen(rd->runfd, rd->cache, name, &p) > 0)
                r = mknodat(p.fd, p.leaf, S_IFREG | 0444, 0) < 0 ? -errno : 0;
        return r == -EEXIST ? 0 : r;
}

static int write_all(int fd, const char *buf, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                buf += n;
                len -= (size_t)n;
        }
        return 0;
}

static bool entry_has_info(const struct db_entry *e)
{
        return (e->links && e->links[0]) || e->link_priority != 0 || e->props.n > 0 || (e->tags && e->tags[0]) ||
               (e->current_tags && e->current_tags[0]);
}

static bool value_is_line_safe(const char *s)
{
        return !strpbrk(s, "\n\r");
}

/* The entry to write: d's udev results and its PROP_DB properties. */
static int entry_from_device(const struct device *d, struct db_entry *e)
{
        const struct device_udev *u = d->udev;
        const char *entry;
        unsigned flags;
        size_t it = 0;
        int r;

        if (u) {
                e->link_priority = u->link_priority;
                e->usec_initialized = u->usec_initialized;
                e->persist = u->db_persist;
                STRV_FOREACH(l, u->links) {
                        if (!devname_is_safe(*l)) {
                                log_warning("%s: unsafe link name not recorded in the database", d->devpath);
                                continue;
                        }
                        if ((r = strv_add_unique(&e->links, *l)) < 0)
                                return r;
                }
                STRV_FOREACH(t, u->tags) {
                        if (!tag_is_valid(*t)) {
                                log_warning("%s: invalid tag not recorded in the database", d->devpath);
                                continue;
                        }
                        if ((r = strv_add_unique(&e->tags, *t)) < 0)
                                return r;
                }
                STRV_FOREACH(t, u->current_tags) {
                        if (!tag_is_valid(*t))
                                continue;
                        if ((r = strv_add_unique(&e->current_tags, *t)) < 0)
                                return r;
                        /* a current tag is a tag */
                        if ((r = strv_add_unique(&e->tags, *t)) < 0)
                                return r;
                }
        }
        while (props_next(&d->props, &it, &entry, &flags)) {
                if (!(flags & PROP_DB) || entry[0] == '.')
                        continue;
                size_t kl = props_key_len(entry);
                if (!db_key_is_valid(entry, kl) || !value_is_line_safe(entry + kl + 1)) {
                        log_warning("%s: property %.*s not recordable in the database", d->devpath, (int)kl, entry);
                        continue;
                }
                if ((r = props_set_n(&e->props, entry, kl, entry + kl + 1, PROP_DB)) < 0)
                        return r;
        }
        return 0;
}

/* The entry's text, built without stdio: this runs once per processed event. */
static int write_entry(struct strfmt_buf *b, const struct device *d, const struct db_entry *e)
{
        char num[STRFMT_UINT_MAX];
        if (!entry_has_info(e))
                return 0;
        if (d->devnum_type && major(d->devnum) > 0) {
                STRV_FOREACH(l, e->links)
                        strfmt_buf_append(b, "S:", *l, "\n", NULL);
                if (e->link_priority != 0)
                        strfmt_buf_append(b, "L:", strfmt_int(num, e->link_priority), "\n", NULL);
        }
        if (e->usec_initialized > 0)
                strfmt_buf_append(b, "I:", strfmt_uint(num, e->usec_initialized), "\n", NULL);
        const char *entry;
        size_t it = 0;
        while (props_next(&e->props, &it, &entry, NULL))
                strfmt_buf_append(b, "E:", entry, "\n", NULL);
        STRV_FOREACH(t, e->tags)
                strfmt_buf_append(b, "G:", *t, "\n", NULL);
        STRV_FOREACH(t, e->current_tags)
                strfmt_buf_append(b, "Q:", *t, "\n", NULL);
        strfmt_buf_append(b, "V:1\n", NULL);
        return b->failed ? -ENOMEM : 0;
}

/* Removes the index entries of old_tags that are not in new_tags. */
static void drop_stale_tags(const struct db_dirs *rd, const char *id, char **old_tags, char **new_tags)
{
        STRV_FOREACH(t, old_tags)
                if (!strv_contains(new_tags, *t)) {
                        int r = tag_index(rd, *t, id, false);
                        if (r < 0)
                                log_debug_errno(r, "cannot remove tag index %s/%s: %m", *t, id);
                }
}

/* A new entry (a device's first event) appears whole by linking an unnamed file in: no
 * temporary name to make and rename. false when that cannot be done (the caller then takes
 * the general way). */
static bool link_new_entry(const struct db_dirs *rd, const char *id, const struct strfmt_buf *text, mode_t mode)
{
        _cleanup_free_ char *name = path_join("data", id);
        _cleanup_(devdir_parent_done) struct devdir_parent p = DEVDIR_PARENT_NULL;
        if (!name || devdir_open_parent(rd->runfd, rd->cache, name, true, &p) < 0)
                return false;
        for (int attempt = 0;; attempt++) {
                int fd = openat(p.fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
                bool linked = fd >= 0 && write_all(fd, strempty(text->s), text->len) >= 0 &&
                              linkat(fd, "", p.fd, p.leaf, AT_EMPTY_PATH) == 0;
                if (fd >= 0)
                        close(fd);
                if (linked)
                        return true;
                /* a cached data/ removed meanwhile (O_TMPFILE then fails with EPERM, linkat with
                 * ENOENT): once more in a new one */
                if (attempt > 0 || devdir_parent_reopen(rd->runfd, rd->cache, name, &p) <= 0)
                        return false;
        }
}

/* The tools' way in (dirs->runfd -1): the run directory opened for one call (made first when
 * create) into *tmp, with *ret pointing to it; else *ret is dirs. 1 when opened (the caller
 * closes tmp->runfd), 0 when not needed, -ENOENT when it is missing (and not create), -errno. */
static int dirs_open(const struct db_dirs *dirs, bool create, struct db_dirs *tmp, const struct db_dirs **ret)
{
        *ret = dirs;
        if (dirs->runfd >= 0)
                return 0;
        const char *run_dir = dirs->run_dir;
        int fd = open(run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && create) {
                int r = fs_mkdir_p(run_dir, 0755);
                if (r < 0)
                        return r;
                fd = open(run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        if (fd < 0)
                return -errno;
        *tmp = (struct db_dirs){.run_dir = run_dir, .runfd = fd, .cache = dirs->cache};
        *ret = tmp;
        return 1;
}

/* <run>/data/<id> removed through the cached data/ directory; 0 also when it was not there. */
static int unlink_entry(const struct db_dirs *rd, const char *id)
{
        _cleanup_(devdir_parent_done) struct devdir_parent p = DEVDIR_PARENT_NULL;
        _cleanup_free_ char *name = path_join("data", id);
        if (!name)
                return -ENOMEM;
        int r = devdir_lookup_parent(rd->runfd, rd->cache, name, &p);
        if (r >= 0)
                r = devdir_leaf_unlink(rd->runfd, rd->cache, name, &p, 0);
        return r == -ENOENT ? 0 : r;
}

static int update(const struct db_dirs *rd, struct device *d, const struct db_known *known);

int db_update(const struct db_dirs *dirs, struct device *d, const struct db_known *old)
{
        struct db_dirs tmp;
        const struct db_dirs *rd;
        int r = dirs_open(dirs, true, &tmp, &rd);
        if (r < 0)
                return r;
        int k = update(rd, d, old);
        if (r > 0)
                close(tmp.runfd);
        return k;
}

/* <run>/data and <run>/data/<id> into *data and *path, unless made before. Made only when
 * needed: to read the previous entry, or for a write or removal by path; the common cases of
 * a storm (a first entry linked in, a removal that knows the entry) work below the cached
 * data/ directory and need neither. 0 or -ENOMEM. */
static int entry_paths(const char *run_dir, const char *id, char **data, char **path)
{
        if (*path)
                return 0;
        *data = path_join(run_dir, "data");
        *path = *data ? path_join(*data, id) : NULL;
        return *path ? 0 : -ENOMEM;
}

static int update(const struct db_dirs *rd, struct device *d, const struct db_known *known)
{
        const char *run_dir = rd->run_dir;
        char **old_tags = known ? known->tags : NULL;
        _cleanup_free_ char *id = NULL, *data = NULL, *path = NULL, *tmp = NULL;
        struct db_entry old = {0}, new = {0};
        struct strfmt_buf text = {0};
        int fd = -1;
        int r = device_db_id(d, &id);
        if (r < 0)
                return r;

        bool known_absent = d->db_synced && !d->db_exists;
        d->db_synced = false; /* until this write succeeds */
        /* the previous version says which tag index entries may have gone stale */
        if (!known) {
                if ((r = entry_paths(run_dir, id, &data, &path)) < 0)
                        return r;
                r = db_load(path, &old);
                if (r < 0)
                        log_debug_errno(r, "%s: previous database entry unreadable: %m", path);
                old_tags = old.tags;
        }
        r = entry_from_device(d, &new);
        if (r < 0)
                goto out;

        if (!entry_has_info(&new) && !(d->devnum_type && major(d->devnum) > 0) && d->ifindex <= 0) {
                if (!known_absent)
                        r = unlink_entry(rd, id);
                drop_stale_tags(rd, id, old_tags, NULL);
                if (r >= 0) {
                        d->db_synced = true;
                        d->db_exists = false;
                }
                goto out;
        }

        /* the whole entry first, so the file is written with one write() */
        r = write_entry(&text, d, &new);
        if (r < 0)
                goto out;

        mode_t mode = new.persist ? 01644 : 0644;
        /* A new entry (a device's first event) appears whole by linking an unnamed file in:
         * no temporary name to make and rename. Anything unusual takes the way below. */
        if (known_absent && link_new_entry(rd, id, &text, mode))
                goto written;

        /* else a temporary renamed over the entry */
        if ((r = entry_paths(run_dir, id, &data, &path)) < 0)
                goto out;
        tmp = strfmt_concat(data, "/.#", id, ".XXXXXX", NULL);
        if (!tmp) {
                r = -ENOMEM;
                goto out;
        }
        size_t tmpl = strlen(tmp);
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) { /* the first entry: make the directories */
                if ((r = fs_mkdir_p(data, 0755)) < 0)
                        goto out;
                memcpy(tmp + tmpl - 6, "XXXXXX", 6);
                fd = mkostemp(tmp, O_CLOEXEC);
        }
        if (fd < 0) {
                r = -errno;
                goto out_tmp;
        }
        r = fchmod(fd, mode) < 0 ? -errno : write_all(fd, strempty(text.s), text.len);
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r < 0)
                goto out_unlink;
        if (rename(tmp, path) < 0) {
                r = -errno;
                goto out_unlink;
        }

written:
        drop_stale_tags(rd, id, old_tags, new.tags);
        STRV_FOREACH(t, new.tags) {
                int k = tag_index(rd, *t, id, true);
                if (k < 0 && r == 0)
                        r = k;
        }
        d->db_synced = true;
        d->db_exists = true;
        goto out;

out_unlink:
        (void)unlink(tmp);
out_tmp:
out:
        free(text.s);
        db_entry_clear(&old);
        db_entry_clear(&new);
        return r;
}

static int delete_id(const struct db_dirs *rd, const char *id, bool load)
{
        const char *run_dir = rd->run_dir;
        _cleanup_free_ char *data = NULL, *path = NULL;
        struct db_entry old = {0};
        int r;

        if (load) {
                if ((r = entry_paths(run_dir, id, &data, &path)) < 0)
                        return r;
                r = db_load(path, &old);
                if (r < 0)
                        log_debug_errno(r, "%s: database entry unreadable: %m", path);
                drop_stale_tags(rd, id, old.tags, NULL);
        }
        db_entry_clear(&old);
        return unlink_entry(rd, id);
}

static int delete_device(const struct db_dirs *rd, struct device *d)
{
        _cleanup_free_ char *id = NULL;
        int r = device_db_id(d, &id);
        if (r < 0)
                return r;
        /* the record's own tags too, in case the file was already gone */
        if (d->udev)
                drop_stale_tags(rd, id, d->udev->tags, NULL);
        if (d->db_synced && !d->db_exists)
                return 0; /* the record knows there is no entry (a device with nothing to keep) */
        return delete_id(rd, id, !d->db_synced);
}

int db_delete(const struct db_dirs *dirs, struct device *d, const char *id)
{
        struct db_dirs tmp;
        const struct db_dirs *rd;

        if (!d == !id)
                return -EINVAL;
        int r = dirs_open(dirs, false, &tmp, &rd);
        if (r < 0)
                return r == -ENOENT ? 0 : r; /* no run directory: no entry */
        int k = d ? delete_device(rd, d) : delete_id(rd, id, true);
        if (r > 0)
                close(tmp.runfd);
        return k;
}

/* Replaces d's database fields with those of e (taking e's lists). */
static int device_take_entry(struct device *d, struct db_entry *e)
{
        struct device_udev *u = device_get_udev(d);
        if (!u)
                return -ENOMEM;

        /* PROP_DB properties are replaced; kernel ones are never overwritten from a file */
        props_unset_flagged(&d->props, PROP_DB);
        const char *entry;
        size_t it = 0;
        while (props_next(&e->props, &it, &entry, NULL)) {
                size_t kl = props_key_len(entry);
                _cleanup_free_ char *k = strndup(entry, kl);
                if (!k)
                        return -ENOMEM;
                if (props_get(&d->props, k))
                        continue;
                int r = props_set(&d->props, k, entry + kl + 1, PROP_DB);
                if (r < 0)
                        return r;
        }
        strv_free(u->links);
        strv_free(u->tags);
        strv_free(u->current_tags);
        u->links = TAKE_PTR(e->links);
        u->tags = TAKE_PTR(e->tags);
        u->current_tags = TAKE_PTR(e->current_tags);
        u->link_priority = e->link_priority;
        u->usec_initialized = e->usec_initialized;
        u->db_persist = e->persist;
        return 0;
}

int db_read_file(const char *path, struct device *d)
{
        struct db_entry e = {0};
        int r = db_load(path, &e);
        if (r > 0) {
                int k = device_take_entry(d, &e);
                if (k < 0)
                        r = k;
        }
        db_entry_clear(&e);
        if (r >= 0) {
                d->db_synced = true;
                d->db_exists = r > 0;
        }
        return r;
}

int db_read_buffer(const char *name, const void *buf, size_t len, struct device *d)
{
        if (len == 0)
                return 0; /* an empty entry: nothing recorded (fmemopen refuses size 0) */
        _cleanup_fclose_ FILE *f = fmemopen((void *)buf, len, "r");
        if (!f)
                return -errno;
        struct db_entry e = {0};
        int r = db_parse(f, name, &e);
        if (r >= 0)
                r = device_take_entry(d, &e);
        db_entry_clear(&e);
        return r < 0 ? r : 1;
}

int db_read(const char *run_dir, struct device *d)
{
        _cleanup_free_ char *id = NULL;
        int r = device_db_id(d, &id);
        if (r < 0)
                return r;
        _cleanup_free_ char *path = strfmt_concat(run_dir, "/data/", id, NULL);
        if (!path)
                return -ENOMEM;
        return db_read_file(path, d);
}

/* ---- cleanup ---- */

/* Removes every entry of dir whose name has no data/ file (index dirs: tags/<t>/, links/<l>/). */
static void cleanup_index_dir(int dirfd_, int datafd)
{
        _cleanup_closedir_ DIR *dir = fs_opendir_dup(dirfd_);
        if (!dir)
                return;
        for (struct dirent *de; (de = fs_readdir(dir, false));) {
                if (datafd >= 0 && faccessat(datafd, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                        continue; /* kept: its device's entry persists */
                (void)unlinkat(dirfd(dir), de->d_name, 0);
        }
}

/* links/ and tags/: one subdirectory per link or tag, holding device ids (links.h). */
static void cleanup_index(const char *run_dir, const char *name, int datafd)
{
        _cleanup_free_ char *p = path_join(run_dir, name);
        _cleanup_closedir_ DIR *dir = p ? opendir(p) : NULL;
        if (!dir)
                return;
        for (struct dirent *de; (de = fs_readdir(dir, false));) {
                struct stat st;
                if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        _cleanup_close_ int sub =
                                openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub >= 0)
                                cleanup_index_dir(sub, datafd);
                        (void)unlinkat(dirfd(dir), de->d_name, AT_REMOVEDIR); /* fails while non-empty */
                        continue;
                }
                (void)unlinkat(dirfd(dir), de->d_name, 0);
        }
}

/* Removes everything below dir (two levels deep at most, as static_node-tags/<tag>/<node>). */
static void remove_tree(int dfd, unsigned depth)
{
        _cleanup_closedir_ DIR *dir = fs_opendir_dup(dfd);
        if (!dir)
                return;
        for (struct dirent *de; (de = fs_readdir(dir, false));) {
                struct stat st;
                if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth > 1) {
                                _cleanup_close_ int sub = openat(dirfd(dir), de->d_name,
                                                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                                if (sub >= 0)
                                        remove_tree(sub, depth - 1);
                        }
                        (void)unlinkat(dirfd(dir), de->d_name, AT_REMOVEDIR);
                } else
                        (void)unlinkat(dirfd(dir), de->d_name, 0);
        }
}

int db_cleanup(const char *run_dir)
{
        int removed = 0;
        _cleanup_free_ char *data = path_join(run_dir, "data");
        _cleanup_free_ char *snt = path_join(run_dir, "static_node-tags");
        if (!data || !snt)
                return -ENOMEM;

        _cleanup_close_ int run_fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (run_fd < 0)
                return -errno;

        _cleanup_closedir_ DIR *dd = opendir(data);
        if (dd) {
                for (struct dirent *de; (de = fs_readdir(dd, false));) {
                        struct stat st;
                        if (fstatat(dirfd(dd), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                                continue;
                        if (st.st_mode & S_ISVTX) /* db_persist */
                                continue;
                        if (unlinkat(dirfd(dd), de->d_name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) == 0)
                                removed++;
                }
        }
        int datafd = dd ? dirfd(dd) : -1;
        cleanup_index(run_dir, "links", datafd);
        cleanup_index(run_dir, "tags", datafd);

        _cleanup_close_ int sfd = open(snt, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (sfd >= 0)
                remove_tree(sfd, 2);
        /* watch/ is the daemon's business while it runs */
        return removed;
}

/* ---- printing ---- */

int db_print_record(FILE *out, const struct device *d, const char *dev_root)
{
        struct props p = PROPS_INIT;
        int r = export_properties(d, dev_root, NULL, 0, &p);
        if (r < 0)
                return r;

        fprintf(out, "P: %s\n", d->devpath);
        if (d->sysname)
                fprintf(out, "M: %s\n", d->sysname);
        if (d->sysnum)
                fprintf(out, "R: %s\n", d->sysnum);
        if (d->subsystem)
                fprintf(out, "U: %s\n", d->subsystem);
        if (d->devtype)
                fprintf(out, "T: %s\n", d->devtype);
        if (d->devnum_type)
                fprintf(out, "D: %c %u:%u\n", d->devnum_type, major(d->devnum), minor(d->devnum));
        if (d->ifindex > 0)
                fprintf(out, "I: %d\n", d->ifindex);
        if (d->devname) {
                fprintf(out, "N: %s\n", d->devname);
                fprintf(out, "L: %d\n", d->udev ? d->udev->link_priority : 0);
                if (d->udev)
                        STRV_FOREACH(l, d->udev->links)
                                fprintf(out, "S: %s\n", *l);
        }
        const char *diskseq = props_get(&d->props, "DISKSEQ");
        if (diskseq)
                fprintf(out, "Q: %s\n", diskseq);
        if (d->driver)
                fprintf(out, "V: %s\n", d->driver);
        const char *entry;
        size_t it = 0;
        while (props_next(&p, &it, &entry, NULL))
                fprintf(out, "E: %s\n", entry);
        props_clear(&p);
        return ferror(out) ? -EIO : 0;
}

static int cmp_devpath(const void *a, const void *b)
{
        const struct device *const *x = a, *const *y = b;
        return strcmp((*x)->devpath, (*y)->devpath);
}

int db_export(struct model *m, const char *run_dir, FILE *out)
{
        size_t n = model_size(m), i = 0, it = 0;
        _cleanup_free_ struct device **v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        struct device *d;
        while (i < n && model_iterate(m, &it, &d))
                v[i++] = d;
        qsort(v, i, sizeof(*v), cmp_devpath);
        for (size_t k = 0; k < i; k++) {
                int r = db_read(run_dir, v[k]);
                if (r < 0 && r != -EINVAL && r != -ENODATA)
                        log_debug_errno(r, "%s: database entry unreadable: %m", v[k]->devpath);
                r = db_print_record(out, v[k], model_dev_root(m));
                if (r < 0)
                        return r;
                fputc('\n', out);
        }
        return fflush(out) == 0 ? 0 : -errno;
}

int db_set_queue_busy(const char *run_dir, bool busy)
{
        _cleanup_free_ char *p = path_join(run_dir, "queue");
        if (!p)
                return -ENOMEM;
        if (!busy)
                return unlink(p) < 0 && errno != ENOENT ? -errno : 0;
        int r = fs_mkdir_p(run_dir, 0755);
        if (r < 0)
                return r;
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}
