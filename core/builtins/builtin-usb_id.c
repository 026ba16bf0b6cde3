/* SPDX-License-Identifier: MIT */
/*
 * usb_id: vendor, model and serial come from the SCSI device for mass storage using the SCSI
 * or ATAPI command sets (what the disk itself reports), otherwise from the USB device's
 * strings, and as a last resort from its numeric ids. Strings are sanitized the way udev does
 * (whitespace runs to '_', unsafe characters to '_') with raw \xNN-encoded _ENC variants.
 */
#include "builtin-usb_id.h"

#include <fcntl.h>
#include <stdio.h>

#include "builtin-util.h"
#include "log.h"
#include "strenc.h"

/* Lengths of the reference's buffers: longer strings are cut there. */
#define SHORT_MAX 63
#define NAME_MAX_ 511

const char *usb_id_iftype(unsigned if_class)
{
        switch (if_class) {
        case 1:
                return "audio";
        case 3:
                return "hid";
        case 6:
                return "media";
        case 7:
                return "printer";
        case 8:
                return "storage";
        case 9:
                return "hub";
        case 0x0e:
                return "video";
        default:
                return "generic";
        }
}

static bool parse_int(const char *s, int base, long *ret)
{
        char *end;
        if (!s || !*s)
                return false;
        errno = 0;
        long v = strtol(s, &end, base);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

const char *usb_id_storage_subtype(const char *subclass, int *ret_protocol)
{
        long n = 0;
        if (!parse_int(subclass, 10, &n) || n < INT32_MIN || n > INT32_MAX)
                n = 0;
        *ret_protocol = (int)n;
        switch (n) {
        case 1:
                return "rbc";
        case 2:
                return "atapi";
        case 3:
                return "tape";
        case 4:
                return "floppy";
        case 6:
                return "scsi";
        default:
                return "generic";
        }
}

const char *usb_id_scsi_type(const char *type)
{
        long n;
        if (!parse_int(type, 10, &n) || n < 0)
                return "generic";
        switch (n) {
        case 0:
        case 0xe:
                return "disk";
        case 1:
                return "tape";
        case 4:
        case 7:
        case 0xf:
                return "optical";
        case 5:
                return "cd";
        default:
                return "generic";
        }
}

#define USB_DT_INTERFACE 0x04
#define USB_INTERFACE_DESC_SIZE 9

int usb_id_interfaces(const unsigned char *buf, size_t size, char **ret)
{
        /* room for the reference's limit of 72 interfaces (":ccsspp" each) */
        char *s = calloc(512, 1);
        size_t len = 0, pos = 0;

        if (!s)
                return -ENOMEM;
        if (size < 18) {
                free(s);
                return -EIO;
        }
        while (pos + USB_INTERFACE_DESC_SIZE < size && len + 7 < 512 - 2) {
                const unsigned char *d = buf + pos;
                if (d[0] < 3)
                        break;
                if (d[0] > size - USB_INTERFACE_DESC_SIZE) {
                        /* the reference stops here and keeps what it has, unterminated */
                        *ret = s;
                        return 0;
                }
                pos += d[0];
                if (d[1] != USB_DT_INTERFACE)
                        continue;
                char one[8];
                snprintf(one, sizeof(one), ":%02x%02x%02x", d[5], d[6], d[7]);
                if (strstr(s, one))
                        continue;
                memcpy(s + len, one, 8);
                len += 7;
        }
        if (len > 0)
                s[len++] = ':';
        s[len] = '\0';
        *ret = s;
        return 0;
}

static int read_interfaces(const struct builtin_ctx *ctx, const struct device *usb, char **ret)
{
        _cleanup_free_ char *syspath = device_syspath(usb, ctx->sysfs_root), *path = NULL;
        if (!syspath || asprintf(&path, "%s/descriptors", syspath) < 0)
                return -ENOMEM;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        /* a device descriptor and at most 64 KiB of configuration */
        size_t cap = 18 + 65535;
        _cleanup_free_ unsigned char *buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        ssize_t n = read(fd, buf, cap);
        if (n < 0)
                return negative_errno();
        return usb_id_interfaces(buf, (size_t)n, ret);
}

/* The sanitized form of a string (whitespace runs to '_', then unsafe characters to '_'),
 * reading at most max bytes. */
static char *sanitize(const char *s, size_t max)
{
        char *r = strenc_replace_whitespace(s, max);
        if (r)
                strenc_replace_chars(r, NULL);
        return r;
}

/* A serial number is used only when it is printable ASCII without commas. */
static bool serial_usable(const char *s)
{
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p > 0x7f || *p == ',')
                        return false;
        return true;
}

struct usb_info {
        char *vendor, *vendor_enc, *model, *model_enc, *revision, *serial_short, *instance;
        const char *type;
        char *interfaces;
};

static void usb_info_done(struct usb_info *i)
{
        free(i->vendor);
        free(i->vendor_enc);
        free(i->model);
        free(i->model_enc);
        free(i->revision);
        free(i->serial_short);
        free(i->instance);
        free(i->interfaces);
}

/* Vendor, model, revision and type from the SCSI device of a mass-storage interface. Fills
 * nothing when any of them is missing (the caller then falls back to the USB strings, but
 * keeps what was set: the reference's behaviour). */
static int scsi_info(const struct builtin_ctx *ctx, struct device *dev, struct usb_info *info)
{
        struct device *scsi = builtin_find_parent(dev, "scsi", "scsi_device");
        int host, bus, target, lun;

        if (!scsi || sscanf(scsi->sysname, "%d:%d:%d:%d", &host, &bus, &target, &lun) != 4)
                return 0;

        _cleanup_free_ char *vendor = builtin_sysattr_opt(ctx, scsi, "vendor");
        if (!vendor)
                return 0;
        if (!(info->vendor_enc = strenc_encode_devnode(vendor, 0)) || !(info->vendor = sanitize(vendor, SHORT_MAX)))
                return -ENOMEM;

        _cleanup_free_ char *model = builtin_sysattr_opt(ctx, scsi, "model");
        if (!model)
                return 0;
        if (!(info->model_enc = strenc_encode_devnode(model, 0)) || !(info->model = sanitize(model, SHORT_MAX)))
                return -ENOMEM;

        _cleanup_free_ char *type = builtin_sysattr_opt(ctx, scsi, "type");
        if (!type)
                return 0;
        info->type = usb_id_scsi_type(type);

        _cleanup_free_ char *rev = builtin_sysattr_opt(ctx, scsi, "rev");
        if (!rev)
                return 0;
        if (!(info->revision = sanitize(rev, SHORT_MAX)))
                return -ENOMEM;

        /* some devices report the same identity for every LUN */
        if (asprintf(&info->instance, "%d:%d", target, lun) < 0) {
                info->instance = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* What the reference's fixed buffers leave of a string: "" stays "" (unset). */
static bool isset(const char *s)
{
        return s && *s;
}

static int add_all(struct device *dev, bool test, const char *prefix, const struct usb_info *i,
                   const char *vendor_id, const char *product_id, const char *serial)
{
        const struct {
                const char *key, *value;
                bool optional;
        } props[] = {
                {"MODEL", strempty(i->model), false},
                {"MODEL_ENC", strempty(i->model_enc), false},
                {"MODEL_ID", product_id, false},
                {"SERIAL", serial, false},
                {"SERIAL_SHORT", i->serial_short, true},
                {"VENDOR", strempty(i->vendor), false},
                {"VENDOR_ENC", strempty(i->vendor_enc), false},
                {"VENDOR_ID", vendor_id, false},
                {"REVISION", strempty(i->revision), false},
                {"TYPE", i->type, true},
                {"INSTANCE", i->instance, true},
        };
        for (size_t k = 0; k < ELEMENTSOF(props); k++) {
                if (props[k].optional && !isset(props[k].value))
                        continue;
                _cleanup_free_ char *key = NULL;
                if (asprintf(&key, "%s%s", prefix, props[k].key) < 0)
                        return -ENOMEM;
                int r = builtin_add_property(dev, test, key, props[k].value);
                if (r < 0)
                        return r;
        }
        return 0;
}

int builtin_usb_id_run(struct builtin_ctx *ctx, struct device *dev, int argc _unused_, char **argv _unused_,
                       bool test)
{
        _cleanup_(usb_info_done) struct usb_info info = {};
        struct device *usb, *intf = NULL;
        _cleanup_free_ char *ifnum = NULL, *driver = NULL;
        int r;

        if (streq_ptr(builtin_devtype(dev), "usb_device")) {
                /* called for the USB device itself: only its own strings */
                usb = dev;
                (void)read_interfaces(ctx, usb, &info.interfaces);
        } else {
                intf = builtin_find_parent(dev, "usb", "usb_interface");
                if (!intf)
                        return -ENODEV;
                ifnum = builtin_sysattr_opt(ctx, intf, "bInterfaceNumber");
                /* From sysfs, not the model's record: a child the driver's probe creates (a
                 * ttyUSB) is processed before the interface's bind event reaches the model. */
                driver = builtin_sysattr_opt(ctx, intf, "driver");

                _cleanup_free_ char *if_class = NULL;
                r = builtin_sysattr(ctx, intf, "bInterfaceClass", &if_class);
                if (r < 0)
                        return r;
                char *end;
                errno = 0;
                unsigned long cls = strtoul(if_class, &end, 16);
                if (errno || end == if_class || *end || if_class[0] == '-' || cls > UINT32_MAX)
                        return -EINVAL;

                int protocol = 0;
                if (cls == 8) {
                        _cleanup_free_ char *sub = builtin_sysattr_opt(ctx, intf, "bInterfaceSubClass");
                        if (sub)
                                info.type = usb_id_storage_subtype(sub, &protocol);
                } else
                        info.type = usb_id_iftype((unsigned)cls);

                usb = builtin_find_parent(intf, "usb", "usb_device");
                if (!usb)
                        return -ENODEV;
                (void)read_interfaces(ctx, usb, &info.interfaces);

                /* mass storage speaking SCSI or ATAPI: the disk's own identity */
                if (protocol == 6 || protocol == 2) {
                        r = scsi_info(ctx, dev, &info);
                        if (r < 0)
                                return r;
                }
        }

        _cleanup_free_ char *vendor_id = NULL, *product_id = NULL;
        r = builtin_sysattr(ctx, usb, "idVendor", &vendor_id);
        if (r < 0)
                return r;
        r = builtin_sysattr(ctx, usb, "idProduct", &product_id);
        if (r < 0)
                return r;

        if (!isset(info.vendor)) {
                _cleanup_free_ char *s = builtin_sysattr_opt(ctx, usb, "manufacturer");
                const char *v = s ? s : vendor_id;
                free(info.vendor_enc);
                free(info.vendor);
                if (!(info.vendor_enc = strenc_encode_devnode(v, 0)) || !(info.vendor = sanitize(v, SHORT_MAX)))
                        return -ENOMEM;
        }
        if (!isset(info.model)) {
                _cleanup_free_ char *s = builtin_sysattr_opt(ctx, usb, "product");
                const char *v = s ? s : product_id;
                free(info.model_enc);
                free(info.model);
                if (!(info.model_enc = strenc_encode_devnode(v, 0)) || !(info.model = sanitize(v, SHORT_MAX)))
                        return -ENOMEM;
        }
        if (!isset(info.revision)) {
                _cleanup_free_ char *s = builtin_sysattr_opt(ctx, usb, "bcdDevice");
                if (s) {
                        free(info.revision);
                        if (!(info.revision = sanitize(s, SHORT_MAX)))
                                return -ENOMEM;
                }
        }
        _cleanup_free_ char *serial_attr = builtin_sysattr_opt(ctx, usb, "serial");
        if (serial_attr && serial_usable(serial_attr) && !(info.serial_short = sanitize(serial_attr, NAME_MAX_)))
                return -ENOMEM;

        _cleanup_free_ char *serial = NULL;
        if (asprintf(&serial, "%s_%s%s%s%s%s", strempty(info.vendor), strempty(info.model),
                     isset(info.serial_short) ? "_" : "", isset(info.serial_short) ? info.serial_short : "",
                     isset(info.instance) ? "-" : "", isset(info.instance) ? info.instance : "") < 0)
                return -ENOMEM;
        if (strlen(serial) > 255) /* the reference's buffer */
                serial[255] = '\0';

        if (device_get_property(dev, "ID_BUS")) {
                /* another identification came first: keep it, add only the ID_USB_* set */
                log_debug("%s: ID_BUS is already set, setting only ID_USB_* properties", dev->sysname);
        } else {
                r = builtin_add_property(dev, test, "ID_BUS", "usb");
                if (r >= 0)
                        r = add_all(dev, test, "ID_", &info, vendor_id, product_id, serial);
                if (r < 0)
                        return r;
        }
        r = add_all(dev, test, "ID_USB_", &info, vendor_id, product_id, serial);
        if (r < 0)
                return r;
        if (isset(info.interfaces) && (r = builtin_add_property(dev, test, "ID_USB_INTERFACES", info.interfaces)) < 0)
                return r;
        if (ifnum && (r = builtin_add_property(dev, test, "ID_USB_INTERFACE_NUM", ifnum)) < 0)
                return r;
        if (driver && (r = builtin_add_property(dev, test, "ID_USB_DRIVER", driver)) < 0)
                return r;
        return 0;
}
