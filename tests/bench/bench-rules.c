/* SPDX-License-Identifier: MIT */
/*
 * Rules engine benchmark: loads a rules set (default: the stock directories) and evaluates it
 * for every device of a sysfs tree (default /sys), as add events, several rounds. Reports the
 * load time, the heap the compiled rules take and the time per event. PROGRAMs are answered
 * in place as failed (nothing is spawned), builtins are not run: this measures the engine.
 *
 *   bench-rules [--sysfs DIR] [--rules-dir DIR]... [--rounds N] [--max-usec-per-event U] [--max-rules-kib K]
 *
 * With limits given, exits 1 when a measurement exceeds them (the suite's generous guard).
 */
#include <getopt.h>
#include <malloc.h>
#include <time.h>

#include "log.h"
#include "model.h"
#include "rules-exec.h"
#include "rules-load.h"
#include "strv.h"

static uint64_t now_nsec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                {"sysfs", required_argument, NULL, 's'},
                {"rules-dir", required_argument, NULL, 'r'},
                {"rounds", required_argument, NULL, 'n'},
                {"max-usec-per-event", required_argument, NULL, 'u'},
                {"max-rules-kib", required_argument, NULL, 'k'},
                {},
        };
        const char *sysfs = "/sys";
        char **dirs = NULL;
        unsigned rounds = 5;
        double max_usec = 0, max_kib = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        sysfs = optarg;
                        break;
                case 'r':
                        if (strv_push_copy(&dirs, optarg) < 0)
                                return 1;
                        break;
                case 'n':
                        rounds = (unsigned)atoi(optarg);
                        break;
                case 'u':
                        max_usec = atof(optarg);
                        break;
                case 'k':
                        max_kib = atof(optarg);
                        break;
                default:
                        return 2;
                }
        log_set_max_level(LOG_CRIT);

        struct mallinfo2 before = mallinfo2();
        uint64_t t0 = now_nsec();
        struct rules *rules = NULL;
        struct rules_load_options lo = {.dirs = dirs};
        if (rules_load(&lo, &rules) < 0)
                return 1;
        uint64_t t1 = now_nsec();
        struct mallinfo2 after = mallinfo2();
        double rules_kib = (double)(after.uordblks - before.uordblks) / 1024.0;

        struct model *m = NULL;
        if (model_new(sysfs, &m) < 0 || model_scan(m) < 0) {
                fprintf(stderr, "cannot read sysfs at %s\n", sysfs);
                return 1;
        }

        unsigned long events = 0, programs = 0;
        uint64_t t2 = now_nsec();
        for (unsigned round = 0; round < rounds; round++) {
                size_t it = 0;
                struct device *d;
                while (model_iterate(m, &it, &d)) {
                        struct rules_exec *x = NULL;
                        struct rules_exec_options eo = {.sysfs_root = sysfs, .test = true};
                        if (rules_exec_new(rules, d, UEVENT_ADD, &eo, &x) < 0)
                                return 1;
                        int r;
                        while ((r = rules_exec_run(x)) == RULES_EXEC_NEED_PROGRAM) {
                                programs++;
                                rules_exec_program_done(x, 1, NULL, 0);
                        }
                        rules_exec_free(x);
                        if (r < 0)
                                return 1;
                        events++;
                }
        }
        uint64_t t3 = now_nsec();
        double usec = events ? (double)(t3 - t2) / 1000.0 / (double)events : 0;

        printf("rules: %zu files, %zu rules, loaded in %.2f ms, %.1f KiB heap\n", rules->n_files, rules->n_lines,
               (double)(t1 - t0) / 1e6, rules_kib);
        printf("events: %lu (%zu devices x %u rounds), %.2f us/event, %lu programs answered\n", events,
               model_size(m), rounds, usec, programs);

        int ret = 0;
        if (max_usec > 0 && usec > max_usec) {
                printf("FAIL: %.2f us/event exceeds %.2f\n", usec, max_usec);
                ret = 1;
        }
        if (max_kib > 0 && rules_kib > max_kib) {
                printf("FAIL: %.1f KiB of rules exceeds %.1f\n", rules_kib, max_kib);
                ret = 1;
        }
        model_free(m);
        rules_free(rules);
        strv_free(dirs);
        return ret;
}
