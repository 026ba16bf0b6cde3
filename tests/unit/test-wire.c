/* SPDX-License-Identifier: MIT */
/* The wire formats, without the kernel: udev-ctrl messages (encode, decode, hostile input),
 * the control server against its client over a socket in a temporary directory, the libudev
 * monitor message (build, parse back, hostile input), devmanadm monitor's filter and printer. */
#include <arpa/inet.h>
#include <dirent.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "monitor-format.h"
#include "ctrl.h"
#include "device.h"
#include "export.h"
#include "fs-util.h"
#include "monitor.h"
#include "strv.h"
#include "test-tmpdir.h"
#include "test-util.h"

static void test_ctrl_codec(void)
{
        struct ctrl_wire w;
        struct ctrl_message m;
        const char *why = NULL;

        CHECK_INT(sizeof(w), 280);
        CHECK_INT(ctrl_message_encode(CTRL_SET_LOG_LEVEL, 7, NULL, &w), 0);
        CHECK_INT(w.magic, 0xdead1dea);
        CHECK_INT(w.type, 1);
        CHECK_INT(ctrl_message_decode(&w, sizeof(w), &m, &why), 0);
        CHECK_INT(m.type, CTRL_SET_LOG_LEVEL);
        CHECK_INT(m.intval, 7);

        CHECK_INT(ctrl_message_encode(CTRL_SET_ENV, 0, "FOO=bar=baz", &w), 0);
        CHECK_INT(w.type, 5);
        CHECK_INT(ctrl_message_decode(&w, sizeof(w), &m, &why), 0);
        CHECK_STR(m.key, "FOO");
        CHECK_STR(m.value, "bar=baz");
        CHECK_INT(ctrl_message_encode(CTRL_SET_ENV, 0, "FOO=", &w), 0);
        CHECK_INT(ctrl_message_decode(&w, sizeof(w), &m, &why), 0);
        CHECK(m.value == NULL);

        /* the numbering udevadm 252 uses */
        CHECK_INT(CTRL_STOP_EXEC_QUEUE, 2);
        CHECK_INT(CTRL_START_EXEC_QUEUE, 3);
        CHECK_INT(CTRL_RELOAD, 4);
        CHECK_INT(CTRL_SET_CHILDREN_MAX, 6);
        CHECK_INT(CTRL_PING, 7);
        CHECK_INT(CTRL_EXIT, 8);
        /* devman's own request, after udevadm's numbers */
        CHECK_INT(CTRL_WAIT_IDLE, 9);
        struct ctrl_wire wi;
        CHECK_INT(ctrl_message_encode(CTRL_WAIT_IDLE, 0, NULL, &wi), 0);
        CHECK_INT(ctrl_message_decode(&wi, sizeof(wi), &m, &why), 0);
        CHECK_INT(m.type, CTRL_WAIT_IDLE);

        /* hostile */
        CHECK_INT(ctrl_message_decode(&w, sizeof(w) - 1, &m, &why), -EBADMSG);
        CHECK_INT(ctrl_message_decode(&w, 0, &m, &why), -EBADMSG);
        char big[sizeof(w) + 1] = {0};
        memcpy(big, &w, sizeof(w));
        CHECK_INT(ctrl_message_decode(big, sizeof(big), &m, &why), -EBADMSG);
        struct ctrl_wire bad = w;
        bad.magic = 0xfeedcafe;
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        CHECK_STR(why, "wrong magic");
        bad = w;
        bad.type = 10;
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        bad.type = -1;
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        bad = w;
        memset(bad.value.buf, 'A', sizeof(bad.value.buf)); /* no NUL */
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        strcpy(bad.value.buf, "=value");
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        strcpy(bad.value.buf, "NOEQUALS");
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        ctrl_message_encode(CTRL_SET_LOG_LEVEL, 8, NULL, &bad);
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        ctrl_message_encode(CTRL_SET_CHILDREN_MAX, 0, NULL, &bad);
        CHECK_INT(ctrl_message_decode(&bad, sizeof(bad), &m, &why), -EBADMSG);
        char longstr[300];
        memset(longstr, 'x', sizeof(longstr) - 1);
        longstr[sizeof(longstr) - 1] = '\0';
        CHECK_INT(ctrl_message_encode(CTRL_SET_ENV, 0, longstr, &w), -E2BIG);
}

struct counters {
        int log_level, reload, stop, start, ping, exit, children;
        char env[64];
};

static void on_level(int l, void *u)
{
        ((struct counters *)u)->log_level = l;
}
static void on_reload(void *u)
{
        ((struct counters *)u)->reload++;
}
static void on_ping(void *u)
{
        ((struct counters *)u)->ping++;
}
static void on_env(const char *k, const char *v, void *u)
{
        snprintf(((struct counters *)u)->env, 64, "%s=%s", k, v ? v : "(unset)");
}

static const struct ctrl_ops ops = {
        .set_log_level = on_level,
        .reload = on_reload,
        .ping = on_ping,
        .set_env = on_env,
};

/* Runs the loop until the child exits; returns its exit status. */
static int run_until_exit(sd_event *e, pid_t pid)
{
        for (int i = 0; i < 500; i++) {
                int st;
                if (waitpid(pid, &st, WNOHANG) == pid)
                        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
                sd_event_run(e, 10000);
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
}

/* entries of dir other than . and .. */
static int dir_entry_count(const char *dir)
{
        DIR *d = opendir(dir);
        int n = 0;
        if (!d)
                return -errno;
        while (fs_readdir(d, false))
                n++;
        closedir(d);
        return n;
}

static void test_ctrl_server(void)
{
        char *dir = test_tmpdir_new("ctrl");
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/control", dir) > 0);
        sd_event *e = NULL;
        CHECK(sd_event_new(&e) >= 0);
        struct counters c = {0};
        struct ctrl_server *s = NULL;
        CHECK_INT(ctrl_server_new(e, path, &ops, &c, &s), 0);
        /* a second server on a live socket is refused */
        struct ctrl_server *s2 = NULL;
        CHECK_INT(ctrl_server_new(e, path, &ops, &c, &s2), -EADDRINUSE);
        /* the socket is bound under a name of its own and linked to path once it listens
         * (tests/fixture/control-ready.py): no such name is left behind */
        CHECK_INT(dir_entry_count(dir), 1);

        pid_t pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                if (fd < 0)
                        _exit(10);
                if (ctrl_client_send(fd, CTRL_SET_LOG_LEVEL, 6, NULL) < 0 ||
                    ctrl_client_send(fd, CTRL_SET_ENV, 0, "A=b") < 0 || ctrl_client_send(fd, CTRL_RELOAD, 0, NULL) < 0 ||
                    ctrl_client_send(fd, CTRL_PING, 0, NULL) < 0)
                        _exit(11);
                _exit(ctrl_client_wait(fd, 5000000) == 0 ? 0 : 12);
        }
        CHECK_INT(run_until_exit(e, pid), 0);
        CHECK_INT(c.log_level, 6);
        CHECK_STR(c.env, "A=b");
        CHECK_INT(c.reload, 1);
        CHECK_INT(c.ping, 1);

        /* wrong magic: the connection is closed, nothing dispatched, the server lives on */
        pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                struct ctrl_wire w;
                ctrl_message_encode(CTRL_RELOAD, 0, NULL, &w);
                w.magic = 0x12345678;
                if (fd < 0 || send(fd, &w, sizeof(w), 0) < 0)
                        _exit(10);
                char b;
                _exit(recv(fd, &b, 1, 0) == 0 ? 0 : 11); /* EOF: closed by the server */
        }
        CHECK_INT(run_until_exit(e, pid), 0);
        CHECK_INT(c.reload, 1);

        /* short message */
        pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                if (fd < 0 || send(fd, "udev", 4, 0) < 0)
                        _exit(10);
                char b;
                _exit(recv(fd, &b, 1, 0) == 0 ? 0 : 11);
        }
        CHECK_INT(run_until_exit(e, pid), 0);

        /* still answering */
        pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                if (fd < 0 || ctrl_client_send(fd, CTRL_RELOAD, 0, NULL) < 0)
                        _exit(10);
                _exit(ctrl_client_wait(fd, 5000000) == 0 ? 0 : 12);
        }
        CHECK_INT(run_until_exit(e, pid), 0);
        CHECK_INT(c.reload, 2);

        /* idle connections are bounded: the one over the limit is closed at once */
        int idle[32];
        for (int i = 0; i < 32; i++) {
                idle[i] = ctrl_client_connect(path);
                CHECK(idle[i] >= 0);
        }
        for (int i = 0; i < 20; i++)
                sd_event_run(e, 1000);
        int extra = ctrl_client_connect(path);
        CHECK(extra >= 0);
        for (int i = 0; i < 20; i++)
                sd_event_run(e, 1000);
        char byte;
        CHECK(recv(extra, &byte, 1, MSG_DONTWAIT) == 0); /* EOF: refused */
        close(extra);
        for (int i = 0; i < 32; i++)
                close(idle[i]);
        pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                if (fd < 0 || ctrl_client_send(fd, CTRL_RELOAD, 0, NULL) < 0)
                        _exit(10);
                _exit(ctrl_client_wait(fd, 5000000) == 0 ? 0 : 12);
        }
        CHECK_INT(run_until_exit(e, pid), 0);
        CHECK_INT(c.reload, 3);

        s = ctrl_server_free(s);
        CHECK(access(path, F_OK) < 0); /* the socket file goes with the server */
        CHECK(ctrl_client_connect(path) < 0);
        sd_event_unref(e);
        test_tmpdir_remove(dir);
}

static bool queue_idle;
static bool on_is_idle(void *u)
{
        return queue_idle;
}

static const struct ctrl_ops idle_ops = {
        .ping = on_ping,
        .is_idle = on_is_idle,
};

/* A child that waits for the idle answer; exits with ctrl_client_wait_idle()'s result + 10. */
static pid_t fork_wait_idle(const char *path)
{
        pid_t pid = fork();
        if (pid == 0) {
                int fd = ctrl_client_connect(path);
                if (fd < 0)
                        _exit(5);
                _exit(10 + ctrl_client_wait_idle(fd, 5000000));
        }
        return pid;
}

/* The child is still waiting after the loop ran for a while. */
static bool still_waiting(sd_event *e, pid_t pid)
{
        for (int i = 0; i < 20; i++)
                sd_event_run(e, 5000);
        return waitpid(pid, NULL, WNOHANG) == 0;
}

/* WAIT_IDLE: answered at once when the queue is empty; else held until the daemon says it is
 * empty (and not before), then the connection is closed; a server that does not know it (no
 * is_idle) closes without an answer. */
static void test_ctrl_wait_idle(void)
{
        char *dir = test_tmpdir_new("ctrl-idle");
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/control", dir) > 0);
        sd_event *e = NULL;
        CHECK_INT(sd_event_new(&e), 0);
        struct counters c = {0};
        struct ctrl_server *s = NULL;
        CHECK_INT(ctrl_server_new(e, path, &idle_ops, &c, &s), 0);

        queue_idle = true;
        CHECK_INT(run_until_exit(e, fork_wait_idle(path)), 11);

        queue_idle = false;
        pid_t pid = fork_wait_idle(path);
        CHECK(still_waiting(e, pid));
        ctrl_server_notify_idle(s); /* a stale notification: answers, is_idle is not asked again */
        CHECK_INT(run_until_exit(e, pid), 11);

        /* two waiters; the answer comes with the notification, and the connections close */
        pid_t a = fork_wait_idle(path), b = fork_wait_idle(path);
        CHECK(still_waiting(e, a));
        CHECK(waitpid(b, NULL, WNOHANG) == 0);
        queue_idle = true;
        ctrl_server_notify_idle(s);
        CHECK_INT(run_until_exit(e, a), 11);
        CHECK_INT(run_until_exit(e, b), 11);
        for (int i = 0; i < 10; i++)
                sd_event_run(e, 1000);
        /* a waiter that gives up (closes) before the answer does not leave anything behind */
        queue_idle = false;
        int fd = ctrl_client_connect(path);
        CHECK(fd >= 0 && ctrl_client_send(fd, CTRL_WAIT_IDLE, 0, NULL) == 0);
        for (int i = 0; i < 10; i++)
                sd_event_run(e, 1000);
        close(fd);
        for (int i = 0; i < 10; i++)
                sd_event_run(e, 1000);
        ctrl_server_notify_idle(s);
        /* and a ping on the side is still answered by the close alone */
        pid = fork();
        if (pid == 0) {
                int pfd = ctrl_client_connect(path);
                if (pfd < 0 || ctrl_client_send(pfd, CTRL_PING, 0, NULL) < 0)
                        _exit(10);
                _exit(ctrl_client_wait(pfd, 5000000) == 0 ? 0 : 12);
        }
        CHECK_INT(run_until_exit(e, pid), 0);
        CHECK_INT(c.ping, 1);
        s = ctrl_server_free(s);

        /* a server without is_idle (like udevd) closes without the answer: the client says 0 */
        CHECK_INT(ctrl_server_new(e, path, &ops, &c, &s), 0);
        CHECK_INT(run_until_exit(e, fork_wait_idle(path)), 10);
        /* and a server that goes away while a client waits: 0 as well */
        CHECK_INT(ctrl_server_free(s) == NULL, 1);
        CHECK_INT(ctrl_server_new(e, path, &idle_ops, &c, &s), 0);
        pid = fork_wait_idle(path);
        CHECK(still_waiting(e, pid));
        s = ctrl_server_free(s);
        CHECK_INT(run_until_exit(e, pid), 10);

        /* the socket file of a daemon that died (bound, nobody listening) is taken over */
        struct sockaddr_un sa;
        socklen_t salen;
        CHECK_INT(ctrl_socket_address(path, &sa, &salen), 0);
        int dead = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        CHECK(dead >= 0 && bind(dead, (struct sockaddr *)&sa, salen) == 0);
        close(dead);
        CHECK_INT(ctrl_server_new(e, path, &ops, &c, &s), 0);
        CHECK_INT(dir_entry_count(dir), 1);
        int cfd = ctrl_client_connect(path);
        CHECK(cfd >= 0);
        close(cfd);
        s = ctrl_server_free(s);
        CHECK_INT(dir_entry_count(dir), 0);

        sd_event_unref(e);
        test_tmpdir_remove(dir);
}

static struct device *disk_device(void)
{
        struct device *d = NULL;
        if (device_new("/devices/virtual/block/loop7", &d) < 0)
                abort();
        device_set_subsystem(d, "block");
        device_set_devtype(d, "disk");
        device_set_devname(d, "loop7");
        d->devnum = makedev(7, 7);
        d->devnum_type = 'b';
        props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        props_set(&d->props, "SUBSYSTEM", "block", PROP_KERNEL);
        props_set(&d->props, "DEVTYPE", "disk", PROP_KERNEL);
        props_set(&d->props, "DEVNAME", "/dev/loop7", PROP_KERNEL);
        props_set(&d->props, "ID_FS_TYPE", "ext4", PROP_DB);
        props_set(&d->props, ".HIDDEN", "x", PROP_DB);
        struct device_udev *u = device_get_udev(d);
        strv_push_copy(&u->links, "disk/by-id/a");
        strv_push_copy(&u->links, "disk/by-label/b");
        strv_push_copy(&u->tags, "systemd");
        strv_push_copy(&u->tags, "seat");
        strv_push_copy(&u->current_tags, "systemd");
        u->usec_initialized = 777;
        return d;
}

static void test_monitor_message(void)
{
        _cleanup_device_unref_ struct device *d = disk_device();
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;

        CHECK_INT(monitor_build_message("/dev", "add", d, 0, &buf, &len), -EINVAL);
        CHECK_INT(monitor_build_message("/dev", "add", d, 42, &buf, &len), 0);
        CHECK(len > 40);
        CHECK(memcmp(buf, "libudev\0", 8) == 0);
        const unsigned char *b = (const unsigned char *)buf;
        /* magic in network byte order */
        CHECK(b[8] == 0xfe && b[9] == 0xed && b[10] == 0xca && b[11] == 0xfe);
        uint32_t v[8];
        memcpy(v, buf + 8, sizeof(v));
        CHECK_INT(v[1], 40);                  /* header size, host order */
        CHECK_INT(v[2], 40);                  /* properties offset */
        CHECK_INT(v[3], len - 40);            /* properties length */
        CHECK_INT(ntohl(v[4]), monitor_string_hash32("block"));
        CHECK_INT(ntohl(v[5]), monitor_string_hash32("disk"));
        uint64_t bloom = ((uint64_t)ntohl(v[6]) << 32) | ntohl(v[7]);
        uint64_t want = monitor_string_bloom64("systemd") | monitor_string_bloom64("seat");
        CHECK(bloom == want);
        CHECK(__builtin_popcountll(monitor_string_bloom64("systemd")) >= 1);
        CHECK(monitor_string_hash32("block") != monitor_string_hash32("disk"));
        CHECK(buf[len - 1] == '\0');

        _cleanup_(monitor_event_freep) struct monitor_event *e = NULL;
        const char *why = NULL;
        CHECK_INT(monitor_parse_message(buf, len, &e, &why), 0);
        if (e) {
                CHECK_INT(e->source, MONITOR_SOURCE_UDEV);
                CHECK_STR(e->action, "add");
                CHECK_STR(e->devpath, "/devices/virtual/block/loop7");
                CHECK_STR(e->subsystem, "block");
                CHECK_STR(e->devtype, "disk");
                CHECK_STR(props_get(&e->props, "SEQNUM"), "42");
                CHECK_STR(props_get(&e->props, "DEVNAME"), "/dev/loop7");
                CHECK_STR(props_get(&e->props, "DEVLINKS"), "/dev/disk/by-id/a /dev/disk/by-label/b");
                CHECK_STR(props_get(&e->props, "TAGS"), ":systemd:seat:");
                CHECK_STR(props_get(&e->props, "CURRENT_TAGS"), ":systemd:");
                CHECK_STR(props_get(&e->props, "USEC_INITIALIZED"), "777");
                CHECK_STR(props_get(&e->props, "ID_FS_TYPE"), "ext4");
                CHECK(props_get(&e->props, ".HIDDEN") == NULL);
                CHECK(monitor_event_has_tag(e, "seat"));
                CHECK(monitor_event_has_tag(e, "systemd"));
                CHECK(!monitor_event_has_tag(e, "sys"));
                CHECK(!monitor_event_has_tag(e, "stemd"));
        }

        /* links are published under the daemon's node root */
        _cleanup_free_ char *b2 = NULL;
        CHECK_INT(monitor_build_message("/tmp/dev", "change", d, 43, &b2, &len), 0);
        _cleanup_(monitor_event_freep) struct monitor_event *e2 = NULL;
        CHECK_INT(monitor_parse_message(b2, len, &e2, &why), 0);
        if (e2)
                CHECK_STR(props_get(&e2->props, "DEVLINKS"), "/tmp/dev/disk/by-id/a /tmp/dev/disk/by-label/b");

        /* the size limit is on the whole message: MONITOR_MESSAGE_MAX bytes pass, one more does not */
        {
                _cleanup_device_unref_ struct device *big = disk_device();
                _cleanup_free_ char *m0 = NULL, *m1 = NULL, *m2 = NULL;
                size_t l0 = 0, l1 = 0;
                CHECK_INT(props_set(&big->props, "FILL", "", PROP_DB), 0);
                CHECK_INT(monitor_build_message("/dev", "add", big, 42, &m0, &l0), 0);
                size_t fill = MONITOR_MESSAGE_MAX - l0; /* "FILL=" is there already */
                char *fillv = malloc(fill + 2);
                CHECK(fillv != NULL);
                memset(fillv, 'f', fill + 1);
                fillv[fill] = '\0';
                CHECK_INT(props_set(&big->props, "FILL", fillv, PROP_DB), 0);
                CHECK_INT(monitor_build_message("/dev", "add", big, 42, &m1, &l1), 0);
                CHECK_INT(l1, MONITOR_MESSAGE_MAX);
                fillv[fill] = 'f';
                fillv[fill + 1] = '\0';
                CHECK_INT(props_set(&big->props, "FILL", fillv, PROP_DB), 0);
                CHECK_INT(monitor_build_message("/dev", "add", big, 42, &m2, &l1), -EMSGSIZE);
                free(fillv);
        }

        /* too big for libudev's buffer */
        char *huge = malloc(9000);
        memset(huge, 'v', 8999);
        huge[8999] = '\0';
        props_set(&d->props, "ID_HUGE", huge, PROP_DB);
        free(huge);
        _cleanup_free_ char *b3 = NULL;
        CHECK_INT(monitor_build_message("/dev", "add", d, 44, &b3, &len), -EMSGSIZE);

        /* hostile input */
        char m[64];
        memcpy(m, buf, 40);
        CHECK_INT(monitor_parse_message(m, 20, &e2, &why), -EBADMSG);
        m[8] = 0;
        memcpy(m + 40, "A=b", 4);
        CHECK_INT(monitor_parse_message(m, 44, &e2, &why), -EBADMSG); /* magic */
        memcpy(m, buf, 40);
        uint32_t off = 1000;
        memcpy(m + 16, &off, 4);
        CHECK_INT(monitor_parse_message(m, 44, &e2, &why), -EBADMSG); /* offset */
        memcpy(m, buf, 40);
        memcpy(m + 40, "ACTION=add", 10); /* no trailing NUL */
        CHECK_INT(monitor_parse_message(m, 50, &e2, &why), -EBADMSG);
        memcpy(m + 40, "ACTION=add\0noeq\0", 16);
        CHECK_INT(monitor_parse_message(m, 56, &e2, &why), -EBADMSG);
        memcpy(m + 40, "ACTION=add\0", 11); /* no DEVPATH */
        CHECK_INT(monitor_parse_message(m, 51, &e2, &why), -EBADMSG);

        /* the kernel's format */
        static const char k[] = "change@/devices/virtual/mem/null\0ACTION=change\0DEVPATH=/devices/virtual/mem/null\0"
                                "SUBSYSTEM=mem\0SEQNUM=9\0";
        _cleanup_(monitor_event_freep) struct monitor_event *ke = NULL;
        CHECK_INT(monitor_parse_message(k, sizeof(k) - 1, &ke, &why), 0);
        if (ke) {
                CHECK_INT(ke->source, MONITOR_SOURCE_KERNEL);
                CHECK_STR(ke->action, "change");
                CHECK_STR(ke->subsystem, "mem");
        }
}

static void test_monitor_filter_print(void)
{
        _cleanup_device_unref_ struct device *d = disk_device();
        _cleanup_free_ char *buf = NULL;
        size_t len;
        const char *why;
        CHECK_INT(monitor_build_message("/dev", "add", d, 5, &buf, &len), 0);
        _cleanup_(monitor_event_freep) struct monitor_event *e = NULL;
        CHECK_INT(monitor_parse_message(buf, len, &e, &why), 0);
        if (!e)
                return;

        struct monitor_filter f = {0};
        CHECK(monitor_filter_match(&f, e));
        f.subsystems = (char *[]){"net", NULL};
        CHECK(!monitor_filter_match(&f, e));
        f.subsystems = (char *[]){"net", "block", NULL};
        CHECK(monitor_filter_match(&f, e));
        f.subsystems = (char *[]){"block/partition", NULL};
        CHECK(!monitor_filter_match(&f, e));
        f.subsystems = (char *[]){"block/disk", NULL};
        CHECK(monitor_filter_match(&f, e));
        f.subsystems = (char *[]){"bloc", NULL};
        CHECK(!monitor_filter_match(&f, e));
        f.subsystems = NULL;
        f.tags = (char *[]){"uaccess", NULL};
        CHECK(!monitor_filter_match(&f, e));
        f.tags = (char *[]){"uaccess", "seat", NULL};
        CHECK(monitor_filter_match(&f, e));
        /* tag filters do not apply to kernel events */
        e->source = MONITOR_SOURCE_KERNEL;
        f.tags = (char *[]){"uaccess", NULL};
        CHECK(monitor_filter_match(&f, e));
        e->source = MONITOR_SOURCE_UDEV;

        char *out = NULL;
        size_t olen = 0;
        FILE *fp = open_memstream(&out, &olen);
        monitor_print_event(fp, e, false, 12345678901ULL);
        e->source = MONITOR_SOURCE_KERNEL;
        monitor_print_event(fp, e, false, 1000001ULL);
        fclose(fp);
        CHECK_STR(out, "UDEV  [12345.678901] add      /devices/virtual/block/loop7 (block)\n"
                       "KERNEL[1.000001] add      /devices/virtual/block/loop7 (block)\n");
        free(out);

        fp = open_memstream(&out, &olen);
        monitor_print_event(fp, e, true, 0);
        fclose(fp);
        CHECK(strstr(out, "\nACTION=add\n") != NULL);
        CHECK(strstr(out, "\nDEVLINKS=/dev/disk/by-id/a /dev/disk/by-label/b\n") != NULL);
        CHECK(strstr(out, "\nSEQNUM=5\n") != NULL);
        CHECK(olen >= 2 && out[olen - 1] == '\n' && out[olen - 2] == '\n');
        free(out);
}

/* The exported set: ACTION first, the record's entries in order with the keys export derives
 * (and private '.' keys) left out, then DEVNAME when the record lacks it, SEQNUM,
 * USEC_INITIALIZED, DEVLINKS, TAGS, CURRENT_TAGS. */
struct collect {
        char entries[16][128];
        size_t n, stop_after;
};

static int collect_entry(void *userdata, const char *key, size_t keylen, const char *value, unsigned flags)
{
        struct collect *c = userdata;
        (void)flags;
        if (c->stop_after && c->n == c->stop_after)
                return -E2BIG;
        if (c->n < ELEMENTSOF(c->entries))
                snprintf(c->entries[c->n], sizeof(c->entries[0]), "%.*s=%s", (int)keylen, key, value);
        c->n++;
        return 0;
}

/* export_each() hands over export_properties()' entries in the same order, and stops at the
 * first error of its callback. */
static void check_each_matches(const struct device *d, const char *dev_root, const char *action, uint64_t seqnum)
{
        struct props p = PROPS_INIT;
        struct collect c = {0};
        CHECK_INT(export_properties(d, dev_root, action, seqnum, &p), 0);
        CHECK_INT(export_each(d, dev_root, action, seqnum, collect_entry, &c), 0);
        CHECK_INT(c.n, p.n);
        size_t it = 0, i = 0;
        const char *e;
        while (props_next(&p, &it, &e, NULL) && i < ELEMENTSOF(c.entries))
                CHECK_STR(c.entries[i++], e);
        props_clear(&p);

        struct collect stop = {.stop_after = 2};
        CHECK_INT(export_each(d, dev_root, action, seqnum, collect_entry, &stop), -E2BIG);
        CHECK_INT(stop.n, 2);
}

static void test_export_order(void)
{
        _cleanup_device_unref_ struct device *d = NULL;
        CHECK_INT(device_new("/devices/virtual/block/loop9", &d), 0);
        CHECK_INT(device_set_subsystem(d, "block"), 0);
        CHECK_INT(device_set_devname(d, "loop9"), 0);
        d->devnum = makedev(7, 9);
        d->devnum_type = 'b';
        props_set(&d->props, "ACTION", "bogus", PROP_KERNEL);
        props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        props_set(&d->props, "SEQNUM", "1", PROP_KERNEL);
        props_set(&d->props, "TAGS", ":bogus:", PROP_DB);
        props_set(&d->props, "CURRENT_TAGS", ":bogus:", PROP_DB);
        props_set(&d->props, "DEVLINKS", "/bogus", PROP_DB);
        props_set(&d->props, "USEC_INITIALIZED", "1", PROP_DB);
        props_set(&d->props, ".PRIVATE", "x", PROP_DB);
        props_set(&d->props, "ID_X", "y", PROP_DB);
        struct device_udev *u = device_get_udev(d);
        strv_push_copy(&u->links, "l1");
        strv_push_copy(&u->tags, "t1");
        strv_push_copy(&u->tags, "t2");
        strv_push_copy(&u->current_tags, "t2");
        u->usec_initialized = 18446744073709551615u;

        static const char *const want[] = {
                "ACTION=add", "DEVPATH=/devices/virtual/block/loop9", "ID_X=y", "DEVNAME=/dev/loop9",
                "SEQNUM=12345678901", "USEC_INITIALIZED=18446744073709551615", "DEVLINKS=/dev/l1",
                "TAGS=:t1:t2:", "CURRENT_TAGS=:t2:",
        };
        struct props p = PROPS_INIT;
        CHECK_INT(export_properties(d, "/dev", "add", 12345678901u, &p), 0);
        size_t it = 0, i = 0;
        const char *e;
        while (props_next(&p, &it, &e, NULL)) {
                if (i < ELEMENTSOF(want))
                        CHECK_STR(e, want[i]);
                i++;
        }
        CHECK_INT(i, ELEMENTSOF(want));
        CHECK_STR(props_get(&p, "DEVNAME"), "/dev/loop9");
        check_each_matches(d, "/dev", "add", 12345678901u);

        /* the record's own DEVNAME keeps its place, renamed under dev_root; no ACTION, SEQNUM */
        props_set(&d->props, "DEVNAME", "/run/x/loop9", PROP_KERNEL);
        u->links = strv_free(u->links);
        u->current_tags = strv_free(u->current_tags);
        u->usec_initialized = 0;
        CHECK_INT(export_properties(d, "/tmp/d/", NULL, 0, &p), 0);
        static const char *const want2[] = {
                "DEVPATH=/devices/virtual/block/loop9", "ID_X=y", "DEVNAME=/tmp/d/loop9", "TAGS=:t1:t2:",
        };
        it = i = 0;
        while (props_next(&p, &it, &e, NULL)) {
                if (i < ELEMENTSOF(want2))
                        CHECK_STR(e, want2[i]);
                i++;
        }
        CHECK_INT(i, ELEMENTSOF(want2));
        props_clear(&p);
        check_each_matches(d, "/tmp/d/", NULL, 0);

        char *none[] = {NULL}, *empty[] = {"", NULL};
        CHECK(export_tags_string(NULL) == NULL);
        CHECK(export_tags_string(none) == NULL);
        _cleanup_free_ char *s = export_tags_string(empty);
        CHECK_STR(s, "::");
}

TEST_MAIN(TEST(test_ctrl_codec), TEST(test_export_order), TEST(test_ctrl_server), TEST(test_ctrl_wait_idle), TEST(test_monitor_message), TEST(test_monitor_filter_print))
