/* SPDX-License-Identifier: MIT */
#include "uevent.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "strfmt.h"

static const char *const action_names[_UEVENT_ACTION_MAX] = {
        [UEVENT_ADD] = "add",       [UEVENT_REMOVE] = "remove", [UEVENT_CHANGE] = "change",
        [UEVENT_MOVE] = "move",     [UEVENT_ONLINE] = "online", [UEVENT_OFFLINE] = "offline",
        [UEVENT_BIND] = "bind",     [UEVENT_UNBIND] = "unbind",
};

const char *uevent_action_to_string(enum uevent_action a)
{
        return a >= 0 && a < _UEVENT_ACTION_MAX ? action_names[a] : NULL;
}

enum uevent_action uevent_action_from_string(const char *s)
{
        for (int i = 0; s && i < _UEVENT_ACTION_MAX; i++)
                if (streq(s, action_names[i]))
                        return i;
        return _UEVENT_ACTION_INVALID;
}

struct uevent *uevent_free(struct uevent *ev)
{
        if (ev) {
                props_clear(&ev->props);
                free(ev);
        }
        return NULL;
}

static bool is_control_char(char c)
{
        return (unsigned char)c < 0x20 || c == 0x7f;
}

static bool has_control_chars(const char *s)
{
        for (; *s; s++)
                if (is_control_char(*s))
                        return true;
        return false;
}

/* Absolute, no "." / ".." / empty component, no control characters. */
static bool devpath_is_valid(const char *p)
{
        if (p[0] != '/' || p[1] == '\0' || has_control_chars(p))
                return false;
        for (const char *c = p + 1; *c;) {
                const char *end = strchrnul(c, '/');
                size_t l = (size_t)(end - c);
                if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c = *end ? end + 1 : end;
        }
        return true;
}

bool devname_is_safe(const char *name)
{
        if (isempty(name) || name[0] == '/' || name[strlen(name) - 1] == '/' || has_control_chars(name) ||
            strlen(name) >= PATH_MAX)
                return false;
        for (const char *c = name; *c;) {
                const char *end = strchrnul(c, '/');
                size_t l = (size_t)(end - c);
                if (l == 0 || l > NAME_MAX || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c = *end ? end + 1 : end;
        }
        return true;
}

/* Fills the derived fields from the property set. */
static int uevent_index(struct uevent *ev, const char **why)
{
        const char *s;

        ev->devpath = props_get(&ev->props, "DEVPATH");
        if (!ev->devpath || !devpath_is_valid(ev->devpath)) {
                *why = "missing or invalid DEVPATH";
                return -EBADMSG;
        }
        ev->devpath_old = props_get(&ev->props, "DEVPATH_OLD");
        if (ev->devpath_old && !devpath_is_valid(ev->devpath_old)) {
                *why = "invalid DEVPATH_OLD";
                return -EBADMSG;
        }
        if (ev->action == UEVENT_MOVE && !ev->devpath_old) {
                *why = "move without DEVPATH_OLD";
                return -EBADMSG;
        }
        ev->subsystem = props_get(&ev->props, "SUBSYSTEM");
        s = props_get(&ev->props, "SEQNUM");
        ev->seqnum = 0;
        if (s && strfmt_parse_uint(s, 10, UINT64_MAX, &ev->seqnum) < 0) {
                *why = "SEQNUM is not a number";
                return -EBADMSG;
        }
        /* read once here for the queue and the model */
        uint64_t ma, mi;
        ev->devnum = strfmt_parse_uint(props_get(&ev->props, "MAJOR"), 10, 4095, &ma) == 0 && ma > 0 &&
                                     strfmt_parse_uint(props_get(&ev->props, "MINOR"), 10, (1u << 20) - 1, &mi) == 0
                             ? makedev(ma, mi)
                             : 0;
        return 0;
}

int uevent_parse(const char *buf, size_t len, struct uevent **ret, const char **why)
{
        _cleanup_uevent_free_ struct uevent *ev = NULL;
        const char *header_action_end, *p, *end;
        int r;

        *why = NULL;
        if (len == 0 || len > UEVENT_MAX_SIZE) {
                *why = len ? "message too large" : "empty message";
                return -EBADMSG;
        }
        if (buf[len - 1] != '\0') {
                *why = "message not NUL-terminated (truncated)";
                return -EBADMSG;
        }
        if (len >= 8 && memcmp(buf, "libudev", 8) == 0) {
                *why = "libudev-format message on the kernel group";
                return -EBADMSG;
        }
        header_action_end = memchr(buf, '@', strnlen(buf, len));
        if (!header_action_end) {
                *why = "no ACTION@DEVPATH header";
                return -EBADMSG;
        }

        ev = calloc(1, sizeof(*ev));
        if (!ev)
                return -ENOMEM;
        ev->from_kernel = true;

        end = buf + len;
        p = buf + strlen(buf) + 1;
        /* every entry takes its own bytes plus props' two header bytes: one allocation */
        size_t n_entries = 0;
        for (const char *q = p; q < end; q = (const char *)memchr(q, '\0', (size_t)(end - q)) + 1)
                n_entries++;
        if (p < end && props_reserve(&ev->props, (size_t)(end - p) + 2 * n_entries) < 0)
                return -ENOMEM;
        while (p < end) {
                /* one pass over the key: its end, and whether it has a byte keys must not have */
                const char *eq = p;
                bool bad = false;
                for (; *eq && *eq != '='; eq++)
                        bad = bad || is_control_char(*eq) || *eq == ' ';
                if (*eq != '=' || eq == p) {
                        *why = "entry without KEY=VALUE";
                        return -EBADMSG;
                }
                if (bad) {
                        *why = "bad character in a key";
                        return -EBADMSG;
                }
                const char *value = eq + 1;
                size_t vlen = strlen(value);
                r = props_set_n(&ev->props, p, (size_t)(eq - p), value, PROP_KERNEL);
                if (r < 0)
                        return r;
                p = value + vlen + 1;
        }

        const char *action = props_get(&ev->props, "ACTION");
        const char *devpath = props_get(&ev->props, "DEVPATH");
        size_t alen = (size_t)(header_action_end - buf);
        if (!action || strlen(action) != alen || strncmp(action, buf, alen) != 0) {
                *why = "ACTION missing or contradicts the header";
                return -EBADMSG;
        }
        if (!devpath || !streq(devpath, header_action_end + 1)) {
                *why = "DEVPATH missing or contradicts the header";
                return -EBADMSG;
        }
        ev->action = uevent_action_from_string(action);
        if ((int)ev->action < 0) {
                *why = "unknown ACTION";
                return -EBADMSG;
        }
        r = uevent_index(ev, why);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ev);
        return 0;
}

int uevent_new(enum uevent_action action, const char *devpath, const struct props *props, struct uevent **ret)
{
        _cleanup_uevent_free_ struct uevent *ev = NULL;
        const char *why;
        int r;

        if (!uevent_action_to_string(action))
                return -EINVAL;
        ev = calloc(1, sizeof(*ev));
        if (!ev)
                return -ENOMEM;
        if (props) {
                r = props_copy(&ev->props, props);
                if (r < 0)
                        return r;
        }
        ev->action = action;
        r = props_set(&ev->props, "ACTION", uevent_action_to_string(action), PROP_KERNEL);
        if (r >= 0)
                r = props_set(&ev->props, "DEVPATH", devpath, PROP_KERNEL);
        if (r < 0)
                return r;
        r = uevent_index(ev, &why);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ev);
        return 0;
}
