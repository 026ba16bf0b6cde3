/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every devman source uses: cleanup attributes, ownership hand-off,
 * array sizes and errno-style return helpers.
 *
 * Conventions (all of core/ and daemon/):
 *  - functions return 0 or a positive value on success, -errno on failure;
 *  - a function either logs a failure or returns it, not both;
 *  - destructors accept NULL and return NULL, so `p = thing_free(p);` is safe.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _fallthrough_ __attribute__((fallthrough))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

/* Hand ownership out of a cleanup-managed variable. */
#define TAKE_PTR(p)                                                                                          \
        ({                                                                                                   \
                __typeof__(p) _p_ = (p);                                                                     \
                (p) = NULL;                                                                                  \
                _p_;                                                                                         \
        })
#define TAKE_FD(fd)                                                                                          \
        ({                                                                                                   \
                int _fd_ = (fd);                                                                             \
                (fd) = -1;                                                                                   \
                _fd_;                                                                                        \
        })

static inline void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Define `static inline void name##p(type **p)` calling `name(*p)` when non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                              \
        static inline void func##p(type **p)                                                                 \
        {                                                                                                    \
                if (*p)                                                                                      \
                        func(*p);                                                                            \
        }

/* errno as a negative value, never 0 (for calls that failed but left errno unset). */
static inline int negative_errno(void)
{
        return errno > 0 ? -errno : -EIO;
}

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

static inline const char *startswith(const char *s, const char *prefix)
{
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

static inline bool isempty(const char *s)
{
        return !s || !*s;
}

static inline const char *strempty(const char *s)
{
        return s ? s : "";
}

static inline const char *strna(const char *s)
{
        return s ? s : "n/a";
}

static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}
