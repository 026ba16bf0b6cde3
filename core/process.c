/* SPDX-License-Identifier: MIT */
#include "process.h"

#include <stdlib.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "node.h"
#include "strv.h"

enum step {
        STEP_MODEL,
        STEP_RULES,
        STEP_NODE,
        STEP_DONE,
};

struct event_run {
        struct process_ctx *ctx;
        struct event *event;
        struct device *dev;
        enum step step;
        process_done_t done;
        void *userdata;
};

static struct event_run *run_free(struct event_run *run)
{
        if (run) {
                device_unref(run->dev);
                free(run);
        }
        return NULL;
}

static bool is_remove(const struct event_run *run)
{
        return run->event->uevent->action == UEVENT_REMOVE;
}

static mode_t parse_mode(const char *s, mode_t fallback)
{
        if (!s)
                return fallback;
        char *end;
        unsigned long v = strtoul(s, &end, 8);
        return (*end || v > 07777) ? fallback : (mode_t)v;
}

static unsigned long parse_id(const char *s, unsigned long fallback)
{
        if (!s)
                return fallback;
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        return *end ? fallback : v;
}

static int step_node(struct event_run *run)
{
        struct device *d = run->dev;
        int r;

        if (!d->devnum_type || !d->devname || run->ctx->dry_run)
                return 0;
        if (is_remove(run)) {
                r = node_remove(run->ctx->devfd, d->devname, d->devnum_type, d->devnum);
                if (r < 0)
                        log_warning_errno(r, "%s: could not remove node %s, ignoring: %m", d->devpath, d->devname);
                return 0;
        }

        /* Rules decide; else the kernel's DEVMODE/DEVUID/DEVGID; else 0600 root:root. */
        const struct device_udev *u = d->udev;
        mode_t mode = u && u->mode != (mode_t)-1 ? u->mode
                                                 : parse_mode(device_get_property(d, "DEVMODE"), NODE_MODE_DEFAULT);
        uid_t uid = u && u->uid != (uid_t)-1 ? u->uid : (uid_t)parse_id(device_get_property(d, "DEVUID"), 0);
        gid_t gid = u && u->gid != (gid_t)-1 ? u->gid : (gid_t)parse_id(device_get_property(d, "DEVGID"), 0);

        r = node_add(run->ctx->devfd, d->devname, d->devnum_type, d->devnum, mode, uid, gid);
        if (r < 0)
                return log_warning_errno(r, "%s: could not create node %s (%c%u:%u): %m", d->devpath, d->devname,
                                         d->devnum_type, major(d->devnum), minor(d->devnum));
        if (r > 0)
                log_debug("%s: created %s %c%u:%u mode %04o", d->devpath, d->devname, d->devnum_type,
                          major(d->devnum), minor(d->devnum), (unsigned)mode);
        return 0;
}

/* Runs the steps until one needs to wait for a child, or all are done. */
static void advance(struct event_run *run)
{
        int r = 0;

        while (run->step != STEP_DONE) {
                switch (run->step) {
                case STEP_MODEL:
                        r = model_apply_uevent(run->ctx->model, run->event->uevent, &run->dev);
                        if (r < 0) {
                                log_warning_errno(r, "%s: could not apply %s event, skipping it: %m",
                                                  run->event->uevent->devpath,
                                                  uevent_action_to_string(run->event->uevent->action));
                                run->step = STEP_DONE;
                                continue;
                        }
                        run->step = STEP_RULES;
                        break;
                case STEP_RULES:
                        run->step = STEP_NODE;
                        break;
                case STEP_NODE:
                        (void)step_node(run);
                        run->step = STEP_DONE;
                        break;
                case STEP_DONE:
                        break;
                }
        }

        if (run->dev)
                device_clear_attrs(run->dev);
        if (r < 0)
                run->ctx->n_failed++;
        run->ctx->n_processed++;
        struct event *e = run->event;
        process_done_t done = run->done;
        void *userdata = run->userdata;
        e->data = NULL;
        run_free(run);
        done(e, r, userdata);
}

int process_event(struct process_ctx *ctx, struct event *e, process_done_t done, void *userdata)
{
        struct event_run *run = calloc(1, sizeof(*run));
        if (!run)
                return -ENOMEM;
        run->ctx = ctx;
        run->event = e;
        run->done = done;
        run->userdata = userdata;
        run->step = STEP_MODEL;
        e->data = run;
        advance(run);
        return 0;
}

void process_event_abort(struct event *e)
{
        struct event_run *run = e->data;
        e->data = NULL;
        run_free(run);
}
