/* SPDX-License-Identifier: MIT */
/*
 * path_id: walks from the device to the root and prepends one element per bus that gives a
 * stable position (pci-…, usb-0:…, ata-…, scsi-…, nvme-…, platform-…). A path is only
 * reported when some element identifies a well-known parent (pci, platform, acpi, …) and,
 * for block devices, when the transport is known — otherwise names would not be unique.
 */
#include "builtin-path_id.h"

#include <stdarg.h>
#include <stdio.h>

#include "builtin-util.h"
#include "fs-util.h"
#include "model.h"

struct path {
        char *path;        /* the ID_PATH being built, elements joined with '-' */
        char *compat;      /* ID_PATH_ATA_COMPAT, started by the ATA element */
        bool transport;    /* a known transport was met (block devices need one) */
        bool parent;       /* a well-known parent was met */
        int error;         /* first allocation failure */
};

_printf_(3, 0) static void prepend_v(struct path *p, char **where, const char *fmt, va_list ap)
{
        char *elem = NULL, *joined = NULL;
        if (vasprintf(&elem, fmt, ap) < 0) {
                p->error = -ENOMEM;
                return;
        }
        if (!*where) {
                *where = elem;
                return;
        }
        if (asprintf(&joined, "%s-%s", elem, *where) < 0) {
                free(elem);
                p->error = -ENOMEM;
                return;
        }
        free(elem);
        free(*where);
        *where = joined;
}

_printf_(2, 3) static void prepend(struct path *p, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        prepend_v(p, &p->path, fmt, ap);
        va_end(ap);
}

_printf_(2, 3) static void prepend_compat(struct path *p, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        prepend_v(p, &p->compat, fmt, ap);
        va_end(ap);
}

/* Both paths, the compat one only once it has been started. */
static void prepend_both(struct path *p, const char *kind, const char *name)
{
        prepend(p, "%s-%s", kind, name);
        if (p->compat)
                prepend_compat(p, "%s-%s", kind, name);
}

/* The topmost device of the run of ancestors (starting at d) that belong to subsystem; the
 * caller's walk continues at its parent. */
static struct device *skip_subsystem(struct device *d, const char *subsystem)
{
        for (struct device *p = d; p && device_subsystem_is(p, subsystem); p = p->parent)
                d = p;
        return d;
}

static bool parse_uint(const char *s, unsigned long *ret)
{
        if (!s || !*s)
                return false;
        for (const char *c = s; *c; c++)
                if (*c < '0' || *c > '9')
                        return false;
        errno = 0;
        unsigned long v = strtoul(s, NULL, 10);
        if (errno)
                return false;
        *ret = v;
        return true;
}

/* "lun-N" (N < 256: peripheral addressing) or the 64-bit LUN form; "(null)" when the device
 * has no number, as the reference prints it. */
static char *lun_string(const struct device *d)
{
        unsigned long lun;
        char *s = NULL;
        int r;

        if (!parse_uint(d->sysnum, &lun))
                return strdup("(null)");
        if (lun < 256)
                r = asprintf(&s, "lun-%lu", lun);
        else
                r = asprintf(&s, "lun-0x%04lx%04lx00000000", lun & 0xffff, (lun >> 16) & 0xffff);
        return r < 0 ? NULL : s;
}

static struct device *parent_of_type(struct device *d, const char *subsystem, const char *devtype)
{
        return builtin_find_parent(d, subsystem, devtype);
}

static struct device *handle_scsi_fc(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        struct device *target = parent_of_type(d, "scsi", "scsi_target"), *fc;
        if (!target || builtin_device_by_subsystem_sysname(d, "fc_transport", target->sysname, &fc) < 0)
                return NULL;
        _cleanup_free_ char *port = builtin_sysattr_opt(ctx, fc, "port_name");
        if (!port)
                return NULL;
        _cleanup_free_ char *lun = lun_string(d);
        prepend(p, "fc-%s-%s", port, strempty(lun));
        return d;
}

static struct device *handle_scsi_sas_wide_port(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        struct device *target = parent_of_type(d, "scsi", "scsi_target"), *sas;
        if (!target || !target->parent ||
            builtin_device_by_subsystem_sysname(d, "sas_device", target->parent->sysname, &sas) < 0)
                return NULL;
        _cleanup_free_ char *addr = builtin_sysattr_opt(ctx, sas, "sas_address");
        if (!addr)
                return NULL;
        _cleanup_free_ char *lun = lun_string(d);
        prepend(p, "sas-%s-%s", addr, strempty(lun));
        return d;
}

static struct device *handle_scsi_sas(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        struct device *target = parent_of_type(d, "scsi", "scsi_target");
        struct device *end_device, *port, *expander, *target_sas, *port_sas, *expander_sas;

        if (!target || !(end_device = target->parent))
                return NULL;
        if (builtin_device_by_subsystem_sysname(d, "sas_device", end_device->sysname, &target_sas) < 0)
                return NULL;
        if (!(port = end_device->parent) ||
            builtin_device_by_subsystem_sysname(d, "sas_port", port->sysname, &port_sas) < 0)
                return NULL;
        _cleanup_free_ char *num_phys = builtin_sysattr_opt(ctx, port_sas, "num_phys");
        if (!num_phys)
                return NULL;
        if (!streq(num_phys, "1"))
                return handle_scsi_sas_wide_port(ctx, d, p);

        _cleanup_free_ char *phy = builtin_sysattr_opt(ctx, target_sas, "phy_identifier");
        if (!phy || !(expander = port->parent))
                return NULL;
        _cleanup_free_ char *expander_addr = NULL;
        if (builtin_device_by_subsystem_sysname(d, "sas_device", expander->sysname, &expander_sas) >= 0) {
                expander_addr = builtin_sysattr_opt(ctx, expander_sas, "sas_address");
                if (!expander_addr)
                        return NULL;
        }
        _cleanup_free_ char *lun = lun_string(d);
        if (expander_addr)
                prepend(p, "sas-exp%s-phy%s-%s", expander_addr, phy, strempty(lun));
        else
                prepend(p, "sas-phy%s-%s", phy, strempty(lun));
        return d;
}

static struct device *handle_scsi_iscsi(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        struct device *session = d->parent, *session_dev, *conn_dev;

        while (session && !startswith(session->sysname, "session"))
                session = session->parent;
        if (!session || builtin_device_by_subsystem_sysname(d, "iscsi_session", session->sysname, &session_dev) < 0)
                return NULL;
        _cleanup_free_ char *target = builtin_sysattr_opt(ctx, session_dev, "targetname");
        if (!target || !session->sysnum)
                return NULL;
        _cleanup_free_ char *conn = NULL;
        if (asprintf(&conn, "connection%s:0", session->sysnum) < 0) {
                p->error = -ENOMEM;
                return NULL;
        }
        if (builtin_device_by_subsystem_sysname(d, "iscsi_connection", conn, &conn_dev) < 0)
                return NULL;
        _cleanup_free_ char *addr = builtin_sysattr_opt(ctx, conn_dev, "persistent_address");
        _cleanup_free_ char *port = builtin_sysattr_opt(ctx, conn_dev, "persistent_port");
        if (!addr || !port)
                return NULL;
        _cleanup_free_ char *lun = lun_string(d);
        prepend(p, "ip-%s:%s-iscsi-%s-%s", addr, port, target, strempty(lun));
        return d;
}

static struct device *handle_scsi_ata(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        unsigned host, bus, target, lun;
        struct device *scsi_host, *ata_port;

        if (sscanf(d->sysname, "%u:%u:%u:%u", &host, &bus, &target, &lun) != 4)
                return NULL;
        if (!(scsi_host = parent_of_type(d, "scsi", "scsi_host")) || !scsi_host->parent ||
            builtin_device_by_subsystem_sysname(d, "ata_port", scsi_host->parent->sysname, &ata_port) < 0)
                return NULL;
        _cleanup_free_ char *port_no = builtin_sysattr_opt(ctx, ata_port, "port_no");
        if (!port_no)
                return NULL;
        if (bus != 0) /* behind a port multiplier */
                prepend(p, "ata-%s.%u.0", port_no, bus);
        else /* master and slave differ in the target id */
                prepend(p, "ata-%s.%u", port_no, target);
        prepend_compat(p, "ata-%s", port_no);
        return d;
}

/* The host number rebased on the lowest hostN among the host's siblings (the reference's
 * stop-gap for controllers that do not export their own port number). */
static struct device *handle_scsi_default(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        int host, bus, target, lun;
        struct device *scsi_host = parent_of_type(d, "scsi", "scsi_host");

        if (!scsi_host)
                return NULL;
        if (sscanf(d->sysname, "%d:%d:%d:%d", &host, &bus, &target, &lun) != 4)
                return NULL;
        _cleanup_free_ char *syspath = device_syspath(scsi_host, ctx->sysfs_root);
        if (!syspath) {
                p->error = -ENOMEM;
                return NULL;
        }
        char *slash = strrchr(syspath, '/');
        if (!slash)
                return NULL;
        *slash = '\0';
        _cleanup_closedir_ DIR *dir = opendir(syspath);
        if (!dir)
                return NULL;
        long base = -1;
        struct dirent *de;
        while ((de = fs_readdir(dir, true))) {
                unsigned long n;
                if ((de->d_type != DT_DIR && de->d_type != DT_LNK))
                        continue;
                if (!startswith(de->d_name, "host") || !parse_uint(de->d_name + 4, &n) || n > 0xffffffffUL)
                        continue;
                if (base < 0 || (long)n < base)
                        base = (long)n;
        }
        if (base < 0)
                return scsi_host;
        host -= (int)base;
        prepend(p, "scsi-%u:%u:%u:%u", (unsigned)host, (unsigned)bus, (unsigned)target, (unsigned)lun);
        return scsi_host;
}

static struct device *handle_scsi_hyperv(struct builtin_ctx *ctx, struct device *d, struct path *p, size_t len)
{
        struct device *scsi_host = parent_of_type(d, "scsi", "scsi_host");
        if (!scsi_host || !scsi_host->parent)
                return NULL;
        _cleanup_free_ char *id = builtin_sysattr_opt(ctx, scsi_host->parent, "device_id");
        if (!id || strlen(id) < len || id[0] != '{' || id[len - 1] != '}')
                return NULL;
        char guid[40];
        size_t k = 0;
        for (size_t i = 1; i < len - 1; i++)
                if (id[i] != '-')
                        guid[k++] = id[i];
        guid[k] = '\0';
        _cleanup_free_ char *lun = lun_string(d);
        prepend(p, "vmbus-%s-%s", guid, strempty(lun));
        return d;
}

static struct device *handle_scsi(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        if (!streq_ptr(builtin_devtype(d), "scsi_device"))
                return d;

        _cleanup_free_ char *ieee1394 = builtin_sysattr_opt(ctx, d, "ieee1394_id");
        if (ieee1394) { /* firewire */
                prepend(p, "ieee1394-0x%s", ieee1394);
                p->parent = true;
                return skip_subsystem(d, "scsi");
        }

        /* the SCSI transports have no subsystem of their own: the path tells them apart */
        const char *path = d->devpath;
        if (strstr(path, "/rport-")) {
                p->parent = true;
                return handle_scsi_fc(ctx, d, p);
        }
        if (strstr(path, "/end_device-")) {
                p->parent = true;
                return handle_scsi_sas(ctx, d, p);
        }
        if (strstr(path, "/session")) {
                p->parent = true;
                return handle_scsi_iscsi(ctx, d, p);
        }
        if (strstr(path, "/ata"))
                return handle_scsi_ata(ctx, d, p);
        if (strstr(path, "/vmbus_"))
                return handle_scsi_hyperv(ctx, d, p, 37);
        if (strstr(path, "/VMBUS"))
                return handle_scsi_hyperv(ctx, d, p, 38);
        return handle_scsi_default(ctx, d, p);
}

static struct device *handle_cciss(struct device *d, struct path *p)
{
        unsigned controller, disk;
        if (sscanf(d->sysname, "c%ud%u", &controller, &disk) != 2)
                return NULL;
        prepend(p, "cciss-disk%u", disk);
        return skip_subsystem(d, "cciss");
}

/* Tape devices get their rewind mode as the last element. */
static void handle_scsi_tape(struct device *d, struct path *p)
{
        const char *n = d->sysname, *mode;
        if (p->path)
                return;
        if (startswith(n, "nst"))
                mode = n + 3;
        else if (startswith(n, "st"))
                mode = n + 2;
        else
                return;
        if (*mode && !strchr("lma", *mode))
                return;
        prepend(p, "%.*s%.1s", (int)(mode - n), n, mode);
}

static struct device *handle_usb(struct device *d, struct path *p)
{
        const char *devtype = builtin_devtype(d);
        if (!streq_ptr(devtype, "usb_interface") && !streq_ptr(devtype, "usb_device"))
                return d;
        const char *port = strchr(d->sysname, '-');
        if (!port)
                return d;
        /* the bus number depends on probe order: "0" instead, the rest is topology */
        prepend(p, "usb-0:%s", port + 1);
        return skip_subsystem(d, "usb");
}

static struct device *handle_bcma(struct device *d, struct path *p)
{
        unsigned core;
        if (sscanf(d->sysname, "bcma%*u:%u", &core) != 1)
                return NULL;
        prepend(p, "bcma-%u", core);
        return d;
}

/* s390 AP bus: adapter type and functions when the device tells them. */
static struct device *handle_ap(struct builtin_ctx *ctx, struct device *d, struct path *p)
{
        _cleanup_free_ char *type = builtin_sysattr_opt(ctx, d, "type");
        _cleanup_free_ char *func = builtin_sysattr_opt(ctx, d, "ap_functions");
        if (type && func)
                prepend(p, "ap-%s-%s", type, func);
        else
                prepend(p, "ap-%s", d->sysname);
        return skip_subsystem(d, "ap");
}

/* With NVMe multipathing the namespace hangs below the virtual nvme-subsystem device; its
 * controller "nvmeN" (from "nvmeNnM…") is the device with the real bus position. */
static int nvme_controller(struct device *dev, struct device **ret)
{
        const char *digits = startswith(dev->sysname, "nvme");
        if (!digits)
                return -ENXIO;
        _cleanup_free_ char *name = strndup(dev->sysname, (size_t)(digits - dev->sysname) + strspn(digits, "0123456789"));
        if (!name)
                return -ENOMEM;
        return builtin_device_by_subsystem_sysname(dev, "nvme", name, ret);
}

/* One step of the walk: the bus-specific element for d. Returns the device whose parent the
 * walk continues with, or NULL to stop. */
static struct device *handle(struct builtin_ctx *ctx, struct device *dev, struct device *d, struct path *p, int *err)
{
        static const struct {
                const char *subsystem;
                bool compat, transport, parent;
        } simple[] = {
                {"pci", true, false, true},       {"platform", true, true, true},
                {"acpi", true, false, true},      {"xen", true, false, true},
                {"scm", true, true, true},        {"ccw", true, true, true},
                {"ccwgroup", true, true, true},   {"iucv", true, true, true},
        };
        const char *s = d->subsystem;

        if (!s)
                return d;
        for (size_t i = 0; i < ELEMENTSOF(simple); i++)
                if (streq(s, simple[i].subsystem)) {
                        prepend_both(p, s, d->sysname);
                        p->transport |= simple[i].transport;
                        p->parent |= simple[i].parent;
                        return skip_subsystem(d, s);
                }

        if (streq(s, "scsi_tape")) {
                handle_scsi_tape(d, p);
                return d;
        }
        if (streq(s, "scsi")) {
                p->transport = true;
                return handle_scsi(ctx, d, p);
        }
        if (streq(s, "cciss")) {
                p->transport = true;
                return handle_cciss(d, p);
        }
        if (streq(s, "usb")) {
                p->transport = true;
                return handle_usb(d, p);
        }
        if (streq(s, "bcma")) {
                p->transport = true;
                return handle_bcma(d, p);
        }
        if (streq(s, "serio") || streq(s, "spi")) {
                if (!d->sysnum)
                        return d;
                prepend(p, "%s-%s", streq(s, "serio") ? "serio" : "cs", d->sysnum);
                return skip_subsystem(d, s);
        }
        if (streq(s, "virtio")) {
                p->transport = true;
                return skip_subsystem(d, s);
        }
        if (streq(s, "ap")) {
                p->transport = p->parent = true;
                return handle_ap(ctx, d, p);
        }
        if (streq(s, "nvme") || streq(s, "nvme-subsystem")) {
                /* the namespace id of the device asked about, not of this ancestor */
                _cleanup_free_ char *nsid = builtin_sysattr_opt(ctx, dev, "nsid");
                if (!nsid)
                        return d;
                prepend_both(p, "nvme", nsid);
                if (streq(s, "nvme-subsystem")) {
                        int r = nvme_controller(dev, &d);
                        if (r < 0) {
                                *err = r;
                                return NULL;
                        }
                }
                p->transport = p->parent = true;
                return skip_subsystem(d, "nvme");
        }
        return d;
}

char *path_id_tag(const char *path)
{
        char *tag = malloc(strlen(path) + 1);
        size_t i = 0;

        if (!tag)
                return NULL;
        for (const char *c = path; *c; c++) {
                if ((*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '-')
                        tag[i++] = *c;
                else if (i > 0 && tag[i - 1] != '_')
                        tag[i++] = '_';
        }
        while (i > 0 && tag[i - 1] == '_')
                i--;
        tag[i] = '\0';
        return tag;
}

int builtin_path_id_run(struct builtin_ctx *ctx, struct device *dev, int argc _unused_, char **argv _unused_,
                        bool test)
{
        struct path p = {};
        int r = 0;

        for (struct device *d = dev; d && r == 0;) {
                d = handle(ctx, dev, d, &p, &r);
                if (p.error < 0)
                        r = p.error;
                if (!d)
                        break;
                d = d->parent;
        }

        _cleanup_free_ char *path = p.path, *compat = p.compat, *tag = NULL;
        if (r < 0)
                return r;
        /* no path, or no well-known parent: the name might not be unique */
        if (!path || !p.parent)
                return -ENOENT;
        /* block devices whose transport is unknown might not have a stable path */
        if (device_subsystem_is(dev, "block") && !p.transport)
                return -ENOENT;

        tag = path_id_tag(path);
        if (!tag)
                return -ENOMEM;
        r = builtin_add_property(dev, test, "ID_PATH", path);
        if (r >= 0)
                r = builtin_add_property(dev, test, "ID_PATH_TAG", tag);
        if (r >= 0 && compat)
                r = builtin_add_property(dev, test, "ID_PATH_ATA_COMPAT", compat);
        return r < 0 ? r : 0;
}
