/* SPDX-License-Identifier: MIT */
#include "adm-hwdb.h"
#include "adm.h"

#include <getopt.h>

#include "hwdb-compile.h"
#include "hwdb.h"
#include "log.h"
#include "macros.h"

static void help(void)
{
        printf("devmanadm hwdb [OPTIONS]\n\n"
               "Compile or query the hardware database.\n\n"
               "  -u --update           Compile hwdb.d/*.hwdb into hwdb.bin\n"
               "  -t --test=MODALIAS    Print the properties the database assigns to MODALIAS\n"
               "  -r --root=DIR         Operate on the tree below DIR\n"
               "  -o --output=FILE      With --update: write FILE (default <root>/etc/udev/hwdb.bin)\n"
               "     --usr             With --update: write <root>" UDEVLIBDIR "/hwdb.bin, the vendor location\n"
               "  -f --file=FILE        With --test: query FILE (below --root) instead of searching\n"
               "  -s --strict           With --update: fail when a source has syntax errors\n"
               "  -h --help             Show this help\n");
}

static int query(const char *root, const char *file, const char *modalias)
{
        int r = hwdb_query(root, file, modalias, stdout);
        if (r == -ENOENT && !file) {
                log_error("No hwdb.bin found%s%s; run 'devmanadm hwdb --update'.", root ? " below " : "",
                          strempty(root));
                return 1;
        }
        if (r == -EBADMSG) {
                log_error("The hardware database%s%s is corrupt or not a hwdb.bin.", file ? " " : "",
                          strempty(file));
                return 1;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to query the hardware database: %m");
                return 1;
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

int verb_hwdb(int argc, char **argv)
{
        static const struct option options[] = {
                {"update", no_argument, NULL, 'u'},
                {"test", required_argument, NULL, 't'},
                {"root", required_argument, NULL, 'r'},
                {"output", required_argument, NULL, 'o'},
                {"file", required_argument, NULL, 'f'},
                {"strict", no_argument, NULL, 's'},
                {"usr", no_argument, NULL, 'U'},
                {"help", no_argument, NULL, 'h'},
                {},
        };
        const char *root = NULL, *output = NULL, *test = NULL, *file = NULL;
        _cleanup_free_ char *usr_output = NULL;
        bool update = false, strict = false, usr = false;
        int c, r;

        optind = 0; /* the caller may have run getopt already */
        while ((c = getopt_long(argc, argv, "ut:r:o:f:sh", options, NULL)) >= 0) {
                switch (c) {
                case 'u':
                        update = true;
                        break;
                case 't':
                        test = optarg;
                        break;
                case 'r':
                        root = optarg;
                        break;
                case 'o':
                        output = optarg;
                        break;
                case 'f':
                        file = optarg;
                        break;
                case 's':
                        strict = true;
                        break;
                case 'U':
                        usr = true;
                        break;
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        }
        r = adm_no_arguments("hwdb", optind, argc, argv);
        if (r != 0)
                return r;
        if (update == !!test) {
                log_error("Exactly one of --update and --test= is required.");
                return 2;
        }

        if (usr && output) {
                log_error("--usr and --output= exclude each other.");
                return 2;
        }
        if (usr) {
                const char *prefix = isempty(root) || streq(root, "/") ? "" : root;
                if (asprintf(&usr_output, "%s%s/hwdb.bin", prefix, UDEVLIBDIR) < 0) {
                        log_oom();
                        return 1;
                }
                output = usr_output;
        }
        if (update)
                return hwdb_update(root, output, strict) < 0 ? 1 : 0;
        return query(root, file, test);
}
