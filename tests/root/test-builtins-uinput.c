/* SPDX-License-Identifier: MIT */
/*
 * input_id and keyboard on real evdev devices made with uinput (root, a kernel with uinput:
 * the VM suite; exits 77 elsewhere). A touchpad with known axis ranges and resolutions must
 * be classified and measured (ID_INPUT_WIDTH_MM/HEIGHT_MM from the event node), and an
 * EVDEV_ABS_ override must reach the kernel (EVIOCGABS reads it back). With
 * DEVMAN_TEST_HID_KEYBOARD=1 (the VM, which has QEMU's USB keyboard) a KEYBOARD_KEY_ remap must
 * reach a real HID keyboard (EVIOCGKEYCODE reads it back).
 */
#include <dirent.h>
#include <fcntl.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <sys/ioctl.h>

#include "builtin.h"
#include "model.h"
#include "test-util.h"

static bool skip;

struct udev_input {
        struct libevdev *evdev;
        struct libevdev_uinput *uidev;
        char *event_devpath; /* /devices/virtual/input/inputN/eventM */
};

static int make_touchpad(struct udev_input *u)
{
        struct input_absinfo x = {.minimum = 0, .maximum = 4000, .resolution = 40};
        struct input_absinfo y = {.minimum = 0, .maximum = 2000, .resolution = 40};

        memset(u, 0, sizeof(*u));
        u->evdev = libevdev_new();
        if (!u->evdev)
                return -ENOMEM;
        libevdev_set_name(u->evdev, "devman test touchpad");
        libevdev_enable_event_code(u->evdev, EV_KEY, BTN_LEFT, NULL);
        libevdev_enable_event_code(u->evdev, EV_KEY, BTN_TOOL_FINGER, NULL);
        libevdev_enable_event_code(u->evdev, EV_KEY, BTN_TOUCH, NULL);
        libevdev_enable_event_code(u->evdev, EV_ABS, ABS_X, &x);
        libevdev_enable_event_code(u->evdev, EV_ABS, ABS_Y, &y);
        int r = libevdev_uinput_create_from_device(u->evdev, LIBEVDEV_UINPUT_OPEN_MANAGED, &u->uidev);
        if (r < 0)
                return r;

        /* the event node's sysfs directory: inputN/eventM */
        const char *syspath = libevdev_uinput_get_syspath(u->uidev);
        const char *devnode = libevdev_uinput_get_devnode(u->uidev);
        if (!syspath || !devnode || !startswith(syspath, "/sys"))
                return -ENODEV;
        const char *name = strrchr(devnode, '/');
        if (asprintf(&u->event_devpath, "%s/%s", syspath + 4, name + 1) < 0)
                return -ENOMEM;
        return 0;
}

static void free_input(struct udev_input *u)
{
        if (u->uidev)
                libevdev_uinput_destroy(u->uidev);
        libevdev_free(u->evdev);
        free(u->event_devpath);
}

static void test_touchpad(void)
{
        struct udev_input u;
        struct model *m = NULL;
        struct device *d = NULL;
        struct builtin_ctx ctx = {.sysfs_root = "/sys"};

        if (access("/dev/uinput", W_OK) < 0 || geteuid() != 0) {
                skip = true;
                return;
        }
        int r = make_touchpad(&u);
        if (r < 0) {
                fprintf(stderr, "cannot create a uinput device: %s\n", strerror(-r));
                skip = true;
                free_input(&u);
                return;
        }
        CHECK_INT(model_new("/sys", &m), 0);
        CHECK_INT(model_resolve(m, u.event_devpath, &d), 0);
        CHECK(d != NULL);
        if (!d)
                goto out;

        /* 4000 units at 40 units/mm by 2000 units at 40 units/mm */
        CHECK_INT(builtin_run(builtin_lookup("input_id"), &ctx, d, "input_id", false), 0);
        CHECK_STR(device_get_property(d, "ID_INPUT"), "1");
        CHECK_STR(device_get_property(d, "ID_INPUT_TOUCHPAD"), "1");
        CHECK(!device_get_property(d, "ID_INPUT_MOUSE"));
        CHECK_STR(device_get_property(d, "ID_INPUT_WIDTH_MM"), "100");
        CHECK_STR(device_get_property(d, "ID_INPUT_HEIGHT_MM"), "50");

        /* EVDEV_ABS_00 (ABS_X): new resolution 80, fuzz 2, the range kept */
        CHECK_INT(props_set(&d->props, "EVDEV_ABS_00", "::80:2", PROP_DB), 0);
        CHECK_INT(builtin_run(builtin_lookup("keyboard"), &ctx, d, "keyboard", false), 0);
        int fd = open(libevdev_uinput_get_devnode(u.uidev), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        CHECK(fd >= 0);
        if (fd >= 0) {
                struct input_absinfo a = {};
                CHECK_INT(ioctl(fd, EVIOCGABS(ABS_X), &a), 0);
                CHECK_INT(a.resolution, 80);
                CHECK_INT(a.fuzz, 2);
                CHECK_INT(a.minimum, 0);
                CHECK_INT(a.maximum, 4000);
                close(fd);
        }
        /* and input_id measures the new resolution: 4000 / 80 */
        device_clear_attrs(d);
        CHECK_INT(builtin_run(builtin_lookup("input_id"), &ctx, d, "input_id", false), 0);
        CHECK_STR(device_get_property(d, "ID_INPUT_WIDTH_MM"), "50");
out:
        builtin_exit_all(&ctx);
        model_free(m);
        free_input(&u);
}

/* The first event device whose input device's name has "Keyboard" and that is on USB (a HID
 * keyboard: its scancodes are HID usages). New devpath, or NULL. */
static char *find_hid_keyboard(void)
{
        DIR *dir = opendir("/sys/class/input");
        struct dirent *de;
        char *found = NULL;

        while (dir && !found && (de = readdir(dir))) {
                char path[512], buf[256] = "";
                if (!startswith(de->d_name, "event"))
                        continue;
                snprintf(path, sizeof(path), "/sys/class/input/%s/device/name", de->d_name);
                FILE *f = fopen(path, "re");
                if (!f)
                        continue;
                bool kbd = fgets(buf, sizeof(buf), f) && strstr(buf, "Keyboard");
                fclose(f);
                snprintf(path, sizeof(path), "/sys/class/input/%s/device/id/bustype", de->d_name);
                f = fopen(path, "re");
                if (!f)
                        continue;
                bool usb = fgets(buf, sizeof(buf), f) && strncmp(buf, "0003", 4) == 0;
                fclose(f);
                if (kbd && usb && asprintf(&found, "/class/input/%s", de->d_name) < 0)
                        found = NULL;
        }
        if (dir)
                closedir(dir);
        return found;
}

/* A scancode remap reaches a real HID keyboard: usage 0x70004 (the A key) becomes KEY_MUTE,
 * as the hwdb's KEYBOARD_KEY_70004=mute would ask. Only where a USB keyboard is expected
 * (DEVMAN_TEST_HID_KEYBOARD=1, the VM); the mapping is restored afterwards. */
static void test_hid_keyboard(void)
{
        if (!getenv("DEVMAN_TEST_HID_KEYBOARD"))
                return;
        char *devpath = find_hid_keyboard();
        CHECK(devpath != NULL);
        if (!devpath)
                return;
        struct model *m = NULL;
        struct device *d = NULL;
        struct builtin_ctx ctx = {.sysfs_root = "/sys"};
        CHECK_INT(model_new("/sys", &m), 0);
        CHECK_INT(model_resolve(m, devpath, &d), 0);
        if (d) {
                CHECK_INT(props_set(&d->props, "KEYBOARD_KEY_70004", "mute", PROP_DB), 0);
                CHECK_INT(builtin_run(builtin_lookup("keyboard"), &ctx, d, "keyboard", false), 0);
                const char *node = device_get_property(d, "DEVNAME");
                int fd = node ? open(node, O_RDWR | O_CLOEXEC | O_NONBLOCK) : -1;
                CHECK(fd >= 0);
                if (fd >= 0) {
                        unsigned map[2] = {0x70004, 0};
                        CHECK_INT(ioctl(fd, EVIOCGKEYCODE, map), 0);
                        CHECK_INT(map[1], KEY_MUTE);
                        unsigned back[2] = {0x70004, KEY_A};
                        CHECK_INT(ioctl(fd, EVIOCSKEYCODE, back), 0);
                        close(fd);
                }
        }
        builtin_exit_all(&ctx);
        model_free(m);
        free(devpath);
}

struct test_state test_state;

int main(int argc, char **argv)
{
        static const struct test_case cases[] = {TEST(test_touchpad), TEST(test_hid_keyboard)};
        int r = test_run(cases, ELEMENTSOF(cases), argc, argv);
        if (skip && test_state.failed_checks == 0) {
                printf("skipped: needs root and /dev/uinput\n");
                return 77;
        }
        return r;
}
