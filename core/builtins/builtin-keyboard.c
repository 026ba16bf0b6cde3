/* SPDX-License-Identifier: MIT */
#include "builtin-keyboard.h"

#include <ctype.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "builtin-util.h"
#include "log.h"

/* The reference keeps at most this many force-release codes (later ones replace the last). */
#define FORCE_RELEASE_MAX 1024

/* An unsigned number in base (0: C prefixes), whole string, leading whitespace allowed, no sign. */
static int parse_unsigned(const char *s, int base, unsigned *ret)
{
        char *end;
        s += strspn(s, " \t\n\r");
        if (!*s || *s == '-' || *s == '+')
                return -EINVAL;
        errno = 0;
        unsigned long v = strtoul(s, &end, base);
        if (errno || *end)
                return -EINVAL;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (unsigned)v;
        return 0;
}

int keyboard_keycode_from_name(const char *name, unsigned *ret)
{
        size_t n = strlen(name);
        bool lower = n > 0;

        /* the names are the lower-case KEY_* names; KEY_MAX and KEY_CNT are no keys */
        for (const char *c = name; *c && lower; c++)
                lower = islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_';
        if (lower && !streq(name, "max") && !streq(name, "cnt")) {
                _cleanup_free_ char *full = malloc(n + 5);
                if (!full)
                        return -ENOMEM;
                memcpy(full, "KEY_", 4);
                for (size_t i = 0; i <= n; i++)
                        full[4 + i] = (char)toupper((unsigned char)name[i]);
                int code = libevdev_event_code_from_name(EV_KEY, full);
                if (code >= 0) {
                        *ret = (unsigned)code;
                        return 0;
                }
        }
        return parse_unsigned(name, 0, ret) < 0 ? -EINVAL : 0;
}

int keyboard_parse_keymap(const char *key, const char *value, struct keyboard_keymap *ret)
{
        const char *scan = startswith(key, "KEYBOARD_KEY_");
        struct keyboard_keymap m = {};

        if (!scan || parse_unsigned(scan, 16, &m.scancode) < 0)
                return -EINVAL;
        if (value[0] == '!') {
                m.force_release = true;
                value++;
                if (!value[0]) {
                        *ret = m;
                        return 0;
                }
        }
        if (keyboard_keycode_from_name(value, &m.keycode) < 0) {
                *ret = m; /* a force release still applies */
                return -ENOKEY;
        }
        m.map = true;
        *ret = m;
        return 0;
}

void keyboard_keycode_arg(const struct keyboard_keymap *m, unsigned ret[2])
{
        ret[0] = m->scancode;
        ret[1] = m->keycode;
}

int keyboard_parse_abs_code(const char *key, unsigned *ret)
{
        const char *code = startswith(key, "EVDEV_ABS_");
        return code ? parse_unsigned(code, 16, ret) : -EINVAL;
}

/* One ':'-terminated field: a number (C prefixes) or nothing. NULL when malformed. */
static const char *parse_field(const char *s, int32_t *val)
{
        char *end;
        if (!s)
                return NULL;
        long v = strtol(s, &end, 0);
        if (*end && *end != ':')
                return NULL;
        if (end != s)
                *val = (int32_t)v;
        return *end ? end + 1 : end;
}

int keyboard_parse_abs_override(const char *value, struct input_absinfo *a)
{
        const char *next = parse_field(value, &a->minimum);
        next = parse_field(next, &a->maximum);
        next = parse_field(next, &a->resolution);
        next = parse_field(next, &a->fuzz);
        next = parse_field(next, &a->flat);
        return next ? 0 : -EINVAL;
}

int keyboard_force_release_value(const char *current, const unsigned *codes, size_t n, char **ret)
{
        size_t len = strlen(current), cap = len + n * 12 + 1;
        char *s = malloc(cap), *p;
        if (!s)
                return -ENOMEM;
        memcpy(s, current, len + 1);
        p = s + len;
        for (size_t i = 0; i < n; i++)
                p += snprintf(p, cap - (size_t)(p - s), ",%u", codes[i]);
        *ret = s;
        return 0;
}

int keyboard_parse_sensitivity(const char *value, int *ret)
{
        char *end;
        const char *s = value + strspn(value, " \t\n\r");
        if (!*s)
                return -EINVAL;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end)
                return -EINVAL;
        if (v < 0 || v > 255)
                return -ERANGE;
        *ret = (int)v;
        return 0;
}

struct kbd {
        struct builtin_ctx *ctx;
        struct device *dev;
        const char *node;
        bool test;
        int fd;
        int has_abs; /* -1: not asked yet */
        unsigned release[FORCE_RELEASE_MAX];
        size_t n_release;
};

static int open_node(struct kbd *k)
{
        if (k->fd >= 0)
                return 0;
        k->fd = open(k->node, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (k->fd < 0)
                return log_error_errno(errno, "%s: cannot open %s: %m", k->dev->sysname, k->node);
        return 0;
}

static int apply_keymap(struct kbd *k, const char *key, const char *value)
{
        struct keyboard_keymap m;
        int r = keyboard_parse_keymap(key, value, &m);
        if (r == -EINVAL) {
                log_warning("%s: ignoring %s: not a hexadecimal scan code", k->dev->sysname, key);
                return 0;
        }
        if (r == -ENOKEY)
                log_error("%s: unknown key '%s' in %s", k->dev->sysname, value, key);
        if (m.force_release) {
                k->release[k->n_release] = m.scancode;
                if (k->n_release < FORCE_RELEASE_MAX - 1)
                        k->n_release++;
        }
        if (!m.map)
                return 0;
        if (k->test) {
                log_info("%s: would map scan code 0x%x to key code %u", k->dev->sysname, m.scancode, m.keycode);
                return 0;
        }
        r = open_node(k);
        if (r < 0)
                return r;
        unsigned arg[2];
        keyboard_keycode_arg(&m, arg);
        if (ioctl(k->fd, EVIOCSKEYCODE, arg) < 0)
                log_error_errno(errno, "%s: EVIOCSKEYCODE scan code 0x%x key code %u failed: %m", k->dev->sysname,
                                m.scancode, m.keycode);
        return 0;
}

static int apply_abs(struct kbd *k, const char *key, const char *value)
{
        unsigned code;
        if (keyboard_parse_abs_code(key, &code) < 0) {
                log_warning("%s: ignoring %s: not an axis code", k->dev->sysname, key);
                return 0;
        }
        if (k->test) {
                log_info("%s: would override axis 0x%x with %s", k->dev->sysname, code, value);
                return 0;
        }
        int r = open_node(k);
        if (r < 0)
                return r;
        if (k->has_abs < 0) {
                unsigned long bits = 0;
                if (ioctl(k->fd, EVIOCGBIT(0, sizeof(bits)), &bits) < 0)
                        return log_error_errno(errno, "%s: EVIOCGBIT failed: %m", k->dev->sysname);
                k->has_abs = !!(bits & (1UL << EV_ABS));
                if (!k->has_abs)
                        log_warning("%s: EVDEV_ABS override set but the device has no EV_ABS", k->dev->sysname);
        }
        if (!k->has_abs || code > ABS_MAX)
                return 0;
        struct input_absinfo a;
        if (ioctl(k->fd, EVIOCGABS(code), &a) < 0) {
                log_error_errno(errno, "%s: EVIOCGABS 0x%x failed: %m", k->dev->sysname, code);
                return 0;
        }
        if (keyboard_parse_abs_override(value, &a) < 0) {
                log_error("%s: cannot parse EV_ABS override '%s'", k->dev->sysname, value);
                return 0;
        }
        if (ioctl(k->fd, EVIOCSABS(code), &a) < 0)
                log_error_errno(errno, "%s: EVIOCSABS 0x%x failed: %m", k->dev->sysname, code);
        return 0;
}

static void apply_sensitivity(struct kbd *k, const char *value)
{
        struct device *serio = device_find_parent_with_subsystem(k->dev, "serio", NULL, false);
        char buf[16];
        int v, r;

        if (!serio) {
                log_error("%s: POINTINGSTICK_SENSITIVITY set but there is no serio parent", k->dev->sysname);
                return;
        }
        r = keyboard_parse_sensitivity(value, &v);
        if (r < 0) {
                log_error_errno(r, "%s: bad POINTINGSTICK_SENSITIVITY '%s' (0..255): %m", k->dev->sysname, value);
                return;
        }
        snprintf(buf, sizeof(buf), "%d", v);
        if (k->test) {
                log_info("%s: would write sensitivity %s to %s", k->dev->sysname, buf, serio->sysname);
                return;
        }
        r = device_set_sysattr(serio, k->ctx->sysfs_root, "sensitivity", buf);
        if (r < 0)
                log_error_errno(r, "%s: cannot write sensitivity of %s: %m", k->dev->sysname, serio->sysname);
}

static void apply_force_release(struct kbd *k)
{
        struct device *atkbd = device_find_parent_with_subsystem(k->dev, "serio", NULL, false);
        if (!atkbd) {
                log_error("%s: force-release codes set but there is no serio parent", k->dev->sysname);
                return;
        }
        _cleanup_free_ char *cur = NULL, *value = NULL;
        int r = builtin_sysattr(k->ctx, atkbd, "force_release", &cur);
        if (r < 0) {
                log_error_errno(r, "%s: cannot read force_release of %s: %m", k->dev->sysname, atkbd->sysname);
                return;
        }
        if (keyboard_force_release_value(cur, k->release, k->n_release, &value) < 0) {
                log_oom();
                return;
        }
        if (k->test) {
                log_info("%s: would write force_release '%s' to %s", k->dev->sysname, value, atkbd->sysname);
                return;
        }
        r = device_set_sysattr(atkbd, k->ctx->sysfs_root, "force_release", value);
        if (r < 0)
                log_error_errno(r, "%s: cannot write force_release of %s: %m", k->dev->sysname, atkbd->sysname);
}

int builtin_keyboard_run(struct builtin_ctx *ctx, struct device *dev, int argc _unused_, char **argv _unused_,
                         bool test)
{
        _cleanup_free_ struct kbd *k = calloc(1, sizeof(struct kbd));
        int r = 0;

        if (!k)
                return -ENOMEM;
        k->node = device_get_property(dev, "DEVNAME");
        if (!k->node)
                return log_error_errno(ENOENT, "%s: no device node", dev->sysname);
        k->ctx = ctx;
        k->dev = dev;
        k->test = test;
        k->fd = -1;
        k->has_abs = -1;

        /* copy the entries first: the device's property set must not change while we iterate */
        size_t it = 0;
        const char *e;
        char **entries = NULL;
        size_t n = 0;
        while (props_next(&dev->props, &it, &e, NULL)) {
                if (!startswith(e, "KEYBOARD_KEY_") && !startswith(e, "EVDEV_ABS_") &&
                    !startswith(e, "POINTINGSTICK_SENSITIVITY="))
                        continue;
                char **p = realloc(entries, (n + 2) * sizeof(char *));
                if (!p) {
                        r = -ENOMEM;
                        break;
                }
                entries = p;
                if (!(entries[n] = strdup(e))) {
                        r = -ENOMEM;
                        break;
                }
                entries[++n] = NULL;
        }

        for (size_t i = 0; i < n && r >= 0; i++) {
                char *eq = strchr(entries[i], '=');
                *eq = '\0';
                const char *key = entries[i], *value = eq + 1;
                if (startswith(key, "KEYBOARD_KEY_"))
                        r = apply_keymap(k, key, value);
                else if (startswith(key, "EVDEV_ABS_"))
                        r = apply_abs(k, key, value);
                else if (streq(key, "POINTINGSTICK_SENSITIVITY"))
                        apply_sensitivity(k, value);
        }
        for (size_t i = 0; i < n; i++)
                free(entries[i]);
        free(entries);

        if (r >= 0 && k->n_release > 0)
                apply_force_release(k);
        if (k->fd >= 0)
                close(k->fd);
        return r < 0 ? r : 0;
}
