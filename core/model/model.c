/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs-util.h"
#include "hashmap.h"
#include "log.h"
#include "strfmt.h"
#include "strv.h"
#include "sysdir-cache.h"
#include "sysfs-enum.h"
#include "sysfs.h"

struct subsys_list {
        char *name;
        struct device *first;
        size_t n;
};

struct model {
        char *root;      /* the sysfs root as given, without trailing '/' */
        char *root_real; /* its canonical path, to turn resolved links back into devpaths */
        char *dev_root;
        struct hashmap *by_devpath;   /* devpath -> device */
        struct hashmap *by_char;      /* devnum -> device */
        struct hashmap *by_block;     /* devnum -> device */
        struct hashmap *by_subsystem; /* name -> struct subsys_list */
        struct hashmap *is_class;     /* subsystem name (owned) -> (void *)1 class, (void *)2 bus */
        struct hashmap *glue;         /* devpaths (owned) of directories known not to be devices */
        struct sysdir_cache *dirs;    /* fds of parent directories, for device_sysfd() */
        bool live;                    /* the kernel's own sysfs (model_set_live) */
};

int model_new(const char *sysfs_root, struct model **ret)
{
        _cleanup_(model_freep) struct model *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->root = strdup(sysfs_root);
        m->dev_root = strdup("/dev");
        m->by_devpath = hashmap_new_string();
        m->by_char = hashmap_new_uint();
        m->by_block = hashmap_new_uint();
        m->by_subsystem = hashmap_new_string();
        m->is_class = hashmap_new_string();
        m->glue = hashmap_new_string();
        if (!m->root || !m->dev_root || !m->by_devpath || !m->by_char || !m->by_block || !m->by_subsystem ||
            !m->is_class || !m->glue)
                return -ENOMEM;
        size_t l = strlen(m->root);
        while (l > 1 && m->root[l - 1] == '/')
                m->root[--l] = '\0';
        m->root_real = realpath(m->root, NULL);
        if (!m->root_real)
                return negative_errno();
        m->dirs = sysdir_cache_new(m->root);
        if (!m->dirs)
                return -ENOMEM;
        *ret = TAKE_PTR(m);
        return 0;
}

static void unindex_all(struct model *m);

struct model *model_free(struct model *m)
{
        if (!m)
                return NULL;
        unindex_all(m);
        hashmap_free(m->by_devpath);
        hashmap_free(m->by_char);
        hashmap_free(m->by_block);
        hashmap_free(m->by_subsystem);
        struct hashmap *owned_keys[] = {m->is_class, m->glue};
        for (size_t i = 0; i < ELEMENTSOF(owned_keys); i++) {
                struct hashmap_iter it = HASHMAP_ITER_INIT;
                const void *k;
                while (hashmap_iterate(owned_keys[i], &it, &k, NULL))
                        free((void *)k);
                hashmap_free(owned_keys[i]);
        }
        sysdir_cache_free(m->dirs);
        free(m->root);
        free(m->root_real);
        free(m->dev_root);
        free(m);
        return NULL;
}

int model_open_sysdir(struct model *m, const char *devpath)
{
        return sysdir_cache_open(m->dirs, devpath);
}

const char *model_sysfs_root(const struct model *m)
{
        return m->root;
}

void model_set_live(struct model *m, bool live)
{
        m->live = live;
}

bool model_is_live(const struct model *m)
{
        return m->live;
}

int model_set_dev_root(struct model *m, const char *dev_root)
{
        char *s = strdup(dev_root);
        if (!s)
                return -ENOMEM;
        size_t l = strlen(s);
        while (l > 1 && s[l - 1] == '/')
                s[--l] = '\0';
        free(m->dev_root);
        m->dev_root = s;
        return 0;
}

const char *model_dev_root(const struct model *m)
{
        return m->dev_root;
}

size_t model_size(const struct model *m)
{
        return hashmap_size(m->by_devpath);
}

struct device *model_get(const struct model *m, const char *devpath)
{
        return hashmap_get(m->by_devpath, devpath);
}

struct device *model_get_by_devnum(const struct model *m, char type, dev_t devnum)
{
        return hashmap_get(type == 'b' ? m->by_block : m->by_char, (const void *)(uintptr_t)devnum);
}

struct device *model_first_of_subsystem(const struct model *m, const char *subsystem)
{
        struct subsys_list *l = hashmap_get(m->by_subsystem, subsystem);
        return l ? l->first : NULL;
}

int model_compact(struct model *m)
{
        struct hashmap *maps[] = {m->by_devpath, m->by_char, m->by_block, m->by_subsystem, m->is_class, m->glue};
        int r = 0;
        for (size_t i = 0; i < ELEMENTSOF(maps); i++)
                if (hashmap_compact(maps[i]) < 0)
                        r = -ENOMEM;
        return r;
}

bool model_iterate(const struct model *m, size_t *it, struct device **ret)
{
        struct hashmap_iter hi = {.pos = *it};
        void *v;
        if (!hashmap_iterate(m->by_devpath, &hi, NULL, &v))
                return false;
        *it = hi.pos;
        *ret = v;
        return true;
}

int model_subsystems(const struct model *m, char ***ret)
{
        _cleanup_strv_builder_ struct strv_builder l = {0};
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        const void *k;
        while (hashmap_iterate(m->by_subsystem, &it, &k, NULL))
                if (strv_builder_push_copy(&l, k) < 0)
                        return -ENOMEM;
        strv_sort(l.v);
        char **v = strv_builder_take(&l);
        if (!v)
                return -ENOMEM;
        *ret = v;
        return 0;
}

/* ---- indices ---------------------------------------------------------------------------- */

static struct hashmap *devnum_map(const struct model *m, const struct device *d)
{
        return d->devnum_type == 'b' ? m->by_block : m->by_char;
}

static void unindex_devnum(struct model *m, struct device *d)
{
        if (!d->devnum_type)
                return;
        struct hashmap *h = devnum_map(m, d);
        if (hashmap_get(h, (const void *)(uintptr_t)d->devnum) == d)
                hashmap_remove(h, (const void *)(uintptr_t)d->devnum);
}

static int index_devnum(struct model *m, struct device *d)
{
        if (!d->devnum_type)
                return 0;
        void *old = NULL;
        int r = hashmap_replace(devnum_map(m, d), (const void *)(uintptr_t)d->devnum, d, &old);
        if (r >= 0 && old && old != d)
                log_debug("%s takes devt %c%u:%u from %s", d->devpath, d->devnum_type, major(d->devnum),
                          minor(d->devnum), ((struct device *)old)->devpath);
        return r;
}

static void unindex_subsystem(struct model *m, struct device *d)
{
        if (!d->subsystem)
                return;
        struct subsys_list *l = hashmap_get(m->by_subsystem, d->subsystem);
        if (!l)
                return;
        if (d->subsys_prev)
                d->subsys_prev->subsys_next = d->subsys_next;
        else if (l->first == d)
                l->first = d->subsys_next;
        else
                return; /* not linked */
        if (d->subsys_next)
                d->subsys_next->subsys_prev = d->subsys_prev;
        d->subsys_next = d->subsys_prev = NULL;
        if (--l->n == 0) {
                hashmap_remove(m->by_subsystem, l->name);
                free(l->name);
                free(l);
        }
}

static int index_subsystem(struct model *m, struct device *d)
{
        if (!d->subsystem)
                return 0;
        struct subsys_list *l = hashmap_get(m->by_subsystem, d->subsystem);
        if (!l) {
                l = calloc(1, sizeof(*l));
                if (!l || !(l->name = strdup(d->subsystem))) {
                        free(l);
                        return -ENOMEM;
                }
                int r = hashmap_put(m->by_subsystem, l->name, l);
                if (r < 0) {
                        free(l->name);
                        free(l);
                        return r;
                }
        }
        d->subsys_prev = NULL;
        d->subsys_next = l->first;
        if (l->first)
                l->first->subsys_prev = d;
        l->first = d;
        l->n++;
        return 0;
}

static void unlink_child(struct device *d)
{
        struct device *p = d->parent;
        if (!p)
                return;
        if (d->prev_sibling)
                d->prev_sibling->next_sibling = d->next_sibling;
        else if (p->first_child == d)
                p->first_child = d->next_sibling;
        if (d->next_sibling)
                d->next_sibling->prev_sibling = d->prev_sibling;
        d->next_sibling = d->prev_sibling = NULL;
}

static void set_parent(struct device *d, struct device *parent)
{
        if (d->parent == parent)
                return;
        unlink_child(d);
        device_unref(d->parent);
        d->parent = device_ref(parent);
        if (parent) {
                d->next_sibling = parent->first_child;
                if (parent->first_child)
                        parent->first_child->prev_sibling = d;
                parent->first_child = d;
        }
}

/* Drops one device (not its children) from every index and releases the model's reference. */
static void unindex_one(struct model *m, struct device *d)
{
        if (hashmap_get(m->by_devpath, d->devpath) == d)
                hashmap_remove(m->by_devpath, d->devpath);
        unindex_devnum(m, d);
        unindex_subsystem(m, d);
        unlink_child(d);
        d->model = NULL;
        d->sysdirs = NULL;
        device_unref(d);
}

void model_remove(struct model *m, struct device *d)
{
        /* children first, so that each child's reference on its parent goes before the parent */
        while (d->first_child)
                model_remove(m, d->first_child);
        if (d->model == m)
                unindex_one(m, d);
}

static void unindex_all(struct model *m)
{
        /* Collect first: the map must not change while iterating. */
        size_t n = hashmap_size(m->by_devpath), i = 0;
        struct device **all = calloc(n + 1, sizeof(*all));
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        void *v;
        if (!all)
                return; /* leak on ENOMEM at exit rather than crash */
        while (hashmap_iterate(m->by_devpath, &it, NULL, &v))
                all[i++] = device_ref(v);
        for (i = 0; i < n; i++) {
                if (all[i]->model == m)
                        model_remove(m, all[i]);
                device_unref(all[i]);
        }
        free(all);
}

/* ---- reading sysfs -------------------------------------------------------------------- */

/* Turns a path (a devpath, a /sys/... path, or one through class symlinks) into the canonical
 * devpath of an existing sysfs directory. */
static int canonicalize(const struct model *m, const char *path, char **ret)
{
        const char *rel = path;
        const char *s;

        if ((s = startswith(path, m->root)) && (*s == '/' || *s == '\0'))
                rel = s;
        else if ((s = startswith(path, m->root_real)) && (*s == '/' || *s == '\0'))
                rel = s;
        else if ((s = startswith(path, "/sys/")))
                rel = s - 1; /* a /sys path names the same device in a fixture tree */

        _cleanup_free_ char *full = path_join(m->root_real, rel);
        if (!full)
                return -ENOMEM;
        _cleanup_free_ char *real = realpath(full, NULL);
        if (!real)
                return negative_errno();
        const char *devpath = startswith(real, m->root_real);
        if (!devpath || devpath[0] != '/' || devpath[1] == '\0')
                return -ENODEV; /* resolved outside the sysfs tree, or the root itself */
        char *d = strdup(devpath);
        if (!d)
                return -ENOMEM;
        *ret = d;
        return 0;
}

static bool has_uevent(const char *syspath)
{
        _cleanup_free_ char *p = path_join(syspath, "uevent");
        return p && access(p, F_OK) == 0;
}

/* The devpath of the parent device, or NULL for a top-level one. */
static int find_parent_devpath(const struct model *m, const char *devpath, char **ret)
{
        _cleanup_free_ char *syspath = path_join(m->root_real, devpath);
        if (!syspath)
                return -ENOMEM;
        *ret = NULL;

        /* Legacy top-level entries, "/class/<c>/<n>" and "/block/<disk>", name their physical
         * parent with a `device` link; nested ones ("/class/input/input0/event0",
         * "/block/sda/sda1") are children of the entry that contains them. */
        bool legacy_top = false;
        if (strncmp(devpath, "/class/", 7) == 0) {
                const char *slash = strchr(devpath + 7, '/');
                legacy_top = slash && !strchr(slash + 1, '/');
        } else if (strncmp(devpath, "/block/", 7) == 0)
                legacy_top = !strchr(devpath + 7, '/');

        if (legacy_top) {
                /* legacy layout: the physical parent is the target of the `device` link */
                _cleanup_free_ char *link = path_join(syspath, "device");
                if (!link)
                        return -ENOMEM;
                int r = canonicalize(m, link, ret);
                if (r == -ENOENT || r == -ENODEV) {
                        *ret = NULL;
                        return 0;
                }
                return r;
        }
        if (!startswith(devpath, "/devices/") && !startswith(devpath, "/block/") && !startswith(devpath, "/class/"))
                return 0; /* /bus, /module, …: no parent */

        /* unified layout: the nearest ancestor directory that is a device (glue dirs like
         * "usb_device" or "net" are not) */
        char *end = strrchr(syspath, '/');
        size_t rootlen = strlen(m->root_real);
        while (end && (size_t)(end - syspath) > rootlen) {
                *end = '\0';
                const char *rel = syspath + rootlen;
                if (!streq(rel, "/devices") && !streq(rel, "/block") && has_uevent(syspath)) {
                        char *p = strdup(rel);
                        if (!p)
                                return -ENOMEM;
                        *ret = p;
                        return 0;
                }
                end = strrchr(syspath, '/');
        }
        return 0;
}

static const char *derive_subsystem(const char *devpath)
{
        /* for records whose sysfs dir has no `subsystem` link */
        if (startswith(devpath, "/block/"))
                return "block";
        if (startswith(devpath, "/module/"))
                return "module";
        if (startswith(devpath, "/bus/")) {
                const char *rest = devpath + strlen("/bus/");
                const char *slash = strchr(rest, '/');
                if (!slash)
                        return "subsystem";
                if (startswith(slash, "/drivers/"))
                        return "drivers";
        }
        return NULL;
}

static int class_from_legacy_path(const char *devpath, char **ret)
{
        const char *c = startswith(devpath, "/class/");
        const char *slash = c ? strchr(c, '/') : NULL;
        if (!slash)
                return -EINVAL;
        *ret = strndup(c, (size_t)(slash - c));
        return *ret ? 0 : -ENOMEM;
}

int model_class_entry_layout(const struct model *m, const char *subsystem, const char *sysname)
{
        struct stat st;
        _cleanup_free_ char *p = NULL;

        if (asprintf(&p, "%s/class/%s/%s", m->root, subsystem, sysname) < 0)
                return -ENOMEM;
        if (lstat(p, &st) < 0 && streq(subsystem, "block")) {
                free(p);
                if (asprintf(&p, "%s/block/%s", m->root, sysname) < 0)
                        return -ENOMEM;
                /* partitions of a legacy /sys/block disk are nested: /sys/block/sda/sda1 */
        }
        if (lstat(p, &st) < 0)
                return -ENOENT;
        if (S_ISLNK(st.st_mode))
                return DEVICE_LAYOUT_CONVERTED;
        if (S_ISDIR(st.st_mode))
                return DEVICE_LAYOUT_LEGACY;
        return -ENOENT;
}

static enum device_layout layout_of(const struct model *m, const struct device *d, const char *syspath)
{
        if (startswith(d->devpath, "/class/") || startswith(d->devpath, "/block/"))
                return DEVICE_LAYOUT_LEGACY;
        if (!startswith(d->devpath, "/devices/"))
                return DEVICE_LAYOUT_OTHER;
        /* a class device: its subsystem link points into /sys/class (or /sys/block) */
        _cleanup_free_ char *link = path_join(syspath, "subsystem");
        _cleanup_free_ char *target = link ? realpath(link, NULL) : NULL;
        const char *rel = target ? startswith(target, m->root_real) : NULL;
        if (rel && (startswith(rel, "/class/") || streq(rel, "/block")))
                return DEVICE_LAYOUT_CONVERTED;
        return DEVICE_LAYOUT_BUS;
}

/* The DEVNAME property carries the absolute node path, as udev publishes it. */
static int set_devname_property(const struct model *m, struct device *d)
{
        if (!d->devname)
                return props_set(&d->props, "DEVNAME", NULL, 0);
        /* set for every event: no printf */
        _cleanup_free_ char *v = strfmt_concat(streq(m->dev_root, "/") ? "" : m->dev_root, "/", d->devname, NULL);
        if (!v)
                return -ENOMEM;
        return props_set(&d->props, "DEVNAME", v, PROP_KERNEL);
}

/* Derives the record's fields from its kernel properties (after a sysfs read or a uevent). */
static int device_fields_from_props(const struct model *m, struct device *d)
{
        const char *s;
        int r;

        s = props_get(&d->props, "SUBSYSTEM");
        if (s && !d->subsystem) {
                r = device_set_subsystem(d, s);
                if (r < 0)
                        return r;
        }
        s = props_get(&d->props, "DEVTYPE");
        r = device_set_devtype(d, s);
        if (r < 0)
                return r;
        s = props_get(&d->props, "IFINDEX");
        if (s)
                d->ifindex = atoi(s);

        s = props_get(&d->props, "DEVNAME");
        if (s) {
                /* the kernel's name is relative; ours may be absolute already (from a previous pass) */
                const char *rel = startswith(s, m->dev_root);
                if (rel && *rel == '/')
                        s = rel + 1;
                d->devname_refused = false;
        } else if (d->devnum_type && !d->devname_refused)
                s = d->sysname; /* old kernels sent no DEVNAME: the node is named after the device */
        if (s && !devname_is_safe(s)) {
                /* remembered: the refused name is dropped from the properties below, and a later
                 * pass must not take that for an old kernel's missing DEVNAME */
                log_warning("%s: refusing unsafe DEVNAME \"%s\"", d->devpath, s);
                d->devname_refused = true;
                s = NULL;
        }
        r = device_set_devname(d, s);
        if (r < 0)
                return r;
        return set_devname_property(m, d);
}

static int read_device(struct model *m, struct device *d, const char *syspath)
{
        _cleanup_free_ char *path = NULL, *subsystem = NULL, *driver = NULL, *uevent = NULL, *dev = NULL;
        struct props fresh = PROPS_INIT;
        int r;

        path = path_join(syspath, "subsystem");
        if (!path)
                return -ENOMEM;
        r = readlink_basename(path, &subsystem);
        if (r < 0) {
                if (startswith(d->devpath, "/class/")) {
                        r = class_from_legacy_path(d->devpath, &subsystem);
                        if (r < 0)
                                return r;
                } else if (derive_subsystem(d->devpath) && !(subsystem = strdup(derive_subsystem(d->devpath))))
                        return -ENOMEM;
        }
        free(path);
        path = path_join(syspath, "driver");
        if (!path)
                return -ENOMEM;
        (void)readlink_basename(path, &driver);

        free(path);
        path = path_join(syspath, "uevent");
        if (!path)
                return -ENOMEM;
        r = read_full_file(path, &uevent, NULL);
        if (r >= 0)
                r = parse_uevent_file(uevent, &fresh);
        else if (r == -EACCES)
                r = 0; /* /sys/bus/<b>/uevent and friends are write-only */
        if (r < 0)
                goto finish;

        free(path);
        path = path_join(syspath, "dev");
        if (!path) {
                r = -ENOMEM;
                goto finish;
        }
        dev_t devnum = 0;
        if (read_file_bounded(path, 64, &dev) >= 0 && parse_devnum(dev, &devnum) < 0)
                log_warning("%s: ignoring malformed dev attribute \"%s\"", d->devpath, strip_trailing_space(dev));

        /* Kernel properties are replaced; PROP_DB ones (rules' results) stay. */
        props_unset_flagged(&d->props, PROP_KERNEL);
        r = props_merge(&d->props, &fresh, PROP_KERNEL, NULL);
        if (r < 0)
                goto finish;

        if ((r = device_set_subsystem(d, subsystem)) < 0 || (r = device_set_driver(d, driver)) < 0)
                goto finish;
        d->devnum = devnum;
        d->devnum_type = devnum ? (streq_ptr(subsystem, "block") ? 'b' : 'c') : 0;
        if (devnum) {
                if ((r = props_set_uint(&d->props, "MAJOR", major(devnum), PROP_KERNEL)) < 0 ||
                    (r = props_set_uint(&d->props, "MINOR", minor(devnum), PROP_KERNEL)) < 0)
                        goto finish;
        }
        if (streq_ptr(subsystem, "net") && !props_get(&d->props, "IFINDEX")) {
                _cleanup_free_ char *ifindex = NULL;
                free(path);
                path = path_join(syspath, "ifindex");
                if (path && read_file_bounded(path, 32, &ifindex) >= 0)
                        props_set(&d->props, "IFINDEX", strip_trailing_space(ifindex), PROP_KERNEL);
        }
        if ((r = props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL)) < 0 ||
            (subsystem && (r = props_set(&d->props, "SUBSYSTEM", subsystem, PROP_KERNEL)) < 0) ||
            (driver && (r = props_set(&d->props, "DRIVER", driver, PROP_KERNEL)) < 0))
                goto finish;
        r = device_fields_from_props(m, d);
        if (r >= 0)
                d->layout = layout_of(m, d, syspath);
finish:
        props_clear(&fresh);
        return r;
}

/* Inserts a new record into the indices (the model takes over the caller's reference). */
static int index_new(struct model *m, struct device *d)
{
        int r = hashmap_put(m->by_devpath, d->devpath, d);
        if (r < 0)
                return r;
        d->model = m;
        d->sysdirs = m->dirs;
        if ((r = index_devnum(m, d)) < 0 || (r = index_subsystem(m, d)) < 0) {
                unindex_one(m, d);
                return r;
        }
        return 0;
}

/* Re-indexes a record whose subsystem or devnum may have changed. */
static int reindex(struct model *m, struct device *d, const char *old_subsystem, char old_type, dev_t old_devnum)
{
        int r = 0;
        if (!streq_ptr(old_subsystem, d->subsystem)) {
                const char *now = d->subsystem;
                d->subsystem = old_subsystem;
                unindex_subsystem(m, d);
                d->subsystem = now;
                r = index_subsystem(m, d);
        }
        if (old_type != d->devnum_type || old_devnum != d->devnum) {
                char t = d->devnum_type;
                dev_t n = d->devnum;
                d->devnum_type = old_type;
                d->devnum = old_devnum;
                unindex_devnum(m, d);
                d->devnum_type = t;
                d->devnum = n;
                int k = index_devnum(m, d);
                if (r >= 0)
                        r = k;
        }
        return r;
}

static int refresh(struct model *m, struct device *d, const char *syspath)
{
        _cleanup_free_ char *old_subsystem = d->subsystem ? strdup(d->subsystem) : NULL;
        char old_type = d->devnum_type;
        dev_t old_devnum = d->devnum;
        if (d->subsystem && !old_subsystem)
                return -ENOMEM;
        int r = read_device(m, d, syspath);
        if (r < 0)
                return r;
        return reindex(m, d, old_subsystem, old_type, old_devnum);
}

static int add_canonical(struct model *m, const char *devpath, unsigned depth, struct device **ret)
{
        _cleanup_free_ char *syspath = NULL, *parent_path = NULL;
        struct device *parent = NULL, *d;
        int r;

        if (depth > 64)
                return -ELOOP; /* legacy `device` links could form a cycle in a broken tree */
        syspath = path_join(m->root_real, devpath);
        if (!syspath)
                return -ENOMEM;
        if (!has_uevent(syspath))
                return -ENODEV;

        r = find_parent_devpath(m, devpath, &parent_path);
        if (r < 0)
                return r;
        if (parent_path) {
                parent = model_get(m, parent_path);
                if (!parent) {
                        r = add_canonical(m, parent_path, depth + 1, &parent);
                        if (r < 0 && r != -ENODEV)
                                return r;
                }
        }

        d = model_get(m, devpath);
        if (d) {
                r = refresh(m, d, syspath);
                if (r < 0)
                        return r;
                set_parent(d, parent);
        } else {
                _cleanup_device_unref_ struct device *n = NULL;
                r = device_new(devpath, &n);
                if (r < 0)
                        return r;
                r = read_device(m, n, syspath);
                if (r < 0)
                        return r;
                set_parent(n, parent);
                r = index_new(m, n);
                if (r < 0) {
                        set_parent(n, NULL);
                        return r;
                }
                d = TAKE_PTR(n);
        }
        if (ret)
                *ret = d;
        return 0;
}

int model_add_from_sysfs(struct model *m, const char *devpath, struct device **ret)
{
        _cleanup_free_ char *canonical = NULL;
        int r = canonicalize(m, devpath, &canonical);
        if (r < 0)
                return r;
        return add_canonical(m, canonical, 0, ret);
}

int model_resolve(struct model *m, const char *path, struct device **ret)
{
        struct device *d = model_get(m, path);
        if (d) {
                *ret = d;
                return 0;
        }
        _cleanup_free_ char *canonical = NULL;
        int r = canonicalize(m, path, &canonical);
        if (r < 0)
                return r;
        d = model_get(m, canonical);
        if (d) {
                *ret = d;
                return 0;
        }
        return add_canonical(m, canonical, 0, ret);
}

/* ---- enumeration ---------------------------------------------------------------------- */

int model_scan(struct model *m)
{
        _cleanup_strv_free_ char **paths = NULL;
        size_t n;
        int r = sysfs_enumerate(m->root, SYSFS_ENUM_ALL_DEVICES, &paths, &n);
        if (r < 0)
                return r;
        int added = 0;
        for (size_t i = 0; i < n; i++) {
                r = add_canonical(m, paths[i], 0, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        log_debug_errno(r, "%s: not added to the model: %m", paths[i]);
                else
                        added++;
        }
        return added;
}

/* ---- uevents -------------------------------------------------------------------------- */

/* Keys that describe the event, not the device. */
static bool event_only_key(const char *entry)
{
        /* with its '=': the whole key, and strncmp stops at a shorter entry's end */
        switch (entry[0]) {
        case 'A':
                return strncmp(entry, "ACTION=", 7) == 0;
        case 'S':
                return strncmp(entry, "SEQNUM=", 7) == 0;
        case 'D':
                return strncmp(entry, "DEVPATH_OLD=", 12) == 0;
        default:
                return false;
        }
}

static int overlay_event(struct model *m, struct device *d, const struct uevent *ev)
{
        _cleanup_free_ char *old_subsystem = d->subsystem ? strdup(d->subsystem) : NULL;
        char old_type = d->devnum_type;
        dev_t old_devnum = d->devnum;
        int r;

        if (d->subsystem && !old_subsystem)
                return -ENOMEM;
        r = props_merge(&d->props, &ev->props, PROP_KERNEL, event_only_key);
        if (r < 0)
                return r;
        if (ev->subsystem && (r = device_set_subsystem(d, ev->subsystem)) < 0)
                return r;

        const char *maj = props_get(&ev->props, "MAJOR"), *min = props_get(&ev->props, "MINOR");
        if (maj && min) {
                if (!d->devnum_type && ev->devnum) {
                        /* no sysfs `dev` (device already gone): the event is all we have */
                        d->devnum = ev->devnum;
                        d->devnum_type = streq_ptr(d->subsystem, "block") ? 'b' : 'c';
                } else if (d->devnum_type && d->devnum != ev->devnum) {
                        log_warning("%s: uevent says %s:%s, sysfs dev says %u:%u; using sysfs", d->devpath, maj, min,
                                    major(d->devnum), minor(d->devnum));
                        props_set_uint(&d->props, "MAJOR", major(d->devnum), PROP_KERNEL);
                        props_set_uint(&d->props, "MINOR", minor(d->devnum), PROP_KERNEL);
                }
        }
        if (ev->action == UEVENT_BIND || ev->action == UEVENT_UNBIND) {
                const char *drv = ev->action == UEVENT_BIND ? props_get(&ev->props, "DRIVER") : NULL;
                if ((r = device_set_driver(d, drv)) < 0)
                        return r;
                props_set(&d->props, "DRIVER", drv, PROP_KERNEL);
        }
        if ((r = device_fields_from_props(m, d)) < 0)
                return r;
        /* records made from an event alone are indexed later (or never, for a remove) */
        if (d->model != m)
                return 0;
        return reindex(m, d, old_subsystem, old_type, old_devnum);
}

/* A record made from the event alone, for a device whose sysfs directory is already gone. */
static int add_from_event(struct model *m, const struct uevent *ev, struct device **ret)
{
        _cleanup_device_unref_ struct device *d = NULL;
        int r = device_new(ev->devpath, &d);
        if (r < 0)
                return r;
        if (startswith(ev->devpath, "/class/") || startswith(ev->devpath, "/block/"))
                d->layout = DEVICE_LAYOUT_LEGACY;
        r = overlay_event(m, d, ev);
        if (r < 0)
                return r;
        props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        /* parent: the nearest ancestor path the model knows */
        _cleanup_free_ char *p = strdup(ev->devpath);
        if (!p)
                return -ENOMEM;
        for (char *s = strrchr(p, '/'); s && s > p; s = strrchr(p, '/')) {
                *s = '\0';
                struct device *parent = model_get(m, p);
                if (parent) {
                        set_parent(d, parent);
                        break;
                }
        }
        *ret = TAKE_PTR(d);
        return 0;
}

/* Renames a record and its descendants (move events). */
static int rename_subtree(struct model *m, struct device *d, const char *old_prefix, const char *new_prefix)
{
        const char *rest = startswith(d->devpath, old_prefix);
        _cleanup_free_ char *np = NULL;
        int r;

        if (!rest)
                return -EINVAL;
        if (asprintf(&np, "%s%s", new_prefix, rest) < 0)
                return -ENOMEM;
        hashmap_remove(m->by_devpath, d->devpath);
        r = device_rename(d, np);
        if (r >= 0)
                r = props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        int k = hashmap_put(m->by_devpath, d->devpath, d); /* under the new name, or the old one on failure */
        if (r < 0 || k < 0)
                return r < 0 ? r : k;
        for (struct device *c = d->first_child; c; c = c->next_sibling) {
                r = rename_subtree(m, c, old_prefix, new_prefix);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether /sys/class/<subsystem> exists (a class rather than a bus), looked up once per name. */
static bool subsystem_is_class(struct model *m, const char *subsystem)
{
        void *v = hashmap_get(m->is_class, subsystem);
        if (!v) {
                _cleanup_free_ char *p = NULL;
                struct stat st;
                p = strfmt_concat(m->root, "/class/", subsystem, NULL);
                bool is_class = p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
                char *key = strdup(subsystem);
                v = (void *)(uintptr_t)(is_class ? 1 : 2);
                if (key && hashmap_put(m->is_class, key, v) < 0)
                        free(key);
        }
        return v == (void *)(uintptr_t)1;
}

/* The parent of a /devices path: the nearest ancestor the model knows, else the nearest one
 * with a uevent file (added to the model first). Usually no system call at all. */
/* How many glue directories are remembered at most (a machine has a few dozen; hot-plugging
 * makes new ones under new devices, while those of removed devices linger). */
#define GLUE_CACHE_MAX 1024

static void glue_forget(struct model *m)
{
        size_t n = hashmap_size(m->glue), i = 0;
        _cleanup_free_ const void **keys = calloc(n ? n : 1, sizeof(*keys));
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        const void *k;
        if (!keys)
                return; /* kept: a cache too large is no error */
        while (hashmap_iterate(m->glue, &it, &k, NULL))
                keys[i++] = k;
        for (i = 0; i < n; i++) { /* collected first: removal moves entries */
                hashmap_remove(m->glue, keys[i]);
                free((void *)keys[i]);
        }
}

static int find_parent_fast(struct model *m, const char *devpath, struct device **ret)
{
        _cleanup_free_ char *p = strdup(devpath);
        if (!p)
                return -ENOMEM;
        *ret = NULL;
        for (char *s = strrchr(p, '/'); s && s > p; s = strrchr(p, '/')) {
                *s = '\0';
                if (streq(p, "/devices"))
                        return 0;
                struct device *d = model_get(m, p);
                if (d) {
                        *ret = d;
                        return 0;
                }
                /* glue directories ("block", "net", "usb_device" ...) never become devices:
                 * remember them so the next device below them costs no system call */
                if (hashmap_get(m->glue, p))
                        continue;
                _cleanup_free_ char *syspath = path_join(m->root_real, p);
                if (!syspath)
                        return -ENOMEM;
                if (has_uevent(syspath)) {
                        int r = add_canonical(m, p, 0, ret);
                        return r == -ENODEV || r == -ENOENT ? 0 : r;
                }
                if (access(syspath, F_OK) == 0) {
                        /* glue directories of removed devices are never forgotten one by one:
                         * a cache that fills up starts over */
                        if (hashmap_size(m->glue) >= GLUE_CACHE_MAX)
                                glue_forget(m);
                        char *key = strdup(p);
                        if (key && hashmap_put(m->glue, key, key) < 0)
                                free(key);
                }
        }
        return 0;
}

/* A kernel event carries the device's properties (what its uevent file would say): the record
 * is built from them without reading sysfs. Its MAJOR/MINOR are the devt the kernel also prints
 * in the `dev` attribute (both come from the device's devt), so the attribute is read only when
 * the event lacks them, or a synthetic event (trigger, resync) says a device has them. */
static int apply_from_event(struct model *m, const struct uevent *ev, struct device **ret)
{
        struct device *d = model_get(m, ev->devpath);
        _cleanup_device_unref_ struct device *fresh = NULL;
        _cleanup_free_ char *old_subsystem = NULL, *dev = NULL, *path = NULL;
        char old_type = 0;
        dev_t old_devnum = 0;
        int r;

        if (!d) {
                struct device *parent = NULL;
                r = device_new(ev->devpath, &fresh);
                if (r < 0)
                        return r;
                r = find_parent_fast(m, ev->devpath, &parent);
                if (r < 0)
                        return r;
                set_parent(fresh, parent);
                d = fresh;
        } else {
                if (d->subsystem && !(old_subsystem = strdup(d->subsystem)))
                        return -ENOMEM;
                old_type = d->devnum_type;
                old_devnum = d->devnum;
        }

        props_unset_flagged(&d->props, PROP_KERNEL);
        if ((r = props_reserve(&d->props, ev->props.len)) < 0)
                return r;
        r = props_merge(&d->props, &ev->props, PROP_KERNEL, event_only_key);
        if (r < 0)
                return r;
        if ((r = device_set_subsystem(d, ev->subsystem)) < 0 ||
            (r = device_set_driver(d, props_get(&ev->props, "DRIVER"))) < 0)
                return r;

        /* the devt: the kernel's own event says it; for a synthetic one sysfs wins, and its
         * MAJOR/MINOR count only when the device is already gone */
        const char *maj = props_get(&ev->props, "MAJOR"), *min = props_get(&ev->props, "MINOR");
        d->devnum = 0;
        d->devnum_type = 0;
        if (maj && min) {
                dev_t devnum = 0;
                bool trust_event = ev->from_kernel && m->live;
                if (!trust_event && asprintf(&path, "%s%s/dev", m->root_real, ev->devpath) < 0)
                        return -ENOMEM;
                if (!trust_event && read_file_bounded(path, 64, &dev) >= 0) {
                        if (parse_devnum(dev, &devnum) < 0)
                                log_warning("%s: ignoring malformed dev attribute \"%s\"", d->devpath,
                                            strip_trailing_space(dev));
                        else if (devnum != ev->devnum)
                                log_warning("%s: uevent says %s:%s, sysfs dev says %u:%u; using sysfs", d->devpath,
                                            maj, min, major(devnum), minor(devnum));
                } else
                        devnum = ev->devnum;
                if (devnum) {
                        d->devnum = devnum;
                        d->devnum_type = streq(ev->subsystem, "block") ? 'b' : 'c';
                        if ((r = props_set_uint(&d->props, "MAJOR", major(devnum), PROP_KERNEL)) < 0 ||
                            (r = props_set_uint(&d->props, "MINOR", minor(devnum), PROP_KERNEL)) < 0)
                                return r;
                }
        }
        if ((r = props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL)) < 0 ||
            (r = device_fields_from_props(m, d)) < 0)
                return r;
        d->layout = subsystem_is_class(m, ev->subsystem) ? DEVICE_LAYOUT_CONVERTED : DEVICE_LAYOUT_BUS;

        if (fresh) {
                r = index_new(m, d);
                if (r < 0) {
                        set_parent(d, NULL);
                        return r;
                }
                fresh = NULL; /* the model's reference now */
                /* A device the kernel adds now has no database entry: the remove of any earlier
                 * one with this path deleted it, and entries of devices gone while no daemon
                 * ran are removed at start-up (reconcile). It need not be looked for. */
                if (ev->from_kernel && ev->action == UEVENT_ADD) {
                        d->db_synced = true;
                        d->db_exists = false;
                }
        } else {
                r = reindex(m, d, old_subsystem, old_type, old_devnum);
                if (r < 0)
                        return r;
        }
        *ret = d;
        return 0;
}

static int apply_uevent(struct model *m, const struct uevent *ev, struct device **ret)
{
        struct device *d = NULL;
        int r;

        switch (ev->action) {
        case UEVENT_REMOVE:
                d = model_get(m, ev->devpath);
                if (!d) {
                        r = add_from_event(m, ev, &d);
                        if (r < 0)
                                return r;
                        *ret = d; /* never indexed: the caller's reference is the only one */
                        return 0;
                }
                device_ref(d);
                r = overlay_event(m, d, ev);
                model_remove(m, d);
                if (r < 0) {
                        device_unref(d);
                        return r;
                }
                *ret = d;
                return 0;

        case UEVENT_MOVE:
                d = model_get(m, ev->devpath_old);
                if (d && !model_get(m, ev->devpath)) {
                        r = rename_subtree(m, d, ev->devpath_old, ev->devpath);
                        if (r < 0)
                                return r;
                }
                _fallthrough_;
        default:
                /* kernel events for the unified layout carry all we need */
                if (ev->subsystem && startswith(ev->devpath, "/devices/") && !startswith(ev->devpath, "/devices/../")) {
                        r = apply_from_event(m, ev, &d);
                        if (r < 0)
                                return r;
                        *ret = device_ref(d);
                        return 0;
                }
                r = model_add_from_sysfs(m, ev->devpath, &d);
                if (r == -ENOENT || r == -ENODEV) {
                        /* gone before we got to it: keep what the event says */
                        d = model_get(m, ev->devpath);
                        if (!d) {
                                r = add_from_event(m, ev, &d);
                                if (r < 0)
                                        return r;
                                r = index_new(m, d);
                                if (r < 0) {
                                        device_unref(d);
                                        return r;
                                }
                        }
                } else if (r < 0)
                        return r;
                r = overlay_event(m, d, ev);
                if (r < 0)
                        return r;
                *ret = device_ref(d);
                return 0;
        }
}

int model_apply_uevent(struct model *m, const struct uevent *ev, struct device **ret)
{
        int r = apply_uevent(m, ev, ret);
        if (r >= 0)
                (*ret)->seqnum = ev->seqnum; /* the event's own, a remove's too (its commands see it) */
        return r;
}
