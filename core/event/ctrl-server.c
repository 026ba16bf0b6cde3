/* SPDX-License-Identifier: MIT */
/* The control socket's server side (the daemon): connections on the event loop. */
#include "ctrl.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"

/* A root client that connects and never sends would otherwise pin resources. */
#define CTRL_MAX_CONNECTIONS 32

struct ctrl_conn {
        struct ctrl_server *server;
        int fd;
        sd_event_source *source;
        struct ctrl_conn *next;
        bool wait_idle; /* owes a WAIT_IDLE answer */
        bool ended;     /* END_MESSAGES received: close once nothing is owed */
};

struct ctrl_server {
        sd_event *event;
        char *path;
        int fd;
        sd_event_source *source;
        const struct ctrl_ops *ops;
        void *userdata;
        struct ctrl_conn *conns;
        unsigned n_conns;
        unsigned n_wait_idle; /* connections with wait_idle */
        bool exit_requested; /* hold connections open until the server goes away */
};

static void conn_close(struct ctrl_conn *c)
{
        struct ctrl_server *s = c->server;
        for (struct ctrl_conn **p = &s->conns; *p; p = &(*p)->next)
                if (*p == c) {
                        *p = c->next;
                        break;
                }
        s->n_conns--;
        if (c->wait_idle)
                s->n_wait_idle--;
        sd_event_source_disable_unref(c->source);
        close(c->fd);
        free(c);
}

static void dispatch(struct ctrl_server *s, const struct ctrl_message *m)
{
        const struct ctrl_ops *o = s->ops;
        void *u = s->userdata;

        log_debug("control: %s", ctrl_msg_type_to_string(m->type));
        switch (m->type) {
        case CTRL_SET_LOG_LEVEL:
                if (o->set_log_level)
                        o->set_log_level(m->intval, u);
                break;
        case CTRL_STOP_EXEC_QUEUE:
                if (o->stop_exec_queue)
                        o->stop_exec_queue(u);
                break;
        case CTRL_START_EXEC_QUEUE:
                if (o->start_exec_queue)
                        o->start_exec_queue(u);
                break;
        case CTRL_RELOAD:
                if (o->reload)
                        o->reload(u);
                break;
        case CTRL_SET_ENV:
                if (o->set_env)
                        o->set_env(m->key, m->value, u);
                break;
        case CTRL_SET_CHILDREN_MAX:
                if (o->set_children_max)
                        o->set_children_max((unsigned)m->intval, u);
                break;
        case CTRL_PING:
                if (o->ping)
                        o->ping(u);
                break;
        case CTRL_EXIT:
                s->exit_requested = true;
                if (o->exit)
                        o->exit(u);
                break;
        default:
                break;
        }
}

static void answer_idle(struct ctrl_conn *c)
{
        struct ctrl_wire w;
        if (ctrl_message_encode(CTRL_WAIT_IDLE, 0, NULL, &w) >= 0 &&
            send(c->fd, &w, sizeof(w), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
                log_debug_errno(errno, "control: cannot answer wait-idle: %m"); /* the client went away */
}

static void wait_idle(struct ctrl_conn *c)
{
        struct ctrl_server *s = c->server;
        log_debug("control: %s", ctrl_msg_type_to_string(CTRL_WAIT_IDLE));
        if (!s->ops->is_idle || c->wait_idle)
                return;
        if (s->ops->is_idle(s->userdata)) {
                answer_idle(c);
                return;
        }
        c->wait_idle = true;
        s->n_wait_idle++;
}

unsigned ctrl_server_notify_idle(struct ctrl_server *s)
{
        unsigned answered = 0;
        if (!s || s->n_wait_idle == 0)
                return 0;
        for (struct ctrl_conn *c = s->conns, *next; c; c = next) {
                next = c->next;
                if (!c->wait_idle)
                        continue;
                c->wait_idle = false;
                s->n_wait_idle--;
                answer_idle(c);
                answered++;
                if (c->ended && !s->exit_requested)
                        conn_close(c);
        }
        return answered;
}

static uid_t message_sender_uid(struct msghdr *mh)
{
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
                    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
                        struct ucred cred;
                        memcpy(&cred, CMSG_DATA(c), sizeof(cred));
                        return cred.uid;
                }
        return (uid_t)-1;
}

static int on_conn(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
        struct ctrl_conn *c = userdata;
        struct ctrl_server *s = c->server;
        struct ctrl_wire w;
        /* one byte more than a message, so an oversized datagram shows as such */
        char buf[sizeof(w) + 1];
        union {
                struct cmsghdr h;
                char space[CMSG_SPACE(sizeof(struct ucred))];
        } control;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };

        ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                log_debug_errno(errno, "control: receive failed: %m");
                conn_close(c);
                return 0;
        }
        if (n == 0) { /* the client went away */
                conn_close(c);
                return 0;
        }
        /* a peer could pass the fd on: check who sent this very message */
        uid_t uid = message_sender_uid(&mh);
        if (uid != 0) {
                log_warning("control: message from uid %d refused", (int)uid);
                conn_close(c);
                return 0;
        }
        struct ctrl_message m;
        const char *why = NULL;
        int r = ctrl_message_decode(buf, (mh.msg_flags & MSG_TRUNC) ? sizeof(buf) : (size_t)n, &m, &why);
        if (r < 0) {
                log_warning("control: invalid message (%s, %zd bytes), closing connection", why, n);
                conn_close(c);
                return 0;
        }
        if (m.type == CTRL_END_MESSAGES) {
                c->ended = true;
                if (s->exit_requested || c->wait_idle)
                        /* the client waits for the close: it comes with ctrl_server_free(), or
                         * after the idle answer */
                        (void)sd_event_source_set_enabled(c->source, SD_EVENT_OFF);
                else
                        conn_close(c);
                return 0;
        }
        if (m.type == CTRL_WAIT_IDLE) {
                wait_idle(c);
                return 0;
        }
        dispatch(s, &m);
        return 0;
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
        struct ctrl_server *s = userdata;

        for (;;) {
                _cleanup_close_ int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (cfd < 0) {
                        if (errno != EAGAIN && errno != EINTR)
                                log_warning_errno(errno, "control: accept failed: %m");
                        return 0;
                }
                struct ucred cred;
                socklen_t len = sizeof(cred);
                if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
                        log_warning_errno(errno, "control: cannot get peer credentials: %m");
                        continue;
                }
                if (cred.uid != 0) {
                        log_warning("control: connection from uid %d (pid %d) refused", (int)cred.uid,
                                    (int)cred.pid);
                        continue;
                }
                if (s->n_conns >= CTRL_MAX_CONNECTIONS) {
                        log_warning("control: too many connections, refusing pid %d", (int)cred.pid);
                        continue;
                }
                int one = 1;
                if (setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
                        log_warning_errno(errno, "control: cannot enable credentials: %m");
                        continue;
                }
                struct ctrl_conn *c = calloc(1, sizeof(*c));
                if (!c) {
                        log_oom();
                        continue;
                }
                c->server = s;
                c->fd = cfd;
                int r = sd_event_add_io(s->event, &c->source, cfd, EPOLLIN, on_conn, c);
                if (r < 0) {
                        log_warning_errno(r, "control: cannot watch connection: %m");
                        free(c);
                        continue;
                }
                TAKE_FD(cfd);
                c->next = s->conns;
                s->conns = c;
                s->n_conns++;
        }
}

/* Is a server answering on this path? */
static bool socket_alive(const struct sockaddr_un *sa, socklen_t len)
{
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return false;
        return connect(fd, (const struct sockaddr *)sa, len) == 0 || errno == EAGAIN;
}

/* Binds fd to path, listening. Clients take the path's existence for "the daemon is ready" and
 * connect at once, and a connect between bind() and listen() is refused (settle would then trust
 * the queue file of a daemon that has not read its first uevent yet). So the socket is bound to
 * a name of its own and linked to path once it listens; link() fails on an existing path as
 * bind() does, so two daemons cannot both take it. */
static int bind_listening(int fd, const char *path)
{
        struct sockaddr_un sa, tmp_sa;
        socklen_t salen, tmp_salen;
        _cleanup_free_ char *tmp = NULL;
        int r = ctrl_socket_address(path, &sa, &salen);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.%ld", path, (long)getpid()) < 0)
                return -ENOMEM;
        r = ctrl_socket_address(tmp, &tmp_sa, &tmp_salen);
        if (r < 0)
                return r;

        (void)unlink(tmp); /* left by a daemon of the same pid that died */
        mode_t old_umask = umask(0077);
        r = bind(fd, (struct sockaddr *)&tmp_sa, tmp_salen) < 0 ? -errno : 0;
        umask(old_umask);
        if (r < 0)
                return r;
        if (listen(fd, SOMAXCONN) < 0 || link(tmp, path) < 0)
                r = -errno;
        if (r == -EEXIST) {
                if (socket_alive(&sa, salen))
                        r = -EADDRINUSE;
                else {
                        (void)unlink(path); /* stale, from a daemon that died */
                        r = link(tmp, path) < 0 ? -errno : 0;
                }
        }
        (void)unlink(tmp);
        return r;
}

int ctrl_server_new(sd_event *event, const char *path, const struct ctrl_ops *ops, void *userdata,
                    struct ctrl_server **ret)
{
        _cleanup_(ctrl_server_freep) struct ctrl_server *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->fd = -1;
        s->ops = ops;
        s->userdata = userdata;
        s->event = sd_event_ref(event);

        s->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s->fd < 0)
                return -errno;
        int one = 1;
        if (setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
                return -errno;
        int r = bind_listening(s->fd, path);
        if (r < 0)
                return r;
        s->path = strdup(path); /* from now on, free() unlinks it */
        if (!s->path) {
                (void)unlink(path);
                return -ENOMEM;
        }
        r = sd_event_add_io(event, &s->source, s->fd, EPOLLIN, on_accept, s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int ctrl_server_new_from_fd(sd_event *event, int fd, const struct ctrl_ops *ops, void *userdata,
                            struct ctrl_server **ret)
{
        _cleanup_(ctrl_server_freep) struct ctrl_server *s = calloc(1, sizeof(*s));
        int one = 1, r;

        if (!s)
                return -ENOMEM;
        s->ops = ops;
        s->userdata = userdata;
        s->event = sd_event_ref(event);
        s->fd = fd; /* ours from now on; the socket file stays the service manager's */
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
                return -errno;
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return -errno;
        r = sd_event_add_io(event, &s->source, s->fd, EPOLLIN, on_accept, s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

struct ctrl_server *ctrl_server_free(struct ctrl_server *s)
{
        if (!s)
                return NULL;
        while (s->conns)
                conn_close(s->conns);
        sd_event_source_disable_unref(s->source);
        if (s->fd >= 0)
                close(s->fd);
        if (s->path) {
                (void)unlink(s->path);
                free(s->path);
        }
        sd_event_unref(s->event);
        free(s);
        return NULL;
}
