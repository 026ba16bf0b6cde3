/* SPDX-License-Identifier: MIT */
/* devmanadm verify [--root DIR] [--resolve-names=early|late|never] [FILE|DIR...]
 * Parses rules files (the default directories, or those given), prints every error as
 * file:line: message and a summary; exit status 1 on any error, 0 otherwise. */
#pragma once

int verb_verify(int argc, char **argv);
