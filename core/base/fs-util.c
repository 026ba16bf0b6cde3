/* SPDX-License-Identifier: MIT */
#include "fs-util.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "macros.h"

char *path_join(const char *a, const char *b)
{
        size_t la = strlen(a);
        while (la > 1 && a[la - 1] == '/')
                la--;
        while (*b == '/')
                b++;
        size_t lb = strlen(b);
        char *s = malloc(la + 1 + lb + 1);
        if (!s)
                return NULL;
        memcpy(s, a, la);
        s[la] = '/';
        memcpy(s + la + 1, b, lb + 1);
        return s;
}

char *fs_root_join(const char *root, const char *path)
{
        char *s;
        if (isempty(root) || streq(root, "/"))
                return strdup(path);
        size_t l = strlen(root);
        while (l > 1 && root[l - 1] == '/')
                l--;
        if (asprintf(&s, "%.*s%s", (int)l, root, path) < 0)
                return NULL;
        return s;
}

int read_full_file(const char *path, char **ret, size_t *ret_len)
{
        return read_full_file_at(AT_FDCWD, path, ret, ret_len);
}

int read_full_file_at(int dirfd, const char *path, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        for (;;) {
                if (cap - len < 1024) {
                        size_t ncap = cap ? cap * 2 : 4096;
                        if (ncap > 64 * 1024 * 1024)
                                return -EFBIG;
                        char *n = realloc(buf, ncap);
                        if (!n)
                                return -ENOMEM;
                        buf = n;
                        cap = ncap;
                }
                ssize_t k = read(fd, buf + len, cap - len - 1);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        *ret = TAKE_PTR(buf);
        return 0;
}

int fs_mkdir_parents(const char *path, mode_t mode)
{
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = '/';
        }
        return 0;
}

int fs_mkdir_p(const char *path, mode_t mode)
{
        int r = fs_mkdir_parents(path, mode);
        if (r < 0)
                return r;
        if (mkdir(path, mode) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

int fs_open_dir(const char *path, bool create, int *ret)
{
        if (create && mkdir(path, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        *ret = fd;
        return 0;
}

bool fs_is_masked(const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return false;
        return S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0);
}

DIR *fs_opendir_dup(int fd)
{
        int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (dfd < 0)
                return NULL;
        DIR *d = fdopendir(dfd);
        if (!d) {
                int e = errno;
                close(dfd);
                errno = e;
        }
        return d;
}

bool fs_dot_or_dotdot(const char *name)
{
        return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

struct dirent *fs_readdir(DIR *d, bool skip_hidden)
{
        struct dirent *de;
        while ((de = readdir(d)))
                if (!(skip_hidden ? de->d_name[0] == '.' : fs_dot_or_dotdot(de->d_name)))
                        break;
        return de;
}
