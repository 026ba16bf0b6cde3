/* SPDX-License-Identifier: MIT */
/*
 * keyboard builtin: applies the evdev settings the hardware database put into the device's
 * properties, as systemd-udevd 252 does:
 *   KEYBOARD_KEY_<hex scancode>=[!]<keyname>  remap a scancode (EVIOCSKEYCODE); '!' also adds
 *                                             the scancode to atkbd's force_release list
 *   EVDEV_ABS_<hex axis>=<min>:<max>:<res>:<fuzz>:<flat>  override axis info (EVIOCSABS); empty
 *                                             fields keep the kernel's value
 *   POINTINGSTICK_SENSITIVITY=<0..255>        written to the serio parent's `sensitivity`
 * Key names are those of linux/input-event-codes.h without "KEY_", in lower case ("mute"),
 * resolved with libevdev; a number is taken as the key code itself.
 *
 * In test mode nothing is applied: what would be done is logged at info level.
 */
#pragma once

#include <linux/input.h>
#include <stdbool.h>

#include "builtin.h"

/* One KEYBOARD_KEY_ property, parsed. */
struct keyboard_keymap {
        unsigned scancode;
        unsigned keycode;
        bool map;           /* false for "!" alone: force release only */
        bool force_release;
};

/* The key code of a key name ("mute", "f13") or number ("113", "0x71"). 0 or -EINVAL. */
int keyboard_keycode_from_name(const char *name, unsigned *ret);

/* Parses KEYBOARD_KEY_<scancode>=<value>. -EINVAL for a bad scancode; -ENOKEY for an unknown
 * key name (*ret is still filled, with map false, for the force release). */
int keyboard_parse_keymap(const char *key, const char *value, struct keyboard_keymap *ret);

/* The argument of EVIOCSKEYCODE for an entry: {scancode, keycode}. */
void keyboard_keycode_arg(const struct keyboard_keymap *m, unsigned ret[2]);

/* Parses the axis code of EVDEV_ABS_<hex>. 0 or -EINVAL. */
int keyboard_parse_abs_code(const char *key, unsigned *ret);

/* Applies "<min>:<max>:<res>:<fuzz>:<flat>" to absinfo (fields may be empty or missing: they
 * keep their value). 0, or -EINVAL for a field that is not a number (absinfo may then be
 * partly changed, the caller must not use it). */
int keyboard_parse_abs_override(const char *value, struct input_absinfo *absinfo);

/* The new force_release value: the current list followed by ",<code>" for each code. New
 * string in *ret; 0 or -ENOMEM. */
int keyboard_force_release_value(const char *current, const unsigned *codes, size_t n, char **ret);

/* POINTINGSTICK_SENSITIVITY: 0..255. 0, -EINVAL or -ERANGE. */
int keyboard_parse_sensitivity(const char *value, int *ret);

int builtin_keyboard_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
