/* SPDX-License-Identifier: MIT */
#include "listen-fds.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "macros.h"

static bool is_uevent_socket(int fd)
{
        int protocol = -1;
        socklen_t len = sizeof(protocol);

        if (sd_is_socket(fd, AF_NETLINK, SOCK_RAW, -1) <= 0)
                return false;
        return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 &&
               protocol == NETLINK_KOBJECT_UEVENT;
}

static bool is_control_socket(int fd, const char *control_path)
{
        /* length 0 makes sd_is_socket_unix() compare the path as a NUL-terminated string */
        return sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, control_path, 0) > 0;
}

int listen_fds_take(const char *control_path, int *ret_kernel, int *ret_control)
{
        int kernel = -1, control = -1, n;

        /* unset_environment = 1: RUN programs must not think the fds are theirs. */
        n = sd_listen_fds(1);
        unsetenv("LISTEN_FDNAMES");
        if (n < 0)
                return n;

        for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
                int *slot = NULL;

                if (is_uevent_socket(fd))
                        slot = &kernel;
                else if (is_control_socket(fd, control_path))
                        slot = &control;

                if (!slot || *slot >= 0) {
                        if (!slot)
                                log_warning(
                                        "Socket activation: fd %d is no socket devmand expects, closing it.",
                                        fd);
                        else
                                log_warning("Socket activation: fd %d is a second %s socket, closing it.",
                                            fd, slot == &kernel ? "uevent" : "control");
                        close(fd);
                        continue;
                }
                if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
                        int r = negative_errno();
                        for (int rest = fd; rest < SD_LISTEN_FDS_START + n; rest++)
                                close(rest);
                        if (kernel >= 0)
                                close(kernel);
                        if (control >= 0)
                                close(control);
                        return r;
                }
                *slot = fd;
        }
        *ret_kernel = kernel;
        *ret_control = control;
        return (kernel >= 0) + (control >= 0);
}
