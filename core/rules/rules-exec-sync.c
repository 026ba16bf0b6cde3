/* SPDX-License-Identifier: MIT */
/*
 * rules_exec_run_sync(): the blocking driver of the executor for tools (devmanadm test).
 * The daemon never links this path in its loop: it spawns PROGRAMs asynchronously.
 */
#include "rules-exec.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "log.h"

#define OUTPUT_MAX (1024 * 1024)

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Runs argv with envp, collecting stdout. Returns the status for rules_exec_program_done(). */
static int run_child(const struct rules_program *p, uint64_t timeout_usec, char **out, size_t *out_len)
{
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();

        pid_t pid = fork();
        if (pid < 0) {
                int r = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                return r;
        }
        if (pid == 0) {
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (null >= 0)
                        dup2(null, STDIN_FILENO);
                dup2(pipefd[1], STDOUT_FILENO);
                execve(p->argv[0], p->argv, p->envp);
                _exit(127);
        }
        close(pipefd[1]);

        size_t cap = 4096, len = 0;
        char *buf = malloc(cap);
        uint64_t deadline = now_usec() + timeout_usec;
        int status = 0;
        bool timed_out = false;

        for (;;) {
                uint64_t now = now_usec();
                if (now >= deadline) {
                        timed_out = true;
                        break;
                }
                struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
                int ms = (int)((deadline - now + 999) / 1000);
                int n = poll(&pfd, 1, ms);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        timed_out = n == 0;
                        break;
                }
                if (buf && len + 4096 > cap && cap < OUTPUT_MAX + 4096) {
                        char *nb = realloc(buf, cap * 2);
                        if (nb) {
                                buf = nb;
                                cap *= 2;
                        }
                }
                char sink[4096];
                bool keep = buf && len + 4096 <= cap && len < OUTPUT_MAX;
                ssize_t k = read(pipefd[0], keep ? buf + len : sink, 4096);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                if (keep)
                        len += (size_t)k;
        }
        close(pipefd[0]);
        if (timed_out) {
                log_warning("\"%s\" timed out, killing it", p->cmdline);
                kill(pid, SIGKILL);
        }
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
                ;
        if (timed_out)
                status = -ETIME;
        else if (WIFEXITED(ws))
                status = WEXITSTATUS(ws) == 127 ? -ENOENT : WEXITSTATUS(ws);
        else if (WIFSIGNALED(ws))
                status = 128 + WTERMSIG(ws);
        if (!buf)
                return -ENOMEM;
        *out = buf;
        *out_len = len;
        return status;
}

int rules_exec_run_sync(struct rules_exec *x, uint64_t timeout_usec)
{
        for (;;) {
                int r = rules_exec_run(x);
                if (r <= 0)
                        return r;
                const struct rules_program *p = rules_exec_get_program(x);
                char *out = NULL;
                size_t len = 0;
                int status = run_child(p, timeout_usec, &out, &len);
                r = rules_exec_program_done(x, status, out, len);
                free(out);
                if (r < 0)
                        return r;
        }
}
