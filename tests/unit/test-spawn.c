/* SPDX-License-Identifier: MIT */
/* Child processes on an sd-event loop: real /bin/sh programs, real signals, real timeouts. */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "log.h"
#include "macros.h"
#include "spawn.h"
#include "strv.h"
#include "test-tmpdir.h"
#include "test-util.h"

struct outcome {
        bool done;
        int error, exit_status, signal;
        bool timed_out, truncated;
        char *output;
        size_t output_len;
        uint64_t finished_usec;
        unsigned running_at_done; /* spawn_manager_running() seen from the callback */
        struct spawn_manager *manager;
};

static unsigned pending;

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_done(const struct spawn_result *r, void *userdata)
{
        struct outcome *o = userdata;

        CHECK(!o->done); /* exactly once */
        o->done = true;
        o->error = r->error;
        o->exit_status = r->exit_status;
        o->signal = r->signal;
        o->timed_out = r->timed_out;
        o->truncated = r->truncated;
        o->output_len = r->output_len;
        o->output = malloc(r->output_len + 1);
        memcpy(o->output, r->output, r->output_len + 1);
        o->finished_usec = now_usec();
        if (o->manager)
                o->running_at_done = spawn_manager_running(o->manager);
        pending--;
}

static void outcome_clear(struct outcome *o)
{
        free(o->output);
        *o = (struct outcome){0};
}

/* Runs the loop until every started job reported, at most timeout_usec. */
static void run_until_done(sd_event *e, uint64_t timeout_usec)
{
        uint64_t deadline = now_usec() + timeout_usec;
        while (pending > 0 && now_usec() < deadline)
                CHECK(sd_event_run(e, 100000) >= 0);
        CHECK_INT(pending, 0);
}

/* No child of ours is left, zombie or alive. */
static void check_no_children(void)
{
        siginfo_t si = {0};
        int r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
        CHECK(r < 0 && errno == ECHILD);
}

static void setup_signals(void)
{
        sigset_t ss;
        sigemptyset(&ss);
        sigaddset(&ss, SIGCHLD);
        /* Also block one the children must not inherit as blocked. */
        sigaddset(&ss, SIGUSR1);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        /* And ignore one: children must get the default disposition back. */
        signal(SIGUSR2, SIG_IGN);
}

static sd_event *new_event(void)
{
        setup_signals();
        sd_event *e = NULL;
        CHECK_INT(sd_event_new(&e), 0);
        return e;
}

static int start(struct spawn_manager *m, const char *cmd, char **env, const struct spawn_options *o,
                 struct outcome *out)
{
        out->manager = m;
        int r = spawn_start(m, cmd, env, o, on_done, out);
        if (r >= 0)
                pending++;
        return r;
}

static void check_split(const char *cmd, const char *const *want)
{
        char **v = NULL;
        size_t n = 0;

        CHECK_INT(spawn_split_command(cmd, &v), 0);
        if (!v)
                return;
        for (; want[n]; n++) {
                CHECK(v[n] != NULL);
                if (!v[n])
                        break;
                CHECK_STR(v[n], want[n]);
        }
        CHECK(v[n] == NULL);
        strv_free(v);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_split(void)
{
        check_split("ata_id --export $devnode", W("ata_id", "--export", "$devnode"));
        check_split("  a \t b\n c  ", W("a", "b", "c"));
        check_split("/bin/sh -c 'echo \"x y\"; exit 3'", W("/bin/sh", "-c", "echo \"x y\"; exit 3"));
        check_split("\"a b\" c", W("a b", "c"));
        check_split("a'b c'd e", W("ab cd", "e"));
        check_split("x \"unterminated y", W("x", "unterminated y"));
        check_split("a\\ b", W("a\\", "b"));  /* backslash is an ordinary character */
        check_split("\"a\\\"b\"", W("a\\b")); /* ...also in quotes: the quote still closes */
        check_split("'' x", W("", "x"));
        check_split("", (const char *const[]){NULL});
        check_split("   ", (const char *const[]){NULL});
}

static void test_capture_and_status(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0}, b = {0};
        struct spawn_options cap = {.capture_stdout = true};

        CHECK_INT(spawn_manager_new(e, "/nonexistent", 0, &m), 0);
        CHECK_INT(start(m, "/bin/sh -c 'echo hello; echo \"big world\"; exit 3'", NULL, &cap, &a), 0);
        /* Not captured (RUN): no output in the result, status still there. */
        CHECK_INT(start(m, "/bin/sh -c 'echo ignored; kill -USR1 $$'", NULL, NULL, &b), 0);
        CHECK(!a.done); /* never from within spawn_start() */
        run_until_done(e, 10000000);

        CHECK(a.done);
        CHECK_INT(a.error, 0);
        CHECK_INT(a.exit_status, 3);
        CHECK_INT(a.signal, 0);
        CHECK(!a.timed_out);
        CHECK_STR(a.output, "hello\nbig world\n");
        CHECK_INT(a.output_len, 16);

        CHECK(b.done);
        CHECK_INT(b.signal, SIGUSR1); /* a default disposition, although the test blocks signals */
        CHECK_INT(b.exit_status, -1);
        CHECK_STR(b.output, "");

        outcome_clear(&a);
        outcome_clear(&b);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_environment(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        struct spawn_options cap = {.capture_stdout = true};
        char *env[] = {"FOO=bar baz", "DEVNAME=/dev/sda", NULL};

        setenv("DEVMAN_TEST_LEAK", "leaked", 1);
        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        CHECK_INT(start(m, "/bin/sh -c 'echo \"$FOO|$DEVNAME|$DEVMAN_TEST_LEAK\"'", env, &cap, &a), 0);
        run_until_done(e, 10000000);
        CHECK_STR(a.output, "bar baz|/dev/sda|\n");
        CHECK_INT(a.exit_status, 0);
        unsetenv("DEVMAN_TEST_LEAK");

        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_fds(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        struct spawn_options cap = {.capture_stdout = true};

        /* Deliberately inheritable fds: the child must still not get them. */
        int leak1 = open("/dev/null", O_RDONLY);
        int leak2 = dup(leak1);
        CHECK(leak1 >= 3 && leak2 >= 3);

        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        /* ls lists the shell's fds while the shell waits for it (no pipes of its own open). */
        CHECK_INT(start(m,
                        "/bin/sh -c 'ls /proc/$$/fd; readlink /proc/$$/fd/0; cut -d\" \" -f6 /proc/$$/stat; "
                        "echo $$'",
                        NULL, &cap, &a),
                  0);
        run_until_done(e, 10000000);
        CHECK_INT(a.exit_status, 0);
        /* Output: "0\n1\n2\n/dev/null\n<sid>\n<pid>\n" with sid == pid (own session). */
        CHECK(a.output && startswith(a.output, "0\n1\n2\n/dev/null\n"));
        long sid = 0, pid = -1;
        CHECK_INT(sscanf(a.output ? a.output : "", "0\n1\n2\n/dev/null\n%ld\n%ld", &sid, &pid), 2);
        CHECK_INT(sid, pid);

        close(leak1);
        close(leak2);
        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_timeout_signal(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        struct spawn_options o = {
                .timeout_usec = 200000, .timeout_signal = SIGTERM, .kill_grace_usec = 5000000};

        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        uint64_t t0 = now_usec();
        CHECK_INT(start(m, "/bin/sleep 100", NULL, &o, &a), 0);
        run_until_done(e, 10000000);
        CHECK(a.timed_out);
        CHECK_INT(a.signal, SIGTERM);
        CHECK(a.finished_usec - t0 >= 200000);
        CHECK(a.finished_usec - t0 < 3000000); /* well before the grace period ends */

        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_timeout_kill(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        struct spawn_options o = {.timeout_usec = 200000,
                                  .timeout_signal = SIGTERM,
                                  .kill_grace_usec = 300000,
                                  .capture_stdout = true};

        /* Become the subreaper so the grandchild can be checked for its cause of death. */
        CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        uint64_t t0 = now_usec();
        /* Ignores SIGTERM (and so does the sleep it starts): only SIGKILL ends them. */
        CHECK_INT(start(m, "/bin/sh -c 'trap \"\" TERM; /bin/sleep 100 & echo $!; wait; wait; wait'", NULL,
                        &o, &a),
                  0);
        run_until_done(e, 10000000);
        CHECK(a.timed_out);
        CHECK_INT(a.signal, SIGKILL);
        CHECK(a.finished_usec - t0 >= 500000);
        CHECK(a.finished_usec - t0 < 5000000);

        /* The grandchild in the same process group was killed too. */
        pid_t gc = (pid_t)strtol(a.output, NULL, 10);
        CHECK(gc > 0);
        if (gc > 0) {
                siginfo_t si = {0};
                uint64_t deadline = now_usec() + 3000000;
                int r;
                while ((r = waitid(P_PID, gc, &si, WEXITED | WNOHANG)) == 0 && si.si_pid == 0 &&
                       now_usec() < deadline)
                        usleep(10000);
                CHECK_INT(r, 0);
                CHECK_INT(si.si_pid, gc);
                CHECK_INT(si.si_code, CLD_KILLED);
                CHECK_INT(si.si_status, SIGKILL);
        }
        CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);

        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_children_max(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome o[6] = {0};
        struct spawn_options cap = {.capture_stdout = true};
        char *dir = test_tmpdir_new("spawn");
        char *envd = NULL;
        CHECK(asprintf(&envd, "D=%s", dir) > 0);
        char *env[] = {envd, NULL};

        CHECK_INT(spawn_manager_new(e, NULL, 2, &m), 0);
        /* Each child marks itself running, waits, counts the marks, waits, unmarks. */
        for (int i = 0; i < 6; i++)
                CHECK_INT(
                        start(m,
                              "/bin/sh -c 'touch \"$D/run.$$\"; sleep 0.4; ls \"$D\" | grep -c \"^run\\.\"; "
                              "sleep 0.4; rm \"$D/run.$$\"'",
                              env, &cap, &o[i]),
                        0);
        CHECK_INT(spawn_manager_running(m), 2);
        CHECK_INT(spawn_manager_queued(m), 4);
        run_until_done(e, 20000000);

        int max = 0;
        for (int i = 0; i < 6; i++) {
                CHECK(o[i].done);
                CHECK_INT(o[i].exit_status, 0);
                int n = atoi(o[i].output ? o[i].output : "0");
                CHECK(n >= 1);
                if (n > max)
                        max = n;
                CHECK(o[i].running_at_done <= 2);
        }
        CHECK_INT(max, 2); /* two at a time, never more */
        /* FIFO: the last two queued started last, so they finished after the first two. */
        CHECK(o[4].finished_usec > o[0].finished_usec && o[4].finished_usec > o[1].finished_usec);
        CHECK(o[5].finished_usec > o[0].finished_usec && o[5].finished_usec > o[1].finished_usec);
        CHECK_INT(spawn_manager_running(m), 0);
        CHECK_INT(spawn_manager_queued(m), 0);

        for (int i = 0; i < 6; i++)
                outcome_clear(&o[i]);
        free(envd);
        dir = test_tmpdir_remove(dir);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_libdir_and_exec_errors(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0}, b = {0}, c = {0};
        struct spawn_options cap = {.capture_stdout = true};
        char *dir = test_tmpdir_new("spawn-lib");
        char *p = NULL;

        CHECK(asprintf(&p, "%s/hello", dir) > 0);
        FILE *f = fopen(p, "we");
        CHECK(f != NULL);
        fputs("#!/bin/sh\necho \"hi $1\"\n", f);
        fclose(f);
        CHECK_INT(chmod(p, 0755), 0);
        free(p);
        CHECK(asprintf(&p, "%s/noexec", dir) > 0);
        f = fopen(p, "we");
        fputs("#!/bin/sh\necho no\n", f);
        fclose(f);
        CHECK_INT(chmod(p, 0644), 0);
        free(p);

        CHECK_INT(spawn_manager_new(e, dir, 0, &m), 0);
        CHECK_INT(start(m, "hello world", NULL, &cap, &a), 0);
        CHECK_INT(start(m, "missing-program --x", NULL, &cap, &b), 0);
        CHECK_INT(start(m, "noexec", NULL, &cap, &c), 0);
        run_until_done(e, 10000000);
        CHECK_INT(a.error, 0);
        CHECK_STR(a.output, "hi world\n");
        CHECK_INT(b.error, -ENOENT);
        CHECK_INT(b.exit_status, -1);
        CHECK_INT(c.error, -EACCES);

        /* Blank commands are refused up front; their callback never runs. */
        struct outcome z = {0};
        CHECK_INT(spawn_start(m, "", NULL, NULL, on_done, &z), -EINVAL);
        CHECK_INT(spawn_start(m, "   ", NULL, NULL, on_done, &z), -EINVAL);
        CHECK_INT(spawn_start(m, "\"\" x", NULL, NULL, on_done, &z), -EINVAL);
        CHECK(!z.done);

        outcome_clear(&a);
        outcome_clear(&b);
        outcome_clear(&c);
        dir = test_tmpdir_remove(dir);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_truncation(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0}, b = {0};
        struct spawn_options small = {.capture_stdout = true, .output_max = 100};
        struct spawn_options dflt = {.capture_stdout = true};
        /* 2000 lines of 50 bytes = 100000 bytes: more than a pipe holds, so the writer would
         * block forever if the excess were not read and dropped. */
        const char *cmd =
                "/bin/sh -c 'i=0; while [ $i -lt 2000 ]; do "
                "echo 0123456789012345678901234567890123456789012345678; i=$((i+1)); done; exit 7'";

        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        CHECK_INT(start(m, cmd, NULL, &small, &a), 0);
        CHECK_INT(start(m, cmd, NULL, &dflt, &b), 0);
        run_until_done(e, 20000000);
        CHECK_INT(a.exit_status, 7);
        CHECK(a.truncated);
        CHECK_INT(a.output_len, 100);
        CHECK_INT(strlen(a.output), 100);
        CHECK(strncmp(a.output, "0123456789012345678901234567890123456789012345678\n0123", 54) == 0);
        CHECK_INT(b.exit_status, 7);
        CHECK(b.truncated);
        CHECK_INT(b.output_len, SPAWN_OUTPUT_MAX_DEFAULT);

        outcome_clear(&a);
        outcome_clear(&b);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_stderr_logged(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        char *dir = test_tmpdir_new("spawn-log");
        char *logpath = NULL;
        CHECK(asprintf(&logpath, "%s/log", dir) > 0);

        int saved_level = log_get_max_level();
        int saved_stderr = dup(2);
        int logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(logfd >= 0);
        fflush(stderr);
        dup2(logfd, 2);
        log_set_max_level(LOG_DEBUG);

        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        CHECK_INT(start(m, "/bin/sh -c 'echo first-err >&2; printf \"second-err\" >&2; echo to-out'", NULL,
                        NULL, &a),
                  0);
        run_until_done(e, 10000000);

        fflush(stderr);
        dup2(saved_stderr, 2);
        close(saved_stderr);
        close(logfd);
        log_set_max_level(saved_level);

        char buf[8192] = "";
        int fd = open(logpath, O_RDONLY | O_CLOEXEC);
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        CHECK(n > 0);
        buf[n > 0 ? n : 0] = 0;
        CHECK(strstr(buf, "(err) 'first-err'") != NULL);
        CHECK(strstr(buf, "(err) 'second-err'") != NULL); /* the unterminated last line too */
        CHECK(strstr(buf, "(out) 'to-out'") != NULL);     /* RUN output is logged, not kept */
        CHECK_STR(a.output, "");

        free(logpath);
        outcome_clear(&a);
        dir = test_tmpdir_remove(dir);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_grandchild_holds_pipe(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};
        struct spawn_options cap = {.capture_stdout = true};

        /* A background process keeps the stdout pipe open after the child exited: completion
         * must not wait for it. */
        CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        uint64_t t0 = now_usec();
        CHECK_INT(start(m, "/bin/sh -c '/bin/sleep 100 & echo $!; exit 4'", NULL, &cap, &a), 0);
        run_until_done(e, 10000000);
        CHECK(a.finished_usec - t0 < 5000000);
        CHECK_INT(a.exit_status, 4);
        pid_t gc = (pid_t)strtol(a.output ? a.output : "0", NULL, 10);
        CHECK(gc > 0);
        if (gc > 0) {
                CHECK_INT(kill(gc, SIGKILL), 0);
                CHECK_INT(waitpid(gc, NULL, 0), gc);
        }
        CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);

        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

static void test_sync(void)
{
        struct spawn_sync_result r = {0};
        struct spawn_options cap = {.capture_stdout = true};
        struct spawn_options t = {.timeout_usec = 100000, .capture_stdout = true};
        char *env[] = {"X=1", NULL};
        sigset_t before, after;

        /* A tool that never blocked SIGCHLD: blocked for the run, unblocked again after. */
        sigemptyset(&before);
        sigaddset(&before, SIGCHLD);
        sigprocmask(SIG_UNBLOCK, &before, NULL);
        sigprocmask(SIG_SETMASK, NULL, &before);
        CHECK(!sigismember(&before, SIGCHLD));
        CHECK_INT(spawn_run_sync(NULL, "/bin/sh -c 'echo $X; exit 2'", env, &cap, &r), 0);
        CHECK_STR(r.output, "1\n");
        CHECK_INT(r.exit_status, 2);
        free(r.output);

        /* Default timeout signal is SIGKILL, as udev's. */
        CHECK_INT(spawn_run_sync(NULL, "/bin/sleep 100", NULL, &t, &r), 0);
        CHECK(r.timed_out);
        CHECK_INT(r.signal, SIGKILL);
        free(r.output);

        CHECK_INT(spawn_run_sync("/nonexistent", "prog", NULL, &cap, &r), 0);
        CHECK_INT(r.error, -ENOENT);
        free(r.output);

        CHECK_INT(spawn_run_sync(NULL, "", NULL, NULL, &r), -EINVAL);

        sigprocmask(SIG_SETMASK, NULL, &after);
        CHECK(!sigismember(&after, SIGCHLD));
        check_no_children();
        setup_signals();
}

struct chain {
        struct spawn_manager *m;
        int left;
        int completed;
};

static void on_chain(const struct spawn_result *r, void *userdata)
{
        struct chain *c = userdata;
        CHECK_INT(r->exit_status, 0);
        c->completed++;
        if (c->left-- > 0)
                CHECK_INT(spawn_start(c->m, "/bin/true", NULL, NULL, on_chain, c), 0);
        else
                pending--;
}

static void test_start_from_callback_and_free(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct chain c = {.left = 3};
        struct outcome never = {0};

        CHECK_INT(spawn_manager_new(e, NULL, 1, &m), 0);
        c.m = m;
        CHECK_INT(spawn_start(m, "/bin/true", NULL, NULL, on_chain, &c), 0);
        pending++;
        run_until_done(e, 10000000);
        CHECK_INT(c.completed, 4);

        /* Freeing the manager with a running and a queued child: killed, reaped, no callback. */
        CHECK_INT(spawn_start(m, "/bin/sleep 100", NULL, NULL, on_done, &never), 0);
        CHECK_INT(spawn_start(m, "/bin/sleep 100", NULL, NULL, on_done, &never), 0);
        CHECK_INT(spawn_manager_running(m), 1);
        CHECK_INT(spawn_manager_queued(m), 1);
        spawn_manager_free(m);
        CHECK(!never.done);
        sd_event_unref(e);
        check_no_children();
}

static void test_signal_reset(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome a = {0};

        CHECK_INT(spawn_manager_new(e, NULL, 0, &m), 0);
        CHECK_INT(start(m, "/bin/sh -c 'kill -USR2 $$; sleep 1'", NULL, NULL, &a), 0);
        run_until_done(e, 10000000);
        CHECK_INT(a.signal, SIGUSR2);

        outcome_clear(&a);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

/* mdev.conf commands: the whole line to /bin/sh -c (quotes of both kinds, a '#' inside a word, a pipe),
 * run in the given directory; a directory that cannot be entered is an exec error. */
static void test_shell_and_cwd(void)
{
        struct spawn_sync_result r = {0};
        struct spawn_options o = {.capture_stdout = true, .shell = true, .cwd = "/proc/self"};
        char *env[] = {"MDEV=tty0", NULL};

        CHECK_INT(spawn_run_sync(NULL, "echo \"it's\" 'a \"b\"' a#x | tr a A; pwd -P; echo $MDEV", env, &o, &r), 0);
        CHECK(r.output && strstr(r.output, "it's A \"b\" A#x\n") == r.output);
        CHECK(r.output && strstr(r.output, "\ntty0\n"));
        CHECK(r.output && strstr(r.output, "\n/proc/") != NULL); /* /proc/self is the child itself */
        CHECK_INT(r.exit_status, 0);
        free(r.output);
        r = (struct spawn_sync_result){0};
        o.cwd = "/nonexistent-devman-dir";
        CHECK_INT(spawn_run_sync(NULL, "true", env, &o, &r), 0);
        CHECK_INT(r.error, -ENOENT);
        free(r.output);
}

struct fn_arg {
        pid_t parent;
        int value;   /* written by the child: the parent must not see it */
        int ret;     /* what the function returns */
        int sleep_ms;
};

static int child_fn(void *userdata)
{
        struct fn_arg *a = userdata;
        a->value = 42;
        if (getpid() == a->parent)
                return -EPERM; /* must not run in the caller */
        if (a->sleep_ms)
                usleep((useconds_t)a->sleep_ms * 1000);
        return a->ret;
}

/* Function children (the blocking part of a builtin): run in another process that sees the caller's
 * memory, report -errno as their exit status, obey children_max and the timeout. */
static void test_function_child(void)
{
        sd_event *e = new_event();
        struct spawn_manager *m = NULL;
        struct outcome o[4] = {0};
        struct fn_arg a[4] = {{.parent = getpid(), .ret = 0},
                              {.parent = getpid(), .ret = -ENODEV},
                              {.parent = getpid(), .ret = -ENOENT, .sleep_ms = 100},
                              {.parent = getpid(), .ret = 0, .sleep_ms = 100000}};
        struct spawn_options timeout = {.timeout_usec = 300000};

        CHECK_INT(spawn_manager_new(e, NULL, 1, &m), 0);
        for (size_t i = 0; i < ELEMENTSOF(o); i++) {
                o[i].manager = m;
                CHECK_INT(spawn_start_fn(m, "kmod load", child_fn, &a[i], i == 3 ? &timeout : NULL, on_done, &o[i]),
                          0);
                pending++;
        }
        CHECK_INT(spawn_manager_running(m), 1); /* children_max 1: the others wait */
        CHECK_INT(spawn_manager_queued(m), 3);
        run_until_done(e, 10000000);
        CHECK_INT(o[0].exit_status, 0);
        CHECK_INT(o[0].error, 0);
        CHECK_INT(o[1].exit_status, ENODEV);
        CHECK_INT(o[2].exit_status, ENOENT);
        CHECK(o[3].timed_out);
        CHECK_INT(o[3].signal, SIGKILL);
        for (size_t i = 0; i < ELEMENTSOF(o); i++) {
                CHECK_INT(a[i].value, 0); /* the child's writes stay in the child */
                CHECK_INT(o[i].running_at_done, i < 3 ? 1 : 0); /* the next one started first */
                outcome_clear(&o[i]);
        }
        CHECK_INT(spawn_start_fn(m, "x", NULL, NULL, NULL, on_done, &o[0]), -EINVAL);
        spawn_manager_free(m);
        sd_event_unref(e);
        check_no_children();
}

TEST_MAIN(TEST(test_split), TEST(test_function_child), TEST(test_capture_and_status), TEST(test_environment), TEST(test_fds),
          TEST(test_timeout_signal), TEST(test_timeout_kill), TEST(test_children_max),
          TEST(test_libdir_and_exec_errors), TEST(test_truncation), TEST(test_stderr_logged),
          TEST(test_start_from_callback_and_free), TEST(test_signal_reset), TEST(test_grandchild_holds_pipe),
          TEST(test_sync), TEST(test_shell_and_cwd))
