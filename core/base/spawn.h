/* SPDX-License-Identifier: MIT */
/*
 * Child processes for PROGRAM, IMPORT{program} and RUN (and builtins that block), driven by the daemon's sd-event loop:
 * nothing here ever blocks. A manager starts at most children_max children at a time; later
 * starts wait in a FIFO. Each child
 *  - gets argv split from the command line as udev does (spawn_split_command), a program name
 *    that is not absolute resolved against the udev lib dir (e.g. "ata_id" -> /lib/udev/ata_id);
 *  - gets exactly the environment it is given (the device's properties), stdin from /dev/null,
 *    stdout into a pipe (captured up to a bound, or logged at debug level), stderr logged line
 *    by line at debug level (or /dev/null when debug logging is off);
 *  - inherits no fd of the daemon (0–2 only), has an empty signal mask and default signal
 *    dispositions, runs in its own session (so a timeout reaches its whole process group) and
 *    gets SIGTERM when the daemon dies;
 *  - is reaped through an sd-event child source (WEXITED), so no zombie is left.
 * After a timeout the configured signal goes to the child's process group, and SIGKILL after a
 * grace period if it is still alive.
 *
 * The caller must block SIGCHLD (sd-event's requirement for child sources) before starting
 * children. No threads are used.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

/* udev keeps at most 16 KiB - 1 of a program's output (UDEV_LINE_SIZE). */
#define SPAWN_OUTPUT_MAX_DEFAULT (16384 - 1)
#define SPAWN_KILL_GRACE_DEFAULT_USEC (5 * 1000000ULL)

struct spawn_manager;

struct spawn_options {
        uint64_t timeout_usec;    /* from the child's start; 0: none */
        int timeout_signal;       /* sent at the timeout; 0: SIGKILL */
        uint64_t kill_grace_usec; /* then SIGKILL after this; 0: SPAWN_KILL_GRACE_DEFAULT_USEC */
        bool capture_stdout;      /* PROGRAM / IMPORT{program}; RUN programs only get logged */
        size_t output_max;        /* bytes of stdout kept; 0: SPAWN_OUTPUT_MAX_DEFAULT */
        bool shell;               /* run cmd with /bin/sh -c instead of splitting it (mdev.conf) */
        const char *cwd;          /* the child's working directory (copied), or NULL: inherited */
};

/* What the completion callback gets; valid only during the callback. */
struct spawn_result {
        const char *cmd;
        pid_t pid;          /* 0 when it never started */
        int error;          /* 0, or -errno when it could not be started or executed */
        int exit_status;    /* the exit code when it exited (error == 0, signal == 0), else -1 */
        int signal;         /* the signal that terminated it, or 0 */
        bool timed_out;     /* it was still running at the timeout and was signalled */
        const char *output; /* captured stdout, NUL-terminated ("" when not captured) */
        size_t output_len;
        bool truncated; /* more output than output_max arrived; the rest was dropped */
};

typedef void (*spawn_done_fn)(const struct spawn_result *result, void *userdata);

/* A manager on event (a reference is taken). libdir: where relative program names are found
 * (copied; NULL for UDEVLIBDIR). children_max 0 means no limit. 0 or -errno. */
int spawn_manager_new(sd_event *event, const char *libdir, unsigned children_max,
                      struct spawn_manager **ret);
/* Kills (SIGKILL, whole process group) and reaps running children, drops queued starts; no
 * callback is called. Returns NULL. */
struct spawn_manager *spawn_manager_free(struct spawn_manager *m);
/* Takes effect at the next start; lowering it never kills running children. */
void spawn_manager_set_children_max(struct spawn_manager *m, unsigned children_max);
unsigned spawn_manager_running(const struct spawn_manager *m);
unsigned spawn_manager_queued(const struct spawn_manager *m);

/* Starts (or queues) cmd with the environment envp (NULL-terminated "KEY=VALUE" strings,
 * copied; NULL for an empty one) and options (NULL for defaults). On 0, done is called exactly
 * once later, from the event loop (never from within spawn_start()), unless the manager is
 * freed first. The callback may start new children but must not free the manager. A negative
 * return (-EINVAL for an empty command, -ENOMEM, or the -errno of a failed pipe/fork for an
 * immediate start) means done will never be called. A child's own background processes are
 * not waited for: output they write after the child exited is lost, as with udev. */
int spawn_start(struct spawn_manager *m, const char *cmd, char **envp, const struct spawn_options *opts,
                spawn_done_fn done, void *userdata);

/* A function to run in a child process of its own (spawn_start_fn). Its return value becomes
 * the child's exit status: 0 for >= 0, else the errno (capped at 125). */
typedef int (*spawn_fn)(void *arg);

/* Runs fn(arg) in a forked child, for work that would block the event loop (a module's
 * initialisation): the child sees the caller's memory as it is when the child starts (a
 * queued start happens later, so arg must stay valid until done is called). It has stdin from
 * /dev/null, the caller's stdout and stderr, no signal mask, its own session, and the same
 * limits, timeout and reporting as spawn_start(); name stands for it in log lines and in
 * result->cmd. Returns as spawn_start() does. */
int spawn_start_fn(struct spawn_manager *m, const char *name, spawn_fn fn, void *arg,
                   const struct spawn_options *opts, spawn_done_fn done, void *userdata);

/* For tools (no daemon loop): runs cmd to completion on a private event loop, with SIGCHLD
 * blocked meanwhile (the previous mask is restored). Fills *ret like struct spawn_result, but
 * ret->output is a new string owned by the caller (free()). 0 (then see ret->error for a
 * program that could not be executed), or -errno when it could not be started. */
struct spawn_sync_result {
        int error;
        int exit_status;
        int signal;
        bool timed_out;
        char *output;
        size_t output_len;
        bool truncated;
};
int spawn_run_sync(const char *libdir, const char *cmd, char **envp, const struct spawn_options *opts,
                   struct spawn_sync_result *ret);

/* The one status a child's outcome is reported with (PROGRAM matching, logs): error (-errno)
 * when it could not run, -ETIMEDOUT when it ran past its timeout, 128 + signal when a signal
 * ended it, else its exit code. */
int spawn_status(int error, bool timed_out, int signal, int exit_status);

/* Splits a command line into argv as udev does: words separated by whitespace; '...' and "..."
 * quote (the quotes are removed; they may start or end inside a word; an unterminated quote
 * runs to the end); a backslash is an ordinary character. A NULL-terminated array of new
 * strings in *ret (empty when the line is blank; free with strv_free()). 0 or -ENOMEM. */
int spawn_split_command(const char *cmd, char ***ret);
