/* SPDX-License-Identifier: MIT */
/*
 * A minimal test harness: each test program is a list of test functions; CHECK() records a
 * failure with file:line and carries on, so one run reports every broken expectation.
 * main() prints "N passed, N failed" and returns non-zero on failure (77 when skipped).
 */
#pragma once

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

struct test_state {
        int checks;
        int failed_checks;
};
extern struct test_state test_state;

#define CHECK(cond)                                                                                          \
        do {                                                                                                 \
                test_state.checks++;                                                                         \
                if (!(cond)) {                                                                               \
                        test_state.failed_checks++;                                                          \
                        fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);             \
                }                                                                                            \
        } while (0)

#define CHECK_INT(a, b)                                                                                      \
        do {                                                                                                 \
                long long _a = (long long)(a), _b = (long long)(b);                                          \
                test_state.checks++;                                                                         \
                if (_a != _b) {                                                                              \
                        test_state.failed_checks++;                                                          \
                        fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
                                #a, #b, _a, _b);                                                             \
                }                                                                                            \
        } while (0)

#define CHECK_STR(a, b)                                                                                      \
        do {                                                                                                 \
                const char *_a = (a), *_b = (b);                                                             \
                test_state.checks++;                                                                         \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                                                     \
                        test_state.failed_checks++;                                                          \
                        fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__,      \
                                __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");                   \
                }                                                                                            \
        } while (0)

struct test_case {
        const char *name;
        void (*fn)(void);
};
#define TEST(n) {#n, n}

/* Runs the cases (or those named on the command line) and returns the exit status. */
int test_run(const struct test_case *cases, size_t n, int argc, char **argv);

#define TEST_MAIN(...)                                                                                       \
        struct test_state test_state;                                                                        \
        int main(int argc, char **argv)                                                                      \
        {                                                                                                    \
                static const struct test_case cases[] = {__VA_ARGS__};                                       \
                return test_run(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);                        \
        }
