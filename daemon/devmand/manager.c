/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "builtin-kmod.h"
#include "builtin.h"
#include "devman-config.h"
#include "ctrl.h"
#include "devdir.h"
#include "fs-util.h"
#include "publish-retry.h"
#include "hashmap.h"
#include "log.h"
#include "memtrim.h"
#include "model.h"
#include "monitor.h"
#include "netlink.h"
#include "process.h"
#include "queue.h"
#include "reconcile.h"
#include "mdev-conf.h"
#include "rules-load.h"
#include "spawn.h"
#include "static-perms.h"
#include "strv.h"
#include "sysfs-enum.h"
#include "sysfs.h"
#include "time-util.h"

/* Event source priorities: lower runs first when several are pending.
 *  - signals: an exit request is seen before more work is started;
 *  - kernel socket: everything it holds is read at once, so the socket buffer does not
 *    overflow; then it goes behind the start of events until a batch of what it read has
 *    been started (on_kernel), or processing would wait for the end of a steady stream (a
 *    coldplug, a storm);
 *  - children: finish the events that wait for them;
 *  - control socket: a "ping" (and WAIT_IDLE) first reads what the kernel socket holds, so
 *    its answer means every event the kernel had sent before it is queued (udevadm settle
 *    relies on that);
 *  - starting events: last, in bounded batches, so reading never starves. */
enum {
        PRIORITY_SIGNAL = -300,
        PRIORITY_KERNEL = -200,
        PRIORITY_CHILD = -100,
        PRIORITY_CONTROL = 0,
        PRIORITY_START = 100,
};

/* The marker a running daemon keeps in its run dir; only a clean exit removes it, so finding
 * it at start means the previous daemon crashed. */
#define RUNNING_MARKER ".devmand-running"

/* The largest kernel socket receive buffer an overflow may grow it to. */
#define MAX_RCVBUF (128 * 1024 * 1024)

/* How long <run>/queue outlives the last event: in a storm the queue empties between events,
 * and the file would be made and removed for each of them. A settle request through the
 * control socket removes it at once. */
#define QUEUE_FILE_LINGER_USEC (2 * 1000ULL)
/* ... give or take this much: its wakeup is coalesced with others (a timer that fired 2 ms
 * after each pause of a storm would make and remove the file as often as it saves). */
#define QUEUE_FILE_LINGER_ACCURACY_USEC (250 * 1000ULL)
/* How long the queue must stay empty before memory is trimmed. */
#define IDLE_TRIM_USEC (250 * 1000ULL)
/* Queued events up to which a new add event gets its node at once (process_make_node_early). */
#define EARLY_NODE_BACKLOG 16

/* Events started per turn of the loop before the kernel socket is read again. */
#define START_BATCH 64
/* Within a batch, the kernel socket is read again when this much time passed since it last
 * was (about one event's processing): a new add event gets its node when queued, so it must
 * not wait for the whole batch. */
#define KERNEL_REREAD_USEC 25
/* How often devices whose links or database entry could not be written are tried again; a
 * retry waits for a moment without running events, but not more than RETRY_MAX_DEFER times. */
#define RETRY_INTERVAL_USEC (2 * 1000000ULL)
#define RETRY_MAX_DEFER 3
/* How often, at most, the rules directories are checked for changes before an event. */
#define RULES_CHECK_INTERVAL_USEC (3 * 1000000ULL)

struct manager;

/* Runs fire() once the queue has stayed empty for delay. Armed once per quiet period: a drain
 * in between only moves the due time (manager.last_drain_usec), which the timer checks when it
 * fires — re-arming it at every drain would cost a timerfd_settime() per event in a storm. */
struct quiet_timer {
        struct manager *m;
        uint64_t delay, accuracy;
        void (*fire)(struct manager *m);
        sd_event_source *source;
        bool armed;
};

struct manager {
        sd_event *event;
        struct manager_options opt;
        const struct devman_config *config;
        char *sysfs_root, *dev_root, *run_root;
        int devfd, runfd;
        struct devdir_cache devdirs; /* below devfd: block/, disk/by-*, ... kept open */
        struct devdir_cache rundirs; /* below runfd: data/, tags/<tag>/ */

        struct model *model;
        struct rules *rules;
        struct mdev_conf *mdev; /* config->mdev_conf, loaded with the rules */
        struct builtin_ctx builtins;
        bool builtins_ready;
        struct spawn_manager *spawn;
        struct monitor *monitor;
        struct ctrl_server *ctrl;
        struct uevent_listener *listener;
        sd_event_source *kernel_source;
        bool kernel_resting;  /* kernel_source behind on_start until it started a batch */
        uint64_t kernel_read_usec; /* when the kernel socket was last read */
        bool kernel_drained;  /* ... and left empty (not stopped at its bound) */
        sd_event_source *start_source;
        sd_event_source *retry_source; /* armed while devices wait in retry */
        struct publish_retry *retry;
        unsigned retry_deferred;
        uint64_t last_drain_usec;     /* when the queue last became empty */
        struct quiet_timer idle_trim; /* trims memory once the queue has been empty a while */

        struct event_queue queue;
        struct process_ctx process;
        struct props global_props; /* udevadm control --property */

        uint64_t rules_checked_usec;
        bool reload_pending;  /* rules reload waits until no event runs (running events use them) */
        bool exec_stopped;    /* control: stop-exec-queue */
        bool queue_file;      /* <run>/queue exists */
        struct quiet_timer queue_file_linger; /* removes it once the queue stayed empty a while */
        bool queue_file_failed; /* creating it failed (logged once until it works again) */
        bool resync_pending;  /* the kernel dropped events: rescan sysfs when the queue drains */
        bool exiting;
        bool marker;          /* RUNNING_MARKER created by us */
        int rcvbuf;           /* the kernel socket's receive buffer size we asked for */
        int exit_status;
};

/* <run>/queue exists exactly while events are queued or running (libudev's "queue is empty"),
 * or while a resynchronisation is due: the events it will queue are not yet known. */
static bool queue_busy(const struct manager *m)
{
        return !event_queue_is_empty(&m->queue) || (m->resync_pending && !m->exiting);
}

static void remove_queue_file(struct manager *m)
{
        if (!m->queue_file || m->runfd < 0)
                return;
        if (unlinkat(m->runfd, "queue", 0) < 0 && errno != ENOENT)
                log_warning("Could not remove %s/queue: %m", m->run_root);
        m->queue_file = false;
}

static void quiet_timer_arm(struct quiet_timer *t, uint64_t when);

static int on_quiet_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct quiet_timer *t = userdata;
        t->armed = false;
        if (queue_busy(t->m))
                return 0; /* busy again: the next drain arms it again */
        uint64_t due = t->m->last_drain_usec + t->delay;
        if (time_now_usec() < due) /* drained again since armed: not quiet long enough yet */
                quiet_timer_arm(t, due);
        else
                t->fire(t->m);
        return 0;
}

/* When the timer cannot be armed, fire() runs at once. */
static void quiet_timer_arm(struct quiet_timer *t, uint64_t when)
{
        int r;
        if (!t->source) {
                r = sd_event_add_time(t->m->event, &t->source, CLOCK_MONOTONIC, when, t->accuracy, on_quiet_timer, t);
                if (r >= 0)
                        (void)sd_event_source_set_priority(t->source, PRIORITY_START + 1);
        } else {
                r = sd_event_source_set_time(t->source, when);
                if (r >= 0)
                        r = sd_event_source_set_enabled(t->source, SD_EVENT_ONESHOT);
        }
        t->armed = r >= 0;
        if (r < 0)
                t->fire(t->m);
}

/* The queue drained (manager.last_drain_usec noted). */
static void quiet_timer_note_drain(struct quiet_timer *t)
{
        if (!t->armed)
                quiet_timer_arm(t, t->m->last_drain_usec + t->delay);
}

/* Called whenever the queue may have changed: the queue file follows it, and a drain notes its
 * time for the quiet timers (the file's linger, the memory trim). */
static void update_queue_file(struct manager *m)
{
        bool want = queue_busy(m);
        if (!want) {
                /* devmanadm settle waiting on the socket; a client answered now finds no file */
                unsigned answered = ctrl_server_notify_idle(m->ctrl);
                bool running = !m->opt.once && !m->exiting && m->event;
                m->last_drain_usec = time_now_usec();
                if (running)
                        quiet_timer_note_drain(&m->idle_trim);
                if (!m->queue_file)
                        return;
                if (answered > 0 || !running)
                        remove_queue_file(m);
                else
                        quiet_timer_note_drain(&m->queue_file_linger);
                return;
        }
        if (m->queue_file || m->runfd < 0)
                return;
        int fd = openat(m->runfd, "queue", O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                if (!m->queue_file_failed)
                        log_warning("Could not create %s/queue, settle will not wait: %m", m->run_root);
                m->queue_file_failed = true;
                return;
        }
        close(fd);
        m->queue_file_failed = false;
        m->queue_file = true;
}

static void schedule_start(struct manager *m)
{
        if (m->start_source)
                sd_event_source_set_enabled(m->start_source, SD_EVENT_ONESHOT);
}

static void trim_memory(struct manager *m)
{
        int r = model_compact(m->model);
        if (r < 0)
                log_debug_errno(r, "Cannot shrink the model's indices now: %m");
        if (m->builtins_ready)
                builtin_trim_all(&m->builtins);
        r = memtrim_idle();
        if (r < 0)
                log_debug_errno(r, "Cannot trim memory: %m");
        else
                log_debug("Memory trimmed (%d mappings)", r);
}

static void maybe_finish(struct manager *m)
{
        if (event_queue_is_empty(&m->queue) && (m->opt.once || m->exiting))
                sd_event_exit(m->event, m->exit_status);
}

static int load_rules(struct manager *m)
{
        struct rules_load_options o = {
                .dirs = m->config->rules_dirs,
                .resolve_names = m->config->resolve_names,
        };
        struct rules *rules = NULL;
        struct mdev_conf *mdev = NULL;
        unsigned bad = 0;
        int r;
        if (m->config->mdev_conf) {
                r = mdev_conf_load(m->config->mdev_conf, &mdev, &bad);
                if (r < 0)
                        return log_error_errno(r, "Cannot read %s: %m", m->config->mdev_conf);
                if (bad > 0)
                        log_warning("%s loaded with %u bad lines (skipped)", m->config->mdev_conf, bad);
        }
        r = rules_load(&o, &rules);
        if (r < 0) {
                mdev_conf_free(mdev);
                return log_error_errno(r, "Cannot load rules: %m");
        }
        if (r > 0)
                log_warning("Rules loaded with %d errors (those lines are skipped)", r);
        mdev_conf_free(m->mdev);
        m->mdev = mdev;
        m->process.mdev = mdev;
        m->process.rules = NULL;
        rules_free(m->rules);
        m->rules = rules;
        m->process.rules = rules;
        m->rules_checked_usec = time_now_usec();
        return 0;
}

/* Whether a rule calls builtin b (RUN{builtin} or IMPORT{builtin}). */
static bool rules_call_builtin(const struct rules *rules, const struct builtin *b)
{
        for (size_t i = 0; rules && i < rules->n_lines; i++)
                for (unsigned j = 0; j < rules->lines[i].n_tokens; j++) {
                        const struct rule_token *t = &rules->lines[i].tokens[j];
                        if ((t->type == TK_A_RUN_BUILTIN || t->type == TK_M_IMPORT_BUILTIN) && t->data.builtin == b)
                                return true;
                }
        return false;
}

/* Reloads now when no event runs, else as soon as the running ones are done. */
static void request_reload(struct manager *m)
{
        m->reload_pending = true;
        schedule_start(m);
}

static int republish(struct device *d, void *userdata)
{
        struct manager *m = userdata;
        return process_republish(&m->process, d);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct manager *m = userdata;
        /* between events, so no running event is changing a record being written; but a
         * busy machine must not postpone it for ever */
        if (m->queue.n_running == 0 || ++m->retry_deferred > RETRY_MAX_DEFER) {
                unsigned long failures = publish_retry_failures(m->retry);
                int error = publish_retry_first_error(m->retry);
                size_t published = 0;
                m->retry_deferred = 0;
                if (publish_retry_flush(m->retry, republish, m, &published) == 0) {
                        log_notice("Publishing works again: %zu pending devices published "
                                   "(%lu writes had failed, the first with: %s)",
                                   published, failures, strerror(-error));
                        return sd_event_source_set_enabled(s, SD_EVENT_OFF);
                }
        }
        sd_event_source_set_time_relative(s, RETRY_INTERVAL_USEC);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* Arms the retry timer when devices wait and it is not armed yet. */
static void schedule_retry(struct manager *m)
{
        int enabled = SD_EVENT_OFF;
        if (publish_retry_pending(m->retry) == 0)
                return;
        if (!m->retry_source) {
                if (sd_event_add_time_relative(m->event, &m->retry_source, CLOCK_MONOTONIC, RETRY_INTERVAL_USEC, 0,
                                               on_retry, m) < 0)
                        log_warning("Cannot arm the retry timer: unpublished devices wait for their next event");
                return;
        }
        if (sd_event_source_get_enabled(m->retry_source, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                return;
        sd_event_source_set_time_relative(m->retry_source, RETRY_INTERVAL_USEC);
        sd_event_source_set_enabled(m->retry_source, SD_EVENT_ONESHOT);
}

static void on_event_done(struct event *e, struct device *dev, int result, void *userdata)
{
        struct manager *m = userdata;
        if (dev && dev->model)
                props_shrink(&dev->props); /* kept until its next event: no growth room */
        schedule_retry(m);
        log_debug("Event %" PRIu64 " (%s %s) done%s", e->seqnum, uevent_action_to_string(e->uevent->action),
                  e->uevent->devpath, result < 0 ? " with errors" : "");
        event_queue_finish(&m->queue, e);
        update_queue_file(m);
        schedule_start(m);
        maybe_finish(m);
}

static int queue_uevent(struct manager *m, struct uevent *ev)
{
        log_debug("Queueing %s %s (seqnum %" PRIu64 ")", uevent_action_to_string(ev->action), ev->devpath,
                  ev->seqnum);
        struct event *e;
        int r = event_queue_push(&m->queue, ev, time_now_usec(), &e);
        if (r < 0)
                return log_error_errno(r, "Could not queue an event, dropping it: %m");
        /* an event of the device that waits for a child learns it from its record */
        struct device *d = ev->action == UEVENT_REMOVE ? model_get(m->model, ev->devpath) : NULL;
        if (d)
                d->removal = DEVICE_REMOVAL_QUEUED;
        /* Behind a few other events (a storm), its node need not wait for them. A long backlog
         * (the daemon was stopped) is not scanned for each event: it drains in order. */
        if (m->queue.n_queued + m->queue.n_running <= EARLY_NODE_BACKLOG && m->queue.n_queued > 1 &&
            !event_queue_blocked(&m->queue, e)) {
                r = process_make_node_early(&m->process, e);
                if (r < 0)
                        log_debug_errno(r, "%s: could not make its node early: %m", ev->devpath);
        }
        update_queue_file(m);
        schedule_start(m);
        return 0;
}

/* Overflow recovery: compare sysfs with the model and queue synthetic events for what changed
 * while events were lost: add for new devices, remove for vanished ones, change for devices
 * whose devt, node name or driver differ. */
static int resync(struct manager *m)
{
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0, added = 0, removed = 0, changed = 0;
        int r;

        r = sysfs_enumerate(m->sysfs_root, SYSFS_ENUM_ALL_DEVICES, &paths, &n);
        if (r < 0)
                return log_error_errno(r, "Resynchronisation failed, could not scan sysfs: %m");

        /* sysfs as it is now, read once into a scratch model (parents are shared), compared
         * with what the daemon's model says */
        _cleanup_(model_freep) struct model *scratch = NULL;
        r = model_new(m->sysfs_root, &scratch);
        if (r < 0)
                return log_error_errno(r, "Resynchronisation failed: %m");
        struct hashmap *seen = hashmap_new_string();
        if (!seen)
                return log_oom();
        for (size_t i = 0; i < n; i++) {
                hashmap_put(seen, paths[i], paths[i]);
                struct device *d = model_get(m->model, paths[i]);
                enum uevent_action action;
                if (!d)
                        action = UEVENT_ADD;
                else {
                        struct device *now = NULL;
                        action = _UEVENT_ACTION_INVALID;
                        if (model_add_from_sysfs(scratch, paths[i], &now) >= 0 &&
                            (now->devnum != d->devnum || now->devnum_type != d->devnum_type ||
                             !streq_ptr(now->devname, d->devname) || !streq_ptr(now->driver, d->driver)))
                                action = UEVENT_CHANGE;
                }
                if ((int)action < 0)
                        continue;
                struct uevent *ev = NULL;
                if (uevent_new(action, paths[i], NULL, &ev) >= 0 && queue_uevent(m, ev) >= 0)
                        action == UEVENT_ADD ? added++ : changed++;
        }

        /* devices the model has but sysfs no longer shows */
        _cleanup_strv_builder_ struct strv_builder gone = {0};
        size_t it = 0;
        struct device *d;
        while (model_iterate(m->model, &it, &d))
                if (!hashmap_get(seen, d->devpath) &&
                    (startswith(d->devpath, "/devices/") || startswith(d->devpath, "/class/") ||
                     startswith(d->devpath, "/block/")))
                        (void)strv_builder_push_copy(&gone, d->devpath);
        hashmap_free(seen);
        /* children before parents, so each remove finds its device */
        strv_sort(gone.v);
        for (size_t i = gone.n; i > 0; i--) {
                struct device *g = model_get(m->model, gone.v[i - 1]);
                struct props p = PROPS_INIT;
                struct uevent *ev = NULL;
                if (!g)
                        continue;
                props_copy(&p, &g->props);
                props_unset_flagged(&p, PROP_DB);
                r = uevent_new(UEVENT_REMOVE, gone.v[i - 1], &p, &ev);
                props_clear(&p);
                if (r >= 0 && queue_uevent(m, ev) >= 0)
                        removed++;
        }
        log_notice("Resynchronised with sysfs after lost events: %zu added, %zu removed, %zu changed", added,
                   removed, changed);
        return 0;
}

static unsigned read_kernel(struct manager *m, unsigned max);

/* What e's device can know of its removal when e starts (blkid must not open the node of a gone
 * block device). The queue is complete when the kernel socket was read empty just now and no
 * events were lost; otherwise, or for a device without a block node, it cannot tell. */
static enum device_removal removal_of(const struct manager *m, const struct event *e)
{
        if (e->devnum_type != 'b' || e->uevent->action == UEVENT_REMOVE)
                return DEVICE_REMOVAL_UNKNOWN;
        bool complete = m->listener && !m->exiting && !m->resync_pending && m->kernel_drained &&
                        time_now_usec() - m->kernel_read_usec < KERNEL_REREAD_USEC;
        return event_queue_removal(&m->queue, e, complete);
}

static int on_start(sd_event_source *s, void *userdata)
{
        struct manager *m = userdata;
        unsigned started = 0;
        struct event *e;

        if (m->kernel_resting) {
                m->kernel_resting = false;
                sd_event_source_set_priority(m->kernel_source, PRIORITY_KERNEL);
        }
        if (m->exec_stopped)
                return 0;
        /* Rules changed on disk or a reload was asked for: reload between events. */
        if (!m->reload_pending && m->rules && m->queue.n_queued > 0 &&
            time_now_usec() - m->rules_checked_usec >= RULES_CHECK_INTERVAL_USEC) {
                m->rules_checked_usec = time_now_usec();
                if (rules_changed_since_load(m->rules)) {
                        log_info("Rules changed on disk, reloading");
                        m->reload_pending = true;
                }
        }
        if (m->reload_pending) {
                if (m->queue.n_running > 0)
                        return 0; /* the last running event's completion schedules us again */
                m->reload_pending = false;
                (void)load_rules(m); /* on failure the old rules stay */
        }

        while (started < START_BATCH && (e = event_queue_next_ready(&m->queue))) {
                event_queue_set_running(&m->queue, e);
                e->removal = removal_of(m, e);
                started++;
                int r = process_event(&m->process, e, on_event_done, m);
                if (r < 0) {
                        log_error_errno(r, "Could not start event %" PRIu64 ", dropping it: %m", e->seqnum);
                        event_queue_finish(&m->queue, e);
                        update_queue_file(m);
                }
                /* behind a long backlog a new event gets no early node: no need to look */
                if (m->queue.n_queued < EARLY_NODE_BACKLOG &&
                    time_now_usec() - m->kernel_read_usec >= KERNEL_REREAD_USEC)
                        read_kernel(m, 1024);
        }
        if (event_queue_next_ready(&m->queue))
                schedule_start(m); /* more to do: after the kernel socket had its turn */
        else if (m->resync_pending && event_queue_is_empty(&m->queue)) {
                resync(m);
                m->resync_pending = false;
                update_queue_file(m);
        }
        maybe_finish(m);
        return 0;
}

/* Queues what the kernel socket holds, at most max uevents; returns how many were queued. */
static unsigned read_kernel(struct manager *m, unsigned max)
{
        unsigned queued = 0;
        if (!m->listener || m->exiting)
                return 0;
        m->kernel_read_usec = time_now_usec();
        m->kernel_drained = false;
        for (unsigned i = 0; i < max; i++) {
                struct uevent *ev = NULL;
                int r = uevent_listener_receive(m->listener, &ev);
                if (r == 0) {
                        m->kernel_drained = true;
                        break;
                }
                if (r == -ENOBUFS) {
                        log_warning("The kernel dropped uevents (receive buffer overflow); will resynchronise");
                        /* a buffer that overflowed once will again: grow it */
                        if (m->rcvbuf < MAX_RCVBUF) {
                                m->rcvbuf = m->rcvbuf * 2 > MAX_RCVBUF ? MAX_RCVBUF : m->rcvbuf * 2;
                                if (uevent_listener_set_rcvbuf(m->listener, m->rcvbuf) >= 0)
                                        log_notice("Kernel socket receive buffer raised to %d bytes", m->rcvbuf);
                        }
                        m->resync_pending = true;
                        update_queue_file(m);
                        schedule_start(m);
                        continue;
                }
                if (r == -EBADMSG)
                        continue; /* logged by the listener */
                if (r < 0) {
                        log_warning_errno(r, "Could not receive from the kernel socket: %m");
                        break;
                }
                if (queue_uevent(m, ev) >= 0)
                        queued++;
        }
        return queued;
}

static int on_kernel(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        struct manager *m = userdata;
        /* bounded, so that signals and the control socket get their turn in a storm, and queued
         * events wait for at most this many reads (tests/root/fairness-bound.sh) */
        if (read_kernel(m, 1024) > 0 && !m->exiting) {
                /* behind the start of events until on_start() (scheduled by queue_uevent) runs:
                 * a change of priority, not of the epoll set (no syscall) */
                sd_event_source_set_priority(s, PRIORITY_START + 1);
                m->kernel_resting = true;
        }
        return 0;
}

static void start_exit(struct manager *m)
{
        m->exiting = true;
        /* queued events that have not started are dropped; the next daemon's coldplug redoes them */
        for (struct event *e = m->queue.head, *next; e; e = next) {
                next = e->next;
                if (e->state == EVENT_QUEUED)
                        event_queue_finish(&m->queue, e);
        }
        update_queue_file(m);
        if (m->kernel_source)
                sd_event_source_set_enabled(m->kernel_source, SD_EVENT_OFF);
        maybe_finish(m);
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        struct manager *m = userdata;
        log_info("Received SIG%s, exiting once running events are done", sigabbrev_np((int)si->ssi_signo));
        start_exit(m);
        return 0;
}

static int on_reload_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        log_info("Received SIGHUP: reloading rules");
        request_reload(userdata);
        return 0;
}

/* ---- control socket ---------------------------------------------------------------- */

static void ctrl_set_log_level(int level, void *userdata)
{
        log_set_max_level(level);
        log_info("Log level set to %s", log_level_to_string(level));
}

static void ctrl_stop_exec_queue(void *userdata)
{
        struct manager *m = userdata;
        m->exec_stopped = true;
        log_debug("Event execution stopped");
}

static void ctrl_start_exec_queue(void *userdata)
{
        struct manager *m = userdata;
        m->exec_stopped = false;
        log_debug("Event execution started");
        schedule_start(m);
}

static void ctrl_reload(void *userdata)
{
        log_info("Reload requested through the control socket");
        request_reload(userdata);
}

static void ctrl_set_env(const char *key, const char *value, void *userdata)
{
        struct manager *m = userdata;
        /* "KEY=" removes the property, as with udevd */
        int r = props_set(&m->global_props, key, isempty(value) ? NULL : value, PROP_GLOBAL);
        if (r < 0)
                log_warning_errno(r, "Cannot set global property %s, ignoring: %m", key);
        else
                log_debug("Global property %s=%s", key, strempty(value));
}

static void ctrl_set_children_max(unsigned n, void *userdata)
{
        struct manager *m = userdata;
        spawn_manager_set_children_max(m->spawn, n);
        log_debug("children_max set to %u", n);
}

static void ctrl_exit(void *userdata)
{
        log_info("Exit requested through the control socket");
        start_exit(userdata);
}

static void ctrl_ping(void *userdata)
{
        log_debug("Ping");
        read_kernel(userdata, UINT_MAX); /* the answer covers every event sent before the ping */
}

static bool ctrl_is_idle(void *userdata)
{
        struct manager *m = userdata;
        read_kernel(m, UINT_MAX);
        if (queue_busy(m))
                return false;
        remove_queue_file(m); /* the client answered "idle" finds no file either */
        return true;
}

static const struct ctrl_ops ctrl_ops = {
        .set_log_level = ctrl_set_log_level,
        .stop_exec_queue = ctrl_stop_exec_queue,
        .start_exec_queue = ctrl_start_exec_queue,
        .reload = ctrl_reload,
        .set_env = ctrl_set_env,
        .set_children_max = ctrl_set_children_max,
        .ping = ctrl_ping,
        .exit = ctrl_exit,
        .is_idle = ctrl_is_idle,
};

/* ---- setup ------------------------------------------------------------------------- */

int manager_new(const struct manager_options *o, struct manager **ret)
{
        struct manager *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return log_oom();
        m->opt = *o;
        m->config = o->config;
        m->devfd = m->runfd = -1;
        m->idle_trim = (struct quiet_timer){.m = m, .delay = IDLE_TRIM_USEC, .accuracy = 50 * 1000,
                                            .fire = trim_memory};
        m->queue_file_linger = (struct quiet_timer){.m = m, .delay = QUEUE_FILE_LINGER_USEC,
                                                    .accuracy = QUEUE_FILE_LINGER_ACCURACY_USEC,
                                                    .fire = remove_queue_file};
        m->sysfs_root = strdup(o->config->sysfs_root);
        m->dev_root = strdup(o->config->dev_root);
        m->run_root = strdup(o->config->run_root);
        if (!m->sysfs_root || !m->dev_root || !m->run_root) {
                r = log_oom();
                goto fail;
        }

        r = fs_open_dir(m->dev_root, false, &m->devfd);
        if (r < 0) {
                log_error_errno(r, "Cannot open the /dev root %s: %m", m->dev_root);
                goto fail;
        }
        r = fs_mkdir_parents(m->run_root, 0755);
        if (r >= 0)
                r = fs_open_dir(m->run_root, true, &m->runfd);
        if (r < 0) {
                log_error_errno(r, "Cannot open the run directory %s: %m", m->run_root);
                goto fail;
        }
        /* A queue file and control socket left by a daemon that died are stale: remove them at
         * once, so nobody takes the old socket for a sign that this daemon is ready. */
        (void)unlinkat(m->runfd, "queue", 0);
        {
                _cleanup_free_ char *control = path_join(m->run_root, "control");
                int cfd = control && o->listen_fd_control < 0 ? ctrl_client_connect(control) : -EBADF;
                if (cfd >= 0)
                        close(cfd); /* someone answers: ctrl_server_new() will refuse to take over */
                else if (cfd == -ECONNREFUSED)
                        (void)unlinkat(m->runfd, "control", 0);
        }

        r = model_new(m->sysfs_root, &m->model);
        if (r < 0) {
                log_error_errno(r, "Cannot use %s as sysfs root: %m", m->sysfs_root);
                goto fail;
        }
        r = model_set_dev_root(m->model, m->dev_root);
        if (r < 0)
                goto fail;
        /* decided here, once: the kernel's own sysfs, or a tree made for tests */
        struct statfs sfs;
        if (statfs(m->sysfs_root, &sfs) < 0) {
                r = log_error_errno(errno, "Cannot examine %s: %m", m->sysfs_root);
                goto fail;
        }
        model_set_live(m->model, sfs.f_type == SYSFS_MAGIC);

        r = sd_event_default(&m->event);
        if (r < 0) {
                log_error_errno(r, "Cannot create the event loop: %m");
                goto fail;
        }
        r = spawn_manager_new(m->event, NULL, m->config->children_max, &m->spawn);
        if (r < 0) {
                log_error_errno(r, "Cannot set up child processes: %m");
                goto fail;
        }
        m->retry = publish_retry_new();
        if (!m->retry) {
                r = log_oom();
                goto fail;
        }
        m->builtins.sysfs_root = m->sysfs_root;
        r = load_rules(m);
        if (r < 0)
                goto fail;
        m->process = (struct process_ctx){
                .model = m->model,
                .dev_root = m->dev_root,
                .run_root = m->run_root,
                .devfd = m->devfd,
                .devdirs = &m->devdirs,
                .runfd = m->runfd,
                .rundirs = &m->rundirs,
                .rules = m->rules,
                .mdev = m->mdev,
                .builtins = &m->builtins,
                .spawn = m->spawn,
                .retry = m->retry,
                .event = m->event,
                .event_timeout_usec = m->config->event_timeout_usec,
                .timeout_signal = m->config->timeout_signal,
                .global_props = &m->global_props,
        };
        *ret = m;
        return 0;
fail:
        manager_free(m);
        return r;
}

struct manager *manager_free(struct manager *m)
{
        if (!m)
                return NULL;
        for (struct event *e = m->queue.head; e; e = e->next)
                if (e->data)
                        process_event_abort(e);
        event_queue_clear(&m->queue);
        update_queue_file(m);
        remove_queue_file(m); /* not left lingering */
        ctrl_server_free(m->ctrl);
        sd_event_source_unref(m->retry_source);
        publish_retry_free(m->retry);
        spawn_manager_free(m->spawn); /* kills children of aborted events */
        if (m->marker)
                (void)unlinkat(m->runfd, RUNNING_MARKER, 0); /* a clean exit */
        if (m->builtins_ready)
                builtin_exit_all(&m->builtins);
        monitor_free(m->monitor);
        rules_free(m->rules);
        mdev_conf_free(m->mdev);
        props_clear(&m->global_props);
        sd_event_source_unref(m->kernel_source);
        sd_event_source_unref(m->start_source);
        sd_event_source_unref(m->idle_trim.source);
        sd_event_source_unref(m->queue_file_linger.source);
        uevent_listener_free(m->listener);
        model_free(m->model);
        sd_event_unref(m->event);
        devdir_cache_clear(&m->devdirs);
        devdir_cache_clear(&m->rundirs);
        if (m->devfd >= 0)
                close(m->devfd);
        if (m->runfd >= 0)
                close(m->runfd);
        free(m->sysfs_root);
        free(m->dev_root);
        free(m->run_root);
        free(m);
        return NULL;
}

static int queue_coldplug(struct manager *m)
{
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0;
        int r = sysfs_enumerate(m->sysfs_root, SYSFS_ENUM_ALL_DEVICES, &paths, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot enumerate %s: %m", m->sysfs_root);
        for (size_t i = 0; i < n; i++) {
                struct uevent *ev = NULL;
                r = uevent_new(UEVENT_ADD, paths[i], NULL, &ev);
                if (r < 0) {
                        log_warning_errno(r, "%s: cannot make a coldplug event, skipping: %m", paths[i]);
                        continue;
                }
                r = queue_uevent(m, ev);
                if (r < 0)
                        return r;
        }
        log_debug("Coldplug: %zu devices queued", n);
        return 0;
}

/* What a previous daemon (perhaps killed mid-storm) left behind is brought in line with sysfs. */
static int reconcile_previous(struct manager *m)
{
        _cleanup_strv_free_ char **add = NULL;
        struct reconcile_stats st;
        bool crashed = faccessat(m->runfd, RUNNING_MARKER, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
        int fd = openat(m->runfd, RUNNING_MARKER, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                log_warning("Cannot create %s/%s, a crash will not be detected: %m", m->run_root, RUNNING_MARKER);
        else
                close(fd);
        m->marker = fd >= 0;
        if (crashed)
                log_notice("The previous daemon did not exit cleanly: reconciling");
        int r = reconcile(m->model, m->devfd, m->runfd, m->run_root, crashed, &add, &st);
        if (r < 0)
                return log_error_errno(r, "Cannot reconcile with the previous state in %s: %m", m->run_root);
        /* What waits in the kernel socket (kept by the service manager while no daemon ran) is
         * queued first: a device with an event there is processed by that event and needs no
         * synthetic add. After a crash in coldplug that is most of them. */
        struct hashmap *waiting = NULL;
        size_t n_waiting = 0, n_added = 0;
        if (add && *add) {
                while (read_kernel(m, 1024) > 0 && !m->kernel_drained)
                        ;
                waiting = hashmap_new_string();
                for (struct event *e = m->queue.head; waiting && e; e = e->next)
                        if (hashmap_put(waiting, e->uevent->devpath, e) == -ENOMEM)
                                waiting = hashmap_free(waiting); /* then every device gets its add */
        }
        STRV_FOREACH(p, add) {
                struct uevent *ev = NULL;
                if (waiting && hashmap_get(waiting, *p)) {
                        n_waiting++;
                        continue;
                }
                if (uevent_new(UEVENT_ADD, *p, NULL, &ev) >= 0 && queue_uevent(m, ev) >= 0)
                        n_added++;
        }
        hashmap_free(waiting);
        if (st.stale_entries || st.stale_nodes || st.stale_claims || st.to_add)
                log_notice("Reconciled with the previous state: %u stale entries, %u stale nodes, %u stale link "
                           "claims removed; %zu devices to process again, %zu more have events waiting",
                           st.stale_entries, st.stale_nodes, st.stale_claims, n_added, n_waiting);
        return 0;
}

static int add_signal(struct manager *m, int sig, sd_event_signal_handler_t handler)
{
        sd_event_source *s = NULL;
        int r = sd_event_add_signal(m->event, &s, sig, handler, m);
        if (r >= 0)
                r = sd_event_source_set_priority(s, PRIORITY_SIGNAL);
        if (r >= 0)
                r = sd_event_source_set_floating(s, 1);
        sd_event_source_unref(s);
        return r;
}

static int setup_signals(struct manager *m)
{
        sigset_t mask;
        int r;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGCHLD); /* sd-event child sources need it blocked */
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return negative_errno();
        if ((r = add_signal(m, SIGTERM, on_exit_signal)) < 0 || (r = add_signal(m, SIGINT, on_exit_signal)) < 0 ||
            (r = add_signal(m, SIGHUP, on_reload_signal)) < 0)
                return r;
        return 0;
}

static int setup_listening(struct manager *m)
{
        int r;

        m->rcvbuf = m->opt.rcvbuf;
        if (m->opt.uevent_socket) {
                /* synthetic uevents are for fake trees: on a real sysfs they would contradict the
                 * kernel's own devices */
                if (model_is_live(m->model))
                        return log_error_errno(EPERM, "%s is a real sysfs: --uevent-socket is only for a fake tree",
                                               m->sysfs_root);
                r = uevent_listener_new_local(m->opt.uevent_socket, &m->listener);
                if (r < 0)
                        return log_error_errno(r, "Cannot create the uevent socket %s: %m", m->opt.uevent_socket);
                log_info("Taking uevents from %s instead of the kernel", m->opt.uevent_socket);
        } else {
                r = uevent_listener_new(m->opt.listen_fd_kernel, m->opt.rcvbuf, &m->listener);
                m->opt.listen_fd_kernel = -1;
                if (r < 0)
                        return log_error_errno(r, "Cannot open the kernel uevent socket: %m");
        }
        r = sd_event_add_io(m->event, &m->kernel_source, uevent_listener_fd(m->listener), EPOLLIN, on_kernel, m);
        if (r >= 0)
                r = sd_event_source_set_priority(m->kernel_source, PRIORITY_KERNEL);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the kernel uevent socket: %m");

        /* libudev 252 aborts on a DEVNAME outside /dev/: clients get the names they would
         * use, even when the nodes are made under a private root (tests, staging) */
        if (!m->opt.uevent_socket) { /* fake devices are not announced to the machine's clients */
                r = monitor_new("/dev", &m->monitor);
                if (r < 0)
                        return log_error_errno(r, "Cannot open the udev monitor socket: %m");
                m->process.monitor = m->monitor;
        }

        /* The control socket last: its existence tells libudev clients (and init scripts) that
         * the daemon is ready. */
        if (m->opt.listen_fd_control >= 0) {
                r = ctrl_server_new_from_fd(m->event, m->opt.listen_fd_control, &ctrl_ops, m, &m->ctrl);
                m->opt.listen_fd_control = -1;
        } else {
                _cleanup_free_ char *path = path_join(m->run_root, "control");
                r = path ? ctrl_server_new(m->event, path, &ctrl_ops, m, &m->ctrl) : -ENOMEM;
        }
        if (r == -EADDRINUSE)
                return log_error_errno(r, "Another daemon answers on %s/control", m->run_root);
        if (r < 0)
                return log_error_errno(r, "Cannot create the control socket: %m");
        return 0;
}

int manager_run(struct manager *m, void (*on_ready)(void *userdata), void *userdata)
{
        int r;

        r = setup_signals(m);
        if (r < 0)
                return log_error_errno(r, "Cannot set up signal handling: %m"), 1;

        r = sd_event_add_defer(m->event, &m->start_source, on_start, m);
        if (r >= 0)
                r = sd_event_source_set_priority(m->start_source, PRIORITY_START);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->start_source, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the event queue: %m"), 1;

        /* nodes of modules that load on first open get the permissions rules give them */
        r = static_perms_apply(m->devfd, m->dev_root, m->runfd, m->rules);
        if (r < 0)
                log_warning_errno(r, "Cannot apply static node permissions: %m");
        else if (r > 0)
                log_debug("Permissions applied to %d static nodes", r);

        r = builtin_init_all(&m->builtins);
        if (r < 0)
                log_warning_errno(r, "Some builtins could not be initialised, rules using them will fail: %m");
        m->builtins_ready = true;
        /* said before readiness, not on the first event: a boot whose modules cannot load
         * misses devices, and its log should say why where the daemon starts */
        builtin_kmod_report_setup(&m->builtins, rules_call_builtin(m->rules, builtin_lookup("kmod")),
                                  access("/proc/modules", F_OK) == 0);

        if (m->opt.once) {
                r = queue_coldplug(m);
                if (r < 0)
                        return 1;
                if (on_ready)
                        on_ready(userdata);
                if (event_queue_is_empty(&m->queue))
                        return 0;
        } else {
                r = model_scan(m->model);
                if (r < 0)
                        return log_error_errno(r, "Cannot scan %s: %m", m->sysfs_root), 1;
                log_debug("Model built from %s: %d devices", m->sysfs_root, r);
                r = setup_listening(m);
                if (r < 0)
                        return 1;
                r = reconcile_previous(m);
                if (r < 0)
                        return 1;
                /* Start-up (loading the libraries, rules, the sysfs scan) faulted in far more than
                 * the daemon needs: give it back before the first events (a coldplug follows
                 * readiness at once, before any idle timer would run), so their working set is
                 * not added on top. */
                trim_memory(m);
                if (on_ready)
                        on_ready(userdata);
        }

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m"), 1;
        if (publish_retry_pending(m->retry) > 0) {
                int error = publish_retry_first_error(m->retry);
                size_t left = publish_retry_flush(m->retry, republish, m, NULL);
                if (left > 0)
                        log_warning("%zu devices are left unpublished: their links or database entries could not "
                                    "be written (%s)", left, strerror(-error));
        }
        log_debug("Processed %lu events (%lu with errors)", m->process.n_processed, m->process.n_failed);
        return r;
}
