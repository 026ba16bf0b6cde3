/* SPDX-License-Identifier: MIT */
/* devmand: the device manager daemon. Options, configuration, daemonizing and readiness; the
 * work is in manager.c. */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "devman-config.h"
#include "fs-util.h"
#include "listen-fds.h"
#include "log.h"
#include "manager.h"
#include "memtrim.h"
#include "sched-slice.h"
#include "strv.h"
#include "sysfs.h"

/* What the command line asked for, applied over the configuration files by apply_args(). */
struct devmand_args {
        bool daemonize;
        bool debug;
        bool once;
        int log_target;
        int ready_fd;
        int rcvbuf;
        uint64_t sched_slice_usec;
        const char *config_file;
        const char *uevent_socket; /* tests on a fake sysfs: uevents from here, not the kernel */
        const char *sysfs_root, *dev_root, *run_root;
        const char *mdev_conf;
        char **rules_dirs;
        char **settings; /* "key=value" in udev.conf terms, in command-line order */
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
               "     --config=FILE           read FILE instead of /etc/devman/devman.conf\n"
               "     --mdev-conf=FILE        apply busybox mdev.conf FILE after the rules\n"
               "  -c --children-max=N        run at most N programs at once\n"
               "  -e --exec-delay=SEC        wait SEC seconds before each RUN program\n"
               "  -t --event-timeout=SEC     kill programs of an event after SEC seconds (default 180)\n"
               "     --timeout-signal=SIG    signal sent to programs that time out (default SIGKILL)\n"
               "  -N --resolve-names=WHEN    early, late or never: when user and group names are resolved\n"
               "     --log-target=TARGET     console, kmsg, syslog or auto\n"
               "     --log-level=LEVEL       err, warning, notice, info or debug\n"
               "     --ready-fd=N            write a newline to fd N when ready (s6 readiness)\n"
               "     --receive-buffer=BYTES  kernel socket receive buffer (default 128 MiB)\n"
               "     --sched-slice=USEC      scheduler slice to ask for (default 100, 0 = the kernel's)\n"
               "     --uevent-socket=PATH    tests on a fake sysfs root: take uevents (the kernel's format,\n"
               "                             from root) from a datagram socket made at PATH, not the kernel\n");
}

enum {
        ARG_ONCE = 0x100,
        ARG_SYSFS,
        ARG_DEV,
        ARG_RUN,
        ARG_RULES_DIR,
        ARG_CONFIG,
        ARG_TIMEOUT_SIGNAL,
        ARG_LOG_TARGET,
        ARG_LOG_LEVEL,
        ARG_READY_FD,
        ARG_RECEIVE_BUFFER,
        ARG_SCHED_SLICE,
        ARG_UEVENT_SOCKET,
        ARG_MDEV_CONF,
};

static int push_setting(struct devmand_args *a, const char *key, const char *value)
{
        _cleanup_free_ char *kv = NULL;
        if (asprintf(&kv, "%s=%s", key, value) < 0 || strv_push_copy(&a->settings, kv) < 0)
                return log_oom();
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
                {"config", required_argument, NULL, ARG_CONFIG},
                {"mdev-conf", required_argument, NULL, ARG_MDEV_CONF},
                {"children-max", required_argument, NULL, 'c'},
                {"exec-delay", required_argument, NULL, 'e'},
                {"event-timeout", required_argument, NULL, 't'},
                {"timeout-signal", required_argument, NULL, ARG_TIMEOUT_SIGNAL},
                {"resolve-names", required_argument, NULL, 'N'},
                {"log-target", required_argument, NULL, ARG_LOG_TARGET},
                {"log-level", required_argument, NULL, ARG_LOG_LEVEL},
                {"ready-fd", required_argument, NULL, ARG_READY_FD},
                {"receive-buffer", required_argument, NULL, ARG_RECEIVE_BUFFER},
                {"sched-slice", required_argument, NULL, ARG_SCHED_SLICE},
                {"uevent-socket", required_argument, NULL, ARG_UEVENT_SOCKET},
                {}
        };
        unsigned v;
        int c, r = 0;

        while ((c = getopt_long(argc, argv, "hVdDc:e:t:N:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("%s %s\n", program_invocation_short_name, DEVMAN_VERSION);
                        return 1;
                case 'd':
                        a->daemonize = true;
                        break;
                case 'D':
                        a->debug = true;
                        break;
                case ARG_ONCE:
                        a->once = true;
                        break;
                case ARG_SYSFS:
                        a->sysfs_root = optarg;
                        break;
                case ARG_DEV:
                        a->dev_root = optarg;
                        break;
                case ARG_RUN:
                        a->run_root = optarg;
                        break;
                case ARG_RULES_DIR:
                        if (strv_push_copy(&a->rules_dirs, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_CONFIG:
                        a->config_file = optarg;
                        break;
                case ARG_MDEV_CONF:
                        a->mdev_conf = optarg;
                        break;
                case 'c':
                        r = push_setting(a, "children_max", optarg);
                        break;
                case 'e':
                        r = push_setting(a, "exec_delay", optarg);
                        break;
                case 't':
                        r = push_setting(a, "event_timeout", optarg);
                        break;
                case ARG_TIMEOUT_SIGNAL:
                        r = push_setting(a, "timeout_signal", optarg);
                        break;
                case 'N':
                        r = push_setting(a, "resolve_names", optarg);
                        break;
                case ARG_LOG_LEVEL:
                        r = push_setting(a, "udev_log", optarg);
                        break;
                case ARG_LOG_TARGET:
                        a->log_target = log_target_from_string(optarg);
                        if (a->log_target < 0) {
                                fprintf(stderr, "devmand: invalid --log-target: %s\n", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_READY_FD:
                        if (devman_parse_unsigned(optarg, &v) < 0 || v < 3 || v > INT_MAX) {
                                fprintf(stderr, "devmand: invalid --ready-fd: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->ready_fd = (int)v;
                        break;
                case ARG_RECEIVE_BUFFER:
                        if (devman_parse_unsigned(optarg, &v) < 0 || v < 4096 || v > INT_MAX) {
                                fprintf(stderr, "devmand: invalid --receive-buffer: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->rcvbuf = (int)v;
                        break;
                case ARG_SCHED_SLICE:
                        if (devman_parse_unsigned(optarg, &v) < 0 || (v > 0 && (v < 100 || v > 100000))) {
                                fprintf(stderr, "devmand: invalid --sched-slice (0, or 100 to 100000): %s\n", optarg);
                                return -EINVAL;
                        }
                        a->sched_slice_usec = v;
                        break;
                case ARG_UEVENT_SOCKET:
                        if (optarg[0] != '/') {
                                fprintf(stderr, "devmand: --uevent-socket needs an absolute path: %s\n", optarg);
                                return -EINVAL;
                        }
                        a->uevent_socket = optarg;
                        break;
                default:
                        return -EINVAL; /* getopt printed the reason */
                }
                if (r < 0)
                        return r;
        }
        if (optind < argc) {
                fprintf(stderr, "devmand: unexpected argument: %s\n", argv[optind]);
                return -EINVAL;
        }
        if (a->once && a->uevent_socket) {
                fprintf(stderr, "devmand: --once reads no uevents: --uevent-socket makes no sense with it\n");
                return -EINVAL;
        }
        return 0;
}

/* --daemon changes to "/": relative paths become absolute first. */
static int set_absolute_path(char **field, const char *path)
{
        _cleanup_free_ char *abs = NULL;
        if (path[0] != '/') {
                _cleanup_free_ char *cwd = getcwd(NULL, 0);
                if (!cwd)
                        return negative_errno();
                abs = path_join(cwd, path);
                if (!abs)
                        return -ENOMEM;
                path = abs;
        }
        return devman_config_set_path(field, path);
}

/* The command line over the configuration files (which were loaded first). */
static int apply_args(const struct devmand_args *a, struct devman_config *c)
{
        int r;

        STRV_FOREACH(kv, a->settings) {
                char *eq = strchr(*kv, '=');
                *eq = '\0';
                r = devman_config_set(c, *kv, eq + 1);
                if (r < 0) {
                        fprintf(stderr, "devmand: invalid value for %s: %s\n", *kv, eq + 1);
                        *eq = '=';
                        return -EINVAL;
                }
                *eq = '=';
        }
        if ((a->sysfs_root && (r = set_absolute_path(&c->sysfs_root, a->sysfs_root)) < 0) ||
            (a->dev_root && (r = set_absolute_path(&c->dev_root, a->dev_root)) < 0) ||
            (a->run_root && (r = set_absolute_path(&c->run_root, a->run_root)) < 0) ||
            (a->mdev_conf && (r = set_absolute_path(&c->mdev_conf, a->mdev_conf)) < 0)) {
                fprintf(stderr, "devmand: invalid root directory: %s\n", strerror(-r));
                return -EINVAL;
        }
        if (a->rules_dirs) {
                devman_config_clear_rules_dirs(c);
                STRV_FOREACH(d, a->rules_dirs) {
                        _cleanup_free_ char *abs = NULL;
                        if ((r = set_absolute_path(&abs, *d)) < 0 || (r = devman_config_add_rules_dir(c, abs)) < 0) {
                                fprintf(stderr, "devmand: invalid rules directory %s: %s\n", *d, strerror(-r));
                                return -EINVAL;
                        }
                }
        }
        if (a->debug)
                c->log_level = LOG_DEBUG;
        return 0;
}

struct readiness {
        int pipe_fd;  /* --daemon: tells the waiting parent we are ready */
        int ready_fd; /* --ready-fd */
        bool log_detached; /* --daemon without --log-target: console until ready, then auto */
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
                if (rd->log_detached)
                        (void)log_set_target(LOG_TARGET_AUTO);
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
        if (chdir("/") < 0) /* do not keep the start directory busy; paths are absolute by now */
                return negative_errno();
        return 0;
}

int main(int argc, char **argv)
{
        struct devmand_args a = {
                .log_target = LOG_TARGET_CONSOLE, .ready_fd = -1, .sched_slice_usec = SCHED_SLICE_DEFAULT_USEC};
        struct readiness rd = {.pipe_fd = -1, .ready_fd = -1};
        struct devman_config *config = NULL;
        struct manager *m = NULL;
        int r, status = 1;

        log_set_ident(program_invocation_short_name); /* devmand, or udevd (udev-compat-names) */
        /* After the allocator's re-exec through /proc/self/exe the kernel names the process
         * "exe": ps, pgrep and init scripts look for the name it was started as. */
        (void)prctl(PR_SET_NAME, program_invocation_short_name);
        r = parse_args(argc, argv, &a);
        if (r != 0) {
                status = r > 0 ? 0 : 2;
                goto out;
        }
        if (!a.once) {
                /* a long-running daemon: an allocator that gives storms' memory back */
                r = memtrim_exec_tuned(argv); /* returns only when nothing was executed */
                if (r < 0)
                        log_debug_errno(r, "Cannot re-execute with %s, the idle heap may keep more: %m",
                                        MEMTRIM_TUNABLE);
        }
        if (memtrim_configure() < 0)
                log_debug("The allocator refused its settings, the idle heap may keep more");
        /* The dynamic loader touched every library's symbol tables and relocations: pages the
         * daemon will not need again. Drop them before start-up adds its own working set. */
        if (!a.once)
                (void)memtrim_idle();
        r = devman_config_new(&config);
        if (r < 0) {
                log_oom();
                goto out;
        }
        (void)devman_config_load(config, NULL, a.config_file); /* problems are logged, never fatal */
        r = apply_args(&a, config);
        if (r < 0) {
                status = 2;
                goto out;
        }
        log_set_max_level(config->log_level);
        /* --daemon: errors before ready still reach whoever started it */
        rd.log_detached = a.daemonize && a.log_target == LOG_TARGET_CONSOLE;
        if (a.log_target != LOG_TARGET_CONSOLE) {
                r = log_set_target(a.log_target);
                if (r < 0) /* the logger is back on the console: say why there */
                        log_warning_errno(r, "Cannot log to %s: %m; logging to the console",
                                          log_target_to_string(a.log_target));
        }
        rd.ready_fd = a.ready_fd;
        umask(022);
        if (!a.once) {
                r = sched_slice_request(a.sched_slice_usec);
                if (r < 0)
                        log_debug_errno(r, "Cannot ask for a scheduler slice of %" PRIu64 " us: %m", a.sched_slice_usec);
        }

        struct manager_options opt = {
                .config = config,
                .once = a.once,
                .rcvbuf = a.rcvbuf > 0 ? a.rcvbuf : 128 * 1024 * 1024,
                .listen_fd_kernel = -1,
                .listen_fd_control = -1,
                .uevent_socket = a.uevent_socket,
        };
        if (!a.once) {
                _cleanup_free_ char *control = path_join(config->run_root, "control");
                r = control ? listen_fds_take(control, &opt.listen_fd_kernel, &opt.listen_fd_control) : -ENOMEM;
                if (r < 0) {
                        log_error_errno(r, "Cannot take the sockets passed by the service manager: %m");
                        goto out;
                }
        }
        if (a.daemonize) {
                r = daemonize(&rd);
                if (r < 0) {
                        log_error_errno(r, "Cannot detach: %m");
                        goto out;
                }
        }
        r = manager_new(&opt, &m);
        if (r < 0)
                goto out;
        status = manager_run(m, on_ready, &rd) == 0 ? 0 : 1;
out:
        manager_free(m);
        devman_config_free(config);
        strv_free(a.rules_dirs);
        strv_free(a.settings);
        log_close();
        return status;
}
