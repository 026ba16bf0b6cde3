/* SPDX-License-Identifier: MIT */
#include "netlink.h"

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

#define KERNEL_GROUP 1

struct uevent_listener {
        struct nl_sock *sock;
        int fd;
        bool adopted; /* fd came from socket activation or is local: libnl does not own it */
        char *path;   /* local (injection) socket: bound here, removed when freed; else NULL */
        char *buf;    /* one message plus a byte to detect truncation */
        struct uevent_listener_stats stats;
};

int nl_error_to_errno(int nle)
{
        switch (nle < 0 ? -nle : nle) {
        case 0:
                return 0;
        case NLE_NOMEM:
                return -ENOMEM;
        case NLE_PERM:
                return -EPERM;
        case NLE_AGAIN:
                return -EAGAIN;
        case NLE_BAD_SOCK:
                return -EBADF;
        case NLE_INVAL:
                return -EINVAL;
        case NLE_NOACCESS:
                return -EACCES;
        case NLE_AF_NOSUPPORT:
                return -EAFNOSUPPORT;
        case NLE_PROTO_MISMATCH:
                return -EPROTONOSUPPORT;
        default:
                return -EIO;
        }
}

int uevent_listener_set_rcvbuf(struct uevent_listener *l, int rcvbuf)
{
        if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == 0)
                return 0;
        if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) == 0)
                return 0;
        return negative_errno();
}

int uevent_listener_new(int fd, int rcvbuf, struct uevent_listener **ret)
{
        struct uevent_listener *l = calloc(1, sizeof(*l));
        int r;

        if (!l)
                return -ENOMEM;
        l->buf = malloc(UEVENT_MAX_SIZE + 1);
        if (!l->buf) {
                r = -ENOMEM;
                goto fail;
        }
        if (fd >= 0) {
                l->fd = fd;
                l->adopted = true;
        } else {
                l->sock = nl_socket_alloc();
                if (!l->sock) {
                        r = -ENOMEM;
                        goto fail;
                }
                nl_socket_disable_seq_check(l->sock);
                nl_socket_disable_auto_ack(l->sock);
                r = nl_error_to_errno(nl_connect(l->sock, NETLINK_KOBJECT_UEVENT));
                if (r < 0)
                        goto fail;
                r = nl_error_to_errno(nl_socket_add_membership(l->sock, KERNEL_GROUP));
                if (r < 0)
                        goto fail;
                r = nl_error_to_errno(nl_socket_set_passcred(l->sock, 1));
                if (r < 0)
                        goto fail;
                r = nl_error_to_errno(nl_socket_set_nonblocking(l->sock));
                if (r < 0)
                        goto fail;
                l->fd = nl_socket_get_fd(l->sock);
        }
        if (l->adopted) {
                int one = 1;
                if (setsockopt(l->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
                        r = negative_errno();
                        goto fail;
                }
        }
        if (rcvbuf > 0) {
                r = uevent_listener_set_rcvbuf(l, rcvbuf);
                if (r < 0)
                        goto fail;
        }
        *ret = l;
        return 0;
fail:
        uevent_listener_free(l);
        return r;
}

int uevent_listener_new_local(const char *path, struct uevent_listener **ret)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        struct uevent_listener *l = calloc(1, sizeof(*l));
        int one = 1, r;

        if (!l)
                return -ENOMEM;
        l->fd = -1;
        l->adopted = true;
        if (strlen(path) >= sizeof(sa.sun_path)) {
                r = -ENAMETOOLONG;
                goto fail;
        }
        memcpy(sa.sun_path, path, strlen(path));
        l->buf = malloc(UEVENT_MAX_SIZE + 1);
        if (!l->buf) {
                r = -ENOMEM;
                goto fail;
        }
        l->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (l->fd < 0 || setsockopt(l->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                r = negative_errno();
                goto fail;
        }
        l->path = strdup(path);
        if (!l->path) {
                (void)unlink(path);
                r = -ENOMEM;
                goto fail;
        }
        /* only root may send (each message's credentials are checked too) */
        if (chmod(path, 0600) < 0) {
                r = negative_errno();
                goto fail;
        }
        *ret = l;
        return 0;
fail:
        uevent_listener_free(l);
        return r;
}

struct uevent_listener *uevent_listener_free(struct uevent_listener *l)
{
        if (!l)
                return NULL;
        if (l->sock)
                nl_socket_free(l->sock);
        else if (l->adopted && l->fd >= 0)
                close(l->fd);
        if (l->path)
                (void)unlink(l->path);
        free(l->path);
        free(l->buf);
        free(l);
        return NULL;
}

int uevent_listener_fd(const struct uevent_listener *l)
{
        return l->fd;
}

void uevent_listener_get_stats(const struct uevent_listener *l, struct uevent_listener_stats *ret)
{
        *ret = l->stats;
}

ssize_t netlink_recv_datagram(int fd, void *buf, size_t size, struct sockaddr_nl *ret_sender, uid_t *ret_uid,
                              bool *ret_truncated)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(struct ucred))];
        } control;
        struct iovec iov = {.iov_base = buf, .iov_len = size};
        struct msghdr msg = {
                .msg_name = ret_sender,
                .msg_namelen = sizeof(*ret_sender),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };
        *ret_sender = (struct sockaddr_nl){0};
        ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0)
                return negative_errno();
        if (msg.msg_namelen < sizeof(*ret_sender))
                *ret_sender = (struct sockaddr_nl){0};
        *ret_uid = (uid_t)-1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
                    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
                        struct ucred cred;
                        memcpy(&cred, CMSG_DATA(c), sizeof(cred));
                        *ret_uid = cred.uid;
                }
        *ret_truncated = (msg.msg_flags & MSG_TRUNC) != 0;
        return n;
}

int uevent_listener_receive(struct uevent_listener *l, struct uevent **ret)
{
        struct sockaddr_nl sender;
        uid_t uid;
        bool truncated;
        const char *why = NULL;

        /* A raw recvmsg rather than nl_recv(): libnl maps ENOBUFS to NLE_NOMEM, and an overflow
         * must be told apart from an allocation failure; this also reuses one buffer. */
        ssize_t n = netlink_recv_datagram(l->fd, l->buf, UEVENT_MAX_SIZE + 1, &sender, &uid, &truncated);
        if (n == -EAGAIN || n == -EINTR)
                return 0;
        if (n == -ENOBUFS) {
                l->stats.overflows++;
                return -ENOBUFS;
        }
        if (n < 0)
                return (int)n;
        if (truncated || (size_t)n > UEVENT_MAX_SIZE) {
                l->stats.dropped_malformed++;
                log_warning("Dropping an oversized uevent (more than %d bytes)", UEVENT_MAX_SIZE);
                return -EBADMSG;
        }
        /* the kernel's socket: only the kernel (port 0) sends there */
        if (!l->path && (sender.nl_family != AF_NETLINK || sender.nl_pid != 0)) {
                l->stats.dropped_sender++;
                log_warning("Dropping a uevent from netlink port %u: not the kernel", sender.nl_pid);
                return -EBADMSG;
        }
        /* (a message without credentials is the kernel's: it attaches none when SO_PASSCRED is off) */
        if (uid != (uid_t)-1 && uid != 0) {
                l->stats.dropped_sender++;
                log_warning("Dropping a uevent sent with uid %u", (unsigned)uid);
                return -EBADMSG;
        }
        /* the local socket always has SO_PASSCRED: a message without credentials is not
         * expected there, and not trusted */
        if (l->path && uid == (uid_t)-1) {
                l->stats.dropped_sender++;
                log_warning("Dropping an injected uevent without the sender's credentials");
                return -EBADMSG;
        }
        int r = uevent_parse(l->buf, (size_t)n, ret, &why);
        if (r == -EBADMSG) {
                l->stats.dropped_malformed++;
                log_warning("Dropping a malformed %suevent: %s", l->path ? "injected " : "", why);
                return r;
        }
        if (r < 0)
                return r;
        l->stats.received++;
        return 1;
}
