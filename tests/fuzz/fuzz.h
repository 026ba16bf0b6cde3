/* SPDX-License-Identifier: MIT */
/*
 * Shared by the fuzz targets (tests/fuzz/fuzz-*.c): each defines LLVMFuzzerTestOneInput(),
 * driven either by libFuzzer (-Dfuzzing=true with clang) or by replay-main.c over a corpus.
 * A target checks the promises its parser makes about accepted input and abort()s when one
 * is broken, so both drivers report it as a crash.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parsers log every rejected line: quiet unless DEVMAN_FUZZ_LOG is set. */
static inline void fuzz_quiet_logs(void)
{
        if (!getenv("DEVMAN_FUZZ_LOG"))
                log_set_max_level(LOG_CRIT);
}

#define FUZZ_ASSERT(cond)                                                                                \
        do {                                                                                             \
                if (!(cond)) {                                                                           \
                        fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                                         \
                }                                                                                        \
        } while (0)
