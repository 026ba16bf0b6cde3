/* SPDX-License-Identifier: MIT */
/* The kernel uevent parser, and the model applying what it accepts (no sysfs behind it). */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "model.h"
#include "uevent.h"

static char empty_sysfs_path[] = "/tmp/devman-fuzz-sysfs.XXXXXX";

static void remove_empty_sysfs(void)
{
        rmdir(empty_sysfs_path);
}

/* An empty directory as the sysfs root, for the whole run: devices come from events only. */
static const char *empty_sysfs(void)
{
        static bool made;
        if (!made) {
                if (!mkdtemp(empty_sysfs_path))
                        return NULL;
                made = true;
                atexit(remove_empty_sysfs);
        }
        return empty_sysfs_path;
}

/* An independent check of "no . or .. component". */
static bool has_dot_component(const char *p)
{
        for (const char *c = p; *c;) {
                size_t l = strcspn(c, "/");
                if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
                        return true;
                c += l;
                if (*c)
                        c++;
        }
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct uevent *ev = NULL;
        const char *why = NULL;

        fuzz_quiet_logs();
        int r = uevent_parse((const char *)data, size, &ev, &why);
        if (r < 0) {
                FUZZ_ASSERT(!ev);
                FUZZ_ASSERT(r == -EBADMSG ? why != NULL : r == -ENOMEM);
                return 0;
        }
        /* accepted: the promises of uevent.h */
        FUZZ_ASSERT(size <= UEVENT_MAX_SIZE);
        FUZZ_ASSERT(ev->devpath && ev->devpath[0] == '/' && !has_dot_component(ev->devpath));
        FUZZ_ASSERT(!ev->devpath_old || (ev->devpath_old[0] == '/' && !has_dot_component(ev->devpath_old)));
        FUZZ_ASSERT(uevent_action_to_string(ev->action) != NULL);

        /* the model must take any accepted event without trusting its DEVNAME */
        struct model *m = NULL;
        const char *sysfs = empty_sysfs();
        FUZZ_ASSERT(sysfs && model_new(sysfs, &m) >= 0);
        {
                struct device *d = NULL;
                if (model_apply_uevent(m, ev, &d) >= 0 && d) {
                        FUZZ_ASSERT(!d->devname || devname_is_safe(d->devname));
                        device_unref(d);
                }
                model_free(m);
        }
        uevent_free(ev);
        return 0;
}
