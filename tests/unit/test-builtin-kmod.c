/* SPDX-License-Identifier: MIT */
/*
 * The kmod builtin's decisions, without loading anything: the log level of each module result
 * (issue 32.2: a module whose init finds no device is normal for MODALIAS-driven loading and
 * must not be a warning), what the start-up check finds in a module tree, and that it reports a
 * missing tree at error level only when rules load modules on a kernel that can load them.
 */
#include <fcntl.h>
#include <libkmod.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin-kmod.h"
#include "log.h"
#include "macros.h"
#include "test-tmpdir.h"
#include "test-util.h"

static void test_result_level(void)
{
        /* normal in MODALIAS-driven loading: debug */
        CHECK_INT(builtin_kmod_result_level(-ENODEV, true, false), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(-ENODEV, true, true), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(KMOD_PROBE_APPLY_BLACKLIST, true, false), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(-EEXIST, true, false), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(-EBUSY, true, false), LOG_DEBUG); /* a rival driver won */
        CHECK_INT(builtin_kmod_result_level(0, true, false), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(0, true, true), LOG_DEBUG);
        CHECK_INT(builtin_kmod_result_level(-ENOENT, false, false),
                  LOG_DEBUG); /* no module for a MODALIAS */
        /* real failures: a warning */
        CHECK_INT(builtin_kmod_result_level(-ENOENT, false, true), LOG_WARNING); /* named, not found */
        CHECK_INT(builtin_kmod_result_level(-ENOENT, true, false), LOG_WARNING); /* file gone from disk */
        CHECK_INT(builtin_kmod_result_level(-EPERM, true, false), LOG_WARNING);
        CHECK_INT(builtin_kmod_result_level(-ENOMEM, true, false), LOG_WARNING);
        CHECK_INT(builtin_kmod_result_level(-ENOEXEC, true, true), LOG_WARNING);
        CHECK_INT(builtin_kmod_result_level(-EINVAL, true, false), LOG_WARNING);
}

static void touch(const char *dir, const char *name)
{
        _cleanup_free_ char *p = NULL;
        CHECK(asprintf(&p, "%s/%s", dir, name) > 0);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
}

static void test_setup(void)
{
        char *root = test_tmpdir_new("kmod-setup");
        struct builtin_ctx ctx = {.root = root};
        struct utsname u;
        CHECK(uname(&u) == 0);
        _cleanup_free_ char *want = NULL, *dir = NULL;
        CHECK(asprintf(&want, "%s/lib/modules/%s", root, u.release) > 0);

        CHECK_INT(builtin_kmod_setup(&ctx, &dir), KMOD_SETUP_NO_DIRECTORY);
        CHECK_STR(dir, want);
        dir = mfree(dir);

        _cleanup_free_ char *cmd = NULL;
        CHECK(asprintf(&cmd, "mkdir -p '%s'", want) > 0);
        CHECK_INT(system(cmd), 0);
        CHECK_INT(builtin_kmod_setup(&ctx, NULL), KMOD_SETUP_NO_INDEX);
        touch(want, "modules.dep.bin");
        CHECK_INT(builtin_kmod_setup(&ctx, &dir), KMOD_SETUP_READY);
        CHECK_STR(dir, want);
        root = test_tmpdir_remove(root);
}

static void test_setup_level(void)
{
        CHECK_INT(builtin_kmod_setup_level(KMOD_SETUP_NO_DIRECTORY, true, true), LOG_ERR);
        CHECK_INT(builtin_kmod_setup_level(KMOD_SETUP_NO_INDEX, true, true), LOG_ERR);
        /* a kernel without module support has nothing to load */
        CHECK_INT(builtin_kmod_setup_level(KMOD_SETUP_NO_DIRECTORY, true, false), LOG_INFO);
        /* no rule loads modules: nothing to say */
        CHECK_INT(builtin_kmod_setup_level(KMOD_SETUP_NO_DIRECTORY, false, true), LOG_DEBUG);
        CHECK_INT(builtin_kmod_setup_level(KMOD_SETUP_READY, true, true), LOG_DEBUG);
}

/* What builtin_kmod_report_setup() logs at log level `level` (stderr captured). */
static char *report(const struct builtin_ctx *ctx, int level, bool rules, bool kernel)
{
        char path[] = "/tmp/devman-kmod-log.XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        unlink(path);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        dup2(fd, STDERR_FILENO);
        int old = log_get_max_level();
        log_set_max_level(level);
        builtin_kmod_report_setup(ctx, rules, kernel);
        log_set_max_level(old);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        off_t n = lseek(fd, 0, SEEK_END);
        char *buf = calloc(1, (size_t)n + 1);
        CHECK(buf && pread(fd, buf, (size_t)n, 0) == n);
        close(fd);
        return buf;
}

static void test_report(void)
{
        char *root = test_tmpdir_new("kmod-report");
        struct builtin_ctx ctx = {.root = root};
        _cleanup_free_ char *err = report(&ctx, LOG_ERR, true, true);
        CHECK(strstr(err, "does not exist") && strstr(err, root) && strstr(err, "no module will be loaded"));
        _cleanup_free_ char *quiet = report(&ctx, LOG_WARNING, false, true);
        CHECK_STR(quiet, "");
        _cleanup_free_ char *nokernel = report(&ctx, LOG_WARNING, true, false);
        CHECK_STR(nokernel, "");
        _cleanup_free_ char *info = report(&ctx, LOG_INFO, true, false);
        CHECK(strstr(info, "no module support") != NULL);
        root = test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_result_level), TEST(test_setup), TEST(test_setup_level), TEST(test_report))
