/* SPDX-License-Identifier: MIT */
/*
 * Runs a command and reports what it cost: "ms MAXRSS_KIB USER_S SYS_S EXIT" on stdout.
 * A small C parent matters: the child's ru_maxrss includes the memory of the process it was
 * forked from until exec, which for a Python harness would be tens of MiB.
 *
 *   measure CMD [ARG…]
 */
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "macros.h"

int main(int argc, char **argv)
{
        struct timespec a, b;
        struct rusage ru;
        int status;
        pid_t pid;

        if (argc < 2) {
                fprintf(stderr, "usage: measure CMD [ARG...]\n");
                return 2;
        }
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid = vfork();
        if (pid < 0) {
                fprintf(stderr, "measure: fork: %s\n", strerror(errno));
                return 1;
        }
        if (pid == 0) {
                execvp(argv[1], argv + 1);
                _exit(127);
        }
        if (wait4(pid, &status, 0, &ru) < 0) {
                fprintf(stderr, "measure: wait4: %s\n", strerror(errno));
                return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("%.3f %ld %.6f %.6f %d\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
               ru.ru_maxrss, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 0;
}
