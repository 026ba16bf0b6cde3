/* SPDX-License-Identifier: MIT */
/* The database reader on arbitrary entry contents: never crashes, and what it keeps is safe
 * (link names that stay under /dev, tags that are file names, no NUL in properties). */
#include <string.h>

#include "db.h"
#include "device.h"
#include "fuzz.h"
#include "strv.h"
#include "uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct device *d = NULL;

        fuzz_quiet_logs();
        if (device_new("/devices/virtual/mem/null", &d) < 0)
                return 0;
        int r = db_read_buffer("fuzz-entry", data, size, d);
        FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
        if (r > 0) {
                FUZZ_ASSERT(d->udev != NULL);
                STRV_FOREACH(l, d->udev->links)
                        FUZZ_ASSERT(devname_is_safe(*l));
                STRV_FOREACH(t, d->udev->tags)
                        FUZZ_ASSERT(**t && !strchr(*t, '/'));
                STRV_FOREACH(t, d->udev->current_tags)
                        FUZZ_ASSERT(**t && !strchr(*t, '/'));
        }
        device_unref(d);
        return 0;
}
