/* SPDX-License-Identifier: MIT */
/* The hwdb compiler on arbitrary source text (hwdb.d/ *.hwdb), round trip: whatever it
 * accepts it writes, and the reader opens that file and looks records up without an error.
 * The source is a memfd; the output goes to a private directory under /dev/shm. */
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "hwdb-compile.h"
#include "hwdb.h"

static char outdir[] = "/dev/shm/devman-fuzz-hwdb.XXXXXX";
static char outfile[sizeof(outdir) + 16];

static void remove_outdir(void)
{
        unlink(outfile);
        rmdir(outdir);
}

static bool setup(void)
{
        static bool done;
        if (!done) {
                if (!mkdtemp(outdir))
                        return false;
                snprintf(outfile, sizeof(outfile), "%s/hwdb.bin", outdir);
                atexit(remove_outdir);
                done = true;
        }
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char src[64];

        fuzz_quiet_logs();
        FUZZ_ASSERT(setup());
        int fd = memfd_create("fuzz-hwdb-source", MFD_CLOEXEC);
        FUZZ_ASSERT(fd >= 0);
        FUZZ_ASSERT(size == 0 || write(fd, data, size) == (ssize_t)size);
        snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);

        struct hwdb_compiler *c = hwdb_compiler_new();
        FUZZ_ASSERT(c);
        int r = hwdb_compiler_add_file(c, src, "fuzz.hwdb", 10);
        FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
        if (r >= 0) {
                r = hwdb_compiler_write(c, outfile);
                FUZZ_ASSERT(r >= 0 || r == -ENOMEM || r == -ENOSPC);
        }
        hwdb_compiler_free(c);
        close(fd);
        if (r < 0)
                return 0;

        /* what the compiler wrote, the reader must read */
        struct hwdb *h = NULL;
        FUZZ_ASSERT(hwdb_open(NULL, outfile, &h) >= 0);
        static const char *const lookups[] = {"usb:v046DpC077d0100", "evdev:input:b0003v046DpC077", "a", ""};
        for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
                const struct hwdb_property *p = NULL;
                int n = hwdb_lookup(h, lookups[i], &p);
                FUZZ_ASSERT(n >= 0 || n == -ENOMEM);
        }
        hwdb_free(h);
        return 0;
}
