/* SPDX-License-Identifier: MIT */
/*
 * Socket activation: take the sockets a service manager opened for devmand (systemd's
 * devman-kernel.socket and devman-control.socket, passed with LISTEN_PID/LISTEN_FDS from fd 3
 * on), so events raised before devmand runs, or while it restarts, wait in their buffers.
 *
 * A passed fd is recognised by what it is, not by its position: the NETLINK_KOBJECT_UEVENT
 * socket becomes the kernel socket, a listening AF_UNIX SOCK_SEQPACKET socket (bound to
 * control_path, when that is not NULL) the control socket. Taken fds are made close-on-exec,
 * so PROGRAM and RUN children never inherit them; anything else passed is logged and closed.
 */
#pragma once

/* Sets *ret_kernel and *ret_control to the passed sockets, or -1 for each that was not
 * passed (always -1 when devmand was not socket-activated). The caller owns the fds. Clears
 * LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES from the environment. Returns how many sockets
 * were taken, or -errno when the passed fds cannot be examined. */
int listen_fds_take(const char *control_path, int *ret_kernel, int *ret_control);
