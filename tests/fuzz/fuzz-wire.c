/* SPDX-License-Identifier: MIT */
/* Deterministic mutation fuzzing of the three parsers that read outside data: control
 * messages, monitor messages (both formats) and database files. Seeded, so a failure
 * replays (the mutator is the fuzz harness's, fuzz-mutate.c); run under ASan/UBSan in the
 * sanitizer build. Every accepted input must satisfy the parser's promises, and some
 * mutations must stay acceptable (or the accepting paths would go untested). */
#include <sys/sysmacros.h>

#include "ctrl.h"
#include "fuzz.h"
#include "log.h"
#include "uevent.h"
#include "db.h"
#include "device.h"
#include "monitor.h"
#include "strv.h"
#include "test-tmpdir.h"
#include "test-util.h"

static void fuzz_ctrl(void)
{
        struct fuzz_rng rng = {FUZZ_RNG_SEED};
        struct ctrl_wire samples[3];
        ctrl_message_encode(CTRL_SET_ENV, 0, "KEY=value", &samples[0]);
        ctrl_message_encode(CTRL_SET_LOG_LEVEL, 6, NULL, &samples[1]);
        ctrl_message_encode(CTRL_SET_CHILDREN_MAX, 3, NULL, &samples[2]);
        unsigned char buf[600];
        unsigned accepted = 0;
        for (int i = 0; i < 50000; i++) {
                size_t len = fuzz_mutate(&rng, (const uint8_t *)&samples[i % 3], sizeof(samples[0]), buf, sizeof(buf));
                struct ctrl_message m;
                const char *why = NULL;
                int r = ctrl_message_decode(buf, len, &m, &why);
                if (r < 0) {
                        CHECK(r == -EBADMSG && why);
                        continue;
                }
                accepted++;
                CHECK(len == sizeof(struct ctrl_wire));
                CHECK(m.type >= 0 && m.type < _CTRL_MSG_TYPE_MAX);
                if (m.type == CTRL_SET_ENV)
                        CHECK(m.key && m.key[0] && !strchr(m.key, '='));
                if (m.type == CTRL_SET_LOG_LEVEL)
                        CHECK(m.intval >= 0 && m.intval <= 7);
        }
        CHECK(accepted > 0); /* the mutations leave some inputs valid */
}

static void fuzz_monitor(void)
{
        struct fuzz_rng rng = {FUZZ_RNG_SEED};
        struct device *d = NULL;
        if (device_new("/devices/virtual/block/loop0", &d) < 0)
                abort();
        device_set_subsystem(d, "block");
        device_set_devname(d, "loop0");
        d->devnum = makedev(7, 0);
        d->devnum_type = 'b';
        props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
        strv_push_copy(&device_get_udev(d)->tags, "systemd");
        strv_push_copy(&device_get_udev(d)->links, "disk/by-id/x");
        char *udev_msg = NULL;
        size_t udev_len = 0;
        CHECK_INT(monitor_build_message("/dev", "add", d, 7, &udev_msg, &udev_len), 0);
        device_unref(d);
        static const char kernel_msg[] = "add@/devices/virtual/block/loop0\0ACTION=add\0DEVPATH=/devices/virtual/block/"
                                         "loop0\0SUBSYSTEM=block\0SEQNUM=5\0MAJOR=7\0MINOR=0\0";
        unsigned char buf[9000];
        unsigned accepted = 0;
        for (int i = 0; i < 50000; i++) {
                size_t len = i % 2 ? fuzz_mutate(&rng, (const uint8_t *)udev_msg, udev_len, buf, sizeof(buf))
                                   : fuzz_mutate(&rng, (const uint8_t *)kernel_msg, sizeof(kernel_msg) - 1, buf, sizeof(buf));
                struct monitor_event *e = NULL;
                const char *why = NULL;
                int r = monitor_parse_message(buf, len, &e, &why);
                if (r < 0) {
                        CHECK(r == -EBADMSG);
                        continue;
                }
                accepted++;
                CHECK(e->action && e->devpath && e->devpath[0] == '/');
                (void)monitor_event_has_tag(e, "systemd");
                monitor_event_free(e);
        }
        CHECK(accepted > 0);
        free(udev_msg);
}

static void fuzz_db(void)
{
        struct fuzz_rng rng = {FUZZ_RNG_SEED};
        char *dir = test_tmpdir_new("fuzz-db");
        char *path = NULL;
        if (asprintf(&path, "%s/entry", dir) < 0)
                abort();
        static const char sample[] = "S:disk/by-id/x\nS:disk/by-label/y\nL:10\nI:12345\nE:ID_A=1\nE:ID_B=two words\n"
                                     "G:systemd\nG:seat\nQ:systemd\nW:2\nV:1\n";
        unsigned char buf[1024];
        int old_level = log_get_max_level();
        log_set_max_level(LOG_ERR); /* malformed lines are expected here by the thousand */
        for (int i = 0; i < 3000; i++) {
                size_t len = fuzz_mutate(&rng, (const uint8_t *)sample, sizeof(sample) - 1, buf, sizeof(buf));
                FILE *f = fopen(path, "we");
                if (!f)
                        abort();
                fwrite(buf, 1, len, f);
                fclose(f);
                struct device *d = NULL;
                if (device_new("/devices/virtual/mem/null", &d) < 0)
                        abort();
                props_set(&d->props, "DEVPATH", d->devpath, PROP_KERNEL);
                int r = db_read_file(path, d);
                CHECK(r == 1);
                if (r == 1 && d->udev) {
                        STRV_FOREACH(l, d->udev->links)
                                CHECK(devname_is_safe(*l));
                        STRV_FOREACH(t, d->udev->tags)
                                CHECK(!strchr(*t, '/') && !strchr(*t, ':') && !strchr(*t, '\n'));
                }
                CHECK_STR(props_get(&d->props, "DEVPATH"), "/devices/virtual/mem/null");
                device_unref(d);
        }
        log_set_max_level(old_level);
        free(path);
        test_tmpdir_remove(dir);
}

TEST_MAIN(TEST(fuzz_ctrl), TEST(fuzz_monitor), TEST(fuzz_db))
