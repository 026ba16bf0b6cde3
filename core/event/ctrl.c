/* SPDX-License-Identifier: MIT */
/* The control socket's messages and its client side (devmanadm). The server is ctrl-server.c:
 * apart, so that a client links no event loop. */
#include "ctrl.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include "log.h"
#include "time-util.h"

_Static_assert(sizeof(struct ctrl_wire) == 16 + 4 + 4 + 256, "udev-ctrl wire size");

static const char *const type_names[_CTRL_MSG_TYPE_MAX] = {
        [CTRL_END_MESSAGES] = "end-messages",
        [CTRL_SET_LOG_LEVEL] = "set-log-level",
        [CTRL_STOP_EXEC_QUEUE] = "stop-exec-queue",
        [CTRL_START_EXEC_QUEUE] = "start-exec-queue",
        [CTRL_RELOAD] = "reload",
        [CTRL_SET_ENV] = "set-env",
        [CTRL_SET_CHILDREN_MAX] = "set-children-max",
        [CTRL_PING] = "ping",
        [CTRL_EXIT] = "exit",
        [CTRL_WAIT_IDLE] = "wait-idle",
};

const char *ctrl_msg_type_to_string(enum ctrl_msg_type t)
{
        return (unsigned)t < _CTRL_MSG_TYPE_MAX ? type_names[t] : NULL;
}

int ctrl_message_decode(const void *buf, size_t len, struct ctrl_message *ret, const char **why)
{
        struct ctrl_wire w;

        if (len != sizeof(w)) {
                *why = "wrong message size";
                return -EBADMSG;
        }
        memcpy(&w, buf, sizeof(w));
        if (w.magic != CTRL_MAGIC) {
                *why = "wrong magic";
                return -EBADMSG;
        }
        if (w.type < 0 || w.type >= _CTRL_MSG_TYPE_MAX) {
                *why = "unknown message type";
                return -EBADMSG;
        }

        *ret = (struct ctrl_message){.type = (enum ctrl_msg_type)w.type};
        switch (ret->type) {
        case CTRL_SET_LOG_LEVEL:
                if (w.value.intval < LOG_EMERG || w.value.intval > LOG_DEBUG) {
                        *why = "log level out of range";
                        return -EBADMSG;
                }
                ret->intval = w.value.intval;
                break;
        case CTRL_SET_CHILDREN_MAX:
                if (w.value.intval <= 0) {
                        *why = "children-max not positive";
                        return -EBADMSG;
                }
                ret->intval = w.value.intval;
                break;
        case CTRL_SET_ENV: {
                char *nul = memchr(w.value.buf, '\0', sizeof(w.value.buf));
                if (!nul) {
                        *why = "property not NUL-terminated";
                        return -EBADMSG;
                }
                memcpy(ret->env, w.value.buf, (size_t)(nul - w.value.buf) + 1);
                char *eq = strchr(ret->env, '=');
                if (!eq || eq == ret->env) {
                        *why = "property is not KEY=VALUE";
                        return -EBADMSG;
                }
                *eq = '\0';
                ret->key = ret->env;
                ret->value = eq[1] ? eq + 1 : NULL;
                break;
        }
        default:
                break;
        }
        return 0;
}

int ctrl_message_encode(enum ctrl_msg_type type, int intval, const char *str, struct ctrl_wire *ret)
{
        if ((unsigned)type >= _CTRL_MSG_TYPE_MAX)
                return -EINVAL;
        *ret = (struct ctrl_wire){.magic = CTRL_MAGIC, .type = (int32_t)type};
        snprintf(ret->version, sizeof(ret->version), "devman-%s", DEVMAN_VERSION);
        if (type == CTRL_SET_ENV) {
                if (!str)
                        return -EINVAL;
                size_t l = strlen(str);
                if (l >= sizeof(ret->value.buf))
                        return -E2BIG;
                memcpy(ret->value.buf, str, l + 1);
        } else
                ret->value.intval = intval;
        return 0;
}

int ctrl_socket_address(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
        size_t l = strlen(path);
        if (l == 0 || l >= sizeof(sa->sun_path))
                return -ENAMETOOLONG;
        *sa = (struct sockaddr_un){.sun_family = AF_UNIX};
        memcpy(sa->sun_path, path, l);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + 1);
        return 0;
}

/* ---- client ---- */

int ctrl_client_connect(const char *path)
{
        struct sockaddr_un sa;
        socklen_t salen;
        int r = ctrl_socket_address(path, &sa, &salen);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *)&sa, salen) < 0)
                return -errno;
        return TAKE_FD(fd);
}

int ctrl_client_send(int fd, enum ctrl_msg_type type, int intval, const char *str)
{
        struct ctrl_wire w;
        int r = ctrl_message_encode(type, intval, str, &w);
        if (r < 0)
                return r;
        ssize_t n = send(fd, &w, sizeof(w), MSG_NOSIGNAL);
        if (n < 0)
                return -errno;
        return n == (ssize_t)sizeof(w) ? 0 : -EIO;
}

/* Waits until fd is readable (or hung up) or the deadline passes: 1 with *revents, -ETIMEDOUT,
 * or -errno. Never returns 0. */
static int poll_until(int fd, uint64_t deadline, short *revents)
{
        for (;;) {
                uint64_t now = time_now_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                uint64_t left_ms = (deadline - now + 999) / 1000;
                struct pollfd p = {.fd = fd, .events = POLLIN};
                int n = poll(&p, 1, left_ms > INT32_MAX ? INT32_MAX : (int)left_ms);
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n > 0) {
                        *revents = p.revents;
                        return 1;
                }
        }
}

int ctrl_client_wait(int fd, uint64_t timeout_usec)
{
        int r = ctrl_client_send(fd, CTRL_END_MESSAGES, 0, NULL);
        if (r < 0)
                return r == -EPIPE || r == -ECONNRESET ? 0 : r; /* already closed: done */
        if (timeout_usec == 0)
                return 0;
        uint64_t deadline = time_now_usec() + timeout_usec;
        for (;;) {
                short revents;
                r = poll_until(fd, deadline, &revents);
                if (r <= 0)
                        return r;
                if (revents & (POLLHUP | POLLERR))
                        return 0;
                /* the server never writes; drain anything and look for the EOF */
                char b[sizeof(struct ctrl_wire)];
                ssize_t k = recv(fd, b, sizeof(b), MSG_DONTWAIT);
                if (k == 0)
                        return 0;
                if (k < 0 && errno != EAGAIN && errno != EINTR)
                        return errno == ECONNRESET ? 0 : -errno;
        }
}

int ctrl_client_wait_idle(int fd, uint64_t timeout_usec)
{
        int r = ctrl_client_send(fd, CTRL_WAIT_IDLE, 0, NULL);
        if (r >= 0)
                r = ctrl_client_send(fd, CTRL_END_MESSAGES, 0, NULL);
        if (r < 0)
                return r == -EPIPE || r == -ECONNRESET ? 0 : r;
        uint64_t deadline = time_now_usec() + timeout_usec;
        for (;;) {
                short revents;
                r = poll_until(fd, deadline, &revents);
                if (r <= 0)
                        return r;
                /* the answer is read before looking at POLLHUP: it may come with the close */
                struct ctrl_wire w;
                ssize_t k = recv(fd, &w, sizeof(w), MSG_DONTWAIT);
                if (k == (ssize_t)sizeof(w) && w.magic == CTRL_MAGIC && w.type == CTRL_WAIT_IDLE)
                        return 1;
                if (k == 0)
                        return 0;
                if (k < 0 && errno != EAGAIN && errno != EINTR)
                        return errno == ECONNRESET ? 0 : -errno;
                if (k < 0 && (revents & (POLLHUP | POLLERR)))
                        return 0;
        }
}
