/* SPDX-License-Identifier: MIT */
#include "test-util.h"

int test_run(const struct test_case *cases, size_t n, int argc, char **argv)
{
        int passed = 0, failed = 0;

        for (size_t i = 0; i < n; i++) {
                if (argc > 1) {
                        bool wanted = false;
                        for (int a = 1; a < argc; a++)
                                if (strcmp(argv[a], cases[i].name) == 0)
                                        wanted = true;
                        if (!wanted)
                                continue;
                }
                int before = test_state.failed_checks;
                cases[i].fn();
                if (test_state.failed_checks == before) {
                        printf("ok - %s\n", cases[i].name);
                        passed++;
                } else {
                        printf("FAIL - %s\n", cases[i].name);
                        failed++;
                }
        }
        printf("%d passed, %d failed (%d checks)\n", passed, failed, test_state.checks);
        if (test_state.checks == 0)
                return 1; /* a test that checks nothing is a broken test */
        return failed ? 1 : 0;
}
