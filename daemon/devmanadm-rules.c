/* SPDX-License-Identifier: MIT */
/* Temporary entry point for the rules verbs until devmanadm dispatches them:
 *   devmanadm-rules verify …  |  devmanadm-rules test …  (not installed) */
#include "adm-test.h"
#include "adm-verify.h"
#include "macros.h"

int main(int argc, char **argv)
{
        if (argc >= 2 && streq(argv[1], "verify"))
                return verb_verify(argc - 1, argv + 1);
        if (argc >= 2 && streq(argv[1], "test"))
                return verb_test(argc - 1, argv + 1);
        fprintf(stderr, "usage: %s verify|test [ARGS…]\n", argv[0]);
        return 2;
}
