/* SPDX-License-Identifier: MIT */
/*
 * Logging. Levels are syslog's (LOG_ERR … LOG_DEBUG). Targets: the console (stderr),
 * the kernel ring buffer (/dev/kmsg, for early boot and initramfs), or syslog (/dev/log).
 *
 * The logger is the one process-wide piece of state outside the daemon's context: every
 * module logs, and threading a logger handle through all of them would buy nothing.
 * Only the program's main() and the daemon's control handler change it.
 */
#pragma once

#include <stdarg.h>
#include <syslog.h>

#include "macros.h"

enum log_target {
        LOG_TARGET_CONSOLE,
        LOG_TARGET_KMSG,
        LOG_TARGET_SYSLOG,
        LOG_TARGET_AUTO, /* syslog if /dev/log exists, else kmsg if writable, else console */
        _LOG_TARGET_MAX,
};

int log_get_max_level(void);
void log_set_max_level(int level);
/* Parses "err", "info", "debug", … or a number 0–7; returns the level or -EINVAL. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

int log_target_from_string(const char *s); /* returns enum log_target or -EINVAL */
const char *log_target_to_string(enum log_target t);
/* Opens the target (falls back to the console when it cannot be opened); 0 or -errno. */
int log_set_target(enum log_target target);
void log_set_ident(const char *ident);
void log_close(void);

/* Returns -abs(error) (or 0 when error is 0), so callers can `return log_…_errno(r, …)`. */
int log_internal(int level, int error, const char *file, int line, const char *fmt, ...) _printf_(5, 6);

#define log_full_errno(level, error, ...)                                                                    \
        ({                                                                                                   \
                int _l = (level), _e = (error);                                                              \
                (log_get_max_level() >= _l) ? log_internal(_l, _e, __FILE__, __LINE__, __VA_ARGS__)          \
                                            : -abs(_e);                                                      \
        })
#define log_full(level, ...) ((void)log_full_errno(level, 0, __VA_ARGS__))

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)
#define log_oom() log_full_errno(LOG_ERR, ENOMEM, "Out of memory.")
