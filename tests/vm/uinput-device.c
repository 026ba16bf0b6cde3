/* uinput-device: creates a virtual keyboard+mouse through uinput (libevdev), prints its
 * syspath and event node, waits until SIGTERM/SIGINT (or --seconds), then destroys it.
 * Used in the vm suite's guest to hot-plug an input device that libinput must see.
 *
 *   uinput-device [--name NAME] [--uinput PATH] [--seconds N]
 * Exit status: 0 when the device was created and destroyed, 1 on error. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macros.h"

static void libevdev_freep(struct libevdev **p) {
        if (*p)
                libevdev_free(*p);
}

static void libevdev_uinput_destroyp(struct libevdev_uinput **p) {
        if (*p)
                libevdev_uinput_destroy(*p);
}

static int parse_seconds(const char *s, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v > 3600)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

/* Keys and relative axes of a keyboard with a wheel mouse. */
static int enable_capabilities(struct libevdev *dev) {
        static const unsigned keys[] = { KEY_ESC, KEY_1, KEY_2, KEY_A, KEY_B, KEY_C, KEY_Q, KEY_W,
                                         KEY_E, KEY_ENTER, KEY_SPACE, KEY_LEFTSHIFT, KEY_LEFTCTRL,
                                         BTN_LEFT, BTN_RIGHT, BTN_MIDDLE };
        static const unsigned rels[] = { REL_X, REL_Y, REL_WHEEL };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                r = libevdev_enable_event_code(dev, EV_KEY, keys[i], NULL);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(rels); i++) {
                r = libevdev_enable_event_code(dev, EV_REL, rels[i], NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "name", required_argument, NULL, 'n' },
                { "uinput", required_argument, NULL, 'u' },
                { "seconds", required_argument, NULL, 's' },
                {}
        };
        const char *name = "devman-vm-uinput", *uinput_path = "/dev/uinput";
        unsigned seconds = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                switch (c) {
                case 'n':
                        name = optarg;
                        break;
                case 'u':
                        uinput_path = optarg;
                        break;
                case 's':
                        if (parse_seconds(optarg, &seconds) < 0) {
                                fprintf(stderr, "uinput-device: bad --seconds '%s'\n", optarg);
                                return 1;
                        }
                        break;
                default:
                        return 1;
                }
        }

        /* Block the signals we wait for before the device exists, so none is lost. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGALRM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
                fprintf(stderr, "uinput-device: sigprocmask: %m\n");
                return 1;
        }

        _cleanup_close_ int fd = open(uinput_path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "uinput-device: open %s: %m\n", uinput_path);
                return 1;
        }

        _cleanup_(libevdev_freep) struct libevdev *dev = libevdev_new();
        if (!dev) {
                fprintf(stderr, "uinput-device: out of memory\n");
                return 1;
        }
        libevdev_set_name(dev, name);
        libevdev_set_id_bustype(dev, BUS_VIRTUAL);
        libevdev_set_id_vendor(dev, 0x1d6b);
        libevdev_set_id_product(dev, 0x0104);
        libevdev_set_id_version(dev, 1);

        int r = enable_capabilities(dev);
        if (r < 0) {
                fprintf(stderr, "uinput-device: cannot enable event codes: %s\n", strerror(-r));
                return 1;
        }
        /* Destroyed (the device removed) before dev and fd go, by the reverse order of cleanup. */
        _cleanup_(libevdev_uinput_destroyp) struct libevdev_uinput *uidev = NULL;
        r = libevdev_uinput_create_from_device(dev, fd, &uidev);
        if (r < 0) {
                fprintf(stderr, "uinput-device: create: %s\n", strerror(-r));
                return 1;
        }
        printf("syspath=%s\ndevnode=%s\n", libevdev_uinput_get_syspath(uidev) ?: "",
               libevdev_uinput_get_devnode(uidev) ?: "");
        fflush(stdout);

        if (seconds > 0)
                alarm(seconds);
        int sig;
        if (sigwait(&mask, &sig) != 0) {
                fprintf(stderr, "uinput-device: sigwait failed\n");
                return 1;
        }
        return 0;
}
