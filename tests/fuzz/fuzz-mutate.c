/* SPDX-License-Identifier: MIT */
/* The one mutator of the deterministic fuzzing (replay-main.c --mutations, fuzz-wire.c). */
#include <string.h>

#include "fuzz.h"

uint64_t fuzz_rng_next(struct fuzz_rng *rng)
{
        uint64_t x = rng->state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return rng->state = x;
}

size_t fuzz_mutate(struct fuzz_rng *rng, const uint8_t *sample, size_t len, uint8_t *buf, size_t cap)
{
        /* bytes that mean something to one of the parsers: rules syntax, separators, NUL */
        static const uint8_t special[] = "\"\\{}=!+-:,|*?[]%$#\n e/.@\xff";
        size_t n = len < cap ? len : cap;

        memcpy(buf, sample, n);
        unsigned edits = 1 + fuzz_rng_next(rng) % 8;
        for (unsigned e = 0; e < edits; e++) {
                size_t pos = n ? fuzz_rng_next(rng) % n : 0;
                switch (fuzz_rng_next(rng) % 7) {
                case 0: /* flip a bit */
                        if (n)
                                buf[pos] ^= (uint8_t)(1u << (fuzz_rng_next(rng) % 8));
                        break;
                case 1: /* a random byte */
                        if (n)
                                buf[pos] = (uint8_t)fuzz_rng_next(rng);
                        break;
                case 2: /* a byte with a meaning (sizeof includes the NUL: it is one of them) */
                        if (n)
                                buf[pos] = special[fuzz_rng_next(rng) % sizeof(special)];
                        break;
                case 3: /* truncate */
                        n = pos;
                        break;
                case 4: /* grow with junk */
                        while (n < cap && fuzz_rng_next(rng) % 4)
                                buf[n++] = (uint8_t)fuzz_rng_next(rng);
                        break;
                case 5: { /* duplicate a range */
                        size_t l = n ? fuzz_rng_next(rng) % 32 : 0;
                        if (pos + l > n)
                                l = n - pos;
                        if (n + l > cap)
                                l = cap - n;
                        memmove(buf + pos + l, buf + pos, n - pos);
                        n += l;
                        break;
                }
                default: /* splice a range from elsewhere in the sample */
                        if (len && n) {
                                size_t from = fuzz_rng_next(rng) % len, l = fuzz_rng_next(rng) % 16;
                                if (from + l > len)
                                        l = len - from;
                                if (pos + l > n)
                                        l = n - pos;
                                memcpy(buf + pos, sample + from, l);
                        }
                        break;
                }
        }
        return n;
}
