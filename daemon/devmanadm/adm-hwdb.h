/* SPDX-License-Identifier: MIT */
/*
 * `devmanadm hwdb`: compile the hardware database (--update) or query it (--test=MODALIAS).
 * argv[0] is the verb name; options are parsed with getopt_long from argv[1] on.
 * Returns a process exit status (0 success, 1 failure, 2 usage error); messages go to
 * stderr through the logger, query results to stdout as KEY=VALUE lines.
 */
#pragma once

int verb_hwdb(int argc, char **argv);
