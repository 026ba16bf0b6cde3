/* SPDX-License-Identifier: MIT */
/* devmanadm: the admin tool. Global options, then a verb; see adm.h.
 *
 * Built twice. devmanadm itself (ADM_FRONT) carries the verbs boot scripts run — trigger,
 * settle, coldplug, static-nodes, control — and links nothing but libc, so that it starts as
 * fast as a program can; the other verbs need the event loop, the builtins' libraries and the
 * rules engine, and run in devmanadm-tools, which the front executes with the same arguments. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "adm.h"
#include "adm-hwdb.h"
#include "adm-test.h"
#include "adm-verify.h"
#include "log.h"
#include "macros.h"
#include "model.h"

struct verb {
        const char *name;
        int (*run)(const struct adm_ctx *ctx, int argc, char **argv);
        const char *summary;
};

static int verb_version(const struct adm_ctx *ctx, int argc, char **argv)
{
        printf("%s\n", DEVMAN_VERSION);
        return 0;
}

#ifndef ADM_FRONT
static int run_verify(const struct adm_ctx *ctx, int argc, char **argv)
{
        return verb_verify(argc, argv);
}

static int run_hwdb(const struct adm_ctx *ctx, int argc, char **argv)
{
        return verb_hwdb(argc, argv);
}
#endif

#ifdef ADM_FRONT
#define TOOLS(f) NULL /* runs in devmanadm-tools */
#else
#define TOOLS(f) f
#endif

static const struct verb verbs[] = {
        {"trigger", verb_trigger, "Request events from the kernel"},
        {"settle", verb_settle, "Wait until the daemon's event queue is empty"},
        {"coldplug", verb_coldplug, "Trigger every subsystem and device, then settle"},
        {"info", TOOLS(verb_info), "Show what devman knows about a device"},
        {"control", verb_control, "Control the running daemon"},
        {"monitor", TOOLS(verb_monitor), "Listen to kernel and udev events"},
        {"test", TOOLS(verb_test), "Show what the rules do for a device, changing nothing"},
        {"verify", TOOLS(run_verify), "Check rules files"},
        {"hwdb", TOOLS(run_hwdb), "Compile or query the hardware database"},
        {"tree", TOOLS(verb_tree), "Show a class the way the kernel lays it out"},
        {"classes", TOOLS(verb_classes), "Tell for every class whether it is converted, legacy or mixed"},
        {"static-nodes", verb_static_nodes, "Create the nodes of modules that load on first open"},
        {"snapshot", TOOLS(verb_snapshot), "Record what devman would publish for every device (for compare)"},
        {"compare", TOOLS(verb_compare), "Compare two snapshots: what a class conversion changed for userspace"},
        {"test-builtin", TOOLS(verb_test_builtin), "Run a builtin command on a device and show its properties"},
        {"mdev-convert", TOOLS(verb_mdev_convert), "Print busybox mdev.conf as udev rules"},
        {"version", verb_version, "Show the version"},
};

/* Runs a verb this front does not carry: devmanadm-tools next to this program (the build
 * tree), or in ../libexec/devman from its directory (an installation, also one staged with
 * DESTDIR), else in the configured libexec directory. The arguments are passed as they came
 * (argv[0] too: the tool names itself after it). Returns only on failure. */
static int run_tools(char **argv)
{
        char self[PATH_MAX], path[PATH_MAX + 64];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        char *slash = n > 0 ? memrchr(self, '/', (size_t)n) : NULL;
        if (slash) {
                *slash = 0;
                static const char *const rel[] = {"devmanadm-tools", "../libexec/devman/devmanadm-tools"};
                for (size_t i = 0; i < ELEMENTSOF(rel); i++) {
                        snprintf(path, sizeof(path), "%s/%s", self, rel[i]);
                        if (access(path, X_OK) == 0)
                                execv(path, argv);
                }
        }
        execv(DEVMAN_LIBEXECDIR "/devmanadm-tools", argv);
        fprintf(stderr, "%s: cannot run %s: %m\n", program_invocation_short_name,
                DEVMAN_LIBEXECDIR "/devmanadm-tools");
        return 1;
}

int adm_usage_error(const char *verb, const char *fmt, ...)
{
        va_list ap;
        fprintf(stderr, "%s%s%s: ", program_invocation_short_name, verb ? " " : "", verb ? verb : "");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return 2;
}

int adm_no_arguments(const char *verb, int first, int argc, char **argv)
{
        if (first < argc)
                return adm_usage_error(verb, "unexpected argument: %s", argv[first]);
        return 0;
}

#ifndef ADM_FRONT
int adm_model_open(const char *sysfs_root, const char *dev_root, struct model **ret)
{
        _cleanup_(model_freep) struct model *m = NULL;
        int r = model_new(sysfs_root, &m);
        if (r >= 0)
                r = model_set_dev_root(m, dev_root);
        if (r < 0) {
                log_error_errno(r, "Cannot use %s as sysfs root: %m", sysfs_root);
                return 1;
        }
        *ret = TAKE_PTR(m);
        return 0;
}
#endif

static void help(void)
{
        printf("Usage: %s [--sysfs=DIR] [--dev=DIR] [--run=DIR] [--debug] VERB [OPTIONS]\n"
               "\n"
               "The devman admin tool.\n"
               "\n"
               "  -h --help        Show this help\n"
               "  -V --version     Show the version\n"
               "     --sysfs=DIR   sysfs root (default /sys)\n"
               "     --dev=DIR     /dev root (default /dev)\n"
               "     --run=DIR     run directory (default /run/udev)\n"
               "  -d --debug       Log debug messages\n"
               "\n"
               "Verbs:\n",
               program_invocation_short_name);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %-14s %s\n", verbs[i].name, verbs[i].summary);
        printf("\nSee '%s VERB --help' for a verb's options.\n", program_invocation_short_name);
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"version", no_argument, NULL, 'V'},
                {"debug", no_argument, NULL, 'd'},
                {"sysfs", required_argument, NULL, 's'},
                {"dev", required_argument, NULL, 'D'},
                {"run", required_argument, NULL, 'r'},
                {}
        };
        struct adm_ctx ctx = {.sysfs_root = "/sys", .dev_root = "/dev", .run_root = "/run/udev"};
        int c;

        /* installed as udevadm too (udev-compat-names): messages carry the name it was called by */
        log_set_ident(program_invocation_short_name);
        log_set_max_level(LOG_WARNING);
        /* "+" stops at the first non-option: the verb's options are the verb's */
        while ((c = getopt_long(argc, argv, "+hVd", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'V':
                        /* as udevadm, the bare version udevadm prints, for scripts that parse it */
                        if (streq(program_invocation_short_name, "udevadm"))
                                printf("%s\n", DEVMAN_VERSION);
                        else
                                printf("devmanadm %s\n", DEVMAN_VERSION);
                        return 0;
                case 'd':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 's':
                        ctx.sysfs_root = optarg;
                        break;
                case 'D':
                        ctx.dev_root = optarg;
                        break;
                case 'r':
                        ctx.run_root = optarg;
                        break;
                default:
                        return 2;
                }
        }
        if (optind >= argc)
                return adm_usage_error(NULL, "missing verb (see --help)");
        const char *name = argv[optind];
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name)) {
                        if (!verbs[i].run)
                                return run_tools(argv);
                        int sub_argc = argc - optind;
                        char **sub_argv = argv + optind;
                        optind = 0; /* reset getopt for the verb */
                        return verbs[i].run(&ctx, sub_argc, sub_argv);
                }
        return adm_usage_error(NULL, "unknown verb '%s' (see --help)", name);
}
