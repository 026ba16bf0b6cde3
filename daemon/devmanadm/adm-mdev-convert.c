/* SPDX-License-Identifier: MIT */
/*
 * devmanadm mdev-convert FILE: the udev rules that give the /dev busybox's mdev.conf FILE
 * gives (mdev-convert.h), on standard output. Bad lines are reported as devmand reports
 * them (file:line, skipped); lines udev cannot express exactly get a "# not exact:" comment.
 */
#include <getopt.h>
#include <stdio.h>

#include "adm.h"
#include "log.h"
#include "macros.h"
#include "mdev-convert.h"

static void help(void)
{
        printf("Usage: devmanadm mdev-convert [--help] FILE\n"
               "\n"
               "Print udev rules equivalent to busybox's mdev.conf FILE.\n"
               "Lines udev cannot express exactly get a \"# not exact:\" comment saying why.\n"
               "\n"
               "  -h --help  Show this help\n");
}

int verb_mdev_convert(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {},
        };
        _cleanup_(mdev_conf_freep) struct mdev_conf *conf = NULL;
        unsigned bad = 0, inexact = 0;
        int c, r;

        (void)ctx;
        optind = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        if (argc - optind != 1)
                return adm_usage_error("mdev-convert", "expects one mdev.conf file");
        r = mdev_conf_load(argv[optind], &conf, &bad);
        if (r < 0) {
                log_error_errno(r, "Cannot read %s: %m", argv[optind]);
                return 1;
        }
        r = mdev_conf_convert(conf, stdout, &inexact);
        if (r >= 0 && fflush(stdout) != 0)
                r = -EIO;
        if (r < 0) {
                log_error_errno(r, "Cannot write the rules: %m");
                return 1;
        }
        if (bad > 0 || inexact > 0)
                log_warning("%s: %u bad lines skipped, %u lines not exact", argv[optind], bad, inexact);
        return 0;
}
