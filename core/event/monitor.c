/* SPDX-License-Identifier: MIT */
#include "monitor.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "export.h"
#include "log.h"
#include "netlink.h"
#include "uevent.h"

/* MurmurHash2 (Austin Appleby's public-domain algorithm), 4-byte blocks read in host order
 * as libudev does, seed 0. */
uint32_t monitor_string_hash32(const char *s)
{
        const uint32_t m = 0x5bd1e995;
        size_t len = strlen(s);
        const unsigned char *p = (const unsigned char *)s;
        uint32_t h = (uint32_t)len;

        for (; len >= 4; p += 4, len -= 4) {
                uint32_t k;
                memcpy(&k, p, 4);
                k *= m;
                k ^= k >> 24;
                k *= m;
                h = (h * m) ^ k;
        }
        switch (len) {
        case 3:
                h ^= (uint32_t)p[2] << 16;
                _fallthrough_;
        case 2:
                h ^= (uint32_t)p[1] << 8;
                _fallthrough_;
        case 1:
                h ^= p[0];
                h *= m;
        }
        h ^= h >> 13;
        h *= m;
        h ^= h >> 15;
        return h;
}

uint64_t monitor_string_bloom64(const char *s)
{
        uint32_t h = monitor_string_hash32(s);
        return (UINT64_C(1) << (h & 63)) | (UINT64_C(1) << ((h >> 6) & 63)) | (UINT64_C(1) << ((h >> 12) & 63)) |
               (UINT64_C(1) << ((h >> 18) & 63));
}

struct wire_header {
        char prefix[8];
        uint32_t magic;
        uint32_t header_size;
        uint32_t properties_off;
        uint32_t properties_len;
        uint32_t filter_subsystem_hash;
        uint32_t filter_devtype_hash;
        uint32_t filter_tag_bloom_hi;
        uint32_t filter_tag_bloom_lo;
};
_Static_assert(sizeof(struct wire_header) == MONITOR_HEADER_SIZE, "libudev monitor header size");

/* The message being built: header room first, then "KEY=VALUE\0" entries. */
struct message {
        char *buf;
        size_t len, cap;
};

static int emit_entry(void *userdata, const char *key, size_t keylen, const char *value, unsigned flags)
{
        struct message *m = userdata;
        size_t vlen = strlen(value), need = keylen + 1 + vlen + 1;
        (void)flags;
        if (m->len + need > MONITOR_MESSAGE_MAX)
                return -EMSGSIZE; /* libudev would drop it: no need to go on */
        if (m->len + need > m->cap) {
                size_t cap = m->cap * 2;
                while (cap < m->len + need)
                        cap *= 2;
                char *b = realloc(m->buf, cap);
                if (!b)
                        return -ENOMEM;
                m->buf = b;
                m->cap = cap;
        }
        char *q = m->buf + m->len;
        memcpy(q, key, keylen);
        q[keylen] = '=';
        memcpy(q + keylen + 1, value, vlen + 1);
        m->len += need;
        return 0;
}

int monitor_build_message(const char *dev_root, const char *action, const struct device *d, uint64_t seqnum,
                          char **ret, size_t *ret_len)
{
        if (!d->subsystem || seqnum == 0 || !action)
                return -EINVAL;

        /* the record's entries plus what export adds: one allocation, nearly always */
        struct message msg = {.len = sizeof(struct wire_header), .cap = sizeof(struct wire_header) + d->props.len + 256};
        msg.buf = malloc(msg.cap);
        if (!msg.buf)
                return -ENOMEM;
        int r = export_each(d, dev_root, action, seqnum, emit_entry, &msg);
        if (r < 0) {
                free(msg.buf);
                return r;
        }
        struct wire_header h = {
                .prefix = "libudev",
                .magic = htonl(MONITOR_MAGIC),
                .header_size = sizeof(h),
                .properties_off = sizeof(h),
                .properties_len = (uint32_t)(msg.len - sizeof(h)),
                .filter_subsystem_hash = htonl(monitor_string_hash32(d->subsystem)),
                .filter_devtype_hash = d->devtype ? htonl(monitor_string_hash32(d->devtype)) : 0,
        };
        uint64_t bloom = 0;
        if (d->udev)
                STRV_FOREACH(t, d->udev->tags)
                        bloom |= monitor_string_bloom64(*t);
        if (bloom) {
                h.filter_tag_bloom_hi = htonl((uint32_t)(bloom >> 32));
                h.filter_tag_bloom_lo = htonl((uint32_t)(bloom & 0xffffffffU));
        }
        memcpy(msg.buf, &h, sizeof(h));
        *ret = msg.buf;
        *ret_len = msg.len;
        return 0;
}

struct monitor {
        struct nl_sock *sk;
        int fd; /* sk's, kept: every broadcast sends on it, without a call into libnl */
        char *dev_root;
};

int monitor_new(const char *dev_root, struct monitor **ret)
{
        _cleanup_(monitor_freep) struct monitor *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->dev_root = strdup(dev_root);
        m->sk = nl_socket_alloc();
        if (!m->dev_root || !m->sk)
                return -ENOMEM;
        int r = nl_connect(m->sk, NETLINK_KOBJECT_UEVENT);
        if (r < 0)
                return nl_error_to_errno(r);
        m->fd = nl_socket_get_fd(m->sk);
        *ret = TAKE_PTR(m);
        return 0;
}

struct monitor *monitor_free(struct monitor *m)
{
        if (!m)
                return NULL;
        if (m->sk)
                nl_socket_free(m->sk); /* closes the socket */
        free(m->dev_root);
        free(m);
        return NULL;
}

int monitor_send_device(struct monitor *m, const char *action, const struct device *d, uint64_t seqnum)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = monitor_build_message(m->dev_root, action, d, seqnum, &buf, &len);
        if (r < 0)
                return r;
        struct sockaddr_nl dst = {.nl_family = AF_NETLINK, .nl_groups = MONITOR_GROUP_UDEV};
        /* sent on the fd, not nl_sendto(), to see the kernel's errno */
        ssize_t n = sendto(m->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof(dst));
        if (n < 0) {
                /* the broadcast went out; only the unicast part to port 0 (the kernel) is
                 * refused, as nobody listens there */
                if (errno == ECONNREFUSED)
                        return 0;
                return -errno;
        }
        return 0;
}

/* ---- receiving ---- */

struct monitor_event *monitor_event_free(struct monitor_event *e)
{
        if (!e)
                return NULL;
        props_clear(&e->props);
        free(e);
        return NULL;
}

bool monitor_event_has_tag(const struct monitor_event *e, const char *tag)
{
        const char *tags = props_get(&e->props, "TAGS");
        size_t tl = strlen(tag);
        if (!tags || tl == 0)
                return false;
        for (const char *s = tags; (s = strstr(s, tag)); s++)
                if (s > tags && s[-1] == ':' && s[tl] == ':')
                        return true;
        return false;
}

static int event_index(struct monitor_event *e, const char **why)
{
        e->action = props_get(&e->props, "ACTION");
        e->devpath = props_get(&e->props, "DEVPATH");
        e->subsystem = props_get(&e->props, "SUBSYSTEM");
        e->devtype = props_get(&e->props, "DEVTYPE");
        if (!e->action || !e->devpath || e->devpath[0] != '/') {
                *why = "missing ACTION or DEVPATH";
                return -EBADMSG;
        }
        return 0;
}

static int parse_udev(const char *buf, size_t len, struct monitor_event *e, const char **why)
{
        struct wire_header h;
        if (len < sizeof(h)) {
                *why = "short libudev message";
                return -EBADMSG;
        }
        memcpy(&h, buf, sizeof(h));
        if (ntohl(h.magic) != MONITOR_MAGIC) {
                *why = "wrong magic";
                return -EBADMSG;
        }
        if (h.properties_off < sizeof(h) || h.properties_off >= len) {
                *why = "properties offset out of range";
                return -EBADMSG;
        }
        if (buf[len - 1] != '\0') {
                *why = "properties not NUL-terminated";
                return -EBADMSG;
        }
        for (const char *s = buf + h.properties_off; s < buf + len; s += strlen(s) + 1) {
                const char *eq = strchr(s, '=');
                if (!eq || eq == s) {
                        *why = "property is not KEY=VALUE";
                        return -EBADMSG;
                }
                _cleanup_free_ char *k = strndup(s, (size_t)(eq - s));
                if (!k)
                        return -ENOMEM;
                int r = props_set(&e->props, k, eq + 1, 0);
                if (r < 0) {
                        *why = "invalid property";
                        return r == -ENOMEM ? r : -EBADMSG;
                }
        }
        return event_index(e, why);
}

int monitor_parse_message(const void *buf, size_t len, struct monitor_event **ret, const char **why)
{
        _cleanup_(monitor_event_freep) struct monitor_event *e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        int r;
        if (len >= 8 && memcmp(buf, "libudev", 8) == 0) {
                e->source = MONITOR_SOURCE_UDEV;
                r = parse_udev(buf, len, e, why);
        } else {
                _cleanup_uevent_free_ struct uevent *ev = NULL;
                e->source = MONITOR_SOURCE_KERNEL;
                r = uevent_parse(buf, len, &ev, why);
                if (r >= 0) {
                        e->props = ev->props;
                        ev->props = PROPS_INIT;
                        r = event_index(e, why);
                }
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(e);
        return 0;
}

struct monitor_receiver {
        struct nl_sock *sk;
};

int monitor_receiver_new(bool kernel, bool udev, struct monitor_receiver **ret)
{
        _cleanup_(monitor_receiver_freep) struct monitor_receiver *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->sk = nl_socket_alloc();
        if (!m->sk)
                return -ENOMEM;
        int r = nl_connect(m->sk, NETLINK_KOBJECT_UEVENT);
        if (r < 0)
                return nl_error_to_errno(r);
        if (kernel && (r = nl_socket_add_memberships(m->sk, MONITOR_GROUP_KERNEL, 0)) < 0)
                return nl_error_to_errno(r);
        if (udev && (r = nl_socket_add_memberships(m->sk, MONITOR_GROUP_UDEV, 0)) < 0)
                return nl_error_to_errno(r);
        if ((r = nl_socket_set_passcred(m->sk, 1)) < 0)
                return nl_error_to_errno(r);
        if ((r = nl_socket_set_nonblocking(m->sk)) < 0)
                return nl_error_to_errno(r);
        /* bursts (coldplug) must not overflow the queue */
        (void)nl_socket_set_buffer_size(m->sk, 4 * 1024 * 1024, 0);
        *ret = TAKE_PTR(m);
        return 0;
}

struct monitor_receiver *monitor_receiver_free(struct monitor_receiver *m)
{
        if (!m)
                return NULL;
        if (m->sk)
                nl_socket_free(m->sk);
        free(m);
        return NULL;
}

int monitor_receiver_fd(const struct monitor_receiver *m)
{
        return nl_socket_get_fd(m->sk);
}

int monitor_receive(struct monitor_receiver *m, struct monitor_event **ret)
{
        int fd = nl_socket_get_fd(m->sk);
        /* the datagram's size first, so the buffer fits whatever arrives */
        ssize_t size = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (size < 0)
                return errno == EINTR ? -EAGAIN : -errno;
        _cleanup_free_ char *buf = malloc(size > 0 ? (size_t)size : 1);
        if (!buf)
                return -ENOMEM;
        struct sockaddr_nl sender;
        uid_t uid;
        bool truncated;
        ssize_t n = netlink_recv_datagram(fd, buf, size > 0 ? (size_t)size : 1, &sender, &uid, &truncated);
        if (n < 0)
                return n == -EINTR ? -EAGAIN : (int)n;
        if (uid != 0) {
                log_debug("monitor: message without root credentials dropped");
                return 0;
        }
        if (sender.nl_groups == MONITOR_GROUP_KERNEL && sender.nl_pid != 0) {
                log_debug("monitor: kernel-group message from port %u dropped", sender.nl_pid);
                return 0;
        }
        if (sender.nl_groups == 0) {
                log_debug("monitor: unicast message from port %u dropped", sender.nl_pid);
                return 0;
        }
        const char *why = NULL;
        int r = monitor_parse_message(buf, (size_t)n, ret, &why);
        if (r == -EBADMSG) {
                log_debug("monitor: malformed message dropped (%s)", why);
                return 0;
        }
        if (r < 0)
                return r;
        /* a group-1 message claiming the libudev format is not from the kernel */
        if ((sender.nl_groups == MONITOR_GROUP_KERNEL) != ((*ret)->source == MONITOR_SOURCE_KERNEL)) {
                *ret = monitor_event_free(*ret);
                log_debug("monitor: message format does not match its group, dropped");
                return 0;
        }
        return 1;
}
