/* SPDX-License-Identifier: MIT */
/*
 * Real clients against devman's wire formats: Debian's libudev (systemd 252) reading a
 * database written by db.c and receiving broadcasts from monitor.c; Debian's udevadm control,
 * settle and info against ctrl.c and db.c; devmanadm control and monitor.
 *
 * Runs as root in a private mount and network namespace: a tmpfs over /run (so /run/udev is
 * private) and broadcasts that reach nobody else. Exits 77 when not root or when the
 * namespaces cannot be made. Devices used: this machine's /sys/devices/virtual/mem/{null,zero,full}.
 */
#include <fcntl.h>
#include <grp.h>
#include <libudev.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#include "ctrl.h"
#include "db.h"
#include "fs-util.h"
#include "model.h"
#include "monitor.h"
#include "strv.h"
#include "sysfs.h"
#include "test-util.h"

#define RUN "/run/udev"

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static const char *devmand_path(void)
{
        static char p[4096];
        snprintf(p, sizeof(p), "%s/daemon/devmand", getenv("DEVMAN_BUILD_ROOT") ?: DEVMAN_BUILD_ROOT);
        return p;
}

static const char *devmanadm_path(void)
{
        static char p[4096];
        snprintf(p, sizeof(p), "%s/daemon/devmanadm", getenv("DEVMAN_BUILD_ROOT") ?: DEVMAN_BUILD_ROOT);
        return p;
}

/* ---- the control server and what it was told ---- */

struct seen {
        int log_level, reload, stop, start, ping, exit, children;
        char env[128];
};
static struct seen seen;

static void on_level(int l, void *u)
{
        seen.log_level = l;
}
static void on_stop(void *u)
{
        seen.stop++;
}
static void on_start(void *u)
{
        seen.start++;
}
static void on_reload(void *u)
{
        seen.reload++;
}
static void on_env(const char *k, const char *v, void *u)
{
        snprintf(seen.env, sizeof(seen.env), "%s=%s", k, v ? v : "(unset)");
}
static void on_children(unsigned n, void *u)
{
        seen.children = (int)n;
}
static void on_ping(void *u)
{
        seen.ping++;
}
static void on_exit_msg(void *u)
{
        seen.exit++;
}

static const struct ctrl_ops ops = {
        .set_log_level = on_level,
        .stop_exec_queue = on_stop,
        .start_exec_queue = on_start,
        .reload = on_reload,
        .set_env = on_env,
        .set_children_max = on_children,
        .ping = on_ping,
        .exit = on_exit_msg,
};

static sd_event *event;
static struct ctrl_server *server;

static void server_start(void)
{
        if (!event && sd_event_new(&event) < 0)
                abort();
        if (ctrl_server_new(event, RUN "/control", &ops, NULL, &server) < 0)
                abort();
}

/* Runs argv as a child while the event loop serves the control socket; returns the exit
 * status (-1 on time-out). When the server was told to exit, it is freed (that close is the
 * answer udevadm control --exit waits for). */
static int run_serving(char *const argv[], int timeout_ms, char **out)
{
        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0)
                abort();
        pid_t pid = fork();
        if (pid == 0) {
                dup2(pfd[1], 1);
                execv(argv[0], argv);
                _exit(127);
        }
        close(pfd[1]);
        fcntl(pfd[0], F_SETFL, O_NONBLOCK);
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        int exit_seen = seen.exit, status = -1;
        uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;
        for (;;) {
                char b[4096];
                ssize_t n;
                while ((n = read(pfd[0], b, sizeof(b))) > 0)
                        fwrite(b, 1, (size_t)n, mem);
                int st;
                if (waitpid(pid, &st, WNOHANG) == pid) {
                        status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                        while ((n = read(pfd[0], b, sizeof(b))) > 0)
                                fwrite(b, 1, (size_t)n, mem);
                        /* what the client sent before it went away is still to be handled
                         * (udevadm control --exit does not wait for an answer) */
                        for (int i = 0; server && i < 100 && sd_event_run(event, 0) > 0; i++)
                                if (seen.exit != exit_seen)
                                        server = ctrl_server_free(server);
                        break;
                }
                if (now_usec() > deadline) {
                        kill(pid, SIGKILL);
                        waitpid(pid, NULL, 0);
                        break;
                }
                if (server)
                        sd_event_run(event, 10000);
                else
                        usleep(10000);
                if (server && seen.exit != exit_seen)
                        server = ctrl_server_free(server);
        }
        close(pfd[0]);
        fclose(mem);
        if (out)
                *out = buf;
        else
                free(buf);
        return status;
}

#define RUN_CMD(timeout, out, ...) run_serving((char *const[]){__VA_ARGS__, NULL}, timeout, out)

/* ---- the database ---- */

static struct model *model;
static uint64_t null_usec;

static struct device *load(const char *devpath)
{
        struct device *d = NULL;
        if (model_add_from_sysfs(model, devpath, &d) < 0 || !d)
                abort();
        return d;
}

static void write_database(void)
{
        if (model)
                return;
        if (model_new("/sys", &model) < 0)
                abort();
        struct device *d = load("/devices/virtual/mem/null");
        struct device_udev *u = device_get_udev(d);
        strv_push_copy(&u->links, "devman-test/null");
        strv_push_copy(&u->links, "devman-test/null2");
        strv_push_copy(&u->tags, "devman-test");
        strv_push_copy(&u->tags, "devman-other");
        strv_push_copy(&u->current_tags, "devman-test");
        u->link_priority = 10;
        null_usec = u->usec_initialized = now_usec() - 1000;
        props_set(&d->props, "ID_DEVMAN_TEST", "yes", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(RUN), d, NULL), 0);

        struct device *z = load("/devices/virtual/mem/zero");
        props_set(&z->props, "ID_DEVMAN_TEST", "no", PROP_DB);
        CHECK_INT(db_update(DB_DIRS(RUN), z, NULL), 0);
        /* /dev/full: no entry at all */
}

static bool list_has(struct udev_list_entry *l, const char *name, const char *value)
{
        struct udev_list_entry *e;
        udev_list_entry_foreach(e, l)
                if (streq(udev_list_entry_get_name(e), name) &&
                    (!value || streq_ptr(udev_list_entry_get_value(e), value)))
                        return true;
        return false;
}

static int list_len(struct udev_list_entry *l)
{
        int n = 0;
        struct udev_list_entry *e;
        udev_list_entry_foreach(e, l)
                n++;
        return n;
}

/* ":a:b:" holds exactly the given tags, in any order */
static bool tags_string_is(const char *s, const char *const *tags)
{
        size_t n = 0, want = 0;
        if (!s || s[0] != ':' || s[strlen(s) - 1] != ':')
                return false;
        for (const char *const *t = tags; *t; t++) {
                want++;
                char pat[256];
                snprintf(pat, sizeof(pat), ":%s:", *t);
                if (!strstr(s, pat))
                        return false;
        }
        for (const char *c = s + 1; *c; c++)
                if (*c == ':')
                        n++;
        return n == want;
}

static void test_libudev_reads_database(void)
{
        write_database();
        struct udev *udev = udev_new();
        struct udev_device *d = udev_device_new_from_syspath(udev, "/sys/devices/virtual/mem/null");
        CHECK(d != NULL);
        if (!d)
                return;
        CHECK_INT(udev_device_get_is_initialized(d), 1);
        CHECK_STR(udev_device_get_devnode(d), "/dev/null");
        struct udev_list_entry *links = udev_device_get_devlinks_list_entry(d);
        CHECK_INT(list_len(links), 2);
        CHECK(list_has(links, "/dev/devman-test/null", NULL));
        CHECK(list_has(links, "/dev/devman-test/null2", NULL));
        struct udev_list_entry *props = udev_device_get_properties_list_entry(d);
        CHECK(list_has(props, "ID_DEVMAN_TEST", "yes"));
        CHECK(list_has(props, "SUBSYSTEM", "mem"));
        char usec[32];
        snprintf(usec, sizeof(usec), "%llu", (unsigned long long)null_usec);
        CHECK(list_has(props, "USEC_INITIALIZED", usec));
        CHECK(tags_string_is(udev_device_get_property_value(d, "TAGS"),
                             (const char *[]){"devman-test", "devman-other", NULL}));
        CHECK(tags_string_is(udev_device_get_property_value(d, "CURRENT_TAGS"), (const char *[]){"devman-test", NULL}));
        struct udev_list_entry *tags = udev_device_get_tags_list_entry(d);
        CHECK_INT(list_len(tags), 2);
        CHECK(list_has(tags, "devman-test", NULL));
        CHECK(list_has(tags, "devman-other", NULL));
        CHECK_INT(list_len(udev_device_get_current_tags_list_entry(d)), 1);
        CHECK_INT(udev_device_has_current_tag(d, "devman-test"), 1);
        CHECK_INT(udev_device_has_current_tag(d, "devman-other"), 0);
        CHECK_INT(udev_device_has_tag(d, "devman-other"), 1);
        CHECK(udev_device_get_usec_since_initialized(d) >= 1000);
        udev_device_unref(d);

        struct udev_device *z = udev_device_new_from_syspath(udev, "/sys/devices/virtual/mem/zero");
        struct udev_device *f = udev_device_new_from_syspath(udev, "/sys/devices/virtual/mem/full");
        CHECK(z && f);
        if (z && f) {
                CHECK_INT(udev_device_get_is_initialized(z), 1);
                CHECK_STR(udev_device_get_property_value(z, "ID_DEVMAN_TEST"), "no");
                CHECK_INT(list_len(udev_device_get_tags_list_entry(z)), 0);
                CHECK_INT(udev_device_get_is_initialized(f), 0);
                CHECK(udev_device_get_property_value(f, "ID_DEVMAN_TEST") == NULL);
        }
        udev_device_unref(z);
        udev_device_unref(f);

        /* enumeration by tag reads tags/<tag>/ */
        struct udev_enumerate *e = udev_enumerate_new(udev);
        udev_enumerate_add_match_tag(e, "devman-test");
        CHECK_INT(udev_enumerate_scan_devices(e), 0);
        struct udev_list_entry *l = udev_enumerate_get_list_entry(e);
        CHECK_INT(list_len(l), 1);
        CHECK(list_has(l, "/sys/devices/virtual/mem/null", NULL));
        udev_enumerate_unref(e);

        /* by property: reads every device's data/ entry */
        e = udev_enumerate_new(udev);
        udev_enumerate_add_match_subsystem(e, "mem");
        udev_enumerate_add_match_property(e, "ID_DEVMAN_TEST", "no");
        CHECK_INT(udev_enumerate_scan_devices(e), 0);
        l = udev_enumerate_get_list_entry(e);
        CHECK_INT(list_len(l), 1);
        CHECK(list_has(l, "/sys/devices/virtual/mem/zero", NULL));
        udev_enumerate_unref(e);

        e = udev_enumerate_new(udev);
        udev_enumerate_add_match_subsystem(e, "mem");
        udev_enumerate_add_match_is_initialized(e);
        CHECK_INT(udev_enumerate_scan_devices(e), 0);
        l = udev_enumerate_get_list_entry(e);
        CHECK_INT(list_len(l), 2);
        CHECK(list_has(l, "/sys/devices/virtual/mem/null", NULL));
        CHECK(list_has(l, "/sys/devices/virtual/mem/zero", NULL));
        udev_enumerate_unref(e);
        udev_unref(udev);
}

/* Lines of s as a sorted strv, without empty lines. */
static char **sorted_lines(const char *s)
{
        char **l = NULL;
        if (strv_split(s, "\n", &l) < 0)
                abort();
        strv_sort(l);
        return l;
}

/* Removes the line starting with prefix from l and returns it (NULL when absent). */
static char *take_line(char **l, const char *prefix)
{
        for (char **x = l; x && *x; x++)
                if (startswith(*x, prefix)) {
                        char *v = strdup(*x);
                        strv_remove(l, v);
                        return v;
                }
        return NULL;
}

/* Two `info --query=all` texts say the same (DEVLINKS and TAGS are sets: their order is
 * udevadm's hash order; other lines in any order). */
static bool same_record(const char *x, const char *y)
{
        _cleanup_strv_free_ char **a = sorted_lines(x);
        _cleanup_strv_free_ char **b = sorted_lines(y);
        static const char *const set_keys[] = {"E: DEVLINKS=", "E: TAGS=", "E: CURRENT_TAGS="};
        bool same = true;
        for (size_t k = 0; k < ELEMENTSOF(set_keys); k++) {
                _cleanup_free_ char *va = take_line(a, set_keys[k]);
                _cleanup_free_ char *vb = take_line(b, set_keys[k]);
                _cleanup_strv_free_ char **sa = NULL, **sb = NULL;
                strv_split(va ? va + strlen(set_keys[k]) : "", " :", &sa);
                strv_split(vb ? vb + strlen(set_keys[k]) : "", " :", &sb);
                strv_sort(sa);
                strv_sort(sb);
                if (!va != !vb || !strv_equal(sa, sb))
                        same = false;
        }
        if (!strv_equal(a, b))
                same = false;
        if (!same)
                fprintf(stderr, "records differ:\n%s\n----\n%s\n", x, y);
        return same;
}

static void test_udevadm_info(void)
{
        write_database();
        char *out = NULL;
        CHECK_INT(RUN_CMD(10000, &out, "/usr/bin/udevadm", "info", "--query=all", "--name=/dev/null"), 0);
        CHECK(out && strstr(out, "\nS: devman-test/null\n"));
        CHECK(out && strstr(out, "\nL: 10\n"));
        CHECK(out && strstr(out, "\nE: ID_DEVMAN_TEST=yes\n"));
        CHECK(out && strstr(out, "\nE: DEVLINKS="));

        /* devman's printer agrees with udevadm, line for line (property order aside) */
        _cleanup_(model_freep) struct model *m = NULL;
        struct device *d = NULL;
        CHECK(model_new("/sys", &m) >= 0);
        CHECK(model_add_from_sysfs(m, "/devices/virtual/mem/null", &d) >= 0);
        if (d) {
                CHECK_INT(db_read(RUN, d), 1);
                char *mine = NULL;
                size_t len;
                FILE *f = open_memstream(&mine, &len);
                CHECK_INT(db_print_record(f, d, "/dev"), 0);
                fclose(f);
                CHECK(same_record(out ? out : "", mine));
                free(mine);
        }

        /* devmanadm info says the same */
        char *adm = NULL;
        CHECK_INT(RUN_CMD(10000, &adm, (char *)devmanadm_path(), "--run=" RUN, "info", "--query=all", "--name=/dev/null"),
                  0);
        CHECK(same_record(out ? out : "", adm ? adm : ""));
        free(adm);
        adm = NULL;
        CHECK_INT(RUN_CMD(10000, &adm, (char *)devmanadm_path(), "--run=" RUN, "info", "--query=property",
                          "/devices/virtual/mem/null"),
                  0);
        CHECK(adm && strstr(adm, "\nID_DEVMAN_TEST=yes\n"));
        free(adm);
        /* and --export-db carries the entry */
        adm = NULL;
        CHECK_INT(RUN_CMD(20000, &adm, (char *)devmanadm_path(), "--run=" RUN, "info", "--export-db"), 0);
        CHECK(adm && strstr(adm, "P: /devices/virtual/mem/null\nM: null\n"));
        CHECK(adm && strstr(adm, "\nS: devman-test/null2\n"));
        free(adm);
        free(out);

        /* --cleanup-db keeps db_persist entries (the sticky bit devman writes) */
        struct device *z = load("/devices/virtual/mem/zero");
        device_get_udev(z)->db_persist = true;
        CHECK_INT(db_update(DB_DIRS(RUN), z, NULL), 0);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "info", "--cleanup-db"), 0);
        CHECK(access(RUN "/data/c1:5", F_OK) == 0);
        CHECK(access(RUN "/data/c1:3", F_OK) < 0);
        CHECK(access(RUN "/tags/devman-test/c1:3", F_OK) < 0);
        /* devmanadm info --cleanup-db likewise */
        model = model_free(model);
        write_database();
        z = load("/devices/virtual/mem/zero");
        device_get_udev(z)->db_persist = true;
        CHECK_INT(db_update(DB_DIRS(RUN), z, NULL), 0);
        CHECK(access(RUN "/data/c1:3", F_OK) == 0);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "info", "--cleanup-db"), 0);
        CHECK(access(RUN "/data/c1:5", F_OK) == 0);
        CHECK(access(RUN "/data/c1:3", F_OK) < 0);
        CHECK(access(RUN "/tags/devman-test/c1:3", F_OK) < 0);
        /* back to the state the other tests expect */
        device_get_udev(z)->db_persist = false;
        CHECK_INT(db_update(DB_DIRS(RUN), z, NULL), 0);
        model = model_free(model);
        write_database();
}

/* ---- the monitor ---- */

static struct udev_monitor *udev_mon(struct udev *udev, const char *subsystem, const char *devtype, const char *tag)
{
        struct udev_monitor *m = udev_monitor_new_from_netlink(udev, "udev");
        if (!m)
                return NULL;
        if (subsystem)
                udev_monitor_filter_add_match_subsystem_devtype(m, subsystem, devtype);
        if (tag)
                udev_monitor_filter_add_match_tag(m, tag);
        if (udev_monitor_enable_receiving(m) < 0)
                return udev_monitor_unref(m);
        return m;
}

/* Receives the devices pending within timeout_ms; returns their SEQNUMs as a string "1001 1003". */
static char *drain(struct udev_monitor *m, int timeout_ms, struct udev_device **first)
{
        char *s = NULL;
        size_t len = 0;
        int n = 0;
        FILE *f = open_memstream(&s, &len);
        uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;
        for (;;) {
                uint64_t now = now_usec();
                if (now >= deadline)
                        break;
                struct pollfd p = {.fd = udev_monitor_get_fd(m), .events = POLLIN};
                if (poll(&p, 1, (int)((deadline - now) / 1000) + 1) <= 0)
                        break;
                struct udev_device *d = udev_monitor_receive_device(m);
                if (!d)
                        continue;
                fprintf(f, "%s%s", n++ ? " " : "", strna(udev_device_get_property_value(d, "SEQNUM")));
                if (first && !*first)
                        *first = d;
                else
                        udev_device_unref(d);
        }
        fclose(f);
        return s;
}

static struct device *fake_block(const char *name, const char *devtype, const char *tag)
{
        struct device *d = NULL;
        char path[128];
        snprintf(path, sizeof(path), "/devices/virtual/block/%s", name);
        if (device_new(path, &d) < 0)
                abort();
        device_set_subsystem(d, "block");
        device_set_devtype(d, devtype);
        device_set_devname(d, name);
        d->devnum = makedev(259, 99);
        d->devnum_type = 'b';
        props_set(&d->props, "DEVPATH", path, PROP_KERNEL);
        props_set(&d->props, "SUBSYSTEM", "block", PROP_KERNEL);
        props_set(&d->props, "DEVTYPE", devtype, PROP_KERNEL);
        if (tag)
                strv_push_copy(&device_get_udev(d)->tags, tag);
        return d;
}

static void send_three(void)
{
        _cleanup_(monitor_freep) struct monitor *mon = NULL;
        CHECK_INT(monitor_new("/dev", &mon), 0);
        if (!mon)
                return;
        _cleanup_(model_freep) struct model *m = NULL;
        struct device *d = NULL;
        CHECK(model_new("/sys", &m) >= 0);
        CHECK(model_add_from_sysfs(m, "/devices/virtual/mem/null", &d) >= 0);
        CHECK_INT(db_read(RUN, d), 1);
        _cleanup_device_unref_ struct device *part = fake_block("devmanp1", "partition", NULL);
        _cleanup_device_unref_ struct device *disk = fake_block("devmand", "disk", "other");
        CHECK_INT(monitor_send_device(mon, "change", d, 1001), 0);
        CHECK_INT(monitor_send_device(mon, "add", part, 1002), 0);
        CHECK_INT(monitor_send_device(mon, "add", disk, 1003), 0);
}

static void test_libudev_monitor(void)
{
        write_database();
        if (!server)
                server_start();
        struct udev *udev = udev_new();
        struct udev_monitor *all = udev_mon(udev, NULL, NULL, NULL);
        struct udev_monitor *mem = udev_mon(udev, "mem", NULL, NULL);
        struct udev_monitor *tag = udev_mon(udev, NULL, NULL, "devman-test");
        struct udev_monitor *disk = udev_mon(udev, "block", "disk", NULL);
        struct udev_monitor *other = udev_mon(udev, NULL, NULL, "other");
        CHECK(all && mem && tag && disk && other);
        if (!(all && mem && tag && disk && other))
                return;
        send_three();

        struct udev_device *d = NULL;
        _cleanup_free_ char *s_all = drain(all, 1000, NULL);
        _cleanup_free_ char *s_mem = drain(mem, 300, &d);
        _cleanup_free_ char *s_tag = drain(tag, 300, NULL);
        _cleanup_free_ char *s_disk = drain(disk, 300, NULL);
        _cleanup_free_ char *s_other = drain(other, 300, NULL);
        CHECK_STR(s_all, "1001 1002 1003");
        CHECK_STR(s_mem, "1001");
        CHECK_STR(s_tag, "1001");
        CHECK_STR(s_disk, "1003");
        CHECK_STR(s_other, "1003");

        CHECK(d != NULL);
        if (d) {
                CHECK_STR(udev_device_get_action(d), "change");
                CHECK_STR(udev_device_get_devpath(d), "/devices/virtual/mem/null");
                CHECK_STR(udev_device_get_subsystem(d), "mem");
                CHECK_STR(udev_device_get_devnode(d), "/dev/null");
                CHECK_INT(udev_device_get_seqnum(d), 1001);
                CHECK_INT(major(udev_device_get_devnum(d)), 1);
                CHECK_INT(minor(udev_device_get_devnum(d)), 3);
                CHECK_INT(udev_device_get_is_initialized(d), 1);
                char usec[32];
                snprintf(usec, sizeof(usec), "%llu", (unsigned long long)null_usec);
                CHECK_STR(udev_device_get_property_value(d, "USEC_INITIALIZED"), usec);
                CHECK(udev_device_get_usec_since_initialized(d) >= 1000);
                struct udev_list_entry *links = udev_device_get_devlinks_list_entry(d);
                CHECK_INT(list_len(links), 2);
                CHECK(list_has(links, "/dev/devman-test/null2", NULL));
                CHECK(list_has(udev_device_get_properties_list_entry(d), "ID_DEVMAN_TEST", "yes"));
                CHECK_INT(udev_device_has_tag(d, "devman-other"), 1);
                /* a device from the monitor has no database version: libudev answers current-tag
                 * questions from all tags; the property carries the current ones */
                CHECK_INT(udev_device_has_current_tag(d, "devman-test"), 1);
                CHECK_STR(udev_device_get_property_value(d, "CURRENT_TAGS"), ":devman-test:");
                udev_device_unref(d);
        }
        udev_monitor_unref(all);
        udev_monitor_unref(mem);
        udev_monitor_unref(tag);
        udev_monitor_unref(disk);
        udev_monitor_unref(other);
        udev_unref(udev);
}

/* A monitor program as a child; returns what it printed once killed. */
static char *run_monitor(const char *prog, const char *const *args, void (*provoke)(void))
{
        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0)
                abort();
        pid_t pid = fork();
        if (pid == 0) {
                dup2(pfd[1], 1);
                char *argv[16] = {(char *)prog, "monitor"};
                int i = 2;
                for (; *args && i < 15; args++)
                        argv[i++] = (char *)*args;
                argv[i] = NULL;
                execv(argv[0], argv);
                _exit(127);
        }
        close(pfd[1]);
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        /* the header says the socket is open */
        bool provoked = false;
        uint64_t deadline = now_usec() + 3000000;
        while (now_usec() < deadline) {
                struct pollfd p = {.fd = pfd[0], .events = POLLIN};
                if (poll(&p, 1, 100) > 0) {
                        char b[4096];
                        ssize_t n = read(pfd[0], b, sizeof(b));
                        if (n <= 0)
                                break;
                        fwrite(b, 1, (size_t)n, mem);
                        fflush(mem);
                }
                if (!provoked && buf && strstr(buf, "\n\n")) {
                        provoke();
                        provoked = true;
                        deadline = now_usec() + 1500000;
                }
        }
        kill(pid, SIGTERM);
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        close(pfd[0]);
        fclose(mem);
        return buf;
}

/* Blanks timestamps; sorts the members of set-valued properties (DEVLINKS, TAGS). */
static void normalize_monitor_lines(char **lines)
{
        for (char **l = lines; l && *l; l++) {
                char *o = strchr(*l, '['), *c = o ? strchr(o, ']') : NULL;
                if (o && c && (startswith(*l, "UDEV") || startswith(*l, "KERNEL")))
                        memmove(o + 1, c, strlen(c) + 1);
                const char *v = NULL;
                if ((v = startswith(*l, "DEVLINKS=")) || (v = startswith(*l, "TAGS=")) ||
                    (v = startswith(*l, "CURRENT_TAGS="))) {
                        _cleanup_strv_free_ char **parts = NULL;
                        strv_split(v, " :", &parts);
                        strv_sort(parts);
                        char *joined = strv_join(parts, NULL, ",");
                        char *n = NULL;
                        if (joined && asprintf(&n, "%.*s%s", (int)(v - *l), *l, joined) > 0) {
                                free(*l);
                                *l = n;
                        }
                        free(joined);
                }
        }
}

/* Monitor outputs agree: the same lines once timestamps are blanked, properties of an event
 * in any order. */
static bool same_monitor_output(const char *a, const char *b)
{
        _cleanup_strv_free_ char **la = NULL, **lb = NULL;
        strv_split(a, "\n", &la);
        strv_split(b, "\n", &lb);
        normalize_monitor_lines(la);
        normalize_monitor_lines(lb);
        strv_sort(la);
        strv_sort(lb);
        bool same = strv_equal(la, lb);
        if (!same)
                fprintf(stderr, "monitor outputs differ:\n%s\n----\n%s\n", a, b);
        return same;
}

static void provoke_kernel(void)
{
        int fd = open("/sys/devices/virtual/mem/null/uevent", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
                (void)!write(fd, "change", 6);
                close(fd);
        }
}

static void test_devmanadm_monitor(void)
{
        write_database();
        if (!server)
                server_start();
        _cleanup_free_ char *out = run_monitor(devmanadm_path(), (const char *[]){"--udev", "--property", "-s", "mem", NULL}, send_three);
        CHECK(out && strstr(out, "UDEV - the event which udev sends out after rule processing\n"));
        CHECK(out && strstr(out, "] change   /devices/virtual/mem/null (mem)\n"));
        CHECK(out && strstr(out, "\nSEQNUM=1001\n"));
        CHECK(out && strstr(out, "\nID_DEVMAN_TEST=yes\n"));
        CHECK(out && strstr(out, "\nDEVLINKS=/dev/devman-test/null /dev/devman-test/null2\n"));
        CHECK(out && !strstr(out, "devmanp1"));
        CHECK(out && !strstr(out, "KERNEL["));

        _cleanup_free_ char *out2 = run_monitor(devmanadm_path(), (const char *[]){"-u", "-t", "other", NULL}, send_three);
        CHECK(out2 && strstr(out2, "] add      /devices/virtual/block/devmand (block)\n"));
        CHECK(out2 && !strstr(out2, "mem/null"));

        /* the kernel's group: a real uevent for /dev/null */
        _cleanup_free_ char *out3 = run_monitor(devmanadm_path(), (const char *[]){"--kernel", "--subsystem-match=mem", NULL},
                                                      provoke_kernel);
        CHECK(out3 && strstr(out3, "KERNEL["));
        CHECK(out3 && strstr(out3, "] change   /devices/virtual/mem/null (mem)\n"));
        CHECK(out3 && !strstr(out3, "UDEV  ["));

        /* udevadm monitor hears the same broadcasts, and prints them the same way */
        _cleanup_free_ char *theirs = run_monitor("/usr/bin/udevadm", (const char *[]){"--udev", "--property", "-s", "mem", NULL}, send_three);
        _cleanup_free_ char *ours = run_monitor(devmanadm_path(), (const char *[]){"--udev", "--property", "-s", "mem", NULL}, send_three);
        CHECK(theirs && ours && same_monitor_output(theirs, ours));
}

/* ---- the control socket ---- */

static int raw_client(const void *msg, size_t len)
{
        int fd = ctrl_client_connect(RUN "/control");
        if (fd < 0)
                return fd;
        if (send(fd, msg, len, MSG_NOSIGNAL) < 0) {
                close(fd);
                return -errno;
        }
        /* the server closes a connection that sent garbage */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = -ETIMEDOUT;
        uint64_t deadline = now_usec() + 3000000;
        while (now_usec() < deadline) {
                sd_event_run(event, 10000);
                if (poll(&p, 1, 0) > 0) {
                        char b;
                        r = recv(fd, &b, 1, MSG_DONTWAIT) == 0 || (p.revents & POLLHUP) ? 0 : -EIO;
                        break;
                }
        }
        close(fd);
        return r;
}

static void test_udevadm_control(void)
{
        if (!server)
                server_start();
        struct seen before;

        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--ping"), 0);
        CHECK_INT(seen.ping, 1);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--reload"), 0);
        CHECK_INT(seen.reload, 1);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--log-priority=debug"), 0);
        CHECK_INT(seen.log_level, 7);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--log-level=3"), 0);
        CHECK_INT(seen.log_level, 3);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--stop-exec-queue"), 0);
        CHECK_INT(seen.stop, 1);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--start-exec-queue"), 0);
        CHECK_INT(seen.start, 1);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--property=FOO=bar baz"), 0);
        CHECK_STR(seen.env, "FOO=bar baz");
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--property=FOO="), 0);
        CHECK_STR(seen.env, "FOO=(unset)");
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--children-max=4"), 0);
        CHECK_INT(seen.children, 4);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--reload", "--ping"), 0);
        CHECK_INT(seen.reload, 2);
        CHECK_INT(seen.ping, 2);

        /* devmanadm control: the same protocol from our client */
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control", "--reload", "-l", "info",
                          "--ping", "-m", "9", "-p", "A=1", "-s", "-S"),
                  0);
        CHECK_INT(seen.reload, 3);
        CHECK_INT(seen.log_level, 6);
        CHECK_INT(seen.ping, 3);
        CHECK_INT(seen.children, 9);
        CHECK_STR(seen.env, "A=1");
        CHECK_INT(seen.stop, 2);
        CHECK_INT(seen.start, 2);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control", "--log-level=nonsense"), 2);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control"), 2);

        /* hostile clients: refused and logged, nothing dispatched, the server keeps answering */
        before = seen;
        struct ctrl_wire w;
        ctrl_message_encode(CTRL_RELOAD, 0, NULL, &w);
        w.magic = 0xfeedcafe;
        CHECK_INT(raw_client(&w, sizeof(w)), 0);
        CHECK_INT(raw_client("udev-252", 8), 0);
        char big[sizeof(w) * 2] = {0};
        ctrl_message_encode(CTRL_RELOAD, 0, NULL, &w);
        memcpy(big, &w, sizeof(w));
        CHECK_INT(raw_client(big, sizeof(big)), 0);

        /* a non-root peer (the socket opened up so that it can connect at all) */
        CHECK(chmod(RUN "/control", 0666) == 0);
        pid_t pid = fork();
        if (pid == 0) {
                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(10);
                int fd = ctrl_client_connect(RUN "/control");
                if (fd < 0)
                        _exit(11);
                (void)ctrl_client_send(fd, CTRL_RELOAD, 0, NULL);
                /* the answer is the close, and nothing was done */
                _exit(ctrl_client_wait(fd, 3000000) == 0 ? 0 : 12);
        }
        int st = -1;
        for (int i = 0; i < 500 && waitpid(pid, &st, WNOHANG) != pid; i++)
                sd_event_run(event, 10000);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        chmod(RUN "/control", 0600);
        CHECK_INT(seen.reload, before.reload);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--ping"), 0);
        CHECK_INT(seen.ping, before.ping + 1);

        /* settle: pings, then waits for the queue file to go */
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "5"), 0);
        CHECK_INT(seen.ping, before.ping + 2);
        CHECK_INT(db_set_queue_busy(RUN, true), 0);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "1"), 1);
        pid = fork();
        if (pid == 0) {
                usleep(500000);
                _exit(db_set_queue_busy(RUN, false) == 0 ? 0 : 1);
        }
        uint64_t t0 = now_usec();
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "8"), 0);
        CHECK(now_usec() - t0 < 5000000);
        waitpid(pid, NULL, 0);
        CHECK(access(RUN "/queue", F_OK) < 0);

        /* exit: udevadm 252 sends it and leaves without waiting */
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--exit"), 0);
        CHECK_INT(seen.exit, 1);
        CHECK(server == NULL);
        CHECK(access(RUN "/control", F_OK) < 0);
        /* no daemon: udevadm control fails, as it does without systemd-udevd */
        CHECK(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--ping") != 0);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control", "--ping"), 1);
        server_start();
}

/* Waits for a udev event of /devices/virtual/mem/null (other mem events may pass by). */
static struct udev_device *receive_null(struct udev_monitor *m, int timeout_ms)
{
        uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;
        while (now_usec() < deadline) {
                struct pollfd p = {.fd = udev_monitor_get_fd(m), .events = POLLIN};
                if (poll(&p, 1, 50) <= 0)
                        continue;
                struct udev_device *d = udev_monitor_receive_device(m);
                if (d && streq_ptr(udev_device_get_devpath(d), "/devices/virtual/mem/null"))
                        return d;
                udev_device_unref(d);
        }
        return NULL;
}

static bool wait_for_file(const char *path, bool present, int timeout_ms)
{
        uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;
        while (now_usec() < deadline) {
                if ((access(path, F_OK) == 0) == present)
                        return true;
                usleep(20000);
        }
        return false;
}

/* devmand itself: what udevadm and libudev see of a running daemon. It takes over the run dir
 * (with the entries the earlier tests left, as after a daemon restart); nodes go to a
 * private directory. */
static void test_devmand(void)
{
        write_database();
        server = ctrl_server_free(server);
        char dev[] = "/tmp/devman-e2e.XXXXXX";
        CHECK(mkdtemp(dev) != NULL);
        int ready[2];
        CHECK(pipe2(ready, O_CLOEXEC) == 0);
        pid_t pid = fork();
        if (pid == 0) {
                char dev_arg[64], fd_arg[32];
                snprintf(dev_arg, sizeof(dev_arg), "--dev=%s", dev);
                int fd = dup(ready[1]); /* without O_CLOEXEC */
                snprintf(fd_arg, sizeof(fd_arg), "--ready-fd=%d", fd);
                execl(devmand_path(), devmand_path(), "--sysfs=/sys", dev_arg, "--run=" RUN, fd_arg, NULL);
                _exit(127);
        }
        close(ready[1]);
        struct pollfd p = {.fd = ready[0], .events = POLLIN};
        CHECK(poll(&p, 1, 20000) == 1);
        close(ready[0]);
        CHECK(access(RUN "/control", F_OK) == 0);

        struct udev *udev = udev_new();
        struct udev_monitor *mon = udev_mon(udev, "mem", NULL, NULL);
        CHECK(mon != NULL);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--ping"), 0);
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--log-level=info"), 0);

        provoke_kernel();
        struct udev_device *d = mon ? receive_null(mon, 5000) : NULL;
        CHECK(d != NULL);
        if (d) {
                char usec[32];
                snprintf(usec, sizeof(usec), "%llu", (unsigned long long)null_usec);
                CHECK_STR(udev_device_get_action(d), "change");
                CHECK_STR(udev_device_get_devnode(d), "/dev/null"); /* clients get /dev names */
                CHECK(udev_device_get_seqnum(d) > 0);
                CHECK_INT(udev_device_get_is_initialized(d), 1);
                /* the entry of the previous "daemon" was picked up: time and sticky tags */
                CHECK_STR(udev_device_get_property_value(d, "USEC_INITIALIZED"), usec);
                CHECK_INT(udev_device_has_tag(d, "devman-test"), 1);
                udev_device_unref(d);
        }
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "5"), 0);
        char *db = NULL;
        size_t len;
        CHECK(read_full_file(RUN "/data/c1:3", &db, &len) == 0);
        char line[64];
        snprintf(line, sizeof(line), "I:%llu\n", (unsigned long long)null_usec);
        CHECK(db && strstr(db, line) && strstr(db, "G:devman-test\n"));
        free(db);

        /* a stopped queue keeps events (and the queue file) until it is started again */
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "control", "--stop-exec-queue"), 0);
        provoke_kernel();
        CHECK(wait_for_file(RUN "/queue", true, 3000));
        CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "1"), 1);
        /* devmanadm settle asks the daemon (WAIT_IDLE): no answer while the event waits */
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "settle", "-t", "1"), 1);
        d = mon ? receive_null(mon, 300) : NULL;
        CHECK(d == NULL);
        udev_device_unref(d);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control", "--start-exec-queue"), 0);
        /* the daemon follows the live kernel: an event of another device (a loop device, a
         * tap) right after settle returned may queue again, then settle once more */
        bool settled = false;
        for (int i = 0; i < 3 && !settled; i++) {
                CHECK_INT(RUN_CMD(10000, NULL, "/usr/bin/udevadm", "settle", "-t", "5"), 0);
                settled = access(RUN "/queue", F_OK) < 0;
        }
        CHECK(settled);
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "settle", "-t", "5"), 0);
        d = mon ? receive_null(mon, 3000) : NULL;
        CHECK(d != NULL);
        udev_device_unref(d);

        /* the queue file outlives the last event only briefly, and not a settle request */
        provoke_kernel();
        d = mon ? receive_null(mon, 3000) : NULL;
        CHECK(d != NULL);
        udev_device_unref(d);
        CHECK(wait_for_file(RUN "/queue", false, 1000));
        provoke_kernel();
        /* (a foreign event right after the answer may queue again: then settle once more) */
        bool gone = false;
        for (int i = 0; i < 3 && !gone; i++) {
                CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "settle", "-t", "5"), 0);
                gone = access(RUN "/queue", F_OK) < 0;
        }
        CHECK(gone);
        d = mon ? receive_null(mon, 3000) : NULL;
        CHECK(d != NULL);
        udev_device_unref(d);

        /* exit through the control socket; the socket goes with the daemon */
        CHECK_INT(RUN_CMD(10000, NULL, (char *)devmanadm_path(), "--run=" RUN, "control", "--exit"), 0);
        int st = -1;
        for (int i = 0; i < 500 && waitpid(pid, &st, WNOHANG) != pid; i++)
                usleep(10000);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        if (!WIFEXITED(st)) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
        }
        CHECK(access(RUN "/control", F_OK) < 0);
        udev_monitor_unref(mon);
        udev_unref(udev);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dev);
        (void)!system(cmd);
        server_start();
}

struct test_state test_state;

int main(int argc, char **argv)
{
        static const struct test_case cases[] = {
                TEST(test_libudev_reads_database),
                TEST(test_udevadm_info),
                TEST(test_libudev_monitor),
                TEST(test_devmanadm_monitor),
                TEST(test_udevadm_control),
                TEST(test_devmand),
        };
        if (geteuid() != 0) {
                fprintf(stderr, "not root: skipped\n");
                return 77;
        }
        if (access("/usr/bin/udevadm", X_OK) < 0) {
                fprintf(stderr, "no udevadm: skipped\n");
                return 77;
        }
        if (unshare(CLONE_NEWNS | CLONE_NEWNET) < 0) {
                fprintf(stderr, "unshare: %m: skipped\n");
                return 77;
        }
        /* nothing of what follows propagates to the host */
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0 || mkdir(RUN, 0755) < 0) {
                fprintf(stderr, "private /run: %m: skipped\n");
                return 77;
        }
        signal(SIGPIPE, SIG_IGN);
        int r = test_run(cases, ELEMENTSOF(cases), argc, argv);
        server = ctrl_server_free(server);
        event = sd_event_unref(event);
        model = model_free(model);
        return r;
}
