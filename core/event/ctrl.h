/* SPDX-License-Identifier: MIT */
/*
 * The control socket (<run>/control): AF_UNIX SOCK_SEQPACKET speaking the wire format of
 * systemd 252's udev-ctrl, so that `udevadm control …` and `udevadm settle` work against
 * devmand, and devmanadm control against either daemon.
 *
 * Wire format: one fixed-size datagram per message, host byte order:
 *   char version[16]   sender's version string, not checked
 *   uint32 magic       0xdead1dea
 *   int32 type         enum ctrl_msg_type
 *   union { int32 intval; char buf[256]; } value
 * A client sends any number of messages over one connection, then an END_MESSAGES message,
 * and waits until the server closes the connection: that close is the answer (a "ping"
 * therefore returns once every earlier message was handled).
 *
 * WAIT_IDLE is devman's own (udevd 252 ignores it): the server answers it with a WAIT_IDLE
 * datagram of its own once its event queue is empty — at once when it is — and closes the
 * connection after that answer and END_MESSAGES. A client that sees the close without the
 * answer talks to a daemon that does not know the request, and waits for <run>/queue to go.
 * (Waiting with inotify costs the closing process an RCU grace period of the kernel's
 * fsnotify, up to milliseconds, at the end of every settle.)
 *
 * Server: at most 32 connections at a time (more are closed at once); accepts only peers with uid 0 (SO_PEERCRED at accept and SCM_CREDENTIALS on each
 * message); a message of the wrong size, with the wrong magic or an invalid value is logged
 * and the connection closed. Nothing a client sends can stop the server.
 */
#pragma once

#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <systemd/sd-event.h>

#include "macros.h"

#define CTRL_MAGIC 0xdead1deaU
#define CTRL_VALUE_BUF_SIZE 256

enum ctrl_msg_type {
        CTRL_END_MESSAGES = 0,
        CTRL_SET_LOG_LEVEL = 1,
        CTRL_STOP_EXEC_QUEUE = 2,
        CTRL_START_EXEC_QUEUE = 3,
        CTRL_RELOAD = 4,
        CTRL_SET_ENV = 5,
        CTRL_SET_CHILDREN_MAX = 6,
        CTRL_PING = 7,
        CTRL_EXIT = 8,
        CTRL_WAIT_IDLE = 9, /* devman's own, see above */
        _CTRL_MSG_TYPE_MAX,
};

const char *ctrl_msg_type_to_string(enum ctrl_msg_type t);

/* The datagram as it travels. */
struct ctrl_wire {
        char version[16];
        uint32_t magic;
        int32_t type;
        union {
                int32_t intval;
                char buf[CTRL_VALUE_BUF_SIZE];
        } value;
};

/* A decoded, validated message. For SET_ENV, key/value point into the caller's buffer copy
 * held in `env` (value NULL means "unset the key"). */
struct ctrl_message {
        enum ctrl_msg_type type;
        int intval;        /* SET_LOG_LEVEL (0..7), SET_CHILDREN_MAX (> 0) */
        char env[CTRL_VALUE_BUF_SIZE]; /* SET_ENV: "KEY\0VALUE" */
        const char *key;
        const char *value;
};

/* Pure: validates one received datagram. 0 on success; -EBADMSG with a static reason in
 * *why for a wrong size, wrong magic, unknown type or invalid value. */
int ctrl_message_decode(const void *buf, size_t len, struct ctrl_message *ret, const char **why);
/* Fills a datagram. str is used for SET_ENV (at most 255 bytes, else -E2BIG), intval for
 * SET_LOG_LEVEL and SET_CHILDREN_MAX. */
int ctrl_message_encode(enum ctrl_msg_type type, int intval, const char *str, struct ctrl_wire *ret);

/* What the daemon does with each message. Any member may be NULL (the message is then
 * accepted and ignored). The callbacks must not free the server: to stop, call
 * sd_event_exit() and free it after the loop. */
struct ctrl_ops {
        void (*set_log_level)(int level, void *userdata);
        void (*stop_exec_queue)(void *userdata);
        void (*start_exec_queue)(void *userdata);
        void (*reload)(void *userdata);
        void (*set_env)(const char *key, const char *value, void *userdata); /* value NULL: unset */
        void (*set_children_max)(unsigned n, void *userdata);
        void (*ping)(void *userdata);
        void (*exit)(void *userdata); /* the client's connection is then held open until ctrl_server_free() */
        /* Is the event queue empty? NULL: WAIT_IDLE is ignored (the client falls back to the
         * queue file). When it was not, the daemon calls ctrl_server_notify_idle() later. */
        bool (*is_idle)(void *userdata);
};

struct ctrl_server;

/* Binds path (a stale socket file is replaced; -EADDRINUSE when a server answers on it),
 * listens, and attaches to the event loop (which it references). The socket file is created
 * with mode 0600 and removed by ctrl_server_free(). 0 or -errno. */
int ctrl_server_new(sd_event *event, const char *path, const struct ctrl_ops *ops, void *userdata,
                    struct ctrl_server **ret);
/* The same on a listening socket passed by the service manager (socket activation): the
 * server takes fd and leaves the socket file alone when freed. */
int ctrl_server_new_from_fd(sd_event *event, int fd, const struct ctrl_ops *ops, void *userdata,
                            struct ctrl_server **ret);
/* The event queue became empty: answers every client waiting for that. Cheap when none
 * waits; s may be NULL. Returns how many clients were answered. */
unsigned ctrl_server_notify_idle(struct ctrl_server *s);
/* Closes every connection (a client waiting after an exit request gets its answer), the
 * listening socket, and removes the socket file ctrl_server_new() made. Returns NULL. */
struct ctrl_server *ctrl_server_free(struct ctrl_server *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct ctrl_server, ctrl_server_free)

/* The sockaddr of the control socket at path (a file name, not abstract). 0, or -ENAMETOOLONG. */
int ctrl_socket_address(const char *path, struct sockaddr_un *sa, socklen_t *len);

/* Client side (blocking calls, for devmanadm). */
/* Connects to path; returns the socket fd or -errno. */
int ctrl_client_connect(const char *path);
/* Sends one message; 0 or -errno. */
int ctrl_client_send(int fd, enum ctrl_msg_type type, int intval, const char *str);
/* Sends END_MESSAGES and waits until the server closes the connection. 0, -ETIMEDOUT, or
 * -errno. timeout_usec 0 means do not wait. */
int ctrl_client_wait(int fd, uint64_t timeout_usec);
/* Sends WAIT_IDLE and END_MESSAGES and waits for the answer: 1 when the server said its queue
 * is empty, 0 when it closed the connection without saying so (it does not know the request;
 * it did read every kernel event sent before), -ETIMEDOUT, or -errno. */
int ctrl_client_wait_idle(int fd, uint64_t timeout_usec);
