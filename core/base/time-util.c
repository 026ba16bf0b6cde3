/* SPDX-License-Identifier: MIT */
#include "time-util.h"

#include <time.h>

uint64_t time_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}
