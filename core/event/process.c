/* SPDX-License-Identifier: MIT */
#include "process.h"

#include <inttypes.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "builtin.h"
#include "db.h"
#include "publish-retry.h"
#include "links.h"
#include "log.h"
#include "mdev-apply.h"
#include "mdev-conf.h"
#include "monitor.h"
#include "netif-rename.h"
#include "node.h"
#include "rules-exec.h"
#include "spawn.h"
#include "strv.h"
#include "time-util.h"

enum step {
        STEP_MODEL,
        STEP_RULES,      /* may wait for a PROGRAM child */
        STEP_RENAME,     /* may wait for a retry timer */
        STEP_MDEV,       /* mdev.conf: matched; a remove event's commands (may wait for them) */
        STEP_PUBLISH,    /* node, links, database */
        STEP_MDEV_POST,  /* mdev.conf: the commands of other events (may wait for them) */
        STEP_RUN,        /* may wait for a RUN child */
        STEP_BROADCAST,
        STEP_DONE,
};

struct event_run {
        struct process_ctx *ctx;
        struct event *event;
        struct device *dev;
        struct rules_exec *exec;
        char **old_links; /* links before this event, to update claims */
        char **old_tags;  /* tags of the database entry before this event, to drop stale tag indexes */
        char *old_devname; /* move: the node name before the rename (device_rename() renames the node) */
        size_t run_index; /* next RUN entry */
        struct mdev_result mdev; /* the mdev.conf lines that matched (ctx->mdev) */
        char **mdev_env;  /* the event's environment mdev.conf matches and its commands get */
        size_t mdev_index; /* next mdev.conf command */
        unsigned rename_attempts;
        sd_event_source *timer; /* rename retry */
        bool old_synced;  /* old_tags are the entry's (the record was synced with the database) */
        bool node_made;   /* the node and its M:m link were made before the rules, in this event */
        bool waiting;     /* a child of ours is running */
        bool aborted;     /* the daemon gave up on the event while a child ran */
        int result;
        enum step step;
        process_done_t done;
        void *userdata;
};

static struct event_run *run_free(struct event_run *run)
{
        if (run) {
                sd_event_source_disable_unref(run->timer);
                rules_exec_free(run->exec);
                mdev_result_clear(&run->mdev);
                strv_free(run->mdev_env);
                strv_free(run->old_links);
                strv_free(run->old_tags);
                free(run->old_devname);
                device_unref(run->dev);
                free(run);
        }
        return NULL;
}

static enum uevent_action action_of(const struct event_run *run)
{
        return run->event->uevent->action;
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

/* The node of a device that is being added, with the safest access (0600 root), when rules
 * will run and /dev lacks it: 1 when made, 0 when there was nothing to do, -errno. */
static int make_node_before_rules(struct process_ctx *ctx, const char *name, char type, dev_t devnum)
{
        if (!ctx->rules || ctx->dry_run || ctx->devfd < 0)
                return 0;
        return node_apply(ctx->devfd, ctx->devdirs, name, type, devnum, NULL, NODE_IF_ABSENT);
}

static void step_model(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        const struct uevent *ev = run->event->uevent;
        /* the record under its old devpath still has the old node name; applying renames it */
        const struct device *old =
                ev->action == UEVENT_MOVE && ev->devpath_old ? model_get(ctx->model, ev->devpath_old) : NULL;
        if (old && old->devname && !(run->old_devname = strdup(old->devname))) {
                run->result = log_oom();
                run->step = STEP_DONE;
                return;
        }
        int r = model_apply_uevent(ctx->model, ev, &run->dev);
        if (r < 0) {
                log_warning_errno(r, "%s: could not apply %s event, skipping it: %m", run->event->uevent->devpath,
                                  uevent_action_to_string(action_of(run)));
                run->result = r;
                run->step = STEP_DONE;
                return;
        }
        /* Properties set for all events through the control socket: the current set only. */
        props_unset_flagged(&run->dev->props, PROP_GLOBAL);
        if (ctx->global_props && props_merge(&run->dev->props, ctx->global_props, PROP_GLOBAL, NULL) < 0)
                run->result = log_oom();
        /* The event's own keys are properties while it is processed, as in udev ($env{ACTION},
         * ENV{SEQNUM}, builtins that look at ACTION); finish() drops them again. The record's set
         * was shrunk after its last event: room for these and for what rules add, in one step. */
        if (props_reserve(&run->dev->props, 256) < 0 ||
            props_set(&run->dev->props, "ACTION", uevent_action_to_string(action_of(run)), PROP_KERNEL) < 0 ||
            (run->event->uevent->seqnum &&
             props_set_uint(&run->dev->props, "SEQNUM", run->event->uevent->seqnum, PROP_KERNEL) < 0))
                run->result = log_oom();
        /* After a restart the record knows nothing of earlier events: the database does. Once
         * read (or found absent) the record holds what devman writes, so it is read once. */
        if (!run->dev->udev && !run->dev->db_synced && ctx->run_root) {
                r = db_read(ctx->run_root, run->dev);
                if (r < 0)
                        log_debug_errno(r, "%s: database entry unreadable, starting afresh: %m",
                                        run->dev->devpath);
        }
        /* Builtins and programs open the node ($devnode: blkid, ata_id ...): on a /dev that is
         * not a devtmpfs nobody made it yet, so it is made now with the safest access (0600
         * root); the rules' mode and owner follow after them. */
        struct device *d = run->dev;
        run->node_made = run->event->node_made; /* made when it was queued (process_make_node_early) */
        d->removal = run->event->removal;
        if (!run->node_made && d->devnum_type && d->devname && action_of(run) != UEVENT_REMOVE) {
                r = make_node_before_rules(ctx, d->devname, d->devnum_type, d->devnum);
                if (r < 0)
                        log_debug_errno(r, "%s: could not make node %s before the rules: %m", d->devpath,
                                        d->devname);
                run->node_made = r > 0;
        }
        run->old_synced = run->dev->db_synced;
        if (run->dev->udev && (strv_copy(run->dev->udev->links, &run->old_links) < 0 ||
                               strv_copy(run->dev->udev->tags, &run->old_tags) < 0)) {
                run->result = log_oom();
                run->step = STEP_DONE;
                return;
        }
        run->step = STEP_RULES;
}

static void on_program_done(const struct spawn_result *res, void *userdata);
static void advance(struct event_run *run);

/* Evaluates the rules; returns true when it has to wait for a child. */
static bool step_rules(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        int r;

        if (!ctx->rules) {
                run->step = STEP_MDEV;
                return false;
        }
        if (!run->exec) {
                struct rules_exec_options o = {
                        .sysfs_root = model_sysfs_root(ctx->model),
                        .dev_root = ctx->dev_root,
                        .run_root = ctx->run_root,
                        .program_dir = ctx->program_dir,
                        .builtins = ctx->builtins,
                        .test = ctx->dry_run,
                };
                r = rules_exec_new(ctx->rules, run->dev, action_of(run), &o, &run->exec);
                if (r < 0) {
                        log_warning_errno(r, "%s: cannot evaluate rules, skipping them: %m", run->dev->devpath);
                        run->result = r;
                        run->step = STEP_MDEV;
                        return false;
                }
        }
        for (;;) {
                r = rules_exec_run(run->exec);
                if (r == RULES_EXEC_NEED_PROGRAM) {
                        const struct rules_program *p = rules_exec_get_program(run->exec);
                        struct spawn_options so = {
                                .timeout_usec = ctx->event_timeout_usec,
                                .timeout_signal = ctx->timeout_signal,
                                .capture_stdout = true,
                        };
                        r = spawn_start(ctx->spawn, p->cmdline, p->envp, &so, on_program_done, run);
                        if (r >= 0) {
                                run->waiting = true;
                                return true;
                        }
                        log_warning_errno(r, "%s: cannot run '%s': %m", run->dev->devpath, p->cmdline);
                        if (rules_exec_program_done(run->exec, r, NULL, 0) < 0)
                                break;
                        continue;
                }
                if (r < 0) {
                        log_warning_errno(r, "%s: rules evaluation failed: %m", run->dev->devpath);
                        run->result = r;
                }
                break;
        }
        run->step = STEP_RENAME;
        return false;
}

#define RENAME_ATTEMPTS 6 /* waits 5, 10, 20, 40, 80 ms in between: a name being freed by a swap */

static int on_rename_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct event_run *run = userdata;
        run->timer = sd_event_source_disable_unref(run->timer);
        run->waiting = false;
        advance(run);
        return 0;
}

/* NAME= on a network interface renames it; returns true when it has to wait for a retry. */
static bool step_rename(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        struct device *d = run->dev;
        const char *name = run->exec ? rules_exec_name(run->exec) : NULL;
        int r;

        if (!name || ctx->dry_run || d->ifindex <= 0 || !streq_ptr(d->subsystem, "net") ||
            action_of(run) == UEVENT_REMOVE || streq(name, d->sysname)) {
                run->step = STEP_MDEV;
                return false;
        }
        /* An ifindex read from a fake sysfs tree names whatever interface the machine has under
         * that number: rename only what the live kernel showed us. */
        if (!model_is_live(ctx->model)) {
                log_info("%s: not renaming %s to %s: the sysfs root is not the live /sys", d->devpath, d->sysname,
                         name);
                run->step = STEP_MDEV;
                return false;
        }
        r = netif_rename(d->ifindex, name, NULL);
        if ((r == -EEXIST || r == -EBUSY) && ++run->rename_attempts < RENAME_ATTEMPTS) {
                uint64_t delay = 5000ULL << (run->rename_attempts - 1);
                if (sd_event_add_time_relative(ctx->event, &run->timer, CLOCK_MONOTONIC, delay, 0, on_rename_retry,
                                               run) >= 0) {
                        run->waiting = true;
                        return true;
                }
        }
        if (r < 0) {
                log_warning_errno(r, "%s: cannot rename network interface %s to %s, keeping its name: %m",
                                  d->devpath, d->sysname, name);
                run->result = r;
        } else {
                /* the kernel's move event renames the record; clients of this event see the new name */
                log_info("%s: renamed network interface %s to %s", d->devpath, d->sysname, name);
                if (props_set(&d->props, "INTERFACE", name, PROP_KERNEL) < 0)
                        run->result = log_oom();
        }
        run->step = STEP_MDEV;
        return false;
}

static const char *mdev_getenv(const char *key, void *userdata)
{
        return strv_env_get(userdata, key);
}

/* Matches d's event against mdev.conf: its environment in *ret_env (what the lines' $VAR and
 * VAR= see, the base of the commands' environment) and the matched lines in *res. A line the
 * file does not decide (the implicit last one) keeps the access the rules gave. 0 or -errno. */
static int mdev_match(const struct process_ctx *ctx, struct device *d, enum uevent_action action, char ***ret_env,
                      struct mdev_result *res)
{
        _cleanup_strv_free_ char **base = NULL, **env = NULL;
        int r = rules_device_env(d, action, ctx->dev_root, &base);
        if (r < 0 || (r = mdev_command_env(base, d->devname, NULL, &env)) < 0)
                return r;
        const char *slash = strrchr(d->devpath, '/');
        struct mdev_device md = {
                .name = d->devname ? d->devname : slash ? slash + 1 : d->devpath,
                .has_devt = d->devnum_type != 0,
                .major = major(d->devnum),
                .minor = minor(d->devnum),
                .getenv = mdev_getenv,
                .userdata = env,
        };
        r = mdev_conf_match(ctx->mdev, &md, action, res);
        if (r < 0)
                return r;
        const struct device_udev *u = d->udev;
        for (size_t i = 0; i < res->n_actions; i++) {
                struct mdev_action *a = &res->actions[i];
                if (a->unsafe)
                        log_warning("%s: %s:%u: node name '%s' leaves the /dev root, making no node", d->devpath,
                                    ctx->mdev->path, a->line, a->mdev);
                if (a->line == 0 && u) {
                        if (u->mode != (mode_t)-1)
                                a->mode = u->mode;
                        if (u->uid != (uid_t)-1)
                                a->uid = u->uid;
                        if (u->gid != (gid_t)-1)
                                a->gid = u->gid;
                }
        }
        *ret_env = TAKE_PTR(env);
        return 0;
}

/* One log line per child that did not succeed, for PROGRAM and RUN alike (spawn.c logs the
 * details at debug level). */
static void log_child_outcome(const struct event_run *run, const char *kind, const struct spawn_result *res)
{
        const char *devpath = run->dev->devpath;
        if (res->error < 0)
                log_warning_errno(res->error, "%s: %s '%s' failed: %m", devpath, kind, res->cmd);
        else if (res->timed_out && res->signal)
                log_warning("%s: %s '%s' timed out and was killed by signal %d", devpath, kind, res->cmd,
                            res->signal);
        else if (res->timed_out)
                log_warning("%s: %s '%s' timed out and exited with %d", devpath, kind, res->cmd,
                            res->exit_status);
        else if (res->signal)
                log_warning("%s: %s '%s' was killed by signal %d", devpath, kind, res->cmd, res->signal);
        else if (res->exit_status != 0)
                /* a failing PROGRAM is a rule that does not match; a failing RUN is worth a warning */
                log_full(streq(kind, "RUN") ? LOG_WARNING : LOG_DEBUG, "%s: %s '%s' exited with %d", devpath, kind,
                         res->cmd, res->exit_status);
        if (res->truncated)
                log_warning("%s: %s '%s': output truncated to %zu bytes", devpath, kind, res->cmd, res->output_len);
}

static void on_mdev_done(const struct spawn_result *res, void *userdata)
{
        struct event_run *run = userdata;
        run->waiting = false;
        if (run->aborted) {
                run_free(run);
                return;
        }
        log_child_outcome(run, "mdev.conf command", res);
        advance(run);
}

/* Runs the matched mdev.conf commands in line order, through /bin/sh -c, with $MDEV; returns
 * true when it has to wait for one. */
static bool mdev_commands(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;

        while (!ctx->dry_run && run->mdev_index < run->mdev.n_actions) {
                const struct mdev_action *a = &run->mdev.actions[run->mdev_index++];
                _cleanup_strv_free_ char **env = NULL;
                if (!a->cmd)
                        continue;
                if (mdev_command_env(run->mdev_env, NULL, a->mdev, &env) < 0) {
                        log_oom();
                        continue;
                }
                struct spawn_options so = {.timeout_usec = ctx->event_timeout_usec,
                                           .timeout_signal = ctx->timeout_signal,
                                           .shell = true,
                                           .cwd = ctx->dev_root}; /* busybox runs them in /dev */
                int r = spawn_start(ctx->spawn, a->cmd, env, &so, on_mdev_done, run);
                if (r >= 0) {
                        run->waiting = true;
                        return true;
                }
                log_warning_errno(r, "%s: cannot run mdev.conf command '%s': %m", run->dev->devpath, a->cmd);
        }
        return false;
}

/* After the rules: mdev.conf is matched, and a remove event runs its commands before its
 * nodes go (as busybox's '$'); returns true when it has to wait for one. */
static bool step_mdev(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;

        if (ctx->mdev && !run->mdev_env) {
                int r = mdev_match(ctx, run->dev, action_of(run), &run->mdev_env, &run->mdev);
                if (r < 0) {
                        log_warning_errno(r, "%s: cannot match mdev.conf, skipping it: %m", run->dev->devpath);
                        run->result = r;
                }
        }
        if (run->mdev_env && action_of(run) == UEVENT_REMOVE && mdev_commands(run))
                return true;
        run->step = STEP_PUBLISH;
        return false;
}

/* The commands of other events, after the nodes were made ('@' and '*'). */
static bool step_mdev_post(struct event_run *run)
{
        if (run->mdev_env && action_of(run) != UEVENT_REMOVE && mdev_commands(run))
                return true;
        run->step = STEP_RUN;
        return false;
}

static void on_program_done(const struct spawn_result *res, void *userdata)
{
        struct event_run *run = userdata;
        run->waiting = false;
        if (run->aborted) {
                run_free(run);
                return;
        }
        log_child_outcome(run, "PROGRAM", res);
        int status = spawn_status(res->error, res->timed_out, res->signal, res->exit_status);
        if (rules_exec_program_done(run->exec, status, res->output, res->output_len) < 0)
                log_oom();
        advance(run);
}

struct node_access process_node_access(const struct device *d)
{
        /* Rules decide; else the kernel's DEVMODE/DEVUID/DEVGID; else nothing is decided and the
         * node keeps what it has (a new one gets 0600 root). As udev does, a node given a group
         * other than root and no mode gets 0660. */
        const struct device_udev *u = d->udev;
        struct node_access a = NODE_ACCESS_UNSET;
        a.uid = u && u->uid != (uid_t)-1 ? u->uid : (uid_t)parse_id(device_get_property(d, "DEVUID"), a.uid);
        a.gid = u && u->gid != (gid_t)-1 ? u->gid : (gid_t)parse_id(device_get_property(d, "DEVGID"), a.gid);
        a.mode = u && u->mode != (mode_t)-1 ? u->mode : parse_mode(device_get_property(d, "DEVMODE"), a.mode);
        if (a.mode == NODE_MODE_UNSET && a.gid != NODE_GID_UNSET && a.gid != 0)
                a.mode = 0660;
        return a;
}

/* Creates (or updates) d's node, and its M:m link unless made is true (the node and its link
 * were made before the rules, in this event); 0, or -errno (logged by the caller). */
static int make_node(struct process_ctx *ctx, struct device *d, bool made)
{
        if (!d->devnum_type || !d->devname)
                return 0;
        const struct node_access a = process_node_access(d);
        int r = node_apply(ctx->devfd, ctx->devdirs, d->devname, d->devnum_type, d->devnum, &a,
                           made ? NODE_MADE_NOW : 0);
        if (r > 0)
                log_debug("%s: created %s %c%u:%u mode %04o", d->devpath, d->devname, d->devnum_type,
                          major(d->devnum), minor(d->devnum), (unsigned)a.mode);
        return r < 0 ? r : 0;
}

/* mdev.conf's nodes and links: made on add, removed on remove, left alone on other events as
 * busybox does. 0 or -errno, as publish_node(). */
static int publish_mdev_nodes(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        struct device *d = run->dev;
        int r;

        if (!d->devnum_type)
                return 0;
        if (action_of(run) == UEVENT_REMOVE) {
                r = mdev_apply_remove(ctx->devfd, ctx->devdirs, &run->mdev, d->devnum_type, d->devnum);
                if (r < 0)
                        log_warning_errno(r, "%s: could not remove all of its mdev.conf nodes and links, ignoring: %m",
                                          d->devpath);
                return 0;
        }
        /* the node made before the rules at the kernel's name goes when mdev.conf puts none there,
         * and after any other event (a change): busybox makes no node then */
        if (run->node_made && d->devname &&
            (action_of(run) != UEVENT_ADD || !mdev_result_has_node(&run->mdev, d->devname)))
                (void)node_remove(ctx->devfd, ctx->devdirs, d->devname, d->devnum_type, d->devnum);
        if (action_of(run) != UEVENT_ADD)
                return 0;
        return mdev_apply_add(ctx->devfd, ctx->devdirs, &run->mdev, d->devnum_type, d->devnum);
}

/* 0 or -errno; the caller logs failures to create (removal failures are logged here). */
static int publish_node(struct event_run *run)
{
        struct device *d = run->dev;

        if (run->mdev_env) /* mdev.conf decides the nodes */
                return publish_mdev_nodes(run);

        if (action_of(run) != UEVENT_REMOVE) {
                /* a renamed device's node moves: the old name goes if it still is this devt */
                if (run->old_devname && d->devnum_type && d->devname &&
                    !streq(run->old_devname, d->devname)) {
                        int r = node_remove(run->ctx->devfd, run->ctx->devdirs, run->old_devname,
                                            d->devnum_type, d->devnum);
                        if (r < 0)
                                log_warning_errno(r, "%s: could not remove the old node %s, ignoring: %m",
                                                  d->devpath, run->old_devname);
                }
                return make_node(run->ctx, d, run->node_made);
        }
        if (d->devnum_type && d->devname) {
                int r = node_remove(run->ctx->devfd, run->ctx->devdirs, d->devname, d->devnum_type,
                                    d->devnum);
                if (r < 0)
                        log_warning_errno(r, "%s: could not remove node %s, ignoring: %m", d->devpath, d->devname);
        }
        return 0;
}

/* 0 or -errno; the caller logs. */
static int publish_links(struct event_run *run, const char *id)
{
        struct device *d = run->dev;

        if (run->ctx->runfd < 0 || !d->devname)
                return 0;
        if (action_of(run) == UEVENT_REMOVE) {
                /* the links it had (NULL would mean "search every claim": never needed here) */
                char *none[] = {NULL};
                return links_remove_all(run->ctx->devfd, run->ctx->devdirs, run->ctx->runfd, id,
                                        run->old_links ? run->old_links : none);
        }
        /* with mdev.conf, the rules' links point to its first node */
        const char *target = run->mdev_env ? mdev_result_primary(&run->mdev) : NULL;
        return links_update(run->ctx->devfd, run->ctx->devdirs, run->ctx->runfd, id, target ? target : d->devname,
                            run->old_links, d->udev ? d->udev->links : NULL,
                            d->udev ? d->udev->link_priority : 0);
}

/* The database's way in (with run_root set, runfd is open). */
static struct db_dirs db_dirs_of(const struct process_ctx *ctx)
{
        return (struct db_dirs){.run_dir = ctx->run_root, .runfd = ctx->runfd, .cache = ctx->rundirs};
}

/* 0 or -errno; the caller logs. */
static int publish_db(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        struct device *d = run->dev;
        const struct db_dirs dirs = db_dirs_of(ctx);

        if (action_of(run) == UEVENT_REMOVE)
                return db_delete(&dirs, d, NULL);
        struct device_udev *u = device_get_udev(d);
        if (!u)
                return -ENOMEM;
        if (!u->usec_initialized)
                u->usec_initialized = time_now_usec();
        /* the record before the rules is what the entry on disk says, if it was synced */
        return db_update(&dirs, d, run->old_synced ? &(const struct db_known){run->old_tags} : NULL);
}

static void step_publish(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        struct device *d = run->dev;
        _cleanup_free_ char *id = NULL;
        int node_r, links_r = 0, db_r = 0;

        run->step = STEP_MDEV_POST;
        if (ctx->dry_run)
                return;
        node_r = publish_node(run);
        if (device_get_id(d, &id) >= 0)
                links_r = publish_links(run, id);
        if (ctx->run_root && id) /* else no run dir, or a device with no database id (no subsystem) */
                db_r = publish_db(run);
        int r = node_r < 0 ? node_r : links_r < 0 ? links_r : db_r;
        const char *what = node_r < 0 ? "its node" : links_r < 0 ? "its link claims" : "its database entry";
        if (r < 0)
                run->result = r;

        if (ctx->retry && action_of(run) != UEVENT_REMOVE) {
                if (r >= 0) {
                        publish_retry_forget(ctx->retry, d);
                        return;
                }
                /* a full or read-only /dev or run dir: said once, published again when it works */
                int k = publish_retry_add(ctx->retry, d, r);
                if (k > 0)
                        log_warning_errno(r, "%s: could not write %s, will retry it and any other device that "
                                          "fails (not logged again until all are written): %m",
                                          d->devpath, what);
                else if (k < 0)
                        log_oom();
                return;
        }
        if (ctx->retry)
                publish_retry_forget(ctx->retry, d);
        if (node_r < 0)
                log_warning_errno(node_r, "%s: could not create node %s (%c%u:%u): %m", d->devpath, d->devname,
                                  d->devnum_type, major(d->devnum), minor(d->devnum));
        if (links_r < 0)
                log_warning_errno(links_r, "%s: could not update all links, ignoring: %m", d->devpath);
        if (db_r < 0)
                log_warning_errno(db_r, "%s: could not write the database entry, clients will not see it: %m",
                                  d->devpath);
}

int process_republish(struct process_ctx *ctx, struct device *d)
{
        _cleanup_free_ char *id = NULL;
        _cleanup_strv_free_ char **mdev_env = NULL;
        struct mdev_result mdev = {0};
        const char *target = d->devname;
        int r = 0;

        if (ctx->mdev) {
                r = mdev_match(ctx, d, UEVENT_ADD, &mdev_env, &mdev);
                if (r >= 0 && d->devnum_type)
                        r = mdev_apply_add(ctx->devfd, ctx->devdirs, &mdev, d->devnum_type, d->devnum);
                if (mdev_result_primary(&mdev))
                        target = mdev_result_primary(&mdev);
        } else
                r = make_node(ctx, d, false);
        if (r < 0 || device_get_id(d, &id) < 0)
                goto out;
        if (ctx->runfd >= 0 && d->devname)
                r = links_update(ctx->devfd, ctx->devdirs, ctx->runfd, id, target, NULL,
                                 d->udev ? d->udev->links : NULL, d->udev ? d->udev->link_priority : 0);
        if (r >= 0 && ctx->run_root) {
                const struct db_dirs dirs = db_dirs_of(ctx);
                r = db_update(&dirs, d, NULL);
        }
out:
        mdev_result_clear(&mdev);
        return r;
}

static void on_run_done(const struct spawn_result *res, void *userdata)
{
        struct event_run *run = userdata;
        run->waiting = false;
        if (run->aborted) {
                run_free(run);
                return;
        }
        log_child_outcome(run, "RUN", res);
        advance(run);
}

/* In a child of the daemon (spawn_start_fn): the RUN{builtin} entry step_run() stopped at, which
 * would have blocked the daemon (a module's initialisation). */
static int run_builtin_in_child(void *userdata)
{
        struct event_run *run = userdata;
        size_t n = 0;
        const struct rules_run *e = &rules_exec_run_list(run->exec, &n)[run->run_index - 1];
        return builtin_run(e->builtin, run->ctx->builtins, run->dev, e->cmd, false);
}

/* Runs the RUN list in order; returns true when it has to wait for a child. */
static bool step_run(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        size_t n = 0;
        const struct rules_run *list = run->exec ? rules_exec_run_list(run->exec, &n) : NULL;

        while (!ctx->dry_run && run->run_index < n) {
                const struct rules_run *e = &list[run->run_index++];
                int r;
                struct spawn_options so = {.timeout_usec = ctx->event_timeout_usec,
                                           .timeout_signal = ctx->timeout_signal};
                int placement = e->builtin ? builtin_needs_child(e->builtin, ctx->builtins, run->dev, e->cmd)
                                           : BUILTIN_IN_PLACE;
                if (placement == BUILTIN_NOTHING)
                        continue;
                if (placement == BUILTIN_IN_CHILD && ctx->spawn) {
                        r = spawn_start_fn(ctx->spawn, e->cmd, run_builtin_in_child, run, &so, on_run_done, run);
                        if (r >= 0) {
                                run->waiting = true;
                                return true;
                        }
                        log_debug_errno(r, "%s: cannot start a child for '%s', running it in place: %m",
                                        run->dev->devpath, e->cmd);
                }
                if (e->builtin) {
                        r = builtin_run(e->builtin, ctx->builtins, run->dev, e->cmd, false);
                        if (r < 0)
                                log_debug_errno(r, "%s: RUN{builtin} '%s' failed: %m", run->dev->devpath, e->cmd);
                        continue;
                }
                _cleanup_strv_free_ char **env = NULL;
                r = rules_device_env(run->dev, action_of(run), ctx->dev_root, &env);
                if (r < 0) {
                        log_oom();
                        continue;
                }
                r = spawn_start(ctx->spawn, e->cmd, env, &so, on_run_done, run);
                if (r >= 0) {
                        run->waiting = true;
                        return true;
                }
                log_warning_errno(r, "%s: cannot run '%s': %m", run->dev->devpath, e->cmd);
        }
        run->step = STEP_BROADCAST;
        return false;
}

static void step_broadcast(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        run->step = STEP_DONE;
        if (ctx->dry_run || !ctx->monitor)
                return;
        int r = monitor_send_device(ctx->monitor, uevent_action_to_string(action_of(run)), run->dev,
                                    run->event->seqnum);
        if (r < 0)
                log_debug_errno(r, "%s: could not broadcast the event: %m", run->dev->devpath);
}

static void finish(struct event_run *run)
{
        struct process_ctx *ctx = run->ctx;
        if (ctx->report && run->dev)
                ctx->report(run->event, run->dev, run->exec, ctx->report_userdata);
        if (run->dev) {
                device_clear_attrs(run->dev);
                props_set(&run->dev->props, "ACTION", NULL, 0);
                props_set(&run->dev->props, "SEQNUM", NULL, 0);
        }
        if (run->result < 0)
                ctx->n_failed++;
        ctx->n_processed++;
        struct event *e = run->event;
        process_done_t done = run->done;
        void *userdata = run->userdata;
        struct device *dev = device_ref(run->dev);
        int result = run->result;
        e->data = NULL;
        run_free(run);
        done(e, dev, result, userdata);
        device_unref(dev);
}

/* Runs the steps until one waits for a child, or all are done. */
static void advance(struct event_run *run)
{
        for (;;) {
                switch (run->step) {
                case STEP_MODEL:
                        step_model(run);
                        break;
                case STEP_RULES:
                        if (step_rules(run))
                                return;
                        break;
                case STEP_RENAME:
                        if (step_rename(run))
                                return;
                        break;
                case STEP_MDEV:
                        if (step_mdev(run))
                                return;
                        break;
                case STEP_PUBLISH:
                        step_publish(run);
                        break;
                case STEP_MDEV_POST:
                        if (step_mdev_post(run))
                                return;
                        break;
                case STEP_RUN:
                        if (step_run(run))
                                return;
                        break;
                case STEP_BROADCAST:
                        step_broadcast(run);
                        break;
                case STEP_DONE:
                        finish(run);
                        return;
                }
        }
}

int process_make_node_early(struct process_ctx *ctx, struct event *e)
{
        const struct uevent *ev = e->uevent;
        if (!ev->from_kernel || ev->action != UEVENT_ADD || !e->devnum_type ||
            !model_is_live(ctx->model))
                return 0;
        const char *name = props_get(&ev->props, "DEVNAME");
        if (!name || !devname_is_safe(name))
                return 0;
        int r = make_node_before_rules(ctx, name, e->devnum_type, e->devnum);
        if (r > 0)
                e->node_made = true;
        return r;
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
        if (!run)
                return;
        if (run->waiting && !run->timer)
                run->aborted = true; /* freed when the child's completion arrives (or with the spawner) */
        else
                run_free(run); /* frees a pending rename retry timer too */
}

struct wait_state {
        process_done_t done;
        void *userdata;
        bool finished;
};

static void on_waited_done(struct event *e, struct device *dev, int result, void *userdata)
{
        struct wait_state *w = userdata;
        w->finished = true;
        w->done(e, dev, result, w->userdata);
}

int process_event_wait(struct process_ctx *ctx, struct event *e, process_done_t done, void *userdata)
{
        struct wait_state w = {.done = done, .userdata = userdata};
        struct spawn_manager *spawn = NULL;
        sd_event *loop = NULL;
        sigset_t chld, saved;
        int r;

        if (ctx->event || ctx->spawn)
                return -EINVAL;
        /* sd-event's child sources need SIGCHLD blocked, as in the daemon */
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &chld, &saved) < 0)
                return negative_errno();
        r = sd_event_new(&loop);
        if (r >= 0)
                r = spawn_manager_new(loop, ctx->program_dir, 0, &spawn);
        if (r < 0)
                goto out;
        ctx->event = loop;
        ctx->spawn = spawn;
        r = process_event(ctx, e, on_waited_done, &w);
        while (r >= 0 && !w.finished)
                r = sd_event_run(loop, UINT64_MAX);
        if (!w.finished)
                process_event_abort(e); /* the loop failed: children go with the spawner */
        ctx->event = NULL;
        ctx->spawn = NULL;
out:
        spawn_manager_free(spawn);
        sd_event_unref(loop);
        (void)sigprocmask(SIG_SETMASK, &saved, NULL);
        return r < 0 ? r : 0;
}
