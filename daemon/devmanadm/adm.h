/* SPDX-License-Identifier: MIT */
/* devmanadm: the verbs. Each verb is one file (adm-<verb>.c) with its own options and --help. */
#pragma once

#include <stdbool.h>

/* The roots every verb works in (global options before the verb). */
struct adm_ctx {
        const char *sysfs_root;
        const char *dev_root;
        const char *run_root;
};

int verb_trigger(const struct adm_ctx *ctx, int argc, char **argv);
int verb_settle(const struct adm_ctx *ctx, int argc, char **argv);
int verb_info(const struct adm_ctx *ctx, int argc, char **argv);
int verb_tree(const struct adm_ctx *ctx, int argc, char **argv);
int verb_classes(const struct adm_ctx *ctx, int argc, char **argv);
int verb_static_nodes(const struct adm_ctx *ctx, int argc, char **argv);
int verb_coldplug(const struct adm_ctx *ctx, int argc, char **argv);
int verb_control(const struct adm_ctx *ctx, int argc, char **argv); /* adm-control.h */
int verb_monitor(const struct adm_ctx *ctx, int argc, char **argv); /* adm-monitor.c */
int verb_snapshot(const struct adm_ctx *ctx, int argc, char **argv); /* adm-snapshot.h */
int verb_compare(const struct adm_ctx *ctx, int argc, char **argv);  /* adm-compare.c */
/* Runs one builtin in test mode on a device and prints the properties it sets (adm-test-builtin.c). */
int verb_test_builtin(const struct adm_ctx *ctx, int argc, char **argv);
/* Prints an mdev.conf as udev rules (adm-mdev-convert.c). */
int verb_mdev_convert(const struct adm_ctx *ctx, int argc, char **argv);

/* Settles (shared by settle, trigger --settle and coldplug): waits until the run dir's queue
 * file is gone. 0 when settled, -ETIMEDOUT, other -errno. */
int adm_wait_for_queue(const struct adm_ctx *ctx, double timeout_sec);

/* Reports a bad argument on one line and returns the exit status for it. */
int adm_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For a verb that takes options only: 0 when argv[first..argc) is empty, else reports the
 * first argument left and returns the exit status for it. */
int adm_no_arguments(const char *verb, int first, int argc, char **argv);

struct model;
/* The device model on sysfs_root with its nodes under dev_root (devmanadm-tools only): 0, or
 * says why it cannot be had and returns the exit status for that. */
int adm_model_open(const char *sysfs_root, const char *dev_root, struct model **ret);
