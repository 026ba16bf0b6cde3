/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "listen-fds.h"
#include "macros.h"
#include "test-util.h"

/* The sockets a service manager would pass, placed at fd 3 onwards like systemd does. */
enum kind { UEVENT, CONTROL, CONTROL_ELSEWHERE, STREAM };

static char control_path[64], other_path[64];

static int make_socket(enum kind k)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd;

        if (k == UEVENT)
                return socket(AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT);
        fd = socket(AF_UNIX, k == STREAM ? SOCK_STREAM : SOCK_SEQPACKET, 0);
        if (fd < 0 || k == STREAM)
                return fd;
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", k == CONTROL ? control_path : other_path);
        unlink(sa.sun_path);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0) {
                perror("bind/listen");
                exit(1);
        }
        return fd;
}

/* Puts sockets of the given kinds at fds 3, 4, … and sets LISTEN_PID/LISTEN_FDS for pid. */
static void pass(pid_t pid, const enum kind *kinds, int n)
{
        char buf[32];

        for (int i = 0; i < n; i++) {
                int fd = make_socket(kinds[i]);
                if (fd < 0 || dup2(fd, 3 + i) < 0) {
                        perror("socket");
                        exit(1);
                }
                if (fd != 3 + i)
                        close(fd);
        }
        snprintf(buf, sizeof(buf), "%d", (int)pid);
        setenv("LISTEN_PID", buf, 1);
        snprintf(buf, sizeof(buf), "%d", n);
        setenv("LISTEN_FDS", buf, 1);
        setenv("LISTEN_FDNAMES", "devman-kernel.socket:devman-control.socket", 1);
}

static bool fd_open(int fd)
{
        return fcntl(fd, F_GETFD) >= 0;
}

static bool fd_cloexec(int fd)
{
        int flags = fcntl(fd, F_GETFD);
        return flags >= 0 && (flags & FD_CLOEXEC);
}

static void close_range_from(int first, int last)
{
        for (int fd = first; fd <= last; fd++)
                close(fd);
}

static void test_not_activated(void)
{
        int kernel = 7, control = 7;

        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        CHECK_INT(listen_fds_take(control_path, &kernel, &control), 0);
        CHECK_INT(kernel, -1);
        CHECK_INT(control, -1);
}

static void test_for_another_process(void)
{
        static const enum kind kinds[] = {UEVENT, CONTROL};
        int kernel = 7, control = 7;

        pass(getpid() + 1, kinds, 2); /* LISTEN_PID names someone else: not ours to take */
        CHECK_INT(listen_fds_take(control_path, &kernel, &control), 0);
        CHECK_INT(kernel, -1);
        CHECK_INT(control, -1);
        CHECK(fd_open(3) && fd_open(4));
        close_range_from(3, 4);
}

static void test_both_sockets_any_order(void)
{
        static const enum kind kinds[] = {CONTROL, UEVENT};
        int kernel = -1, control = -1;

        pass(getpid(), kinds, 2);
        CHECK_INT(listen_fds_take(control_path, &kernel, &control), 2);
        CHECK_INT(kernel, 4);
        CHECK_INT(control, 3);
        CHECK(fd_cloexec(3) && fd_cloexec(4));
        CHECK(getenv("LISTEN_PID") == NULL);
        CHECK(getenv("LISTEN_FDS") == NULL);
        CHECK(getenv("LISTEN_FDNAMES") == NULL);
        close_range_from(3, 4);
}

static void test_strays_are_closed(void)
{
        /* A stream socket, a control socket bound elsewhere and a second uevent socket are not
         * what devmand asked for. */
        static const enum kind kinds[] = {STREAM, UEVENT, CONTROL_ELSEWHERE, UEVENT};
        int kernel = -1, control = -1;

        pass(getpid(), kinds, 4);
        CHECK_INT(listen_fds_take(control_path, &kernel, &control), 1);
        CHECK_INT(kernel, 4);
        CHECK_INT(control, -1);
        CHECK(!fd_open(3));
        CHECK(!fd_open(5));
        CHECK(!fd_open(6));
        close_range_from(3, 6);

        /* Without a path to match, any listening seqpacket socket is the control socket. */
        static const enum kind one[] = {CONTROL_ELSEWHERE};
        pass(getpid(), one, 1);
        CHECK_INT(listen_fds_take(NULL, &kernel, &control), 1);
        CHECK_INT(kernel, -1);
        CHECK_INT(control, 3);
        close_range_from(3, 3);
}

static void test_setup(void)
{
        /* fds 3… are the service manager's: nothing of ours may sit there. */
        for (int fd = 3; fd < 8; fd++)
                CHECK(!fd_open(fd));
        snprintf(control_path, sizeof(control_path), "/tmp/devman-test-control.%d", (int)getpid());
        snprintf(other_path, sizeof(other_path), "/tmp/devman-test-other.%d", (int)getpid());
}

static void test_cleanup(void)
{
        CHECK(unlink(control_path) == 0);
        CHECK(unlink(other_path) == 0);
}

TEST_MAIN(TEST(test_setup), TEST(test_not_activated), TEST(test_for_another_process),
          TEST(test_both_sockets_any_order), TEST(test_strays_are_closed), TEST(test_cleanup))
