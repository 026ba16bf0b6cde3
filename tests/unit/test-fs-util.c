/* SPDX-License-Identifier: MIT */
/* The shared base helpers: core/fs-util.h (in a private temporary directory) and
 * core/time-util.h. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "fs-util.h"
#include "macros.h"
#include "test-tmpdir.h"
#include "test-util.h"
#include "time-util.h"

static void test_join(void)
{
        char *s;
        CHECK_STR(s = path_join("/run/udev/", "/data"), "/run/udev/data");
        free(s);
        CHECK_STR(s = path_join("a", "b/c"), "a/b/c");
        free(s);
        CHECK_STR(s = fs_root_join(NULL, "/etc/udev/hwdb.bin"), "/etc/udev/hwdb.bin");
        free(s);
        CHECK_STR(s = fs_root_join("/", "/etc/udev/hwdb.bin"), "/etc/udev/hwdb.bin");
        free(s);
        CHECK_STR(s = fs_root_join("/tmp/r//", "/etc/x"), "/tmp/r/etc/x");
        free(s);
}

static void test_dirs_and_files(void)
{
        char *tmp = test_tmpdir_new("fs-util");
        _cleanup_free_ char *deep = path_join(tmp, "a/b/c");
        _cleanup_free_ char *file = path_join(tmp, "p/q/file");
        _cleanup_free_ char *pq = path_join(tmp, "p/q");
        struct stat st;

        CHECK_INT(fs_mkdir_p(deep, 0755), 0);
        CHECK_INT(stat(deep, &st) == 0 && S_ISDIR(st.st_mode), 1);
        CHECK_INT(fs_mkdir_p(deep, 0755), 0); /* existing: fine */

        CHECK_INT(fs_mkdir_parents(file, 0755), 0);
        CHECK_INT(stat(pq, &st) == 0 && S_ISDIR(st.st_mode), 1);
        CHECK_INT(stat(file, &st), -1); /* the path itself is not made */

        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(fs_is_masked(file)); /* empty */
        CHECK_INT(write(fd, "x\n", 2), 2);
        close(fd);
        CHECK(!fs_is_masked(file));
        CHECK(fs_is_masked("/dev/null"));
        CHECK(!fs_is_masked(pq)); /* a directory */

        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        CHECK_INT(read_full_file(file, &buf, &len), 0);
        CHECK_STR(buf, "x\n");
        CHECK_INT(len, 2);
        CHECK_INT(read_full_file(pq, &buf, NULL) < 0, 1);

        _cleanup_free_ char *newdir = path_join(tmp, "new");
        int dfd = -1;
        CHECK_INT(fs_open_dir(newdir, false, &dfd), -ENOENT);
        CHECK_INT(fs_open_dir(newdir, true, &dfd), 0);
        CHECK(dfd >= 0);
        close(dfd);

        /* listing: "." and ".." never; hidden names only without skip_hidden */
        _cleanup_free_ char *hidden = path_join(tmp, "p/.hidden");
        CHECK_INT(mkdir(hidden, 0755), 0);
        _cleanup_free_ char *p = path_join(tmp, "p");
        for (int skip = 0; skip <= 1; skip++) {
                DIR *d = opendir(p);
                CHECK(d != NULL);
                int n = 0, dots = 0;
                for (struct dirent *de; (de = fs_readdir(d, skip));) {
                        n++;
                        dots += fs_dot_or_dotdot(de->d_name);
                }
                closedir(d);
                CHECK_INT(dots, 0);
                CHECK_INT(n, skip ? 1 : 2);
        }
        int pfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(pfd >= 0);
        DIR *dd = fs_opendir_dup(pfd);
        CHECK(dd != NULL);
        closedir(dd);
        CHECK_INT(fcntl(pfd, F_GETFD) >= 0, 1); /* the caller's fd stays open */
        close(pfd);
        CHECK(fs_opendir_dup(-1) == NULL);
        CHECK(fs_dot_or_dotdot(".") && fs_dot_or_dotdot(".."));
        CHECK(!fs_dot_or_dotdot("...") && !fs_dot_or_dotdot(".a") && !fs_dot_or_dotdot("a"));
        test_tmpdir_remove(tmp);
}

static void test_time(void)
{
        struct timespec ts;
        uint64_t a = time_now_usec();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t b = time_now_usec();
        uint64_t mid = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
        CHECK(a <= mid && mid <= b);
}

TEST_MAIN(TEST(test_join), TEST(test_dirs_and_files), TEST(test_time))
