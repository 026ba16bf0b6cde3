/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: hwdb lookups on Debian's database, devman's reader against libsystemd's
 * sd-hwdb on the same strings (derived from every record of the sources), and what a reader
 * reads: blocks of the file after opening and after a realistic set of lookups (this
 * machine's modaliases). Targets: devman at least as fast as sd-hwdb; opening reads the
 * header's block and the last one, a lookup reads blocks, not the file, and nothing of the
 * file is mapped.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "hwdb-compile.h"
#include "hwdb-oracle.h"
#include "hwdb.h"
#include "macros.h"
#include "test-util.h"

#define DEBIAN_BIN "/lib/udev/hwdb.bin"

static double now(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time of this process, less sensitive to other load on the machine than wall time. */
static double cpu(void)
{
        struct timespec t;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_lookup_speed(void)
{
        struct strlist l = {0};
        struct hwdb *h = NULL;
        sd_hwdb *sd = NULL;
        long props_dm = 0, props_sd = 0;

        modaliases_from_dir(&l, "/lib/udev/hwdb.d", 1);
        CHECK(l.n > 10000);
        CHECK_INT(hwdb_open(NULL, DEBIAN_BIN, &h), 0);
        CHECK_INT(sd_hwdb_new_from_path(DEBIAN_BIN, &sd), 0);
        if (!h || !sd)
                goto out;

        double w0 = now(), c0 = cpu();
        for (size_t i = 0; i < l.n; i++) {
                const struct hwdb_property *p;
                int n = hwdb_lookup(h, l.v[i], &p);
                CHECK(n >= 0);
                props_dm += n;
        }
        double w1 = now(), c1 = cpu();
        for (size_t i = 0; i < l.n; i++) {
                const char *k, *v;
                if (sd_hwdb_seek(sd, l.v[i]) < 0)
                        continue;
                while (sd_hwdb_enumerate(sd, &k, &v) > 0)
                        props_sd++;
        }
        double w2 = now(), c2 = cpu();

        printf("lookups: %zu\n", l.n);
        printf("devman:  %.3f s cpu (%.3f s wall), %.2f us/lookup, %ld properties\n", c1 - c0, w1 - w0,
               (c1 - c0) * 1e6 / (double)l.n, props_dm);
        printf("sd-hwdb: %.3f s cpu (%.3f s wall), %.2f us/lookup, %ld properties\n", c2 - c1, w2 - w1,
               (c2 - c1) * 1e6 / (double)l.n, props_sd);
        CHECK_INT(props_dm, props_sd);
        CHECK(c1 - c0 <= c2 - c1);
out:
        hwdb_free(h);
        sd_hwdb_unref(sd);
        strlist_done(&l);
}

/* Resident size of the mapping of path in /proc/self/smaps, in KiB (-1: not found). */
static long mapping_rss_kib(const char *path)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        char *line = NULL;
        size_t n = 0;
        bool in = false;
        long rss = -1;

        if (!f)
                return -1;
        while (getline(&line, &n, f) > 0) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
                        /* a mapping header: "lo-hi perms offset dev inode path" */
                        line[strcspn(line, "\n")] = '\0';
                        size_t l = strlen(line), pl = strlen(path);
                        in = l >= pl && streq(line + l - pl, path);
                        continue;
                }
                if (in && startswith(line, "Rss:")) {
                        rss = strtol(line + 4, NULL, 10);
                        break;
                }
        }
        free(line);
        fclose(f);
        return rss;
}

static void test_memory(void)
{
        char tmp[] = "/tmp/bench-hwdb.XXXXXX";
        char *copy;
        struct hwdb *h = NULL;

        /* A private copy, whose mapping (there should be none) no other process shares. */
        CHECK(mkdtemp(tmp) != NULL);
        CHECK(asprintf(&copy, "%s/hwdb.bin", tmp) > 0);
        CHECK_INT(copy_file(DEBIAN_BIN, copy), 0);
        CHECK_INT(hwdb_open(NULL, copy, &h), 0);
        if (!h)
                goto out;

        uint64_t after_open = hwdb_blocks_read(h);
        const char *realistic[] = {
                "usb:v1D6Bp0002d0515dc09dsc00dp03ic09isc00ip00in00",
                "usb:v046DpC52Bd1211dc00dsc00dp00ic03isc01ip01in00",
                "pci:v00008086d00001237sv00001AF4sd00001100bc06sc00i00",
                "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00",
                "acpi:PNP0303:",
                "evdev:input:b0003v046DpC52Be0111-e0,1,2,4,k71,72,73,r6,a20,m4,l0,1,2,3,4,",
                "evdev:atkbd:dmi:bvnSeaBIOS:bvr1.16.2:bd04/01/2014:svnQEMU:pnStandardPC:pvrpc:cvnQEMU:ct1:cvrpc:",
                "mouse:usb:v046dpc52b:name:Logitech USB Receiver:",
                "keyboard:name:AT Translated Set 2 keyboard:dmi:bvnSeaBIOS:svnQEMU:pnStandardPC:",
        };
        for (size_t i = 0; i < ELEMENTSOF(realistic); i++)
                CHECK(hwdb_lookup(h, realistic[i], NULL) >= 0);
        uint64_t after_lookups = hwdb_blocks_read(h);
        hwdb_trim(h);
        CHECK(hwdb_lookup(h, realistic[0], NULL) > 0);
        uint64_t one = hwdb_blocks_read(h) - after_lookups;
        /* the file is read, never mapped: nothing of it counts in this process's RSS */
        long mapped = mapping_rss_kib(copy);

        /* What a warm cache saves: lookups alone, then each followed by a trim. */
        const int rounds = 20000;
        double c0 = cpu();
        for (int i = 0; i < rounds; i++)
                CHECK(hwdb_lookup(h, realistic[i % ELEMENTSOF(realistic)], NULL) >= 0);
        double c1 = cpu();
        for (int i = 0; i < rounds; i++) {
                CHECK(hwdb_lookup(h, realistic[i % ELEMENTSOF(realistic)], NULL) >= 0);
                hwdb_trim(h);
        }
        double c2 = cpu();

        struct stat st;
        CHECK_INT(stat(copy, &st), 0);
        printf("hwdb.bin (%lld KiB) blocks read: %llu to open, %llu for %zu lookups, %llu for one lookup after a "
               "trim; mapped: %ld\n",
               (long long)st.st_size / 1024, (unsigned long long)after_open,
               (unsigned long long)(after_lookups - after_open), ELEMENTSOF(realistic), (unsigned long long)one,
               mapped);
        printf("realistic lookup: %.2f us; lookup + trim: %.2f us\n", (c1 - c0) * 1e6 / rounds,
               (c2 - c1) * 1e6 / rounds);
        CHECK(after_open >= 1 && after_open <= 2); /* the header's block and the last one */
        CHECK(after_lookups > after_open && after_lookups - after_open < (uint64_t)(st.st_size / 4096 / 16));
        CHECK(one > 0 && one <= 64);
        CHECK(mapped == -1);
out:
        hwdb_free(h);
        rm_rf_tmp(tmp);
        free(copy);
}

/* Blocks of file read by the realistic lookups (from a trimmed start). */
static long blocks_for_lookups(const char *file)
{
        static const char *const realistic[] = {
                "usb:v1D6Bp0002d0515dc09dsc00dp03ic09isc00ip00in00",
                "usb:v046DpC52Bd1211dc00dsc00dp00ic03isc01ip01in00",
                "pci:v00008086d00001237sv00001AF4sd00001100bc06sc00i00",
                "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00",
                "acpi:PNP0303:",
                "evdev:input:b0003v046DpC52Be0111-e0,1,2,4,k71,72,73,r6,a20,m4,l0,1,2,3,4,",
                "evdev:atkbd:dmi:bvnSeaBIOS:bvr1.16.2:bd04/01/2014:svnQEMU:pnStandardPC:pvrpc:cvnQEMU:ct1:cvrpc:",
                "mouse:usb:v046dpc52b:name:Logitech USB Receiver:",
                "keyboard:name:AT Translated Set 2 keyboard:dmi:bvnSeaBIOS:svnQEMU:pnStandardPC:",
        };
        struct hwdb *h = NULL;
        long kib;
        if (hwdb_open(NULL, file, &h) < 0)
                return -1;
        hwdb_trim(h);
        uint64_t before = hwdb_blocks_read(h);
        for (size_t i = 0; i < ELEMENTSOF(realistic); i++)
                (void)hwdb_lookup(h, realistic[i], NULL);
        kib = (long)(hwdb_blocks_read(h) - before);
        hwdb_free(h);
        return kib;
}

/* devman's compiler lays the database out so that lookups read fewer blocks than in
 * systemd-hwdb's layout of the same sources. */
static void test_layout(void)
{
        char tmp[] = "/tmp/bench-hwdb.XXXXXX";
        char *sys, *dev;

        CHECK(mkdtemp(tmp) != NULL);
        CHECK(asprintf(&sys, "%s/systemd.bin", tmp) > 0);
        CHECK(asprintf(&dev, "%s/devman.bin", tmp) > 0);
        CHECK_INT(copy_file(DEBIAN_BIN, sys), 0);
        CHECK_INT(hwdb_update(NULL, dev, false), 0);
        long ks = blocks_for_lookups(sys), kd = blocks_for_lookups(dev);
        printf("blocks read by the realistic lookups: %ld in systemd-hwdb's layout, %ld in devman's\n", ks, kd);
        CHECK(ks > 0 && kd > 0);
        CHECK(kd <= ks);
        rm_rf_tmp(tmp);
        free(sys);
        free(dev);
}

TEST_MAIN(TEST(test_lookup_speed), TEST(test_memory), TEST(test_layout))
