/* SPDX-License-Identifier: MIT */
#include "reconcile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "db.h"
#include "devdir.h"
#include "fs-util.h"
#include "hashmap.h"
#include "links.h"
#include "log.h"
#include "node.h"
#include "strv.h"
#include "sysfs-enum.h"
#include "sysfs.h"

struct live {
        struct hashmap *ids; /* device id -> device */
};

static bool id_is_live(const char *id, void *userdata)
{
        const struct live *l = userdata;
        return hashmap_get(l->ids, id) != NULL;
}

/* The node of a gone device, found through its /dev/{char,block}/M:m link. */
static int remove_stale_node(int devfd, const char *id)
{
        unsigned maj, min;
        char type = id[0];
        if ((type != 'c' && type != 'b') || sscanf(id + 1, "%u:%u", &maj, &min) != 2)
                return 0;
        dev_t devnum = makedev(maj, min);
        _cleanup_free_ char *link = NULL, *target = NULL;
        int r = node_devnum_link_name(type, devnum, &link);
        if (r < 0)
                return r;
        struct devdir_parent dir = DEVDIR_PARENT_NULL;
        r = devdir_open_parent(devfd, NULL, link, false, &dir);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        r = devdir_readlink(dir.fd, dir.leaf, &target);
        devdir_parent_done(&dir);
        if (r < 0)
                return r == -ENOENT || r == -EINVAL ? 0 : r;
        const char *rel = startswith(target, "../");
        if (!rel || !devdir_name_valid(rel))
                return 0;
        /* removes the node only if it still is that devt, and the M:m link with it */
        return node_remove(devfd, NULL, rel, type, devnum);
}

/* Appends paths to add (only those m knows, when m is given), counting them in *count. */
static int list_for_add(struct strv_builder *add, char **paths, struct model *m, unsigned *count)
{
        STRV_FOREACH(p, paths) {
                if (m && !model_get(m, *p))
                        continue;
                if (strv_builder_push_copy(add, *p) < 0)
                        return -ENOMEM;
                (*count)++;
        }
        return 0;
}

int reconcile(struct model *m, int devfd, int runfd, const char *run_root, bool after_crash, char ***ret_add,
              struct reconcile_stats *stats)
{
        struct live live = {.ids = hashmap_new_string()};
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_strv_builder_ struct strv_builder ids = {0}, add = {0};
        _cleanup_free_ char *datadir = path_join(run_root, "data");
        _cleanup_closedir_ DIR *dir = NULL;
        struct dirent *de;
        int r;

        *stats = (struct reconcile_stats){0};
        if (!live.ids || !datadir) {
                hashmap_free(live.ids);
                return -ENOMEM;
        }
        r = sysfs_enumerate(model_sysfs_root(m), SYSFS_ENUM_ALL_DEVICES, &paths, NULL);
        if (r < 0)
                goto finish;
        STRV_FOREACH(p, paths) {
                struct device *d = model_get(m, *p);
                char *id = NULL;
                if (!d || device_get_id(d, &id) < 0)
                        continue;
                /* the builder owns id from here */
                if (strv_builder_push(&ids, id) < 0 || hashmap_put(live.ids, id, d) < 0) {
                        r = -ENOMEM;
                        goto finish;
                }
        }

        /* database entries of gone devices */
        dir = opendir(datadir);
        while (dir && (de = fs_readdir(dir, true))) {
                if (id_is_live(de->d_name, &live))
                        continue;
                r = remove_stale_node(devfd, de->d_name);
                if (r > 0)
                        stats->stale_nodes++;
                else if (r < 0)
                        log_warning_errno(r, "Cannot remove the node of gone device %s, ignoring: %m", de->d_name);
                r = links_remove_all(devfd, NULL, runfd, de->d_name, NULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot drop the link claims of gone device %s, ignoring: %m",
                                          de->d_name);
                r = db_delete(&(const struct db_dirs){.run_dir = run_root, .runfd = runfd}, NULL, de->d_name);
                if (r < 0)
                        log_warning_errno(r, "Cannot remove the database entry of gone device %s, ignoring: %m",
                                          de->d_name);
                else
                        stats->stale_entries++;
        }

        /* nodes of gone devices that never got a database entry (killed in between): the
         * char/M:m and block/M:m links are devman's record of the nodes it made */
        for (const char *const *t = (const char *const[]){"char", "block", NULL}; *t; t++) {
                _cleanup_closedir_ DIR *ld = NULL;
                int lfd = openat(devfd, *t, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (lfd < 0 || !(ld = fdopendir(lfd))) {
                        if (lfd >= 0)
                                close(lfd);
                        continue;
                }
                while ((de = readdir(ld))) {
                        char id[64];
                        unsigned maj, min;
                        if (sscanf(de->d_name, "%u:%u", &maj, &min) != 2)
                                continue;
                        snprintf(id, sizeof(id), "%c%u:%u", (*t)[0], maj, min);
                        if (id_is_live(id, &live))
                                continue;
                        r = remove_stale_node(devfd, id);
                        if (r > 0)
                                stats->stale_nodes++;
                        /* a dangling link (the node never came, or is gone already) */
                        if (r >= 0)
                                (void)unlinkat(dirfd(ld), de->d_name, 0);
                }
        }

        /* claims of devices that are gone but had no database entry left */
        r = links_gc(devfd, runfd, id_is_live, &live);
        if (r > 0)
                stats->stale_claims += (unsigned)r;
        else if (r < 0)
                log_warning_errno(r, "Cannot check the link claims, ignoring: %m");

        /* After a crash every present device is processed again (after a clean exit, or on a
         * fresh boot, coldplug is the trigger's job, not ours). The events the daemon had read
         * and not finished died with it, and nothing on disk tells which: a device with a node
         * and a database entry may have had a change queued, an add whose database entry was
         * written but whose RUN programs and announcement never came, or an entry left by
         * another manager (the initramfs' udevd). */
        if (after_crash) {
                /* first what the trigger's subsystems pass announces: buses, drivers and modules
                 * (a module's add, for systemd's sys-module-*.device, may be among the lost) */
                _cleanup_strv_free_ char **subsystems = NULL;
                r = sysfs_enumerate(model_sysfs_root(m), SYSFS_ENUM_SUBSYSTEMS, &subsystems, NULL);
                if (r < 0)
                        goto finish;
                r = list_for_add(&add, subsystems, NULL, &stats->to_add);
                if (r >= 0)
                        r = list_for_add(&add, paths, m, &stats->to_add);
                if (r < 0)
                        goto finish;
        }
        r = 0;
        char **v = strv_builder_take(&add);
        if (!v)
                r = -ENOMEM;
        else
                *ret_add = v;
finish:
        hashmap_free(live.ids);
        return r;
}
