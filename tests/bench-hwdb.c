/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: hwdb lookups on Debian's database, devman's reader against libsystemd's
 * sd-hwdb on the same strings (derived from every record of the sources), and the memory a
 * reader costs: the resident part of the mapping after opening and after a realistic set of
 * lookups (this machine's modaliases). Targets: devman at least as fast as sd-hwdb; opening
 * touches no more than the header's page and a lookup touches pages, not the file.
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

/* Writes the file back and drops it from the page cache, so the next reader starts cold
 * (as after a boot): what becomes resident is then what the reader itself faulted in. */
static void drop_cache(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        if (fd < 0)
                return;
        CHECK_INT(fsync(fd), 0);
        CHECK_INT(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        close(fd);
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

        /* A private copy, so other processes' use of the real file does not show up as our
         * resident pages (page cache pages count once mapped and touched by us). */
        CHECK(mkdtemp(tmp) != NULL);
        CHECK(asprintf(&copy, "%s/hwdb.bin", tmp) > 0);
        CHECK_INT(copy_file(DEBIAN_BIN, copy), 0);
        drop_cache(copy);
        CHECK_INT(hwdb_open(NULL, copy, &h), 0);
        if (!h)
                goto out;

        long after_open = mapping_rss_kib(copy);
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
        long after_lookups = mapping_rss_kib(copy);
        hwdb_trim(h);
        long after_trim = mapping_rss_kib(copy);
        CHECK(hwdb_lookup(h, realistic[0], NULL) > 0);
        long after_one = mapping_rss_kib(copy);

        /* The cost of trimming after every lookup. */
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
        printf("hwdb.bin (%lld KiB) resident: %ld KiB after open, %ld KiB after %zu lookups, %ld KiB after "
               "trim, %ld KiB after one more lookup\n",
               (long long)st.st_size / 1024, after_open, after_lookups, ELEMENTSOF(realistic), after_trim,
               after_one);
        printf("realistic lookup: %.2f us; lookup + trim: %.2f us\n", (c1 - c0) * 1e6 / rounds,
               (c2 - c1) * 1e6 / rounds);
        /* Cold cache: only the pages a lookup needs (no read-ahead on the mapping). */
        CHECK(after_open >= 0 && after_open <= 64);
        CHECK(after_lookups > 0 && after_lookups < (long)(st.st_size / 1024 / 16));
        CHECK(after_trim == 0);
        CHECK(after_one > 0 && after_one <= 256);
out:
        hwdb_free(h);
        rm_rf_tmp(tmp);
        free(copy);
}

/* Resident KiB of the mapping of file after the realistic lookups (from a trimmed start). */
static long resident_after_lookups(const char *file)
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
        long kib = -1;
        if (hwdb_open(NULL, file, &h) < 0)
                return -1;
        hwdb_trim(h);
        for (size_t i = 0; i < ELEMENTSOF(realistic); i++)
                (void)hwdb_lookup(h, realistic[i], NULL);
        kib = mapping_rss_kib(file);
        hwdb_free(h);
        return kib;
}

/* devman's compiler lays the database out so that lookups touch fewer regions than in
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
        drop_cache(sys);
        drop_cache(dev);
        long ks = resident_after_lookups(sys), kd = resident_after_lookups(dev);
        printf("resident after the realistic lookups: %ld KiB in systemd-hwdb's layout, %ld KiB in devman's\n",
               ks, kd);
        CHECK(ks > 0 && kd > 0);
        CHECK(kd <= ks);
        rm_rf_tmp(tmp);
        free(sys);
        free(dev);
}

TEST_MAIN(TEST(test_lookup_speed), TEST(test_memory), TEST(test_layout))
