/* SPDX-License-Identifier: MIT */
/*
 * Shared by the fuzz targets (tests/fuzz/fuzz-*.c): each defines LLVMFuzzerTestOneInput(),
 * driven either by libFuzzer (-Dfuzzing=true with clang) or by replay-main.c over a corpus
 * (and, with --mutations, deterministic mutations of each input: fuzz-mutate.c, also used
 * by fuzz-wire.c). A target checks the promises its parser makes about accepted input and
 * abort()s when one is broken, so both drivers report it as a crash.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A seeded xorshift generator: the same seed gives the same mutations, so a failure replays. */
struct fuzz_rng {
        uint64_t state;
};
#define FUZZ_RNG_SEED 0x9e3779b97f4a7c15ULL

uint64_t fuzz_rng_next(struct fuzz_rng *rng);
/* Writes a mutated copy of sample (len bytes) to buf (cap bytes): 1 to 8 edits among bit
 * flips, random and syntax bytes, truncation, junk appended, duplicated and spliced ranges.
 * Returns the mutated length (at most cap). */
size_t fuzz_mutate(struct fuzz_rng *rng, const uint8_t *sample, size_t len, uint8_t *buf, size_t cap);

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
