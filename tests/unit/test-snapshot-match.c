/* SPDX-License-Identifier: MIT */
/* Pairing the devices of two snapshots (core/publish/snapshot-match.c), stage by stage, on
 * hand-written snapshots. */
#include <errno.h>

#include "snapshot-file.h"
#include "snapshot-match.h"
#include "test-util.h"

/* A stanza: key, layout, devt ("c 4:64" or "-"), node, then parent lines ("bus pci - 0000:00:1f.2"). */
static void stanza(FILE *f, const char *key, const char *layout, const char *devt, const char *node,
                   const char *const *parents)
{
        const char *slash = strchr(key, '/');
        fprintf(f,
                "device %s\nfound /x/%s\ndevpath /devices/%s\nlayout %s\nsubsystem %.*s\ndevt %s\nnode %s\n",
                key, key, key, layout, (int)(slash - key), key, devt, node);
        for (; parents && *parents; parents++)
                fprintf(f, "parent %s\n", *parents);
        fprintf(f, "end\n");
}

static struct snapshot *make(void (*fill)(FILE *f))
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        fprintf(f, "devman-snapshot 1\n");
        fill(f);
        fclose(f);
        FILE *r = fmemopen(buf, len, "r");
        struct snapshot *s = NULL;
        CHECK_INT(snapshot_parse(r, "test", &s), 0);
        fclose(r);
        free(buf);
        return s;
}

/* OLD device old_key is paired with NEW device new_key, by the stage how_. */
#define CHECK_PAIRED(o, n, m, old_key, new_key, how_)                                                       \
        do {                                                                                                \
                enum match_how _how = 0;                                                                    \
                CHECK_STR(partner(o, n, m, old_key, &_how), new_key);                                       \
                CHECK_INT(_how, how_);                                                                      \
        } while (0)

/* The snapshots two fill functions write, paired; false (and nothing to free) when one failed. */
static bool pair_up(void (*fill_o)(FILE *f), void (*fill_n)(FILE *f), struct snapshot **o,
                    struct snapshot **n, struct snapshot_match *m)
{
        *o = make(fill_o);
        *n = make(fill_n);
        *m = (struct snapshot_match){0};
        if (!*o || !*n) {
                snapshot_free(*o);
                snapshot_free(*n);
                return false;
        }
        CHECK_INT(snapshot_match(*o, *n, m), 0);
        return true;
}

static void pair_done(struct snapshot *o, struct snapshot *n, struct snapshot_match *m)
{
        snapshot_match_clear(m);
        snapshot_free(o);
        snapshot_free(n);
}

/* The NEW key OLD device `key` is paired with, or NULL. */
static const char *partner(const struct snapshot *o, const struct snapshot *n,
                           const struct snapshot_match *m, const char *key, enum match_how *how)
{
        for (size_t i = 0; i < o->n_devices; i++)
                if (streq(o->devices[i].key, key)) {
                        if (m->old_to_new[i] < 0)
                                return NULL;
                        *how = m->how[i];
                        return n->devices[m->old_to_new[i]].key;
                }
        return NULL;
}

static const char *const serial[] = {"bus platform serial8250 serial8250", "bus - - platform", NULL};
static const char *const i8042[] = {"bus platform i8042 i8042", "bus - - platform", NULL};
static const char *const pnp[] = {"bus acpi - PNP0A03:00", NULL};
static const char *const pwrbn[] = {"bus acpi - LNXPWRBN:00", NULL};
static const char *const slot[] = {"bus acpi - device:06", NULL};
static const char *const usb1[] = {"class usb_device - usbdev1.1", "bus usb usb usb1", NULL};
static const char *const usb1_legacy[] = {"bus usb usb usb1", NULL};

static void fill_old(FILE *f)
{
        stanza(f, "tty/ttyS0", "converted", "c 4:64", "ttyS0", serial);
        stanza(f, "tty/ttyS1", "converted", "c 4:65", "ttyS1", serial);
        stanza(f, "tty/ttyS3", "converted", "c 4:67", "ttyS3", serial);
        stanza(f, "wakeup/wakeup5", "converted", "-", "-", pnp);
        stanza(f, "wakeup/wakeup6", "converted", "-", "-", pwrbn);
        stanza(f, "misc/gone", "converted", "c 10:1", "gone", NULL);
        stanza(f, "usb_device/usbdev1.1", "legacy", "c 189:0", "bus/usb/001/001", usb1_legacy);
        stanza(f, "block/sda", "converted", "b 8:0", "sda", NULL);
        stanza(f, "mem/kmsg", "converted", "c 1:11", "kmsg", NULL);
        stanza(f, "cls/a0", "converted", "-", "-", serial);
        stanza(f, "cls/a1", "converted", "-", "-", serial);
}

static void fill_new(FILE *f)
{
        stanza(f, "tty/ttyS0", "converted", "c 4:64", "ttyS0", serial);
        stanza(f, "tty/ttyS1", "converted", "c 4:99", "ttyS1", i8042);  /* other parent and devt */
        stanza(f, "tty/ttyS8", "converted", "c 4:67", "ttyS8", serial); /* renamed, same devt */
        stanza(f, "wakeup/wakeup5", "converted", "-", "-", slot);       /* a new one took the number */
        stanza(f, "wakeup/wakeup6", "converted", "-", "-", pnp);
        stanza(f, "wakeup/wakeup7", "converted", "-", "-", pwrbn);
        stanza(f, "usb_device/usbdev1.1", "converted", "c 189:0", "bus/usb/001/001", usb1);
        /* a legacy directory left next to the converted symlink: listed first */
        stanza(f, "block/sda", "legacy", "b 8:0", "sda", NULL);
        stanza(f, "block/sda", "converted", "b 8:0", "sda", NULL);
        stanza(f, "mem/kmsg2", "converted", "c 1:12", "kmsg", NULL); /* same node only */
        stanza(f, "cls/b0", "converted", "-", "-", serial);          /* two with one parent: not matched */
        stanza(f, "cls/b1", "converted", "-", "-", serial);
}

static void test_stages(void)
{
        struct snapshot *o, *n;
        struct snapshot_match m;
        enum match_how how = 0;
        if (!pair_up(fill_old, fill_new, &o, &n, &m))
                return;

        CHECK_PAIRED(o, n, &m, "tty/ttyS0", "tty/ttyS0", MATCH_NAME_AND_PARENT);
        CHECK_PAIRED(o, n, &m, "tty/ttyS3", "tty/ttyS8", MATCH_DEVT);
        /* moved to another parent, devt changed too: still itself by name */
        CHECK_PAIRED(o, n, &m, "tty/ttyS1", "tty/ttyS1", MATCH_NAME);
        /* probe-order numbers: each follows its parent, the new one stays over */
        CHECK_PAIRED(o, n, &m, "wakeup/wakeup5", "wakeup/wakeup6", MATCH_PARENT);
        CHECK_PAIRED(o, n, &m, "wakeup/wakeup6", "wakeup/wakeup7", MATCH_PARENT);
        CHECK_INT(m.new_to_old[3], -1); /* the new wakeup5 */
        /* the conversion adds a class parent: the physical chain is the same */
        CHECK_PAIRED(o, n, &m, "usb_device/usbdev1.1", "usb_device/usbdev1.1", MATCH_NAME_AND_PARENT);
        /* of two NEW sda, the one with the same layout */
        CHECK_INT(m.old_to_new[7], 8);
        CHECK_INT(m.new_to_old[7], -1);
        CHECK_PAIRED(o, n, &m, "mem/kmsg", "mem/kmsg2", MATCH_NODE);
        CHECK(partner(o, n, &m, "misc/gone", &how) == NULL);
        /* a parent shared by several devices says nothing about which is which */
        CHECK(partner(o, n, &m, "cls/a0", &how) == NULL);
        CHECK(partner(o, n, &m, "cls/a1", &how) == NULL);
        CHECK_INT(m.new_to_old[10], -1);
        CHECK_INT(m.new_to_old[11], -1);

        pair_done(o, n, &m);
}

static void test_chain(void)
{
        struct snapshot *n = make(fill_new);
        if (!n)
                return;
        char *c = snapshot_physical_chain(&n->devices[6], false);
        CHECK_STR(c, "usb/usb1");
        free(c);
        c = snapshot_physical_chain(&n->devices[0], true);
        CHECK_STR(c, "platform/serial8250(serial8250) < -/platform(-)");
        free(c);
        c = snapshot_physical_chain(&n->devices[7], false);
        CHECK_STR(c, "none");
        free(c);
        snapshot_free(n);
}

/* Two USB HID devices that probed the other way round: each keeps its USB interface, the HID
 * instance and event numbers swap. */
static const char *const if1[] = {"bus usb usb 2-1", NULL};
static const char *const if2[] = {"bus usb usb 2-2", NULL};
static const char *const hid1[] = {"bus usb usbhid 2-1:1.0", "bus usb usb 2-1", NULL};
static const char *const hid2[] = {"bus usb usbhid 2-2:1.0", "bus usb usb 2-2", NULL};
static const char *const on_a[] = {"bus hid hid-generic 0003:0627:0001.0001", "bus usb usbhid 2-1:1.0",
                                   "bus usb usb 2-1", NULL};
static const char *const on_b[] = {"bus hid hid-generic 0003:0627:0001.0002", "bus usb usbhid 2-2:1.0",
                                   "bus usb usb 2-2", NULL};
static const char *const on_a_new[] = {"bus hid hid-generic 0003:0627:0001.0002", "bus usb usbhid 2-1:1.0",
                                       "bus usb usb 2-1", NULL};
static const char *const on_b_new[] = {"bus hid hid-generic 0003:0627:0001.0001", "bus usb usbhid 2-2:1.0",
                                       "bus usb usb 2-2", NULL};
static const char *const on_b_other[] = {"bus hid other 0003:0627:0001.0001", "bus usb usbhid 2-2:1.0",
                                         "bus usb usb 2-2", NULL};

/* ... and two disks that took each other's sdX name (asynchronous SCSI scans) */
static const char *const scsi0[] = {"bus scsi sd 0:0:0:0", NULL};
static const char *const scsi1[] = {"bus scsi sd 1:0:0:0", NULL};
static const char *const part_sda[] = {"class block - sda", "bus scsi sd 0:0:0:0", NULL};
static const char *const part_sdb[] = {"class block - sdb", "bus scsi sd 1:0:0:0", NULL};
static const char *const part_sda_new[] = {"class block - sda", "bus scsi sd 1:0:0:0", NULL};
static const char *const part_sdb_new[] = {"class block - sdb", "bus scsi sd 0:0:0:0", NULL};

static void fill_disks(FILE *f, bool swapped)
{
        stanza(f, "scsi/0:0:0:0", "bus", "-", "-", NULL);
        stanza(f, "scsi/1:0:0:0", "bus", "-", "-", NULL);
        stanza(f, "block/sda", "converted", "b 8:0", "sda", swapped ? scsi1 : scsi0);
        stanza(f, "block/sda1", "converted", "b 8:1", "sda1", swapped ? part_sda_new : part_sda);
        stanza(f, "block/sdb", "converted", "b 8:16", "sdb", swapped ? scsi0 : scsi1);
        stanza(f, "block/sdb1", "converted", "b 8:17", "sdb1", swapped ? part_sdb_new : part_sdb);
}

static void fill_hid_old(FILE *f)
{
        stanza(f, "usb/2-1:1.0", "bus", "-", "-", if1);
        stanza(f, "usb/2-2:1.0", "bus", "-", "-", if2);
        stanza(f, "hid/0003:0627:0001.0001", "bus", "-", "-", hid1);
        stanza(f, "hid/0003:0627:0001.0002", "bus", "-", "-", hid2);
        stanza(f, "input/event4", "converted", "c 13:68", "input/event4", on_a);
        stanza(f, "input/event5", "converted", "c 13:69", "input/event5", on_b);
        stanza(f, "input/mouse1", "converted", "c 13:33", "input/mouse1", on_b);
        fill_disks(f, false);
}

static void fill_hid_new(FILE *f)
{
        stanza(f, "usb/2-1:1.0", "bus", "-", "-", if1);
        stanza(f, "usb/2-2:1.0", "bus", "-", "-", if2);
        stanza(f, "hid/0003:0627:0001.0001", "bus", "-", "-", hid2);
        stanza(f, "hid/0003:0627:0001.0002", "bus", "-", "-", hid1);
        stanza(f, "input/event4", "converted", "c 13:68", "input/event4", on_b_other);
        stanza(f, "input/event5", "converted", "c 13:69", "input/event5", on_a_new);
        stanza(f, "input/mouse1", "converted", "c 13:33", "input/mouse1", on_b_new);
        fill_disks(f, true);
}

static void test_paired_parents(void)
{
        struct snapshot *o, *n;
        struct snapshot_match m;
        enum match_how how = 0;
        if (!pair_up(fill_hid_old, fill_hid_new, &o, &n, &m))
                return;
        CHECK_PAIRED(o, n, &m, "usb/2-1:1.0", "usb/2-1:1.0", MATCH_NAME_AND_PARENT);
        /* the HID devices follow their interfaces, the event nodes their HID devices, although
         * a device of the same name and devt waits on the other side */
        CHECK_PAIRED(o, n, &m, "hid/0003:0627:0001.0001", "hid/0003:0627:0001.0002", MATCH_PAIRED_PARENT);
        CHECK_PAIRED(o, n, &m, "input/event4", "input/event5", MATCH_PAIRED_PARENT);
        CHECK_PAIRED(o, n, &m, "input/event5", "input/event4", MATCH_PAIRED_PARENT);
        /* a stem of one on each side: mouse1 stays itself */
        CHECK_STR(partner(o, n, &m, "input/mouse1", &how), "input/mouse1");
        /* each disk is the one block device of its SCSI device, each partition is its disk's "1" */
        CHECK_PAIRED(o, n, &m, "block/sda", "block/sdb", MATCH_ONLY_CHILD);
        CHECK_PAIRED(o, n, &m, "block/sdb", "block/sda", MATCH_ONLY_CHILD);
        CHECK_PAIRED(o, n, &m, "block/sda1", "block/sdb1", MATCH_PAIRED_PARENT);
        CHECK_PAIRED(o, n, &m, "block/sdb1", "block/sda1", MATCH_PAIRED_PARENT);

        /* parents equal through pairing: event4 on 2-1 is event5 on 2-1 */
        CHECK(snapshot_match_same_parents(o, n, &m, 4, 5, false));
        CHECK(snapshot_match_same_parents(o, n, &m, 4, 5, true));
        /* the same parents, but the HID device's driver changed */
        CHECK(snapshot_match_same_parents(o, n, &m, 5, 4, false));
        CHECK(!snapshot_match_same_parents(o, n, &m, 5, 4, true));
        /* not the same place: event4 on 2-1 against event4 on 2-2 */
        CHECK(!snapshot_match_same_parents(o, n, &m, 4, 4, false));

        pair_done(o, n, &m);
}

/* A hand-made file whose key does not say the subsystem: the key is the name. */
static void fill_odd(FILE *f, const char *key)
{
        stanza(f, "usb/2-1", "bus", "-", "-", NULL);
        fprintf(f,
                "device %s\nfound /x\ndevpath /devices/x\nlayout bus\nsubsystem usb\ndevt -\nnode -\n"
                "parent bus usb usb 2-1\nend\n",
                key);
}

static void fill_odd_old(FILE *f)
{
        fill_odd(f, "odd1");
}

static void fill_odd_new(FILE *f)
{
        fill_odd(f, "odd2");
}

static void test_odd_keys(void)
{
        struct snapshot *o, *n;
        struct snapshot_match m;
        if (!pair_up(fill_odd_old, fill_odd_new, &o, &n, &m))
                return;
        CHECK_PAIRED(o, n, &m, "odd1", "odd2", MATCH_PAIRED_PARENT);
        pair_done(o, n, &m);
}

TEST_MAIN(TEST(test_stages), TEST(test_chain), TEST(test_paired_parents), TEST(test_odd_keys))
