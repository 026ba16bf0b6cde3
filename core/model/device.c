/* SPDX-License-Identifier: MIT */
#include "device.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs-util.h"
#include "log.h"
#include "strfmt.h"
#include "strv.h"
#include "sysdir-cache.h"
#include "sysfs.h"

struct device_attr {
        struct device_attr *next;
        char *value; /* NULL: known to be absent (negative cache) */
        int error;   /* the -errno for a negative entry */
        char name[]; /* flexible: the attribute name */
};

static const char *const layout_names[_DEVICE_LAYOUT_MAX] = {
        [DEVICE_LAYOUT_BUS] = "bus",
        [DEVICE_LAYOUT_CONVERTED] = "converted",
        [DEVICE_LAYOUT_LEGACY] = "legacy",
        [DEVICE_LAYOUT_OTHER] = "other",
};

const char *device_layout_to_string(enum device_layout l)
{
        return l < _DEVICE_LAYOUT_MAX ? layout_names[l] : NULL;
}

int device_rename(struct device *d, const char *devpath)
{
        char *p, *sysname_buf = NULL;

        if (!devpath || devpath[0] != '/')
                return -EINVAL;
        p = strdup(devpath);
        if (!p)
                return -ENOMEM;
        const char *base = strrchr(p, '/') + 1;
        if (strchr(base, '!')) {
                sysname_buf = strdup(base);
                if (!sysname_buf) {
                        free(p);
                        return -ENOMEM;
                }
                for (char *c = sysname_buf; *c; c++)
                        if (*c == '!')
                                *c = '/';
                base = sysname_buf;
        }
        /* a DEVNAME that is the old sysname is the new one too, or becomes a copy of its own */
        const char *devname = d->devname;
        if (devname && devname == d->sysname) {
                if (streq(devname, base))
                        devname = base;
                else if (!(devname = strdup(devname))) {
                        free(p);
                        free(sysname_buf);
                        return -ENOMEM;
                }
        }
        free(d->devpath);
        free(d->sysname_buf);
        d->devpath = p;
        d->sysname_buf = sysname_buf;
        d->sysname = base;
        d->devname = devname;

        /* sysnum: the trailing digits, as udev's %n */
        const char *e = base + strlen(base);
        while (e > base && isdigit((unsigned char)e[-1]))
                e--;
        d->sysnum = *e ? e : NULL;
        return 0;
}

int device_new(const char *devpath, struct device **ret)
{
        struct device *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->n_ref = 1;
        int r = device_rename(d, devpath);
        if (r < 0)
                return device_unref(d), r;
        *ret = d;
        return 0;
}

struct device *device_ref(struct device *d)
{
        if (d)
                d->n_ref++;
        return d;
}

void device_clear_attrs(struct device *d)
{
        if (d->sysfd_open) {
                close(d->sysfd);
                d->sysfd_open = false;
        }
        while (d->attrs) {
                struct device_attr *a = d->attrs;
                d->attrs = a->next;
                free(a->value);
                free(a);
        }
}

void device_udev_free(struct device_udev *u)
{
        if (!u)
                return;
        strv_free(u->links);
        strv_free(u->tags);
        strv_free(u->current_tags);
        free(u);
}

struct device_udev *device_get_udev(struct device *d)
{
        if (!d->udev) {
                d->udev = calloc(1, sizeof(*d->udev));
                if (!d->udev)
                        return NULL;
                d->udev->mode = (mode_t)-1;
                d->udev->uid = (uid_t)-1;
                d->udev->gid = (gid_t)-1;
        }
        return d->udev;
}

struct device *device_unref(struct device *d)
{
        if (!d || --d->n_ref > 0)
                return NULL;
        device_unref(d->parent);
        device_clear_attrs(d);
        device_udev_free(d->udev);
        props_clear(&d->props);
        device_set_subsystem(d, NULL);
        device_set_devtype(d, NULL);
        device_set_driver(d, NULL);
        device_set_devname(d, NULL);
        free(d->devpath);
        free(d->sysname_buf);
        free(d);
        return NULL;
}

/* Subsystem, devtype and driver names that many devices share: a record points to these
 * instead of holding a copy of its own (a storm of a thousand loop devices would otherwise
 * hold a thousand copies of "block", of "disk" and of "bdi"). Sorted, for bsearch(). */
static const char *const shared_names[] = {
        "acpi", "ahci", "bdi", "block", "bsg", "button", "clockevents", "cpu", "cpuid", "disk", "dmi", "drm",
        "event_source", "graphics", "hid", "hid-generic", "hidraw", "hub", "hwmon", "i2c", "input", "leds",
        "machinecheck", "mem", "memory", "misc", "msr", "net", "nvme", "partition", "pci", "pci_bus", "pcieport",
        "platform", "pnp", "power_supply", "rtc", "scsi", "scsi_device", "scsi_disk", "scsi_generic",
        "scsi_host", "sd", "serial8250", "serio", "sound", "thermal", "tty", "usb", "usb_device",
        "usb_interface", "usbhid", "usbmisc", "vc", "virtio", "virtio-pci", "vtconsole", "wakeup", "wlan",
        "workqueue", "xhci_hcd",
};

static int cmp_name(const void *key, const void *elem)
{
        return strcmp(key, *(const char *const *)elem);
}

/* The shared copy of s, or NULL when s is not one of shared_names. */
static const char *shared_name(const char *s)
{
        const char *const *hit = bsearch(s, shared_names, ELEMENTSOF(shared_names), sizeof(shared_names[0]), cmp_name);
        return hit ? *hit : NULL;
}

/* Whether the record owns s, one of its strings: neither a shared copy nor its sysname. */
static bool string_owned(const struct device *d, const char *s)
{
        return s && s != d->sysname && shared_name(s) != s;
}

/* Sets one of the record's strings to s: a devname equal to the sysname is the sysname, any
 * other string one of shared_names is the shared copy, else an owned copy. */
static int set_string(struct device *d, const char **field, const char *s, bool devname)
{
        if (streq_ptr(*field, s))
                return 0;
        const char *n = NULL;
        if (s) {
                n = devname ? (streq(s, d->sysname) ? d->sysname : NULL) : shared_name(s);
                if (!n && !(n = strdup(s)))
                        return -ENOMEM;
        }
        if (string_owned(d, *field))
                free((char *)*field);
        *field = n;
        return 0;
}

int device_set_subsystem(struct device *d, const char *s)
{
        return set_string(d, &d->subsystem, s, false);
}

int device_set_devtype(struct device *d, const char *s)
{
        return set_string(d, &d->devtype, s, false);
}

int device_set_driver(struct device *d, const char *s)
{
        return set_string(d, &d->driver, s, false);
}

int device_set_devname(struct device *d, const char *s)
{
        return set_string(d, &d->devname, s, true);
}

char *device_syspath(const struct device *d, const char *sysfs_root)
{
        return path_join(sysfs_root, d->devpath);
}

int device_get_id(const struct device *d, char **ret)
{
        char a[STRFMT_UINT_MAX], b[STRFMT_UINT_MAX];

        /* built without printf: every event asks for its device's id several times */
        if (d->devnum_type && major(d->devnum) > 0) {
                const char type[2] = {d->devnum_type, '\0'};
                *ret = strfmt_concat(type, strfmt_uint(a, major(d->devnum)), ":", strfmt_uint(b, minor(d->devnum)),
                                     NULL);
        } else if (d->ifindex > 0)
                *ret = strfmt_concat("n", strfmt_uint(a, (unsigned)d->ifindex), NULL);
        else if (d->subsystem && streq(d->subsystem, "drivers")) {
                /* /bus/<bus>/drivers/<driver>: the id names the driver's bus too */
                const char *bus = startswith(d->devpath, "/bus/");
                const char *slash = bus ? strchr(bus, '/') : NULL;
                if (!slash)
                        return -EINVAL;
                return asprintf(ret, "+drivers:%.*s:%s", (int)(slash - bus), bus, d->sysname) < 0 ? -ENOMEM : 0;
        } else if (d->subsystem)
                /* the raw basename ("cciss!c0d0"), not the sysname with '!' turned into '/' */
                *ret = strfmt_concat("+", d->subsystem, ":", strrchr(d->devpath, '/') + 1, NULL);
        else
                return -ENODATA;
        return *ret ? 0 : -ENOMEM;
}

const char *device_get_property(const struct device *d, const char *key)
{
        return props_get(&d->props, key);
}

static struct device_attr *attr_cache_find(struct device *d, const char *attr)
{
        for (struct device_attr *a = d->attrs; a; a = a->next)
                if (streq(a->name, attr))
                        return a;
        return NULL;
}

static int attr_cache_put(struct device *d, const char *attr, char *value, int error, struct device_attr **ret)
{
        struct device_attr *a = attr_cache_find(d, attr);
        if (!a) {
                a = calloc(1, sizeof(*a) + strlen(attr) + 1);
                if (!a) {
                        free(value);
                        return -ENOMEM;
                }
                strcpy(a->name, attr);
                a->next = d->attrs;
                d->attrs = a;
        }
        free(a->value);
        a->value = value;
        a->error = error;
        *ret = a;
        return 0;
}

/* Attributes that are links report the basename of their target, as udev does. */
static bool attr_is_link_name(const char *attr)
{
        return streq(attr, "driver") || streq(attr, "subsystem") || streq(attr, "module");
}

int device_sysfd(struct device *d, const char *sysfs_root)
{
        if (d->sysfd_open)
                return d->sysfd;
        int fd;
        if (d->sysdirs && streq(sysdir_cache_root(d->sysdirs), sysfs_root))
                fd = sysdir_cache_open(d->sysdirs, d->devpath);
        else {
                _cleanup_free_ char *syspath = device_syspath(d, sysfs_root);
                if (!syspath)
                        return -ENOMEM;
                fd = open(syspath, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        fd = -errno;
        }
        if (fd < 0)
                return fd;
        d->sysfd = fd;
        d->sysfd_open = true;
        return fd;
}

int device_get_sysattr(struct device *d, const char *sysfs_root, const char *attr, const char **ret)
{
        struct device_attr *a = attr_cache_find(d, attr);
        char *value = NULL;
        int r;

        if (a) {
                *ret = a->value;
                return a->value ? 0 : a->error;
        }
        if (isempty(attr) || attr[0] == '/' || strstr(attr, "..")) {
                /* only attributes of the device (and its subdirectories) */
                return -EINVAL;
        }

        int dirfd = device_sysfd(d, sysfs_root);
        struct stat st;
        if (dirfd < 0)
                r = dirfd == -ENOMEM ? -ENOMEM : -ENOENT; /* the device is gone: so is the attribute */
        else if (fstatat(dirfd, attr, &st, AT_SYMLINK_NOFOLLOW) < 0)
                r = negative_errno();
        else if (S_ISLNK(st.st_mode))
                r = attr_is_link_name(attr) ? readlink_basename_at(dirfd, attr, &value) : -EINVAL;
        else if (S_ISDIR(st.st_mode))
                r = -EISDIR;
        else if (!(st.st_mode & 0444))
                r = -EACCES;
        else
                r = read_full_file_at(dirfd, attr, &value, NULL);
        if (r == -ENOMEM)
                return r;

        int rc = attr_cache_put(d, attr, r < 0 ? NULL : value, r < 0 ? r : 0, &a);
        if (rc < 0)
                return rc;
        *ret = a->value;
        return a->value ? 0 : a->error;
}

int device_get_driver_now(struct device *d, const char *sysfs_root, const char **ret)
{
        const char *v = NULL;

        if (d->driver) {
                *ret = d->driver;
                return 0;
        }
        int r = device_get_sysattr(d, sysfs_root, "driver", &v);
        if (r == -ENOMEM)
                return r;
        *ret = r < 0 ? NULL : v; /* no link (or no directory any more): unbound */
        return 0;
}

int device_set_sysattr(struct device *d, const char *sysfs_root, const char *attr, const char *value)
{
        struct device_attr *a;
        if (isempty(attr) || attr[0] == '/' || strstr(attr, ".."))
                return -EINVAL;
        _cleanup_free_ char *syspath = device_syspath(d, sysfs_root);
        _cleanup_free_ char *path = syspath ? path_join(syspath, attr) : NULL;
        if (!path)
                return -ENOMEM;
        int r = write_attr(path, value);
        if (r < 0)
                return r;
        /* the kernel may normalise what was written: read it again next time */
        a = attr_cache_find(d, attr);
        if (a) {
                a->value = mfree(a->value);
                a->error = 0;
                struct device_attr **pp = &d->attrs;
                while (*pp != a)
                        pp = &(*pp)->next;
                *pp = a->next;
                free(a);
        }
        return 0;
}

struct device *device_find_parent_with_subsystem(struct device *d, const char *subsystem, const char *devtype,
                                                 bool include_self)
{
        for (struct device *p = include_self ? d : d->parent; p; p = p->parent)
                if (streq_ptr(p->subsystem, subsystem) && (!devtype || streq_ptr(p->devtype, devtype)))
                        return p;
        return NULL;
}
