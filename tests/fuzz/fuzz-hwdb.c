/* SPDX-License-Identifier: MIT */
/* The hwdb reader on arbitrary file contents: opening checks the header, lookups bounds-check
 * every offset; a corrupt file gives -EBADMSG, never a crash or a read outside the mapping.
 * The input is the database file (a memfd, opened through /proc/self/fd). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "hwdb.h"

static const char *const lookups[] = {
        "usb:v046DpC077d0100dc00dsc00dp00ic03isc01ip02in00",
        "usb:v0781p5567*",
        "pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00",
        "evdev:input:b0003v046DpC077e0111",
        "",
        "*?[",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char path[64];
        struct hwdb *h = NULL;

        fuzz_quiet_logs();
        int fd = memfd_create("fuzz-hwdb", MFD_CLOEXEC);
        FUZZ_ASSERT(fd >= 0);
        FUZZ_ASSERT(size == 0 || write(fd, data, size) == (ssize_t)size);
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        int r = hwdb_open(NULL, path, &h);
        if (r < 0) {
                FUZZ_ASSERT(!h || r >= 0);
                close(fd);
                return 0;
        }
        for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
                const struct hwdb_property *p = NULL;
                int n = hwdb_lookup(h, lookups[i], &p);
                FUZZ_ASSERT(n >= 0 || n == -EBADMSG || n == -ENOMEM);
                for (int k = 0; k < n; k++) {
                        /* the strings are in the mapping: reading them must stay inside it (ASan
                         * does not see the mapping, so compare with its size by hand) */
                        FUZZ_ASSERT(p[k].key && p[k].value);
                        FUZZ_ASSERT(strnlen(p[k].key, size) < size && strnlen(p[k].value, size) < size);
                }
        }
        hwdb_free(h);
        close(fd);
        return 0;
}
