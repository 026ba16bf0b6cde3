/* SPDX-License-Identifier: MIT */
/* devmand: the device manager daemon. Option parsing, daemonizing and readiness; the work is
 * in manager.c. */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "strv.h"

struct devmand_args {
        struct manager_options opt;
        bool daemonize;
        bool debug;
        int log_target;
        int log_level;
        char **rules_dirs;
        char *abs[3]; /* storage for roots made absolute */
};

static void help(void)
{
        printf("Usage: devmand [OPTIONS]\n"
               "\n"
               "The devman device manager daemon: listens to kernel uevents, applies udev rules,\n"
               "creates /dev nodes and links and publishes the udev database.\n"
               "\n"
               "  -h --help                  Show this help and exit\n"
               "  -V --version               Show the version and exit\n"
               "  -d --daemon                Detach from the terminal once ready\n"
               "  -D --debug                 Log debug messages\n"
               "     --once                  Coldplug every device of the sysfs root, then exit\n"
               "     --sysfs=DIR             sysfs root (default /sys)\n"
               "     --dev=DIR               /dev root where nodes and links are made (default /dev)\n"
               "     --run=DIR               run directory: database, queue, control (default /run/udev)\n"
               "     --rules-dir=DIR         read rules from DIR instead of the standard directories\n"
               "                             (repeatable)\n"
               "     --event-timeout=SEC     kill programs of an event after SEC seconds (default 180)\n"
               "     --children-max=N        run at most N programs at once\n"
               "     --log-target=TARGET     console, kmsg, syslog or auto\n"
               "     --log-level=LEVEL       err, warning, notice, info or debug\n"
               "     --ready-fd=N            write a newline to fd N when ready (s6 readiness)\n");
}

enum {
        ARG_ONCE = 0x100,
        ARG_SYSFS,
        ARG_DEV,
        ARG_RUN,
        ARG_RULES_DIR,
        ARG_EVENT_TIMEOUT,
        ARG_CHILDREN_MAX,
        ARG_LOG_TARGET,
        ARG_LOG_LEVEL,
        ARG_READY_FD,
};

static int parse_uint(const char *s, unsigned long max, unsigned long *ret)
{
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || end == s || *end || v > max || s[0] == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Returns 0 to run, 1 to exit successfully (help/version), -EINVAL on a bad argument (reported). */
static int parse_args(int argc, char **argv, struct devmand_args *a)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"version", no_argument, NULL, 'V'},
                {"daemon", no_argument, NULL, 'd'},
                {"debug", no_argument, NULL, 'D'},
                {"once", no_argument, NULL, ARG_ONCE},
                {"sysfs", required_argument, NULL, ARG_SYSFS},
                {"dev", required_argument, NULL, ARG_DEV},
                {"run", required_argument, NULL, ARG_RUN},
                {"rules-dir", required_argument, NULL, ARG_RULES_DIR},
                {"event-timeout", required_argument, NULL, ARG_EVENT_TIMEOUT},
                {"children-max", required_argument, NULL, ARG_CHILDREN_MAX},
                {"log-target", required_argument, NULL, ARG_LOG_TARGET},
                {"log-level", required_argument, NULL, ARG_LOG_LEVEL},
                {"ready-fd", required_argument, NULL, ARG_READY_FD},
                {}
        };
        unsigned long v;
        int c, r;

        while ((c = getopt_long(argc, argv, "hVdD", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("devmand %s\n", DEVMAN_VERSION);
                        return 1;
                case 'd':
                        a->daemonize = true;
                        break;
                case 'D':
                        a->debug = true;
                        break;
                case ARG_ONCE:
                        a->opt.once = true;
                        break;
                case ARG_SYSFS:
                        a->opt.sysfs_root = optarg;
                        break;
                case ARG_DEV:
                        a->opt.dev_root = optarg;
                        break;
                case ARG_RUN:
                        a->opt.run_root = optarg;
                        break;
                case ARG_RULES_DIR:
                        if (strv_push_copy(&a->rules_dirs, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_EVENT_TIMEOUT:
                        if (parse_uint(optarg, 86400, &v) < 0 || v == 0) {
                                fprintf(stderr, "devmand: invalid --event-timeout: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->opt.event_timeout_usec = v * 1000000ULL;
                        break;
                case ARG_CHILDREN_MAX:
                        if (parse_uint(optarg, 65536, &v) < 0 || v == 0) {
                                fprintf(stderr, "devmand: invalid --children-max: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->opt.children_max = (unsigned)v;
                        break;
                case ARG_LOG_TARGET:
                        r = log_target_from_string(optarg);
                        if (r < 0) {
                                fprintf(stderr, "devmand: invalid --log-target: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->log_target = r;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                fprintf(stderr, "devmand: invalid --log-level: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->log_level = r;
                        break;
                case ARG_READY_FD:
                        if (parse_uint(optarg, INT_MAX, &v) < 0 || v < 3) {
                                fprintf(stderr, "devmand: invalid --ready-fd: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->opt.ready_fd = (int)v;
                        break;
                default:
                        return -EINVAL; /* getopt printed the reason */
                }
        }
        if (optind < argc) {
                fprintf(stderr, "devmand: unexpected argument: %s\n", argv[optind]);
                return -EINVAL;
        }
        a->opt.rules_dirs = a->rules_dirs;
        return 0;
}

/* --daemon changes to "/": relative roots are made absolute first. */
static int make_absolute(const char **path, char **storage)
{
        if (!*path || (*path)[0] == '/')
                return 0;
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        if (!cwd)
                return negative_errno();
        if (asprintf(storage, "%s/%s", cwd, *path) < 0)
                return -ENOMEM;
        *path = *storage;
        return 0;
}

static int absolute_roots(struct devmand_args *a)
{
        int r;
        if ((r = make_absolute(&a->opt.sysfs_root, &a->abs[0])) < 0 ||
            (r = make_absolute(&a->opt.dev_root, &a->abs[1])) < 0 ||
            (r = make_absolute(&a->opt.run_root, &a->abs[2])) < 0)
                return r;
        STRV_FOREACH(d, a->rules_dirs) {
                char *abs = NULL;
                const char *p = *d;
                if ((r = make_absolute(&p, &abs)) < 0)
                        return r;
                if (abs) {
                        free(*d);
                        *(char **)d = abs;
                }
        }
        return 0;
}

struct readiness {
        int pipe_fd;  /* --daemon: tells the waiting parent we are ready */
        int ready_fd; /* --ready-fd */
};

static void on_ready(void *userdata)
{
        struct readiness *rd = userdata;
        (void)sd_notify(0, "READY=1\nSTATUS=Processing device events...");
        if (rd->ready_fd >= 0) {
                (void)!write(rd->ready_fd, "\n", 1);
                close(rd->ready_fd);
                rd->ready_fd = -1;
        }
        if (rd->pipe_fd >= 0) {
                /* detached: from now on nothing goes to the terminal */
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null >= 0) {
                        dup2(null, STDIN_FILENO);
                        dup2(null, STDOUT_FILENO);
                        dup2(null, STDERR_FILENO);
                        close(null);
                }
                (void)!write(rd->pipe_fd, "R", 1);
                close(rd->pipe_fd);
                rd->pipe_fd = -1;
        }
}

/* Forks; the parent exits 0 when the child reports ready, 1 if it dies first. */
static int daemonize(struct readiness *rd)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return negative_errno();
        pid_t pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid > 0) {
                char c;
                close(p[1]);
                ssize_t n = read(p[0], &c, 1);
                _exit(n == 1 ? 0 : 1);
        }
        close(p[0]);
        if (setsid() < 0)
                return negative_errno();
        rd->pipe_fd = p[1];
        if (chdir("/") < 0) /* do not keep the start directory busy; roots are absolute by now */
                return negative_errno();
        return 0;
}

int main(int argc, char **argv)
{
        struct devmand_args a = {
                .opt = {.listen_fd_kernel = -1, .listen_fd_control = -1, .ready_fd = -1,
                        .rcvbuf = 128 * 1024 * 1024, .event_timeout_usec = 180 * 1000000ULL},
                .log_target = LOG_TARGET_CONSOLE,
                .log_level = -1,
        };
        struct readiness rd = {.pipe_fd = -1, .ready_fd = -1};
        struct manager *m = NULL;
        int r;

        log_set_ident("devmand");
        r = parse_args(argc, argv, &a);
        if (r != 0) {
                strv_free(a.rules_dirs);
                return r > 0 ? 0 : 2;
        }
        if (a.debug)
                log_set_max_level(LOG_DEBUG);
        else if (a.log_level >= 0)
                log_set_max_level(a.log_level);
        if (a.daemonize && a.log_target == LOG_TARGET_CONSOLE)
                a.log_target = LOG_TARGET_AUTO;
        if (a.log_target != LOG_TARGET_CONSOLE)
                (void)log_set_target(a.log_target);
        rd.ready_fd = a.opt.ready_fd;
        umask(022);

        if (a.daemonize) {
                r = absolute_roots(&a);
                if (r < 0) {
                        log_error_errno(r, "Cannot resolve the root directories: %m");
                        goto out;
                }
                r = daemonize(&rd);
                if (r < 0) {
                        log_error_errno(r, "Cannot detach: %m");
                        goto out;
                }
        }
        r = manager_new(&a.opt, &m);
        if (r < 0)
                goto out;
        r = manager_run(m, on_ready, &rd);
out:
        manager_free(m);
        strv_free(a.rules_dirs);
        for (size_t i = 0; i < ELEMENTSOF(a.abs); i++)
                free(a.abs[i]);
        log_close();
        return r == 0 ? 0 : 1;
}
