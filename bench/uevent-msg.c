/* SPDX-License-Identifier: MIT */
#include "uevent-msg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "macros.h"

#define UDEV_MAGIC 0xfeedcafeU
#define UDEV_HEADER_MIN 24 /* prefix[8], magic, header_size, properties_off, properties_len */

static void take_property(struct uevent_msg *m, const char *kv)
{
        const char *v;

        if ((v = startswith(kv, "ACTION=")))
                m->action = v;
        else if ((v = startswith(kv, "DEVPATH=")))
                m->devpath = v;
        else if ((v = startswith(kv, "SUBSYSTEM=")))
                m->subsystem = v;
        else if ((v = startswith(kv, "DEVNAME=")))
                m->devname = v;
        else if ((v = startswith(kv, "MAJOR=")))
                m->major = v;
        else if ((v = startswith(kv, "MINOR=")))
                m->minor = v;
        else if ((v = startswith(kv, "SEQNUM=")))
                m->seqnum = v;
}

static void take_block(struct uevent_msg *m, char *p, char *end)
{
        while (p < end) {
                size_t l = strnlen(p, (size_t)(end - p));
                take_property(m, p);
                p += l + 1;
        }
}

int uevent_msg_parse(char *buf, size_t len, struct uevent_msg *ret)
{
        struct uevent_msg m = {};

        buf[len] = '\0';
        if (len >= UDEV_HEADER_MIN && memcmp(buf, "libudev", 8) == 0) {
                uint32_t magic, off, plen;

                memcpy(&magic, buf + 8, 4);
                memcpy(&off, buf + 16, 4);
                memcpy(&plen, buf + 20, 4);
                if (ntohl(magic) != UDEV_MAGIC || off > len || plen > len - off)
                        return -EBADMSG;
                m.from_udev = true;
                take_block(&m, buf + off, buf + off + plen);
        } else {
                char *at = strchr(buf, '@');
                size_t l = strlen(buf);

                if (!at || l >= len)
                        return -EBADMSG;
                take_block(&m, buf + l + 1, buf + len);
        }
        if (!m.action || !m.devpath)
                return -EBADMSG;
        *ret = m;
        return 0;
}
