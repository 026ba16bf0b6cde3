/* SPDX-License-Identifier: MIT */
#include "adm-verify.h"

#include <getopt.h>

#include "log.h"
#include "rules-load.h"

static void help(void)
{
        printf("devmanadm verify [OPTIONS] [FILE|DIR...]\n\n"
               "Check udev rules files for errors.\n\n"
               "  -h --help                  Show this help\n"
               "     --root=DIR              Look for the default rules directories below DIR\n"
               "  -N --resolve-names=WHEN    early, late or never (default early)\n");
}

int verb_verify(int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"root", required_argument, NULL, 'R'},
                {"resolve-names", required_argument, NULL, 'N'},
                {},
        };
        const char *root = NULL;
        enum resolve_names resolve = RESOLVE_NAMES_EARLY;
        int c;

        optind = 0;
        while ((c = getopt_long(argc, argv, "hN:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'R':
                        root = optarg;
                        break;
                case 'N':
                        if (streq(optarg, "early"))
                                resolve = RESOLVE_NAMES_EARLY;
                        else if (streq(optarg, "late"))
                                resolve = RESOLVE_NAMES_LATE;
                        else if (streq(optarg, "never"))
                                resolve = RESOLVE_NAMES_NEVER;
                        else {
                                log_error("--resolve-names= takes early, late or never, not \"%s\"", optarg);
                                return 2;
                        }
                        break;
                default:
                        return 2;
                }

        char *no_dirs[] = {NULL};
        struct rules_load_options o = {
                .root = root,
                .resolve_names = resolve,
                /* files named on the command line replace the default directories */
                .dirs = optind < argc ? no_dirs : NULL,
                .files = optind < argc ? argv + optind : NULL,
        };
        struct rules *rules = NULL;
        int r = rules_load(&o, &rules);
        if (r < 0) {
                log_error("Failed to load rules: %s", strerror(-r));
                return 1;
        }
        printf("%zu rules files, %zu rules, %u errors, %u warnings\n", rules->n_files, rules->n_lines,
               rules->n_errors, rules->n_warnings);
        bool failed = rules->n_errors > 0;
        rules_free(rules);
        return failed ? 1 : 0;
}
