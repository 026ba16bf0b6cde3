/* SPDX-License-Identifier: MIT */
/*
 * A stand-alone front end for `devmanadm hwdb` used by the tests until the verb is wired into
 * devmanadm: devman-hwdb [OPTIONS] is `devmanadm hwdb [OPTIONS]`.
 */
#include "adm-hwdb.h"
#include "log.h"

int main(int argc, char **argv)
{
        log_set_ident("devman-hwdb");
        return verb_hwdb(argc, argv);
}
