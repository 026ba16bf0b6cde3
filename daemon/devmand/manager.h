/* SPDX-License-Identifier: MIT */
/*
 * The daemon's context: it owns the sd-event loop and all daemon state (model, queue,
 * sockets, roots). Nothing else in devmand is mutable and global.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct devman_config;

struct manager_options {
        const struct devman_config *config; /* roots, rules dirs, timeouts; borrowed for the manager's life */
        bool once;              /* coldplug every device of the sysfs root, then exit */
        int rcvbuf;             /* kernel socket receive buffer, bytes */
        int listen_fd_kernel;   /* socket-activated kernel socket, or -1 (the manager takes it) */
        int listen_fd_control;  /* socket-activated control socket, or -1 (the manager takes it) */
        const char *uevent_socket; /* read uevents from a local socket made here instead of the
                                    * kernel's (uevent_listener_new_local), or NULL; refused when
                                    * the sysfs root is a real sysfs */
};

struct manager;

int manager_new(const struct manager_options *o, struct manager **ret);
struct manager *manager_free(struct manager *m);
/* Runs until SIGTERM/SIGINT, an exit request, or (once) the coldplug is done; returns the exit
 * status for main(). on_ready is called once everything listens (before the first event). */
int manager_run(struct manager *m, void (*on_ready)(void *userdata), void *userdata);
