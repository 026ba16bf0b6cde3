/* SPDX-License-Identifier: MIT */
#include "monitor-format.h"

#include <inttypes.h>

#include "strv.h"

bool monitor_filter_match(const struct monitor_filter *f, const struct monitor_event *e)
{
        if (f->subsystems && f->subsystems[0]) {
                bool ok = false;
                STRV_FOREACH(s, f->subsystems) {
                        const char *slash = strchr(*s, '/');
                        size_t sl = slash ? (size_t)(slash - *s) : strlen(*s);
                        if (!e->subsystem || strlen(e->subsystem) != sl || strncmp(e->subsystem, *s, sl) != 0)
                                continue;
                        if (slash && !streq_ptr(e->devtype, slash + 1))
                                continue;
                        ok = true;
                        break;
                }
                if (!ok)
                        return false;
        }
        if (e->source == MONITOR_SOURCE_UDEV && f->tags && f->tags[0]) {
                STRV_FOREACH(t, f->tags)
                        if (monitor_event_has_tag(e, *t))
                                return true;
                return false;
        }
        return true;
}

void monitor_print_event(FILE *out, const struct monitor_event *e, bool properties, uint64_t now_usec)
{
        fprintf(out, "%-6s[%" PRIu64 ".%06" PRIu64 "] %-8s %s (%s)\n",
                e->source == MONITOR_SOURCE_KERNEL ? "KERNEL" : "UDEV", now_usec / 1000000, now_usec % 1000000,
                e->action, e->devpath, strna(e->subsystem));
        if (properties) {
                const char *entry;
                size_t it = 0;
                while (props_next(&e->props, &it, &entry, NULL))
                        fprintf(out, "%s\n", entry);
                fputc('\n', out);
        }
}
