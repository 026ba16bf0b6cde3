/* SPDX-License-Identifier: MIT */
/*
 * input_id: classifies an input device (ID_INPUT_KEYBOARD, _MOUSE, _TOUCHPAD, …) from the
 * capability bitmaps the kernel exports in sysfs, with the rules of systemd-udevd 252, and
 * adds ID_INPUT_WIDTH_MM/HEIGHT_MM from the event node's absolute axes when it can be read.
 */
#pragma once

#include <linux/input.h>

#include "builtin.h"

#define INPUT_BITS_PER_LONG (sizeof(unsigned long) * 8)
#define INPUT_NLONGS(n) (((n) - 1) / INPUT_BITS_PER_LONG + 1)

/* A device's capabilities, as the kernel prints them into capabilities/ and properties. */
struct input_caps {
        unsigned long ev[INPUT_NLONGS(EV_MAX)];
        unsigned long abs[INPUT_NLONGS(ABS_MAX)];
        unsigned long rel[INPUT_NLONGS(REL_MAX)];
        unsigned long key[INPUT_NLONGS(KEY_MAX)];
        unsigned long props[INPUT_NLONGS(INPUT_PROP_MAX)];
        unsigned bustype;
};

/* What the classification found: each ID_INPUT_* flag the reference may set. */
enum {
        INPUT_KEY = 1 << 0,
        INPUT_KEYBOARD = 1 << 1,
        INPUT_MOUSE = 1 << 2,
        INPUT_TOUCHPAD = 1 << 3,
        INPUT_TOUCHSCREEN = 1 << 4,
        INPUT_TABLET = 1 << 5,
        INPUT_TABLET_PAD = 1 << 6,
        INPUT_JOYSTICK = 1 << 7,
        INPUT_ACCELEROMETER = 1 << 8,
        INPUT_POINTINGSTICK = 1 << 9,
        INPUT_SWITCH = 1 << 10,
};

/* Parses a sysfs bitmap ("1f 0 fffffffe": space-separated hex words, most significant first)
 * into words (n of them, least significant first). Words that do not parse are skipped (the
 * position still counts), words beyond n are ignored. */
void input_parse_bitmap(const char *text, unsigned long *words, size_t n);

/* The INPUT_* flags of a device with these capabilities. */
unsigned input_classify(const struct input_caps *caps);

/* The physical length of an axis in mm ((max - min) / resolution, resolution in units/mm), or
 * -EINVAL when the axis has no resolution. */
int input_axis_size_mm(const struct input_absinfo *a);

/* Builtin entry point (see struct builtin). */
int builtin_input_id_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
