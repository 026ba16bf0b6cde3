/* SPDX-License-Identifier: MIT */
/*
 * input_id: the capability bitmaps live on the input device (inputN); event and mouse nodes
 * below it are classified by their parent's bitmaps. The rules are the reference's: a
 * device is a pointer of one kind (accelerometer, tablet, touchpad, touchscreen, joystick,
 * mouse, pointing stick) and/or key-like (ID_INPUT_KEY; ID_INPUT_KEYBOARD when it has the
 * whole first row of keys), and a switch when it reports EV_SW. Debian's 252 carries the
 * later joystick heuristics (at least two joystick buttons or axes, and not a keyboard) and
 * keeps absolute mice apart from relative ones; so does this file.
 */
#include "builtin-input_id.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <libevdev/libevdev.h>

#include "builtin-util.h"
#include "log.h"

static bool test_bit(unsigned bit, const unsigned long *words)
{
        return (words[bit / INPUT_BITS_PER_LONG] >> (bit % INPUT_BITS_PER_LONG)) & 1;
}

static bool parse_word(const char *s, uint64_t *ret)
{
        char *end;
        if (!*s || *s == '-' || *s == '+' || *s == ' ')
                return false;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 16);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

/* Sets the bits of v, a word of the given width, at bit offset `at` of words. */
static void put_word(unsigned long *words, size_t n, size_t at, uint64_t v, unsigned width)
{
        for (unsigned b = 0; b < width; b++) {
                size_t bit = at + b;
                if ((v >> b) & 1 && bit / INPUT_BITS_PER_LONG < n)
                        words[bit / INPUT_BITS_PER_LONG] |= 1UL << (bit % INPUT_BITS_PER_LONG);
        }
}

void input_parse_bitmap(const char *text, unsigned long *words, size_t n)
{
        memset(words, 0, n * sizeof(unsigned long));
        _cleanup_free_ char *copy = strdup(text);
        if (!copy)
                return;
        size_t len = strlen(copy);
        while (len > 0 && (copy[len - 1] == '\n' || copy[len - 1] == '\r'))
                copy[--len] = '\0';

        /* The kernel prints words of the reading program's long: a 64-bit kernel shows a 32-bit
         * program (armhf on arm64) 32-bit words, as the input core checks in_compat_syscall().
         * Only under qemu-user, which makes a 32-bit guest's reads a 64-bit process's, does a
         * 32-bit program see 64-bit words; a word of more than 8 digits then says that every
         * word is 64 bits wide (64-bit words that all happen to be short look like 32-bit ones
         * and are read as such). */
        unsigned width = INPUT_BITS_PER_LONG;
        for (const char *w = copy; *w;) {
                size_t k = strcspn(w, " ");
                if (k > 8)
                        width = 64;
                w += k;
                w += strspn(w, " ");
        }

        /* least significant word last: walk from the end */
        size_t i = 0;
        char *word;
        uint64_t v;
        while ((word = strrchr(copy, ' '))) {
                if (parse_word(word + 1, &v) && (width == 64 || v <= ULONG_MAX))
                        put_word(words, n, i * width, v, width);
                *word = '\0';
                i++;
        }
        if (parse_word(copy, &v) && (width == 64 || v <= ULONG_MAX))
                put_word(words, n, i * width, v, width);
}

/* Pointer-like devices; returns the INPUT_* flags found (0: not a pointer). */
static unsigned classify_pointer(const struct input_caps *c)
{
        bool has_keys = test_bit(EV_KEY, c->ev);
        bool has_abs = test_bit(ABS_X, c->abs) && test_bit(ABS_Y, c->abs);
        bool has_3d = has_abs && test_bit(ABS_Z, c->abs);

        /* three absolute axes and no keys: an accelerometer, whatever it claims */
        if (test_bit(INPUT_PROP_ACCELEROMETER, c->props) || (!has_keys && has_3d))
                return INPUT_ACCELEROMETER;

        bool is_pointing_stick = test_bit(INPUT_PROP_POINTING_STICK, c->props);
        bool has_stylus = test_bit(BTN_STYLUS, c->key);
        bool has_pen = test_bit(BTN_TOOL_PEN, c->key);
        bool finger_but_no_pen = test_bit(BTN_TOOL_FINGER, c->key) && !has_pen;
        bool has_mouse_button = false;
        for (unsigned b = BTN_MOUSE; b < BTN_JOYSTICK && !has_mouse_button; b++)
                has_mouse_button = test_bit(b, c->key);
        bool has_rel = test_bit(EV_REL, c->ev) && test_bit(REL_X, c->rel) && test_bit(REL_Y, c->rel);
        bool has_mt = test_bit(ABS_MT_POSITION_X, c->abs) && test_bit(ABS_MT_POSITION_Y, c->abs);
        /* a device that claims every absolute axis is not multi-touch */
        if (has_mt && test_bit(ABS_MT_SLOT, c->abs) && test_bit(ABS_MT_SLOT - 1, c->abs))
                has_mt = false;
        bool is_direct = test_bit(INPUT_PROP_DIRECT, c->props);
        bool has_touch = test_bit(BTN_TOUCH, c->key);
        bool has_pad_buttons = test_bit(BTN_0, c->key) && has_stylus && !has_pen;

        /* joystick buttons, unless the mouse button range overflows into them (mice with
         * more than 16 buttons); and joystick axes */
        unsigned n_joy_buttons = 0, n_joy_axes = 0;
        if (!test_bit(BTN_JOYSTICK - 1, c->key)) {
                for (unsigned b = BTN_JOYSTICK; b < BTN_DIGI; b++)
                        n_joy_buttons += test_bit(b, c->key);
                for (unsigned b = BTN_TRIGGER_HAPPY1; b <= BTN_TRIGGER_HAPPY40; b++)
                        n_joy_buttons += test_bit(b, c->key);
                for (unsigned b = BTN_DPAD_UP; b <= BTN_DPAD_RIGHT; b++)
                        n_joy_buttons += test_bit(b, c->key);
        }
        for (unsigned a = ABS_RX; a < ABS_PRESSURE; a++)
                n_joy_axes += test_bit(a, c->abs);
        bool has_joystick = n_joy_buttons > 0 || n_joy_axes > 0;

        bool is_tablet = false, is_touchpad = false, is_mouse = false, is_abs_mouse = false,
             is_touchscreen = false, is_joystick = false;
        if (has_abs) {
                if (has_stylus || has_pen)
                        is_tablet = true;
                else if (finger_but_no_pen && !is_direct)
                        is_touchpad = true;
                else if (has_mouse_button)
                        is_abs_mouse = true; /* VMware's USB mouse: absolute axes, no touch */
                else if (has_touch || is_direct)
                        is_touchscreen = true;
                else if (has_joystick)
                        is_joystick = true;
        } else if (has_joystick)
                is_joystick = true;

        if (has_mt) {
                if (has_stylus || has_pen)
                        is_tablet = true;
                else if (finger_but_no_pen && !is_direct)
                        is_touchpad = true;
                else if (has_touch || is_direct)
                        is_touchscreen = true;
        }

        if (!is_tablet && !is_touchpad && !is_joystick && has_mouse_button && (has_rel || !has_abs))
                is_mouse = true;
        /* there are no I2C mice: that is a pointing stick (absolute mice excepted) */
        if (is_mouse && c->bustype == BUS_I2C)
                is_pointing_stick = true;

        /* keyboards with a few stray joystick buttons, and "joysticks" with a single button or
         * axis, are no joysticks (the reference's sample of well-known keyboard keys) */
        if (is_joystick) {
                static const unsigned keyboard_keys[] = {
                        KEY_LEFTCTRL, KEY_CAPSLOCK, KEY_NUMLOCK, KEY_INSERT, KEY_MUTE,
                        KEY_CALC,     KEY_FILE,     KEY_MAIL,    KEY_PLAYPAUSE, KEY_BRIGHTNESSDOWN,
                };
                unsigned n_keys = 0;
                if (has_keys)
                        for (size_t i = 0; i < ELEMENTSOF(keyboard_keys); i++)
                                n_keys += test_bit(keyboard_keys[i], c->key);
                if (n_keys >= 4 || n_joy_buttons + n_joy_axes < 2)
                        is_joystick = false;
        }

        return (is_pointing_stick ? INPUT_POINTINGSTICK : 0) | (is_mouse || is_abs_mouse ? INPUT_MOUSE : 0) |
               (is_touchpad ? INPUT_TOUCHPAD : 0) | (is_touchscreen ? INPUT_TOUCHSCREEN : 0) |
               (is_joystick ? INPUT_JOYSTICK : 0) | (is_tablet ? INPUT_TABLET : 0) |
               (is_tablet && has_pad_buttons ? INPUT_TABLET_PAD : 0);
}

/* Key-like devices: any KEY_* (not BTN_*) code. */
static unsigned classify_key(const struct input_caps *c)
{
        static const struct {
                unsigned start, end; /* [start, end) */
        } high[] = {
                {KEY_OK, BTN_DPAD_UP},
                {KEY_ALS_TOGGLE, BTN_TRIGGER_HAPPY},
        };
        bool found = false;
        unsigned flags = 0;

        if (!test_bit(EV_KEY, c->ev))
                return 0;
        for (size_t i = 0; i < BTN_MISC / INPUT_BITS_PER_LONG && !found; i++)
                found = c->key[i] != 0;
        for (size_t b = 0; b < ELEMENTSOF(high) && !found; b++)
                for (unsigned k = high[b].start; k < high[b].end && !found; k++)
                        found = test_bit(k, c->key);
        if (found)
                flags |= INPUT_KEY;
        /* Esc, the digits and Q to D (all of the first 32 codes but KEY_RESERVED) */
        if ((c->key[0] & 0xfffffffeUL) == 0xfffffffeUL)
                flags |= INPUT_KEYBOARD;
        return flags;
}

unsigned input_classify(const struct input_caps *c)
{
        unsigned pointer = classify_pointer(c);
        unsigned key = classify_key(c);
        unsigned flags = pointer | key;

        /* a scroll wheel alone counts as keys */
        if (!pointer && !key && test_bit(EV_REL, c->ev) && (test_bit(REL_WHEEL, c->rel) || test_bit(REL_HWHEEL, c->rel)))
                flags |= INPUT_KEY;
        if (test_bit(EV_SW, c->ev))
                flags |= INPUT_SWITCH;
        return flags;
}

static void read_bitmap(const struct builtin_ctx *ctx, struct device *d, const char *attr, unsigned long *words, size_t n)
{
        _cleanup_free_ char *v = builtin_sysattr_opt(ctx, d, attr);
        input_parse_bitmap(v ? v : "", words, n);
}

static unsigned read_hex16(const struct builtin_ctx *ctx, struct device *d, const char *attr)
{
        _cleanup_free_ char *v = builtin_sysattr_opt(ctx, d, attr);
        uint64_t n;
        return v && parse_word(v, &n) && n <= 0xffff ? (unsigned)n : 0;
}

int input_axis_size_mm(const struct input_absinfo *a)
{
        if (a->resolution <= 0)
                return -EINVAL;
        return (a->maximum - a->minimum) / a->resolution;
}

/* Physical size from the resolution (units per mm) of ABS_X and ABS_Y, read from the event
 * node with libevdev when it can be opened. */
static int add_size(struct device *dev, bool test)
{
        const char *node = device_get_property(dev, "DEVNAME");
        struct libevdev *evdev = NULL;
        char w[16], h[16];
        int r = 0;

        if (!node)
                return 0;
        _cleanup_close_ int fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 || libevdev_new_from_fd(fd, &evdev) < 0)
                return 0;
        const struct input_absinfo *x = libevdev_get_abs_info(evdev, ABS_X);
        const struct input_absinfo *y = libevdev_get_abs_info(evdev, ABS_Y);
        if (x && y && x->resolution > 0 && y->resolution > 0) {
                snprintf(w, sizeof(w), "%d", input_axis_size_mm(x));
                snprintf(h, sizeof(h), "%d", input_axis_size_mm(y));
                r = builtin_add_property(dev, test, "ID_INPUT_WIDTH_MM", w);
                if (r >= 0)
                        r = builtin_add_property(dev, test, "ID_INPUT_HEIGHT_MM", h);
        }
        libevdev_free(evdev);
        return r;
}

int builtin_input_id_run(struct builtin_ctx *ctx, struct device *dev, int argc _unused_, char **argv _unused_,
                         bool test)
{
        static const struct {
                unsigned flag;
                const char *key;
        } names[] = {
                /* the reference's order */
                {INPUT_ACCELEROMETER, "ID_INPUT_ACCELEROMETER"},
                {INPUT_POINTINGSTICK, "ID_INPUT_POINTINGSTICK"},
                {INPUT_MOUSE, "ID_INPUT_MOUSE"},
                {INPUT_TOUCHPAD, "ID_INPUT_TOUCHPAD"},
                {INPUT_TOUCHSCREEN, "ID_INPUT_TOUCHSCREEN"},
                {INPUT_JOYSTICK, "ID_INPUT_JOYSTICK"},
                {INPUT_TABLET, "ID_INPUT_TABLET"},
                {INPUT_TABLET_PAD, "ID_INPUT_TABLET_PAD"},
                {INPUT_KEY, "ID_INPUT_KEY"},
                {INPUT_KEYBOARD, "ID_INPUT_KEYBOARD"},
                {INPUT_SWITCH, "ID_INPUT_SWITCH"},
        };
        struct device *input = dev;
        const char *v;
        int r;

        /* the input device with the bitmaps: dev itself or an input ancestor */
        while (input && device_get_sysattr(input, ctx->sysfs_root, "capabilities/ev", &v) < 0)
                input = device_find_parent_with_subsystem(input, "input", NULL, false);
        /* legacy layout: eventN sits inside inputN's directory, its parent is the physical device */
        if (!input) {
                struct device *outer = builtin_enclosing_class_device(dev);
                if (outer && device_get_sysattr(outer, ctx->sysfs_root, "capabilities/ev", &v) >= 0)
                        input = outer;
        }

        if (input) {
                struct input_caps caps = {};
                caps.bustype = read_hex16(ctx, input, "id/bustype");
                read_bitmap(ctx, input, "capabilities/ev", caps.ev, ELEMENTSOF(caps.ev));
                read_bitmap(ctx, input, "capabilities/abs", caps.abs, ELEMENTSOF(caps.abs));
                read_bitmap(ctx, input, "capabilities/rel", caps.rel, ELEMENTSOF(caps.rel));
                read_bitmap(ctx, input, "capabilities/key", caps.key, ELEMENTSOF(caps.key));
                read_bitmap(ctx, input, "properties", caps.props, ELEMENTSOF(caps.props));

                /* "this is an input device", so rules need not run the builtin again */
                r = builtin_add_property(dev, test, "ID_INPUT", "1");
                if (r < 0)
                        return r;
                unsigned flags = input_classify(&caps);
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if ((flags & names[i].flag) && (r = builtin_add_property(dev, test, names[i].key, "1")) < 0)
                                return r;
        }

        if (startswith(dev->sysname, "event"))
                return add_size(dev, test);
        return 0;
}
