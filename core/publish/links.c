/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "devdir.h"
#include "fs-util.h"
#include "hashmap.h"
#include "links.h"
#include "macros.h"
#include "strfmt.h"
#include "strv.h"
#include "sysfs.h"

#define CLAIMS_DIR "links"
/* Device ids are short ("b8:0", "+subsys:sysname"); the bound only keeps records small. */
#define DEVICE_ID_MAX 512

struct claim {
        int priority;
        uint64_t seq;
        char *devname;
        char *device_id;
        char *link;
        char *record; /* the raw record; the fields above point into it */
};

static bool list_empty(char **v)
{
        return !v || !v[0];
}

static void claim_clear(struct claim *c)
{
        free(c->record);
        *c = (struct claim){0};
}

static bool device_id_valid(const char *id)
{
        if (isempty(id) || strlen(id) > DEVICE_ID_MAX)
                return false;
        for (const unsigned char *p = (const unsigned char *)id; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return false;
        return true;
}

/* A string as one directory entry name (see links.h). */
static int escape_name(const char *s, char **ret)
{
        size_t n = 0;
        for (const char *p = s; *p; p++)
                n += (*p == '/' || *p == '\\' || (p == s && *p == '.')) ? 4 : 1;

        if (n > NAME_MAX) {
                if (asprintf(ret, "\\#%016" PRIx64, hash_string(s)) < 0)
                        return -ENOMEM;
                return 0;
        }

        char *e = malloc(n + 1), *q = e;
        if (!e)
                return -ENOMEM;
        for (const char *p = s; *p; p++) {
                if (*p == '/' || *p == '\\' || (p == s && *p == '.'))
                        q = strfmt_hex_escape(q, (unsigned char)*p);
                else
                        *q++ = *p;
        }
        *q = 0;
        *ret = e;
        return 0;
}

/* The reverse, for claim directories that lost all records; -EINVAL for hashed names. */
static int unescape_name(const char *s, char **ret)
{
        char *u = malloc(strlen(s) + 1), *q = u;
        if (!u)
                return -ENOMEM;
        for (const char *p = s; *p;) {
                unsigned v;
                if (*p != '\\') {
                        *q++ = *p++;
                        continue;
                }
                if (p[1] != 'x' || sscanf(p + 2, "%2x", &v) != 1 || v == 0) {
                        free(u);
                        return -EINVAL;
                }
                *q++ = (char)v;
                p += 4;
        }
        *q = 0;
        *ret = u;
        return 0;
}

static int claims_root_open(int runfd, bool create)
{
        int fd = openat(runfd, CLAIMS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT || !create)
                return fd >= 0 ? fd : -errno;
        if (mkdirat(runfd, CLAIMS_DIR, 0755) < 0 && errno != EEXIST)
                return -errno;
        fd = openat(runfd, CLAIMS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return fd >= 0 ? fd : -errno;
}

/* <run>/links, opened on first need: the fast paths name their entries through runfd
 * ("links/<escaped link>[/<escaped id>]"; only root writes in the run directory). */
struct claims_root {
        int runfd;
        bool create; /* make it when absent */
        int fd;      /* -1 until opened */
        int error;   /* -errno of a failed open */
};

#define CLAIMS_ROOT(run, make) ((struct claims_root){.runfd = (run), .create = (make), .fd = -1})

static int claims_root_fd(struct claims_root *cr)
{
        if (cr->fd < 0 && cr->error == 0) {
                int fd = claims_root_open(cr->runfd, cr->create);
                if (fd < 0)
                        cr->error = fd;
                else
                        cr->fd = fd;
        }
        return cr->fd >= 0 ? cr->fd : cr->error;
}

static void claims_root_close(struct claims_root *cr)
{
        if (cr->fd >= 0)
                close(cr->fd);
        cr->fd = -1;
}

static int legacy_claim_to_dir(int root, const char *esc);

/* Opens <escaped link> in the claims root (<run>/links, an fd, or its -errno when it could not
 * be opened); -ENOENT when absent and not create. *ret_created (may be NULL) tells whether it
 * was made now, i.e. is empty. */
static int claims_dir_open(int root, const char *link, bool create, bool *ret_created)
{
        _cleanup_free_ char *esc = NULL;
        int r, fd;

        if (root < 0)
                return root; /* the claims root could not be opened (-ENOENT: no claims at all) */
        r = escape_name(link, &esc);
        if (r < 0)
                return r;
        if (ret_created)
                *ret_created = false;
        fd = openat(root, esc, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && create && (errno == ENOTDIR || errno == ELOOP)) {
                /* an earlier devman's single claim */
                r = legacy_claim_to_dir(root, esc);
                if (r < 0)
                        return r;
                fd = openat(root, esc, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd >= 0 || errno != ENOENT || !create)
                return fd >= 0 ? fd : -errno;
        bool made = mkdirat(root, esc, 0755) >= 0;
        if (!made && errno != EEXIST)
                return -errno;
        fd = openat(root, esc, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && ret_created)
                *ret_created = made;
        return fd >= 0 ? fd : -errno;
}

static int claim_parse(char *record, struct claim *c)
{
        char *f[5], *p = record;

        for (int i = 0; i < 5; i++) {
                f[i] = p;
                char *nl = strchr(p, '\n');
                if (i < 4) {
                        if (!nl)
                                return -EBADMSG;
                        *nl = 0;
                        p = nl + 1;
                } else if (nl)
                        return -EBADMSG;
        }

        /* the priority may be negative (OPTIONS+="link_priority=-10") */
        int64_t prio;
        uint64_t seq;
        if (strfmt_parse_int(f[0], INT_MIN, INT_MAX, &prio) < 0 || strfmt_parse_uint(f[1], 10, UINT64_MAX, &seq) < 0)
                return -EBADMSG;
        if (!devdir_name_valid(f[2]) || !device_id_valid(f[3]) || !devdir_name_valid(f[4]))
                return -EBADMSG;

        *c = (struct claim){
                .priority = (int)prio,
                .seq = seq,
                .devname = f[2],
                .device_id = f[3],
                .link = f[4],
                .record = record,
        };
        return 0;
}

/* Reads the claim stored as entry in dirfd. -ENOENT when absent, -EBADMSG when unreadable. */
static int claim_read(int dirfd, const char *entry, struct claim *ret)
{
        char *record = NULL;
        int r;

        r = devdir_readlink(dirfd, entry, &record);
        if (r == -EINVAL)
                return -EBADMSG; /* not a symlink */
        if (r < 0)
                return r;
        r = claim_parse(record, ret);
        if (r < 0)
                free(record);
        return r;
}

/* Moves a claim that an earlier devman left as one symlink directly in the claims root,
 * root/esc, into a directory of that name (the one form, links.h): the directory is made aside
 * and exchanged with the symlink, so that a reader (or a crash) sees one or the other. A symlink
 * that is no record is dropped. 0 also when there is nothing to move (a directory, or nothing at
 * all), -errno. */
static int legacy_claim_to_dir(int root, const char *esc)
{
        _cleanup_free_ char *record = NULL, *copy = NULL, *entry = NULL;
        _cleanup_close_ int fd = -1;
        char tmp[DEVDIR_TMP_SIZE];
        struct claim c;
        int r;

        r = devdir_readlink(root, esc, &record);
        if (r == -EINVAL || r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (!(copy = strdup(record)))
                return -ENOMEM;
        if (claim_parse(copy, &c) < 0)
                return unlinkat(root, esc, 0) < 0 && errno != ENOENT ? -errno : 0;
        copy = NULL; /* c.record */
        r = escape_name(c.device_id, &entry);
        claim_clear(&c);
        if (r < 0)
                return r;

        for (int attempt = 0;; attempt++) {
                devdir_tmp_name(tmp);
                if (mkdirat(root, tmp, 0755) == 0)
                        break;
                if (errno != EEXIST || attempt >= 8)
                        return -errno;
        }
        fd = openat(root, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || symlinkat(record, fd, entry) < 0) {
                r = -errno;
                goto fail;
        }
        if (renameat2(root, tmp, root, esc, RENAME_EXCHANGE) == 0) {
                (void)unlinkat(root, tmp, 0); /* the symlink, now under the temporary name */
                return 0;
        }
        if (errno != EINVAL && errno != ENOSYS) {
                r = -errno;
                goto fail;
        }
        /* no exchange on this file system: in two steps, the claim briefly absent */
        if ((unlinkat(root, esc, 0) < 0 && errno != ENOENT) || renameat(root, tmp, root, esc) < 0) {
                r = -errno;
                goto fail;
        }
        return 0;

fail:
        if (fd >= 0)
                (void)unlinkat(fd, entry, 0);
        (void)unlinkat(root, tmp, AT_REMOVEDIR);
        return r;
}

/* Whether a claim directory read from its start (a fresh fd) holds an entry that is neither a
 * temporary nor the one called exclude (may be NULL), in one getdents64() call in the common
 * case: a reply that left room for one more entry of the longest name is the whole directory.
 * 1, 0 or -errno. */
static int claims_dir_has_others(int dirfd, const char *exclude)
{
        char buf[2048] __attribute__((aligned(8)));
        const long longest = (long)(offsetof(struct dirent64, d_name) + NAME_MAX + 1 + 7);

        for (;;) {
                long got = syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
                if (got < 0)
                        return -errno;
                for (long off = 0; off < got;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        if (de->d_name[0] != '.' && !streq_ptr(de->d_name, exclude))
                                return 1;
                }
                if (got == 0 || got <= (long)sizeof(buf) - longest)
                        return 0;
        }
}

/* Lists the entries of a directory fd (not "." / ".." / temporaries; with temporaries, only
 * those) as a NULL-terminated array of new strings. Reads dirfd itself from its start (no
 * second fd, no stdio stream). */
static int list_dir(int dirfd, bool temporaries, char ***ret)
{
        _cleanup_strv_builder_ struct strv_builder names = {0}; /* one entry per link in the system */
        _cleanup_free_ char *buf = NULL;
        const size_t buf_size = 8192;

        if (!(buf = malloc(buf_size)))
                return -ENOMEM;
        if (lseek(dirfd, 0, SEEK_SET) < 0)
                return -errno;
        for (;;) {
                long got = syscall(SYS_getdents64, dirfd, buf, buf_size);
                if (got < 0)
                        return -errno;
                if (got == 0)
                        break;
                for (long off = 0; off < got;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        /* ".", "..", temporaries; escaped names never start with '.' */
                        if (temporaries ? !startswith(de->d_name, DEVDIR_TMP_PREFIX) : de->d_name[0] == '.')
                                continue;
                        if (strv_builder_push_copy(&names, de->d_name) < 0)
                                return -ENOMEM;
                }
        }
        char **v = strv_builder_take(&names);
        if (!v)
                return -ENOMEM;
        *ret = v;
        return 0;
}

/* Better claim first: higher priority, then newer, then (for determinism) the larger id. */
static bool claim_better(const struct claim *a, const struct claim *b)
{
        if (a->priority != b->priority)
                return a->priority > b->priority;
        if (a->seq != b->seq)
                return a->seq > b->seq;
        return strcmp(a->device_id, b->device_id) > 0;
}

/* The best claim on link, and the highest sequence number used. Returns 1 with *best filled,
 * 0 when there is no valid claim. Unreadable or foreign (hash collision) records are ignored,
 * and so is the entry called exclude (may be NULL). */
static int claims_best(int dirfd, const char *link, const char *exclude, struct claim *best, uint64_t *ret_max_seq)
{
        _cleanup_strv_free_ char **entries = NULL;
        uint64_t max_seq = 0;
        bool found = false;
        int r;

        r = list_dir(dirfd, false, &entries);
        if (r < 0)
                return r;

        for (char **e = entries; *e; e++) {
                struct claim c;
                if (claim_read(dirfd, *e, &c) < 0)
                        continue;
                if (!streq(c.link, link) || streq_ptr(*e, exclude)) {
                        claim_clear(&c);
                        continue;
                }
                if (c.seq > max_seq)
                        max_seq = c.seq;
                if (!found || claim_better(&c, best)) {
                        if (found)
                                claim_clear(best);
                        *best = c;
                        found = true;
                } else
                        claim_clear(&c);
        }
        if (ret_max_seq)
                *ret_max_seq = max_seq;
        return found;
}

/* Removes the /dev entry of link if it is a symlink, and its emptied parents. */
static int dev_link_remove(int devfd, struct devdir_cache *devdirs, const char *link)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        struct stat st;
        int r;

        r = devdir_lookup_parent(devfd, devdirs, link, &dir);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        r = devdir_leaf_stat(devfd, devdirs, link, &dir, &st);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (!S_ISLNK(st.st_mode))
                return 0; /* not ours: a node or file that took the name */
        if (unlinkat(dir.fd, dir.leaf, 0) < 0 && errno != ENOENT)
                return -errno;
        devdir_parent_done(&dir);
        devdir_prune_parents(devfd, devdirs, link);
        return 0;
}

static int link_apply(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, const char *link,
                      bool have_dir, struct claim *best);

/* Makes /dev/<link> match the claims in its claim directory cdir (an fd, or -ENOENT). */
static int link_resolve_at(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, int cdir,
                           const char *link)
{
        struct claim best = {0};
        int r;

        if (cdir < 0 && cdir != -ENOENT)
                return cdir;
        r = cdir >= 0 ? claims_best(cdir, link, NULL, &best, NULL) : 0;
        if (r < 0)
                return r;
        return link_apply(devfd, devdirs, cr, link, cdir >= 0, r > 0 ? &best : NULL);
}

/* The best claim on link (root: the claims root's fd, or the -errno of opening it). 1 with
 * *best filled, 0 when there is none; *ret_marked tells whether the link has a claim directory
 * (even an empty one). */
static int claims_owner(int root, const char *link, struct claim *best, bool *ret_marked)
{
        *ret_marked = false;
        if (root < 0)
                return root == -ENOENT ? 0 : root;
        _cleanup_close_ int cdir = claims_dir_open(root, link, false, NULL);
        if (cdir == -ENOENT)
                return 0;
        if (cdir < 0)
                return cdir;
        *ret_marked = true;
        return claims_best(cdir, link, NULL, best, NULL);
}

/* Makes /dev/<link> match its claims; with had_claims, the caller just dropped one, so without
 * claims the link goes even when nothing in the claims root marks it. */
static int link_resolve(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, const char *link,
                        bool had_claims)
{
        struct claim best;
        bool marked;
        int r = claims_owner(claims_root_fd(cr), link, &best, &marked);
        if (r < 0)
                return r;
        return link_apply(devfd, devdirs, cr, link, marked || had_claims, r > 0 ? &best : NULL);
}

/* Makes /dev/<link> point to the owner best (cleared here), or removes it when best is NULL;
 * have_dir tells whether the link's claim directory exists. */
static int link_apply(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, const char *link,
                      bool have_dir, struct claim *best)
{
        int r;

        if (!best) {
                /* No claim directory: nothing of ours was ever there (a /dev link is removed
                 * before its claim directory, so a crash cannot leave an unclaimed link). */
                if (!have_dir)
                        return 0;
                r = dev_link_remove(devfd, devdirs, link);
                if (r < 0)
                        return r;
                _cleanup_free_ char *esc = NULL;
                int root = claims_root_fd(cr);
                /* Fails harmlessly when a record or a temporary is still there. */
                if (root >= 0 && escape_name(link, &esc) >= 0)
                        (void)unlinkat(root, esc, AT_REMOVEDIR);
                return 0;
        }

        _cleanup_free_ char *target = NULL;

        if (streq(best->devname, link)) {
                claim_clear(best);
                return -EEXIST; /* a link onto its own node */
        }
        r = devdir_relative_target(link, best->devname, &target);
        claim_clear(best);
        if (r < 0)
                return r;
        r = devdir_symlink_put(devfd, devdirs, link, target);
        return r < 0 ? r : 0;
}

/* The common case of a link nobody claims: its claim directory <run>/links/<escaped link>
 * (dir), made now, gets the new claim as its only entry, written in place (no temporary,
 * nothing to compare). 1 when written, 0 when the link has a claim directory already (the
 * caller takes the general path), -errno. */
static int claim_write_fresh(int runfd, const char *dir, const char *entry, const char *record)
{
        _cleanup_free_ char *path = path_join(dir, entry);

        if (!path)
                return -ENOMEM;
        if (mkdirat(runfd, dir, 0755) < 0) {
                if (errno != ENOENT)
                        return errno == EEXIST ? 0 : -errno;
                /* the first claim of all: the claims root is missing */
                if (mkdirat(runfd, CLAIMS_DIR, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (mkdirat(runfd, dir, 0755) < 0)
                        return errno == EEXIST ? 0 : -errno;
        }
        if (symlinkat(record, runfd, path) < 0) {
                int r = -errno;
                (void)unlinkat(runfd, dir, AT_REMOVEDIR);
                return r;
        }
        return 1;
}

static int claim_record(int priority, uint64_t seq, const char *devname, const char *device_id, const char *link,
                        char **ret)
{
        char p[STRFMT_UINT_MAX], s[STRFMT_UINT_MAX];
        *ret = strfmt_concat(strfmt_int(p, priority), "\n", strfmt_uint(s, seq), "\n", devname, "\n", device_id, "\n",
                             link, NULL);
        return *ret ? 0 : -ENOMEM;
}

/* Writes device_id's claim on link (an unchanged claim keeps its sequence number, so its place
 * among equals). Returns 1 with the link's owner now (the best of its claims) in *ret_owner,
 * which the caller clears; 0 when the link has no valid claim (not even this one: gone
 * meanwhile), -errno. */
static int claim_write(struct claims_root *cr, const char *link, const char *device_id, const char *devname,
                       int priority, struct claim *ret_owner)
{
        _cleanup_close_ int cdir = -1;
        _cleanup_free_ char *esc = NULL, *entry = NULL, *dir = NULL, *record = NULL;
        struct claim mine = {0}, best = {0};
        uint64_t max_seq = 0;
        char tmp[DEVDIR_TMP_SIZE];
        bool created = false;
        int r, have_best = 0;

        if (escape_name(link, &esc) < 0 || escape_name(device_id, &entry) < 0 || !(dir = path_join(CLAIMS_DIR, esc)))
                return -ENOMEM;
        r = claim_record(priority, 1, devname, device_id, link, &record);
        if (r < 0)
                return r;
        r = claim_write_fresh(cr->runfd, dir, entry, record);
        if (r < 0)
                return r;
        if (r > 0)
                goto owner; /* the only claim: its owner */
        record = mfree(record);

        /* The directory is there: through the run directory, no claims root needed. */
        cdir = openat(cr->runfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cdir < 0) { /* gone meanwhile, or an earlier devman's single claim */
                cdir = claims_dir_open(claims_root_fd(cr), link, true, &created);
                if (cdir < 0)
                        return cdir;
        }

        /* A directory made just now holds nothing: no claim to compare with. */
        if (!created) {
                if (claim_read(cdir, entry, &mine) >= 0) {
                        bool same = mine.priority == priority && streq(mine.devname, devname) &&
                                    streq(mine.device_id, device_id) && streq(mine.link, link);
                        if (same) {
                                /* a change event: the owner is this claim when it is the only
                                 * one (cdir is fresh: read from its start) */
                                r = claims_dir_has_others(cdir, entry);
                                if (r == 0) {
                                        *ret_owner = mine;
                                        return 1;
                                }
                                claim_clear(&mine);
                                return r < 0 ? r : claims_best(cdir, link, NULL, ret_owner, NULL);
                        }
                        claim_clear(&mine);
                }
                have_best = claims_best(cdir, link, entry, &best, &max_seq);
                if (have_best < 0)
                        return have_best;
        }

        r = claim_record(priority, max_seq + 1, devname, device_id, link, &record);
        if (r < 0) {
                claim_clear(&best);
                return r;
        }

        for (int attempt = 0;; attempt++) {
                devdir_tmp_name(tmp);
                if (symlinkat(record, cdir, tmp) == 0)
                        break;
                if (errno != EEXIST || attempt >= 8) {
                        r = -errno;
                        claim_clear(&best);
                        return r;
                }
        }
        if (renameat(cdir, tmp, cdir, entry) < 0) {
                r = -errno;
                (void)unlinkat(cdir, tmp, 0);
                claim_clear(&best);
                return r;
        }

owner:;
        /* The owner: the new claim (newest) unless another one is better. */
        char *copy = strdup(record);
        if (!copy) {
                claim_clear(&best);
                return -ENOMEM;
        }
        r = claim_parse(copy, &mine);
        if (r < 0) {
                free(copy);
                claim_clear(&best);
                return r;
        }
        if (have_best > 0 && claim_better(&best, &mine)) {
                claim_clear(&mine);
                *ret_owner = best;
        } else {
                claim_clear(&best);
                *ret_owner = mine;
        }
        return 1;
}

/* Drops device_id's claim on link and fixes the link: the claim goes; when the directory then
 * holds no other claim (the common case, found without reading any), the /dev link goes, then
 * the directory (in that order: a crash never leaves an unclaimed link that links_gc() cannot
 * find); else the best remaining claim takes the link (link_resolve_at()). */
static int claim_release(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, const char *link,
                         const char *device_id)
{
        _cleanup_free_ char *esc = NULL, *entry = NULL, *dir = NULL;
        _cleanup_close_ int cdir = -1;
        int r;

        if (escape_name(link, &esc) < 0 || escape_name(device_id, &entry) < 0 || !(dir = path_join(CLAIMS_DIR, esc)))
                return -ENOMEM;
        cdir = openat(cr->runfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cdir < 0 && (errno == ENOTDIR || errno == ELOOP)) /* an earlier devman's single claim */
                cdir = claims_dir_open(claims_root_fd(cr), link, true, NULL);
        else if (cdir < 0)
                cdir = -errno;
        if (cdir < 0)
                return cdir == -ENOENT ? 0 : cdir; /* no claims: nothing of ours there */
        if (unlinkat(cdir, entry, 0) < 0 && errno != ENOENT)
                return -errno;
        r = claims_dir_has_others(cdir, NULL); /* cdir was not read yet: at its start */
        if (r < 0)
                return r;
        if (r > 0)
                return link_resolve_at(devfd, devdirs, cr, cdir, link); /* the next claimant takes it over */
        /* no claim left: the /dev link goes, whatever it points to (as link_apply() does) */
        r = dev_link_remove(devfd, devdirs, link);
        if (r < 0)
                return r; /* the directory stays, the mark of a link to settle */
        /* fails harmlessly when a temporary is still there */
        (void)unlinkat(cr->runfd, dir, AT_REMOVEDIR);
        return 0;
}

static void keep_first_error(int *ret, int r)
{
        if (r < 0 && *ret >= 0)
                *ret = r;
}

int links_update(int devfd, struct devdir_cache *devdirs, int runfd, const char *device_id,
                 const char *devname, char **old_links, char **new_links, int priority)
{
        int ret = 0, r;

        if (!device_id_valid(device_id) || !devdir_name_valid(devname))
                return -EINVAL;
        if (list_empty(old_links) && list_empty(new_links))
                return 0;
        /* opened once for all links when a slow path needs it; made only when there is a claim
         * to write */
        struct claims_root cr = CLAIMS_ROOT(runfd, !list_empty(new_links));

        for (char **l = old_links; l && *l; l++) {
                if (strv_contains(new_links, *l))
                        continue;
                if (!devdir_name_valid(*l)) {
                        keep_first_error(&ret, -EINVAL);
                        continue;
                }
                keep_first_error(&ret, claim_release(devfd, devdirs, &cr, *l, device_id));
        }

        for (char **l = new_links; l && *l; l++) {
                if (!devdir_name_valid(*l)) {
                        keep_first_error(&ret, -EINVAL);
                        continue;
                }
                struct claim owner;
                r = claim_write(&cr, *l, device_id, devname, priority, &owner);
                keep_first_error(&ret, r);
                if (r >= 0) /* also when unchanged: the link is repaired */
                        keep_first_error(&ret,
                                         link_apply(devfd, devdirs, &cr, *l, true, r > 0 ? &owner : NULL));
        }
        claims_root_close(&cr);
        return ret;
}

/* Calls fn for every claim directory: its fd, the link name (from a record, or unescaped from
 * the directory name; NULL when unknown) and the entries. An earlier devman's single claim is
 * moved into its directory first. */
typedef int (*claims_dir_fn)(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, int cdir,
                             const char *link, char **entries, void *userdata);

static int claims_foreach_dir(int devfd, struct devdir_cache *devdirs, int runfd, claims_dir_fn fn,
                              void *userdata)
{
        _cleanup_strv_free_ char **names = NULL;
        struct claims_root cr = CLAIMS_ROOT(runfd, false);
        int ret = 0, r;

        int root = claims_root_fd(&cr);
        if (root == -ENOENT)
                return 0;
        if (root < 0)
                return root;
        r = list_dir(root, false, &names);
        if (r < 0) {
                claims_root_close(&cr);
                return r;
        }

        for (char **d = names; *d; d++) {
                _cleanup_close_ int cdir = openat(root, *d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                _cleanup_strv_free_ char **entries = NULL;
                _cleanup_free_ char *link = NULL;

                if (cdir < 0 && (errno == ENOTDIR || errno == ELOOP)) {
                        r = legacy_claim_to_dir(root, *d);
                        if (r < 0) {
                                keep_first_error(&ret, r);
                                continue;
                        }
                        cdir = openat(root, *d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                }
                if (cdir < 0)
                        continue; /* vanished, or not ours (not a symlink) */
                r = list_dir(cdir, false, &entries);
                if (r < 0) {
                        keep_first_error(&ret, r);
                        continue;
                }
                for (char **e = entries; *e && !link; e++) {
                        struct claim c;
                        if (claim_read(cdir, *e, &c) >= 0) {
                                /* The directory name proves the record belongs here (or a hash clash). */
                                _cleanup_free_ char *esc = NULL;
                                if (escape_name(c.link, &esc) >= 0 && streq(esc, *d))
                                        link = strdup(c.link);
                                claim_clear(&c);
                        }
                }
                if (!link && (unescape_name(*d, &link) < 0 || !devdir_name_valid(link)))
                        link = mfree(link);

                r = fn(devfd, devdirs, &cr, cdir, link, entries, userdata);
                if (r < 0)
                        keep_first_error(&ret, r);
                else if (ret >= 0)
                        ret += r;

                if (!link) {
                        /* Unknown link and nothing valid left: drop the leftovers. */
                        (void)unlinkat(root, *d, AT_REMOVEDIR);
                }
        }
        claims_root_close(&cr);
        return ret;
}

struct remove_ctx {
        const char *device_id;
};

static int remove_one_dir(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, int cdir,
                          const char *link, char **entries, void *userdata)
{
        struct remove_ctx *ctx = userdata;
        int hits = 0;

        for (char **e = entries; *e; e++) {
                struct claim c;
                if (claim_read(cdir, *e, &c) < 0)
                        continue;
                bool mine = streq(c.device_id, ctx->device_id);
                claim_clear(&c);
                if (mine && unlinkat(cdir, *e, 0) == 0)
                        hits++;
        }
        if (hits && link)
                return link_resolve(devfd, devdirs, cr, link, false);
        return 0;
}

int links_remove_all(int devfd, struct devdir_cache *devdirs, int runfd, const char *device_id, char **links)
{
        int ret = 0, r;

        if (!device_id_valid(device_id))
                return -EINVAL;

        if (!links) {
                struct remove_ctx ctx = {.device_id = device_id};
                r = claims_foreach_dir(devfd, devdirs, runfd, remove_one_dir, &ctx);
                return r < 0 ? r : 0;
        }

        if (list_empty(links))
                return 0;
        struct claims_root cr = CLAIMS_ROOT(runfd, false);
        for (char **l = links; *l; l++) {
                if (!devdir_name_valid(*l)) {
                        keep_first_error(&ret, -EINVAL);
                        continue;
                }
                keep_first_error(&ret, claim_release(devfd, devdirs, &cr, *l, device_id));
        }
        claims_root_close(&cr);
        return ret;
}

struct gc_ctx {
        bool (*is_live)(const char *device_id, void *userdata);
        void *userdata;
};

static int gc_one_dir(int devfd, struct devdir_cache *devdirs, struct claims_root *cr, int cdir,
                      const char *link, char **entries, void *userdata)
{
        struct gc_ctx *ctx = userdata;
        int dropped = 0, r;

        for (char **e = entries; *e; e++) {
                struct claim c;
                bool drop;

                r = claim_read(cdir, *e, &c);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        drop = true; /* garbage: a record we cannot read helps nobody */
                else {
                        _cleanup_free_ char *esc = NULL;
                        /* A record must sit under its own names, or it is foreign garbage. */
                        drop = !link || !streq(c.link, link) || escape_name(c.device_id, &esc) < 0 ||
                               !streq(esc, *e) || !ctx->is_live(c.device_id, ctx->userdata);
                        claim_clear(&c);
                }
                if (drop && unlinkat(cdir, *e, 0) == 0)
                        dropped++;
        }
        if (link) {
                r = link_resolve(devfd, devdirs, cr, link, false);
                if (r < 0)
                        return r;
        }
        return dropped;
}

/* A crash's leftovers in the claims root, temporaries of legacy_claim_to_dir() and of an
 * earlier devman: a directory being made (the claim it was for is still in place) and a claim
 * renamed away, released or exchanged for its directory; the link of such a claim is settled
 * now (by its claims, if any are left). */
static int claims_sweep_temporaries(int devfd, int runfd)
{
        _cleanup_strv_free_ char **names = NULL;
        struct claims_root cr = CLAIMS_ROOT(runfd, false);
        int ret = 0;

        int root = claims_root_fd(&cr);
        if (root < 0)
                return root == -ENOENT ? 0 : root;
        ret = list_dir(root, true, &names);
        for (char **n = names; ret >= 0 && *n; n++) {
                _cleanup_close_ int fd = openat(root, *n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0) {
                        _cleanup_strv_free_ char **entries = NULL;
                        if (list_dir(fd, false, &entries) >= 0)
                                for (char **e = entries; *e; e++)
                                        (void)unlinkat(fd, *e, 0);
                        (void)unlinkat(root, *n, AT_REMOVEDIR);
                        continue;
                }
                struct claim c;
                int r = claim_read(root, *n, &c);
                (void)unlinkat(root, *n, 0);
                if (r >= 0) {
                        if (devdir_name_valid(c.link))
                                keep_first_error(&ret, link_resolve(devfd, NULL, &cr, c.link, true));
                        claim_clear(&c);
                }
        }
        claims_root_close(&cr);
        return ret < 0 ? ret : 0;
}

int links_gc(int devfd, int runfd, bool (*is_live)(const char *device_id, void *userdata), void *userdata)
{
        struct gc_ctx ctx = {.is_live = is_live, .userdata = userdata};

        if (!is_live)
                return -EINVAL;
        int r = claims_sweep_temporaries(devfd, runfd);
        if (r < 0)
                return r;
        return claims_foreach_dir(devfd, NULL, runfd, gc_one_dir, &ctx);
}

int links_get_owner(int runfd, const char *link, char **ret_device_id, char **ret_devname)
{
        struct claim best = {0};
        bool marked;

        if (!devdir_name_valid(link))
                return -EINVAL;
        _cleanup_close_ int root = claims_root_open(runfd, false);
        int r = claims_owner(root, link, &best, &marked);
        if (r <= 0)
                return r;

        _cleanup_free_ char *id = ret_device_id ? strdup(best.device_id) : NULL;
        _cleanup_free_ char *dn = ret_devname ? strdup(best.devname) : NULL;
        claim_clear(&best);
        if ((ret_device_id && !id) || (ret_devname && !dn))
                return -ENOMEM;
        if (ret_device_id)
                *ret_device_id = TAKE_PTR(id);
        if (ret_devname)
                *ret_devname = TAKE_PTR(dn);
        return 1;
}
