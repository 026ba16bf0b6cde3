/* SPDX-License-Identifier: MIT */
/*
 * The builtins of part A (path_id, usb_id, input_id, hwdb, keyboard) against the fixture
 * machine of tests/gen-sysfs.py. Expected values are worked out by hand from the machine's
 * description in tests/README.md (PCI slots, USB ports, strings, each input device's
 * capabilities), and from hwdb and keyboard inputs written here.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "builtin-hwdb.h"
#include "builtin-input_id.h"
#include "builtin-keyboard.h"
#include "builtin-util.h"
#include "builtin.h"
#include "hwdb-compile.h"
#include "hwdb.h"
#include "model.h"
#include "test-tmpdir.h"
#include "test-util.h"

struct fx {
        char *tmp;
        char *sys;
        struct model *m;
        struct builtin_ctx ctx;
};

static void fx_init_args(struct fx *f, const char *args)
{
        const char *src = getenv("DEVMAN_SOURCE_ROOT");
        char *cmd = NULL;

        memset(f, 0, sizeof(*f));
        f->tmp = test_tmpdir_new("builtins");
        if (asprintf(&f->sys, "%s/sys", f->tmp) < 0)
                abort();
        if (asprintf(&cmd, "python3 %s/tests/gen-sysfs.py %s %s", src ? src : ".", args, f->sys) < 0)
                abort();
        if (system(cmd) != 0) {
                fprintf(stderr, "gen-sysfs.py failed\n");
                abort();
        }
        free(cmd);
        if (model_new(f->sys, &f->m) < 0)
                abort();
        /* a /dev root where no node exists: nothing here may touch a real device */
        char *dev = NULL;
        if (asprintf(&dev, "%s/dev", f->tmp) < 0 || mkdir(dev, 0755) < 0 || model_set_dev_root(f->m, dev) < 0)
                abort();
        free(dev);
        f->ctx.sysfs_root = f->sys;
}

static void fx_init(struct fx *f)
{
        fx_init_args(f, "");
}

static void fx_done(struct fx *f)
{
        builtin_exit_all(&f->ctx);
        model_free(f->m);
        free(f->sys);
        f->tmp = test_tmpdir_remove(f->tmp);
}

static struct device *dev_of(struct fx *f, const char *path)
{
        struct device *d = NULL;
        if (model_resolve(f->m, path, &d) < 0 || !d) {
                fprintf(stderr, "no device %s in the fixture\n", path);
                abort();
        }
        /* every case starts from the kernel's properties only */
        props_unset_flagged(&d->props, PROP_DB);
        device_clear_attrs(d);
        return d;
}

static int run(struct fx *f, struct device *d, const char *cmd)
{
        return builtin_run(builtin_lookup(cmd), &f->ctx, d, cmd, false);
}

static char *read_file(const char *dir, const char *rel)
{
        char *p = NULL, *buf = calloc(1, 4096);
        if (asprintf(&p, "%s/%s", dir, rel) < 0 || !buf)
                abort();
        int fd = open(p, O_RDONLY);
        free(p);
        if (fd < 0) {
                free(buf);
                return NULL;
        }
        ssize_t n = read(fd, buf, 4095);
        close(fd);
        if (n < 0)
                n = 0;
        /* a sysfs attribute's value is its first line (writes here do not truncate the file) */
        buf[strcspn(buf, "\n")] = '\0';
        return buf;
}

#define PROP(d, k) device_get_property((d), (k))

static void test_table(void)
{
        /* every builtin rules name is in the table, and all of part A have an implementation */
        static const char *const mine[] = {"hwdb", "input_id", "keyboard", "path_id", "usb_id"};
        for (size_t i = 0; i < ELEMENTSOF(mine); i++) {
                const struct builtin *b = builtin_lookup(mine[i]);
                CHECK(b && b->run);
        }
        CHECK(builtin_lookup("path_id %p") == builtin_lookup("path_id"));
}

static void test_path_id(void)
{
        struct fx f;
        fx_init(&f);
        struct device *d;

        d = dev_of(&f, "/class/block/sda");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:1f.2-ata-1.0");
        CHECK_STR(PROP(d, "ID_PATH_TAG"), "pci-0000_00_1f_2-ata-1_0");
        CHECK_STR(PROP(d, "ID_PATH_ATA_COMPAT"), "pci-0000:00:1f.2-ata-1");

        d = dev_of(&f, "/class/block/sda1");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:1f.2-ata-1.0");

        /* USB stick: the host number is rebased (host6 is the first host of its interface) */
        d = dev_of(&f, "/class/block/sdb");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:1d.7-usb-0:1:1.0-scsi-0:0:0:0");
        CHECK_STR(PROP(d, "ID_PATH_TAG"), "pci-0000_00_1d_7-usb-0_1_1_0-scsi-0_0_0_0");
        CHECK(!PROP(d, "ID_PATH_ATA_COMPAT"));

        d = dev_of(&f, "/class/block/nvme0n1");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:02:00.0-nvme-1");

        d = dev_of(&f, "/class/input/event0");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "platform-i8042-serio-0");
        /* serio2 hangs below serio1: one element for the run of serio devices */
        d = dev_of(&f, "/class/input/event2");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "platform-i8042-serio-2");
        d = dev_of(&f, "/class/input/event3");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "acpi-PNP0C0D:00");
        d = dev_of(&f, "/class/input/event6");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:14.0-usb-0:1.1:1.0");
        d = dev_of(&f, "/class/net/eth0");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:19.0");
        d = dev_of(&f, "/class/tty/ttyS0");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "platform-serial8250");
        CHECK_STR(PROP(d, "ID_PATH_TAG"), "platform-serial8250");
        d = dev_of(&f, "/class/usb_device/usbdev3.2");
        CHECK_INT(run(&f, d, "path_id"), 0);
        CHECK_STR(PROP(d, "ID_PATH"), "pci-0000:00:1d.7-usb-0:1");

        /* virtual devices have no persistent path */
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "path_id"), -ENOENT);
        CHECK(!PROP(d, "ID_PATH"));
        d = dev_of(&f, "/class/block/loop0");
        CHECK_INT(run(&f, d, "path_id"), -ENOENT);
        fx_done(&f);
}

/* The transports of gen-sysfs.py --zoo; each value follows from the topology written there. */
static void test_path_id_zoo(void)
{
        static const struct {
                const char *dev, *path, *compat;
        } cases[] = {
                /* SAS: one phy straight to the HBA, behind an expander, on a wide port */
                {"/class/block/sdc", "pci-0000:03:00.0-sas-phy3-lun-0", NULL},
                {"/class/block/sdd", "pci-0000:03:00.0-sas-exp0x500605b0000272bf-phy5-lun-0", NULL},
                {"/class/block/sde", "pci-0000:03:00.0-sas-0x5000c50012345673-lun-0", NULL},
                {"/class/block/sdf", "ip-192.0.2.10:3260-iscsi-iqn.2024-01.org.example:storage-lun-0", NULL},
                /* LUN 16385 = 0x4001: the 64-bit LUN form */
                {"/class/block/sdg", "pci-0000:04:00.0-fc-0x50060e8007e2c000-lun-0x4001000000000000", NULL},
                {"/class/block/sdh", "acpi-VMBUS:00-vmbus-f8b3781a1e824818a1c363d806ec15bb-lun-0", NULL},
                /* multipath: the controller's PCI position, not the virtual subsystem's */
                {"/class/block/nvme1n1", "pci-0000:05:00.0-nvme-1", NULL},
                {"/class/block/vda", "pci-0000:00:02.0", NULL},
                {"/class/block/sdi", "pci-0000:00:1f.2-ata-2.2.0", "pci-0000:00:1f.2-ata-2"},
                {"/class/block/sdj", "pci-0000:06:00.0-ieee1394-0x0001d20000123456:0:0", NULL},
                /* tape: the mode letter only right after "st"/"nst" */
                {"/class/scsi_tape/st0", "pci-0000:06:01.0-scsi-0:0:3:0", NULL},
                {"/class/scsi_tape/nst0a", "pci-0000:06:01.0-scsi-0:0:3:0", NULL},
                {"/class/scsi_tape/stl", "pci-0000:06:01.0-scsi-0:0:3:0-stl", NULL},
                {"/class/scsi_tape/nsta", "pci-0000:06:01.0-scsi-0:0:3:0-nsta", NULL},
                {"/class/block/cciss!c0d0", "pci-0000:07:00.0-cciss-disk0", NULL},
                {"/class/net/wlan0", "pci-0000:08:00.0-bcma-1", NULL},
                {"/class/tty/ttySC0", "platform-fe204000.spi-cs-1", NULL},
                {"/class/block/dasda", "ccw-0.0.0100", NULL},
                {"/class/misc/zcrypt0", "ap-00.0005", NULL},
                {"/class/tty/hvc1", "xen-console-0", NULL},
        };
        struct fx f;
        fx_init_args(&f, "--zoo");
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct device *d = dev_of(&f, cases[i].dev);
                int r = run(&f, d, "path_id");
                if (r < 0 || !streq_ptr(PROP(d, "ID_PATH"), cases[i].path))
                        fprintf(stderr, "%s: r=%d ID_PATH=%s\n", cases[i].dev, r, strna(PROP(d, "ID_PATH")));
                CHECK_INT(r, 0);
                CHECK_STR(PROP(d, "ID_PATH"), cases[i].path);
                CHECK(streq_ptr(PROP(d, "ID_PATH_ATA_COMPAT"), cases[i].compat));
        }
        /* no path: an MMC card has no known transport, a Xen disk neither, an NVMe partition
         * has no namespace id of its own */
        static const char *const none[] = {"/class/block/mmcblk0", "/class/block/xvda", "/class/block/nvme1n1p1"};
        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                struct device *d = dev_of(&f, none[i]);
                CHECK_INT(run(&f, d, "path_id"), -ENOENT);
                CHECK(!PROP(d, "ID_PATH"));
        }
        fx_done(&f);
}

static void test_usb_id(void)
{
        struct fx f;
        fx_init(&f);
        struct device *d;

        /* mass storage (SCSI command set): the disk's own vendor and model */
        d = dev_of(&f, "/class/block/sdb");
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_BUS"), "usb");
        CHECK_STR(PROP(d, "ID_VENDOR"), "SanDisk");
        CHECK_STR(PROP(d, "ID_VENDOR_ENC"), "SanDisk\\x20");
        CHECK_STR(PROP(d, "ID_MODEL"), "Cruzer_Blade");
        CHECK_STR(PROP(d, "ID_MODEL_ENC"), "Cruzer\\x20Blade\\x20\\x20\\x20\\x20");
        CHECK_STR(PROP(d, "ID_VENDOR_ID"), "0781");
        CHECK_STR(PROP(d, "ID_MODEL_ID"), "5567");
        CHECK_STR(PROP(d, "ID_REVISION"), "1.00");
        CHECK_STR(PROP(d, "ID_SERIAL"), "SanDisk_Cruzer_Blade_4C530001230817116382-0:0");
        CHECK_STR(PROP(d, "ID_SERIAL_SHORT"), "4C530001230817116382");
        CHECK_STR(PROP(d, "ID_TYPE"), "disk");
        CHECK_STR(PROP(d, "ID_INSTANCE"), "0:0");
        CHECK_STR(PROP(d, "ID_USB_INTERFACES"), ":080650:");
        CHECK_STR(PROP(d, "ID_USB_INTERFACE_NUM"), "00");
        CHECK_STR(PROP(d, "ID_USB_DRIVER"), "usb-storage");
        CHECK_STR(PROP(d, "ID_USB_SERIAL"), "SanDisk_Cruzer_Blade_4C530001230817116382-0:0");
        CHECK_STR(PROP(d, "ID_USB_TYPE"), "disk");

        /* HID: the USB strings, no serial */
        d = dev_of(&f, "/class/input/event6");
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR"), "Logitech");
        CHECK_STR(PROP(d, "ID_MODEL"), "USB_Optical_Mouse");
        CHECK_STR(PROP(d, "ID_MODEL_ENC"), "USB\\x20Optical\\x20Mouse");
        CHECK_STR(PROP(d, "ID_SERIAL"), "Logitech_USB_Optical_Mouse");
        CHECK(!PROP(d, "ID_SERIAL_SHORT"));
        CHECK_STR(PROP(d, "ID_REVISION"), "7200");
        CHECK_STR(PROP(d, "ID_TYPE"), "hid");
        CHECK_STR(PROP(d, "ID_USB_INTERFACES"), ":030102:");
        CHECK_STR(PROP(d, "ID_USB_DRIVER"), "usbhid");

        /* the interface's bind event is still queued (a ttyUSB made by the probe comes first):
         * the model knows no driver yet, sysfs does */
        d = dev_of(&f, "/class/input/event6");
        CHECK_INT(device_set_driver(builtin_find_parent(d, "usb", "usb_interface"), NULL), 0);
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_USB_DRIVER"), "usbhid");

        /* a non-ASCII manufacturer: kept in ID_VENDOR (valid UTF-8), raw in _ENC */
        d = dev_of(&f, "/class/input/event8");
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR"), "\xc2\xa9Microsoft_Corporation");
        CHECK_STR(PROP(d, "ID_VENDOR_ENC"), "\xc2\xa9Microsoft\\x20Corporation");
        CHECK_STR(PROP(d, "ID_SERIAL"), "\xc2\xa9Microsoft_Corporation_Controller_1C8A2B3");
        CHECK_STR(PROP(d, "ID_TYPE"), "generic");

        /* the USB device itself */
        d = dev_of(&f, "/bus/usb/devices/3-2");
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_MODEL"), "AX88772B");
        CHECK_STR(PROP(d, "ID_VENDOR"), "ASIX_Elec._Corp.");
        CHECK_STR(PROP(d, "ID_SERIAL"), "ASIX_Elec._Corp._AX88772B_000001");
        CHECK_STR(PROP(d, "ID_USB_INTERFACES"), ":ff0000:");
        CHECK(!PROP(d, "ID_TYPE"));
        CHECK(!PROP(d, "ID_USB_INTERFACE_NUM"));

        /* another identification came first: only the ID_USB_* set */
        d = dev_of(&f, "/class/net/eth1");
        CHECK_INT(props_set(&d->props, "ID_BUS", "pci", PROP_DB), 0);
        CHECK_INT(run(&f, d, "usb_id"), 0);
        CHECK_STR(PROP(d, "ID_BUS"), "pci");
        CHECK(!PROP(d, "ID_MODEL"));
        CHECK_STR(PROP(d, "ID_USB_MODEL"), "AX88772B");
        CHECK_STR(PROP(d, "ID_USB_SERIAL_SHORT"), "000001");
        CHECK_STR(PROP(d, "ID_USB_DRIVER"), "asix");

        /* not on USB */
        d = dev_of(&f, "/class/block/sda");
        CHECK(run(&f, d, "usb_id") < 0);
        CHECK(!PROP(d, "ID_BUS"));
        fx_done(&f);
}

static void test_bitmap(void)
{
        unsigned long w[4];
        input_parse_bitmap("1f 0 fffffffe\n", w, 4);
        CHECK(w[0] == 0xfffffffeUL && w[1] == 0 && w[2] == 0x1f && w[3] == 0);
        input_parse_bitmap("0", w, 4);
        CHECK(w[0] == 0 && w[1] == 0);
        /* a word that does not parse keeps its place */
        input_parse_bitmap("3 zz 5", w, 4);
        CHECK(w[0] == 5 && w[1] == 0 && w[2] == 3);
        /* more words than room: the high ones are dropped */
        input_parse_bitmap("9 8 7 6 5", w, 2);
        CHECK(w[0] == 5 && w[1] == 6);
        input_parse_bitmap("", w, 4);
        CHECK(w[0] == 0);
}

static void set(unsigned long *words, unsigned bit)
{
        words[bit / INPUT_BITS_PER_LONG] |= 1UL << (bit % INPUT_BITS_PER_LONG);
}

static void test_classify(void)
{
        struct input_caps c;

        /* a mouse on I2C is a pointing stick */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.ev, EV_REL), set(c.rel, REL_X), set(c.rel, REL_Y), set(c.key, BTN_LEFT);
        CHECK_INT(input_classify(&c), INPUT_MOUSE);
        c.bustype = BUS_I2C;
        CHECK_INT(input_classify(&c), INPUT_MOUSE | INPUT_POINTINGSTICK);

        /* a mouse whose buttons run into the joystick range is still only a mouse */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.ev, EV_REL), set(c.rel, REL_X), set(c.rel, REL_Y);
        for (unsigned b = BTN_MOUSE; b <= BTN_JOYSTICK + 2; b++)
                set(c.key, b);
        CHECK_INT(input_classify(&c), INPUT_MOUSE);

        /* a scroll wheel alone counts as keys */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_REL), set(c.rel, REL_WHEEL);
        CHECK_INT(input_classify(&c), INPUT_KEY);

        /* pen tablet with pad buttons (BTN_0 + stylus, no pen tool) */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.ev, EV_ABS), set(c.abs, ABS_X), set(c.abs, ABS_Y);
        set(c.key, BTN_STYLUS), set(c.key, BTN_0);
        CHECK_INT(input_classify(&c), INPUT_TABLET | INPUT_TABLET_PAD);

        /* three absolute axes without keys: an accelerometer, nothing else is tested */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_ABS), set(c.ev, EV_SW), set(c.abs, ABS_X), set(c.abs, ABS_Y), set(c.abs, ABS_Z);
        CHECK_INT(input_classify(&c), INPUT_ACCELEROMETER | INPUT_SWITCH);

        /* direct-touch multi-touch: a touchscreen even with a finger tool */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.ev, EV_ABS), set(c.abs, ABS_MT_POSITION_X), set(c.abs, ABS_MT_POSITION_Y);
        set(c.key, BTN_TOOL_FINGER), set(c.props, INPUT_PROP_DIRECT);
        CHECK_INT(input_classify(&c), INPUT_TOUCHSCREEN);
        /* ... but not when it claims every axis (MT_SLOT and the one below it) */
        set(c.abs, ABS_MT_SLOT), set(c.abs, ABS_MT_SLOT - 1);
        CHECK_INT(input_classify(&c), 0);

        /* an absolute mouse on I2C stays a mouse (only relative ones are pointing sticks) */
        memset(&c, 0, sizeof(c));
        c.bustype = BUS_I2C;
        set(c.ev, EV_KEY), set(c.ev, EV_ABS), set(c.abs, ABS_X), set(c.abs, ABS_Y), set(c.key, BTN_LEFT);
        CHECK_INT(input_classify(&c), INPUT_MOUSE);

        /* a single joystick button or axis is no joystick; two are */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.key, BTN_TRIGGER);
        CHECK_INT(input_classify(&c), 0);
        set(c.key, BTN_THUMB);
        CHECK_INT(input_classify(&c), INPUT_JOYSTICK);
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_ABS), set(c.abs, ABS_RUDDER);
        CHECK_INT(input_classify(&c), 0);
        set(c.abs, ABS_THROTTLE);
        CHECK_INT(input_classify(&c), INPUT_JOYSTICK);
        /* ... and a keyboard (four well-known keys) with joystick buttons is a keyboard */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.key, BTN_TRIGGER), set(c.key, BTN_THUMB);
        set(c.key, KEY_LEFTCTRL), set(c.key, KEY_CAPSLOCK), set(c.key, KEY_MUTE);
        CHECK_INT(input_classify(&c), INPUT_JOYSTICK | INPUT_KEY);
        set(c.key, KEY_MAIL);
        CHECK_INT(input_classify(&c), INPUT_KEY);

        /* keys only in the high block (KEY_OK and up) */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.key, KEY_OK);
        CHECK_INT(input_classify(&c), INPUT_KEY);
        /* buttons only: no keys */
        memset(&c, 0, sizeof(c));
        set(c.ev, EV_KEY), set(c.key, BTN_MISC);
        CHECK_INT(input_classify(&c), 0);
}

static void test_axis_size(void)
{
        /* a 100 mm touchpad axis at 42 units/mm: 1 .. 4201 */
        struct input_absinfo a = {.minimum = 1, .maximum = 4201, .resolution = 42};
        CHECK_INT(input_axis_size_mm(&a), 100);
        /* integer division, as the reference */
        a = (struct input_absinfo){.minimum = -1000, .maximum = 1000, .resolution = 30};
        CHECK_INT(input_axis_size_mm(&a), 66);
        a.resolution = 0;
        CHECK_INT(input_axis_size_mm(&a), -EINVAL);
        a.resolution = -3;
        CHECK_INT(input_axis_size_mm(&a), -EINVAL);
}

static void test_input_id(void)
{
        static const struct {
                const char *name;
                unsigned flags;
        } kinds[] = {
                {"event0", INPUT_KEY | INPUT_KEYBOARD},
                {"event1", INPUT_TOUCHPAD},
                {"mouse0", INPUT_TOUCHPAD},
                {"event2", INPUT_MOUSE | INPUT_POINTINGSTICK},
                {"event3", INPUT_SWITCH},
                {"event4", INPUT_ACCELEROMETER},
                {"event5", INPUT_TOUCHSCREEN},
                {"event6", INPUT_MOUSE},
                {"event7", INPUT_TABLET},
                {"event8", INPUT_JOYSTICK},
                {"js0", INPUT_JOYSTICK},
                {"event9", 0}, /* the PC speaker: sounds only, ID_INPUT alone as in the reference */
        };
        static const struct {
                unsigned flag;
                const char *key;
        } keys[] = {
                {INPUT_KEY, "ID_INPUT_KEY"},
                {INPUT_KEYBOARD, "ID_INPUT_KEYBOARD"},
                {INPUT_MOUSE, "ID_INPUT_MOUSE"},
                {INPUT_TOUCHPAD, "ID_INPUT_TOUCHPAD"},
                {INPUT_TOUCHSCREEN, "ID_INPUT_TOUCHSCREEN"},
                {INPUT_TABLET, "ID_INPUT_TABLET"},
                {INPUT_TABLET_PAD, "ID_INPUT_TABLET_PAD"},
                {INPUT_JOYSTICK, "ID_INPUT_JOYSTICK"},
                {INPUT_ACCELEROMETER, "ID_INPUT_ACCELEROMETER"},
                {INPUT_POINTINGSTICK, "ID_INPUT_POINTINGSTICK"},
                {INPUT_SWITCH, "ID_INPUT_SWITCH"},
        };
        struct fx f;
        fx_init(&f);

        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                char path[64];
                snprintf(path, sizeof(path), "/class/input/%s", kinds[i].name);
                struct device *d = dev_of(&f, path);
                CHECK_INT(run(&f, d, "input_id"), 0);
                CHECK_STR(PROP(d, "ID_INPUT"), "1");
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        bool want = kinds[i].flags & keys[k].flag;
                        const char *v = PROP(d, keys[k].key);
                        if (want != (v != NULL))
                                fprintf(stderr, "%s: %s %s\n", kinds[i].name, keys[k].key, want ? "missing" : "unexpected");
                        CHECK(want == (v != NULL));
                        CHECK(!v || streq(v, "1"));
                }
                /* no readable event node in the fixture: no size */
                CHECK(!PROP(d, "ID_INPUT_WIDTH_MM"));
        }
        /* not an input device: nothing, and no failure */
        struct device *d = dev_of(&f, "/class/block/sda");
        CHECK_INT(run(&f, d, "input_id"), 0);
        CHECK(!PROP(d, "ID_INPUT"));
        fx_done(&f);
}

static const char test_hwdb_src[] =
        "usb:v0781p5567*\n"
        " ID_VENDOR_FROM_DATABASE=SanDisk Corp.\n"
        " ID_MODEL_FROM_DATABASE=Cruzer Blade\n"
        "\n"
        "usb:v046DpC077*\n"
        " ID_VENDOR_FROM_DATABASE=Logitech, Inc.\n"
        "\n"
        "pci:v00008086d00002934*\n"
        " ID_MODEL_FROM_DATABASE=82801I UHCI\n"
        "\n"
        "evdev:input:b0011v0001p0001*\n"
        " KEYBOARD_KEY_a0=mute\n"
        " EVDEV_ABS_00=::42\n"
        "\n"
        "usb:v0B95p772B*\n"
        " ID_VENDOR_FROM_DATABASE=ASIX Electronics Corp.\n"
        "\n"
        "serio:ty06*\n"
        " SERIO_KIND=keyboard\n";

/* Makes the test database the hwdb builtin's; returns the handle (owned by the builtin). */
static struct hwdb *use_test_hwdb(struct fx *f)
{
        char *src = NULL, *bin = NULL;
        if (asprintf(&src, "%s/test.hwdb", f->tmp) < 0 || asprintf(&bin, "%s/hwdb.bin", f->tmp) < 0)
                abort();
        FILE *fp = fopen(src, "w");
        if (!fp)
                abort();
        fputs(test_hwdb_src, fp);
        fclose(fp);
        struct hwdb_compiler *c = hwdb_compiler_new();
        CHECK(c);
        CHECK_INT(hwdb_compiler_add_file(c, src, "test.hwdb", 1), 0);
        CHECK_INT(hwdb_compiler_write(c, bin), 0);
        hwdb_compiler_free(c);
        struct hwdb *h = NULL;
        CHECK_INT(hwdb_open(NULL, bin, &h), 0);
        CHECK_INT(builtin_hwdb_use(&f->ctx, h), 0);
        free(src);
        free(bin);
        return h;
}

static void test_hwdb(void)
{
        struct fx f;
        fx_init(&f);
        use_test_hwdb(&f);
        struct device *d;

        /* the USB device has no MODALIAS: "usb:v0781p5567:Cruzer Blade" is composed */
        d = dev_of(&f, "/bus/usb/devices/3-1");
        CHECK_INT(run(&f, d, "hwdb"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "SanDisk Corp.");
        CHECK_STR(PROP(d, "ID_MODEL_FROM_DATABASE"), "Cruzer Blade");

        /* from the disk up: the interface's modalias (usb:v0781p5567d0100…) matches first */
        d = dev_of(&f, "/class/block/sdb");
        CHECK_INT(run(&f, d, "hwdb --subsystem=usb"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "SanDisk Corp.");
        /* --filter keeps only matching keys */
        d = dev_of(&f, "/class/block/sdb");
        CHECK_INT(run(&f, d, "hwdb --subsystem=usb --filter=ID_MODEL*"), 0);
        CHECK(!PROP(d, "ID_VENDOR_FROM_DATABASE"));
        CHECK_STR(PROP(d, "ID_MODEL_FROM_DATABASE"), "Cruzer Blade");
        /* no pci device with an entry above the stick: nothing found is an error */
        d = dev_of(&f, "/class/block/sdb");
        CHECK_INT(run(&f, d, "hwdb --subsystem=pci"), -ENODATA);

        /* a USB host controller's parent chain: the UHCI controller has an entry */
        d = dev_of(&f, "/bus/usb/devices/usb1");
        CHECK_INT(run(&f, d, "hwdb --subsystem=pci"), 0);
        CHECK_STR(PROP(d, "ID_MODEL_FROM_DATABASE"), "82801I UHCI");

        /* a USB device ends the walk: the hub (4-1) above the mouse is not asked, and the mouse
         * interface's modalias matches */
        d = dev_of(&f, "/class/input/event6");
        CHECK_INT(run(&f, d, "hwdb --subsystem=usb"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "Logitech, Inc.");

        /* a key given as argument, with and without a prefix */
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb 'usb:v046DpC077d0000'"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "Logitech, Inc.");
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb --lookup-prefix=evdev: input:b0011v0001p0001e0000"), 0);
        CHECK_STR(PROP(d, "KEYBOARD_KEY_a0"), "mute");
        CHECK_STR(PROP(d, "EVDEV_ABS_00"), "::42");
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb nothing:here"), -ENODATA);

        /* the keyboard's input device has MODALIAS input:b0011v0001p0001…: with the evdev
         * prefix the walk from event0 finds it */
        d = dev_of(&f, "/class/input/event0");
        CHECK_INT(run(&f, d, "hwdb --subsystem=input --lookup-prefix=evdev:"), 0);
        CHECK_STR(PROP(d, "KEYBOARD_KEY_a0"), "mute");
        /* walking past the input devices to the serio port */
        d = dev_of(&f, "/class/input/event0");
        CHECK_INT(run(&f, d, "hwdb --subsystem=serio"), 0);
        CHECK_STR(PROP(d, "SERIO_KIND"), "keyboard");
        /* --device: read another device's modalias, store on this one */
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb --device=+serio:serio0"), 0);
        CHECK_STR(PROP(d, "SERIO_KIND"), "keyboard");
        d = dev_of(&f, "/class/mem/null");
        CHECK(run(&f, d, "hwdb --device=+serio:nosuch") < 0);
        /* by device number (event0 is c13:64, its input parent has the evdev entry) and by
         * interface index (eth1 is 3, on the ASIX adapter) */
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb --device=c13:64 --subsystem=input --lookup-prefix=evdev:"), 0);
        CHECK_STR(PROP(d, "EVDEV_ABS_00"), "::42");
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb --device=n3 --subsystem=usb"), 0);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "ASIX Electronics Corp.");
        CHECK_INT(run(&f, d, "hwdb --device=n99"), -ENODEV);
        CHECK_INT(run(&f, d, "hwdb --device=x1"), -EINVAL);
        /* bad options */
        CHECK_INT(run(&f, d, "hwdb --bogus"), -EINVAL);
        CHECK_INT(run(&f, d, "hwdb --subsystem"), -EINVAL);
        fx_done(&f);
}

/* Lookups share the database's block cache; the daemon's idle trim (builtin_trim_all) gives it
 * back, and the next lookup reads the file again with the same result. */
static void test_hwdb_trim(void)
{
        struct fx f;
        fx_init(&f);
        struct hwdb *h = use_test_hwdb(&f);
        struct device *d = dev_of(&f, "/class/mem/null");

        CHECK_INT(run(&f, d, "hwdb 'usb:v046DpC077d0000'"), 0);
        uint64_t warm = hwdb_blocks_read(h);
        CHECK(warm > 0);
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb 'usb:v046DpC077d0000'"), 0);
        CHECK(hwdb_blocks_read(h) == warm);
        builtin_trim_all(&f.ctx);
        d = dev_of(&f, "/class/mem/null");
        CHECK_INT(run(&f, d, "hwdb 'usb:v046DpC077d0000'"), 0);
        CHECK(hwdb_blocks_read(h) > warm);
        CHECK_STR(PROP(d, "ID_VENDOR_FROM_DATABASE"), "Logitech, Inc.");
        fx_done(&f);
}

static void test_keyboard_parse(void)
{
        unsigned code;
        CHECK_INT(keyboard_keycode_from_name("mute", &code), 0);
        CHECK_INT(code, KEY_MUTE);
        CHECK_INT(keyboard_keycode_from_name("f13", &code), 0);
        CHECK_INT(code, KEY_F13);
        CHECK_INT(keyboard_keycode_from_name("brightnessdown", &code), 0);
        CHECK_INT(code, KEY_BRIGHTNESSDOWN);
        CHECK_INT(keyboard_keycode_from_name("113", &code), 0);
        CHECK_INT(code, 113);
        CHECK_INT(keyboard_keycode_from_name("0x71", &code), 0);
        CHECK_INT(code, 0x71);
        CHECK_INT(keyboard_keycode_from_name("MUTE", &code), -EINVAL); /* names are lower case */
        CHECK_INT(keyboard_keycode_from_name("left", &code), 0);      /* KEY_LEFT, not BTN_LEFT */
        CHECK_INT(code, KEY_LEFT);
        CHECK_INT(keyboard_keycode_from_name("max", &code), -EINVAL);
        CHECK_INT(keyboard_keycode_from_name("nosuchkey", &code), -EINVAL);
        CHECK_INT(keyboard_keycode_from_name("", &code), -EINVAL);

        struct keyboard_keymap m;
        unsigned arg[2];
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_a0", "mute", &m), 0);
        CHECK(m.map && !m.force_release);
        keyboard_keycode_arg(&m, arg);
        CHECK_INT(arg[0], 0xa0);
        CHECK_INT(arg[1], KEY_MUTE);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_e058", "!volumeup", &m), 0);
        CHECK(m.map && m.force_release);
        CHECK_INT(m.scancode, 0xe058);
        CHECK_INT(m.keycode, KEY_VOLUMEUP);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_90001", "!", &m), 0);
        CHECK(!m.map && m.force_release);
        CHECK_INT(m.scancode, 0x90001);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_zz", "mute", &m), -EINVAL);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_", "mute", &m), -EINVAL);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_-1", "mute", &m), -EINVAL);
        CHECK_INT(keyboard_parse_keymap("KEYBOARD_KEY_10", "!bogus", &m), -ENOKEY);
        CHECK(!m.map && m.force_release);

        CHECK_INT(keyboard_parse_abs_code("EVDEV_ABS_35", &code), 0);
        CHECK_INT(code, 0x35);
        CHECK(keyboard_parse_abs_code("EVDEV_ABS_x", &code) < 0);

        struct input_absinfo a = {.minimum = 1, .maximum = 2, .resolution = 3, .fuzz = 4, .flat = 5};
        CHECK_INT(keyboard_parse_abs_override("10:20", &a), 0);
        CHECK(a.minimum == 10 && a.maximum == 20 && a.resolution == 3 && a.fuzz == 4 && a.flat == 5);
        CHECK_INT(keyboard_parse_abs_override("::40::0x10", &a), 0);
        CHECK(a.minimum == 10 && a.maximum == 20 && a.resolution == 40 && a.fuzz == 4 && a.flat == 16);
        CHECK_INT(keyboard_parse_abs_override("-5:1:2:3:4", &a), 0);
        CHECK(a.minimum == -5 && a.flat == 4);
        CHECK_INT(keyboard_parse_abs_override("1:x", &a), -EINVAL);

        char *s = NULL;
        unsigned codes[] = {0xa0, 160, 7};
        CHECK_INT(keyboard_force_release_value("369-370", codes, 3, &s), 0);
        CHECK_STR(s, "369-370,160,160,7");
        free(s);
        CHECK_INT(keyboard_force_release_value("", codes, 1, &s), 0);
        CHECK_STR(s, ",160");
        free(s);

        int v;
        CHECK_INT(keyboard_parse_sensitivity("200", &v), 0);
        CHECK_INT(v, 200);
        CHECK_INT(keyboard_parse_sensitivity("256", &v), -ERANGE);
        CHECK_INT(keyboard_parse_sensitivity("-1", &v), -ERANGE);
        CHECK_INT(keyboard_parse_sensitivity("x", &v), -EINVAL);
}

static void test_keyboard_sysfs(void)
{
        struct fx f;
        fx_init(&f);
        char *serio0 = NULL, *serio2 = NULL;
        if (asprintf(&serio0, "%s/devices/platform/i8042/serio0", f.sys) < 0 ||
            asprintf(&serio2, "%s/devices/platform/i8042/serio1/serio2", f.sys) < 0)
                abort();
        char *s;

        /* force release only ('!' without a key): no device node needed */
        struct device *d = dev_of(&f, "/class/input/event0");
        CHECK_INT(props_set(&d->props, "KEYBOARD_KEY_a0", "!", PROP_DB), 0);
        CHECK_INT(props_set(&d->props, "KEYBOARD_KEY_ae", "!", PROP_DB), 0);
        /* test mode writes nothing */
        CHECK_INT(builtin_run(builtin_lookup("keyboard"), &f.ctx, d, "keyboard", true), 0);
        CHECK_STR(s = read_file(serio0, "force_release"), "369-370");
        free(s);
        CHECK_INT(run(&f, d, "keyboard"), 0);
        CHECK_STR(s = read_file(serio0, "force_release"), "369-370,160,174");
        free(s);

        /* TrackPoint sensitivity goes to its serio port; out of range is not written */
        d = dev_of(&f, "/class/input/event2");
        CHECK_INT(props_set(&d->props, "POINTINGSTICK_SENSITIVITY", "300", PROP_DB), 0);
        CHECK_INT(run(&f, d, "keyboard"), 0);
        CHECK_STR(s = read_file(serio2, "sensitivity"), "128");
        free(s);
        CHECK_INT(props_set(&d->props, "POINTINGSTICK_SENSITIVITY", "200", PROP_DB), 0);
        CHECK_INT(run(&f, d, "keyboard"), 0);
        CHECK_STR(s = read_file(serio2, "sensitivity"), "200");
        free(s);

        /* a key remap needs the event node: none here, so the builtin fails */
        d = dev_of(&f, "/class/input/event0");
        CHECK_INT(props_set(&d->props, "KEYBOARD_KEY_a0", "mute", PROP_DB), 0);
        CHECK(run(&f, d, "keyboard") < 0);
        /* nothing to do is success */
        d = dev_of(&f, "/class/input/event5");
        CHECK_INT(run(&f, d, "keyboard"), 0);
        free(serio0);
        free(serio2);
        fx_done(&f);
}

TEST_MAIN(TEST(test_table), TEST(test_path_id), TEST(test_path_id_zoo), TEST(test_usb_id), TEST(test_bitmap), TEST(test_classify), TEST(test_axis_size),
          TEST(test_input_id), TEST(test_hwdb), TEST(test_hwdb_trim), TEST(test_keyboard_parse), TEST(test_keyboard_sysfs))
