/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* See log.h for why this is process-wide. */
static struct {
        int max_level;
        enum log_target target;
        int fd; /* kmsg or syslog socket, -1 for the console */
        const char *ident;
        int stderr_journal; /* -1 not yet known; 1 when stderr is systemd's journal stream */
} logger = {
        .max_level = LOG_INFO,
        .target = LOG_TARGET_CONSOLE,
        .fd = -1,
        .ident = "devman",
        .stderr_journal = -1,
};

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit",  [LOG_ERR] = "err",
        [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

static const char *const target_names[_LOG_TARGET_MAX] = {
        [LOG_TARGET_CONSOLE] = "console",
        [LOG_TARGET_KMSG] = "kmsg",
        [LOG_TARGET_SYSLOG] = "syslog",
        [LOG_TARGET_AUTO] = "auto",
};

int log_get_max_level(void)
{
        return logger.max_level;
}

void log_set_max_level(int level)
{
        if (level >= LOG_EMERG && level <= LOG_DEBUG)
                logger.max_level = level;
}

int log_level_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (streq(s, level_names[i]))
                        return (int)i;
        if (streq(s, "error"))
                return LOG_ERR;
        if (streq(s, "warn"))
                return LOG_WARNING;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

const char *log_level_to_string(int level)
{
        if (level < 0 || level >= (int)ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}

int log_target_from_string(const char *s)
{
        for (int i = 0; i < _LOG_TARGET_MAX; i++)
                if (s && streq(s, target_names[i]))
                        return i;
        return -EINVAL;
}

const char *log_target_to_string(enum log_target t)
{
        return t < _LOG_TARGET_MAX ? target_names[t] : NULL;
}

void log_set_ident(const char *ident)
{
        logger.ident = ident;
}

void log_close(void)
{
        if (logger.fd >= 0)
                close(logger.fd);
        logger.fd = -1;
        logger.target = LOG_TARGET_CONSOLE;
}

static int open_syslog(void)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/dev/log"};
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        return fd;
}

int log_set_target(enum log_target target)
{
        int fd = -1;

        log_close();
        switch (target) {
        case LOG_TARGET_CONSOLE:
                return 0;
        case LOG_TARGET_KMSG:
                fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
                break;
        case LOG_TARGET_SYSLOG:
                fd = open_syslog();
                break;
        case LOG_TARGET_AUTO:
                fd = open_syslog();
                if (fd >= 0) {
                        target = LOG_TARGET_SYSLOG;
                        break;
                }
                fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
                target = fd >= 0 ? LOG_TARGET_KMSG : LOG_TARGET_CONSOLE;
                if (fd < 0)
                        return 0;
                break;
        default:
                return -EINVAL;
        }
        if (fd < 0)
                return fd == -1 ? negative_errno() : fd;
        logger.fd = fd;
        logger.target = target;
        return 0;
}

/* systemd sets JOURNAL_STREAM to the device and inode of the stream it connected to stdout and
 * stderr; when stderr is still that stream, a "<N>" prefix carries each line's level into the
 * journal (otherwise every line is stored at the unit's default, info). */
static bool stderr_is_journal(void)
{
        if (logger.stderr_journal < 0) {
                const char *e = getenv("JOURNAL_STREAM");
                unsigned long long dev, ino;
                struct stat st;
                int n = 0;
                logger.stderr_journal = e && sscanf(e, "%llu:%llu%n", &dev, &ino, &n) == 2 && e[n] == '\0' &&
                                        fstat(STDERR_FILENO, &st) == 0 && st.st_dev == (dev_t)dev &&
                                        st.st_ino == (ino_t)ino;
        }
        return logger.stderr_journal > 0;
}

int log_internal(int level, int error, const char *file, int line, const char *fmt, ...)
{
        char msg[2048]; /* a log line, not outside data: longer messages are cut, never overflowed */
        int saved_errno = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        errno = error; /* so %m in fmt names the error */
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);

        switch (logger.target) {
        case LOG_TARGET_KMSG:
                dprintf(logger.fd, "<%d>%s[%d]: %s\n", LOG_DAEMON | level, logger.ident, (int)getpid(), msg);
                break;
        case LOG_TARGET_SYSLOG:
                dprintf(logger.fd, "<%d>%s[%d]: %s", LOG_DAEMON | level, logger.ident, (int)getpid(), msg);
                break;
        default:
                if (stderr_is_journal()) /* the journal stores the identifier itself */
                        fprintf(stderr, "<%d>%s\n", level, msg);
                else if (logger.max_level >= LOG_DEBUG)
                        fprintf(stderr, "%s: %s:%d: %s\n", logger.ident, file, line, msg);
                else
                        fprintf(stderr, "%s: %s\n", logger.ident, msg);
                break;
        }
        errno = saved_errno;
        return -error;
}
