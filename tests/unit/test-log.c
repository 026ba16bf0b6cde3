/* SPDX-License-Identifier: MIT */
/*
 * The console target of the logger (core/base/log.h): plain "ident: message" lines on a terminal
 * or file, and "<level>message" lines when stderr is the journal stream systemd connected
 * (JOURNAL_STREAM names it), so that the journal stores each line at its own level.
 * Each case runs in a child, because the logger decides once per process.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "test-util.h"

enum stream_env {
        ENV_NONE,    /* no JOURNAL_STREAM: a terminal, a pipe to a supervisor, a file */
        ENV_MATCH,   /* names stderr itself */
        ENV_OTHER,   /* names another stream: stderr was redirected after systemd started us */
        ENV_GARBAGE, /* not "dev:ino" */
};

/* Runs the logger in a child whose stderr is a pipe; returns what it wrote (caller frees). */
static char *log_in_child(enum stream_env env, int max_level)
{
        int p[2];
        if (pipe(p) < 0)
                return NULL;
        pid_t pid = fork();
        if (pid < 0)
                return NULL;
        if (pid == 0) {
                struct stat st;
                char buf[64];
                dup2(p[1], STDERR_FILENO);
                close(p[0]);
                close(p[1]);
                if (fstat(STDERR_FILENO, &st) < 0)
                        _exit(2);
                if (env == ENV_MATCH)
                        snprintf(buf, sizeof(buf), "%llu:%llu", (unsigned long long)st.st_dev,
                                 (unsigned long long)st.st_ino);
                else if (env == ENV_OTHER)
                        snprintf(buf, sizeof(buf), "%llu:%llu", (unsigned long long)st.st_dev,
                                 (unsigned long long)st.st_ino + 1);
                else
                        snprintf(buf, sizeof(buf), "%llu:%llux", (unsigned long long)st.st_dev,
                                 (unsigned long long)st.st_ino);
                if (env == ENV_NONE)
                        unsetenv("JOURNAL_STREAM");
                else
                        setenv("JOURNAL_STREAM", buf, 1);
                log_set_ident("devmand");
                log_set_max_level(max_level);
                log_warning("cannot load module %s", "x");
                log_info("ready");
                log_debug("detail");
                _exit(0);
        }
        close(p[1]);
        size_t len = 0, cap = 4096;
        char *out = calloc(1, cap);
        ssize_t n;
        while (out && (n = read(p[0], out + len, cap - 1 - len)) > 0)
                len += (size_t)n;
        close(p[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        return out;
}

static void test_console_plain(void)
{
        char *out = log_in_child(ENV_NONE, LOG_INFO);
        CHECK_STR(out, "devmand: cannot load module x\ndevmand: ready\n");
        free(out);
}

static void test_journal_stream_levels(void)
{
        char *out = log_in_child(ENV_MATCH, LOG_INFO);
        CHECK_STR(out, "<4>cannot load module x\n<6>ready\n");
        free(out);
        out = log_in_child(ENV_MATCH, LOG_DEBUG); /* the debug line too, with its own level */
        CHECK_STR(out, "<4>cannot load module x\n<6>ready\n<7>detail\n");
        free(out);
}

static void test_not_the_journal(void)
{
        char *out = log_in_child(ENV_OTHER, LOG_INFO);
        CHECK_STR(out, "devmand: cannot load module x\ndevmand: ready\n");
        free(out);
        out = log_in_child(ENV_GARBAGE, LOG_INFO);
        CHECK_STR(out, "devmand: cannot load module x\ndevmand: ready\n");
        free(out);
}

TEST_MAIN(TEST(test_console_plain), TEST(test_journal_stream_levels), TEST(test_not_the_journal))
