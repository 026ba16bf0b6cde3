/* SPDX-License-Identifier: MIT */
#include "sysfs.h"

#include <ctype.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs-util.h"
#include "macros.h"

int read_file_bounded(const char *path, size_t max, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_full_file(path, &buf, &len);
        if (r < 0)
                return r;
        if (len > max)
                return -EFBIG;
        *ret = TAKE_PTR(buf);
        return 0;
}

int readlink_basename(const char *path, char **ret)
{
        return readlink_basename_at(AT_FDCWD, path, ret);
}

int readlink_basename_at(int dirfd, const char *path, char **ret)
{
        char target[PATH_MAX];
        ssize_t n = readlinkat(dirfd, path, target, sizeof(target) - 1);
        if (n < 0)
                return negative_errno();
        if ((size_t)n >= sizeof(target) - 1)
                return -ENAMETOOLONG;
        target[n] = '\0';
        const char *base = strrchr(target, '/');
        base = base ? base + 1 : target;
        if (*base == '\0')
                return -EINVAL;
        char *s = strdup(base);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int write_attr(const char *path, const char *value)
{
        return write_attr_at(AT_FDCWD, path, value);
}

int write_attr_at(int dirfd, const char *path, const char *value)
{
        _cleanup_close_ int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        size_t len = strlen(value);
        ssize_t k = write(fd, value, len);
        if (k < 0)
                return negative_errno();
        return (size_t)k == len ? 0 : -EIO;
}

int parse_devnum(const char *s, dev_t *ret)
{
        unsigned maj, min;
        int n = 0;
        if (sscanf(s, "%u:%u%n", &maj, &min, &n) != 2)
                return -EINVAL;
        for (const char *c = s + n; *c; c++)
                if (!isspace((unsigned char)*c))
                        return -EINVAL;
        *ret = makedev(maj, min);
        return 0;
}

int parse_uevent_file(const char *content, struct props *props)
{
        const char *line = content;
        while (*line) {
                const char *nl = strchrnul(line, '\n');
                const char *eq = memchr(line, '=', (size_t)(nl - line));
                if (eq && eq > line) {
                        _cleanup_free_ char *key = strndup(line, (size_t)(eq - line));
                        _cleanup_free_ char *value = strndup(eq + 1, (size_t)(nl - eq - 1));
                        if (!key || !value)
                                return -ENOMEM;
                        int r = props_set(props, key, value, PROP_KERNEL);
                        if (r < 0 && r != -EINVAL)
                                return r;
                }
                line = *nl ? nl + 1 : nl;
        }
        return 0;
}

char *strip_trailing_space(char *s)
{
        size_t l = strlen(s);
        while (l > 0 && isspace((unsigned char)s[l - 1]))
                s[--l] = '\0';
        return s;
}
