/* SPDX-License-Identifier: MIT */
/* The snapshot file reader and its escaping (core/publish/snapshot-file.c), on hand-written input. */
#include <errno.h>

#include "log.h"
#include "snapshot-file.h"
#include "strv.h"
#include "test-util.h"

static int parse(const char *text, struct snapshot **ret)
{
        FILE *f = fmemopen((void *)text, strlen(text), "r");
        if (!f)
                return -errno;
        int r = snapshot_parse(f, "test", ret);
        fclose(f);
        return r;
}

static char *escaped(const char *s, bool last)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        snapshot_put_escaped(f, s, last);
        fclose(f);
        return buf;
}

static void test_escape(void)
{
        char *e = escaped("a b\\c\nd\x7f", false);
        CHECK_STR(e, "a\\x20b\\x5cc\\x0ad\\x7f");
        free(e);
        e = escaped("NAME=\"AT keyboard\"", true);
        CHECK_STR(e, "NAME=\"AT keyboard\"");
        free(e);
}

static const char two_devices[] =
        "devman-snapshot 1\n"
        "sysfs-root /tmp/x\\x20y\n"
        "devices 2\n"
        "\n"
        "# a comment\n"
        "device tty/ttyS0\n"
        "found /class/tty/ttyS0\n"
        "devpath /devices/platform/serial8250/tty/ttyS0\n"
        "layout converted\n"
        "subsystem tty\n"
        "devtype -\n"
        "driver -\n"
        "devt c 4:64\n"
        "node ttyS0\n"
        "mode 0660\n"
        "owner 0:5\n"
        "link serial/b\n"
        "link serial/a\n"
        "tag seat\n"
        "prop ID_PATH=platform-serial8250\n"
        "kprop NAME=\"with space\"\n"
        "kprop ODD=back\\x5cslash\\x0anewline\n"
        "future-field whatever it is\n"
        "parent class tty - tty\n"
        "parent bus platform serial8250 serial8250\n"
        "parent bus - - odd\\x20name with space\n"
        "end\r\n"
        "device @/devices/pci0000:00\n"
        "found /devices/pci0000:00\n"
        "devpath /devices/pci0000:00\n"
        "layout bus\n"
        "subsystem -\n"
        "devt -\n"
        "node -\n"
        "end\n";

static void test_parse(void)
{
        struct snapshot *s = NULL;
        CHECK_INT(parse(two_devices, &s), 0);
        if (!s)
                return;
        CHECK_STR(s->sysfs_root, "/tmp/x y");
        CHECK_INT(s->n_devices, 2);
        const struct snapshot_device *d = &s->devices[0];
        CHECK_STR(d->key, "tty/ttyS0");
        CHECK_STR(d->found, "/class/tty/ttyS0");
        CHECK_STR(d->layout, "converted");
        CHECK_STR(d->subsystem, "tty");
        CHECK(d->devtype == NULL);
        CHECK(d->driver == NULL);
        CHECK_INT(d->devt_type, 'c');
        CHECK_STR(d->devt, "4:64");
        CHECK_STR(d->node, "ttyS0");
        CHECK_STR(d->mode, "0660");
        CHECK_STR(d->owner, "0:5");
        CHECK_INT(strv_length(d->links), 2);
        CHECK_STR(d->links[0], "serial/a"); /* sorted on reading */
        CHECK_STR(d->tags[0], "seat");
        CHECK_STR(d->props[0], "ID_PATH=platform-serial8250");
        CHECK_INT(strv_length(d->kprops), 2);
        CHECK_STR(d->kprops[0], "NAME=\"with space\"");
        CHECK_STR(d->kprops[1], "ODD=back\\slash\nnewline");
        CHECK_INT(d->n_parents, 3);
        CHECK_STR(d->parents[0].kind, "class");
        CHECK(d->parents[0].driver == NULL);
        CHECK_STR(d->parents[1].subsystem, "platform");
        CHECK_STR(d->parents[1].driver, "serial8250");
        CHECK(d->parents[2].subsystem == NULL);
        CHECK_STR(d->parents[2].sysname, "odd name with space");

        d = &s->devices[1];
        CHECK_STR(d->key, "@/devices/pci0000:00");
        CHECK(d->subsystem == NULL);
        CHECK_INT(d->devt_type, 0);
        CHECK(d->devt == NULL);
        CHECK(d->links && !d->links[0]); /* empty lists, never NULL */
        CHECK(d->kprops && !d->kprops[0]);
        CHECK_INT(d->n_parents, 0);
        snapshot_free(s);
}

static void test_errors(void)
{
        struct snapshot *s = NULL;
        CHECK_INT(parse("", &s), -EBADMSG);
        CHECK_INT(parse("not a snapshot\n", &s), -EBADMSG);
        CHECK_INT(parse("devman-snapshot 2\n", &s), -EPROTONOSUPPORT);
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\nlayout bus\n", &s), -EBADMSG); /* no end */
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\nlayout bus\nend\n", &s), -EBADMSG);          /* no devpath */
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\nlayout bus\ndevt q 1:2\nend\n", &s), -EBADMSG);
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\nlayout bus\ndevt c 1:2x\nend\n", &s), -EBADMSG);
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\nlayout bus\nparent bus a b\nend\n", &s),
                  -EBADMSG);
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\\x0\nlayout bus\nend\n", &s), -EBADMSG);
        CHECK_INT(parse("devman-snapshot 1\ndevice a/b\ndevpath /x\\x00\nlayout bus\nend\n", &s), -EBADMSG);
        CHECK(s == NULL);
        /* an empty snapshot is fine */
        CHECK_INT(parse("devman-snapshot 1\nsysfs-root /sys\ndevices 0\n", &s), 0);
        CHECK(s && s->n_devices == 0);
        snapshot_free(s);
}

/* What snapshot_put_escaped writes, the reader gives back. */
static void test_roundtrip(void)
{
        static const char *const values[] = {"plain", "two words", "tab\there", "back\\slash", "\x01\x1f", "ünïcode"};
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                fprintf(f, "devman-snapshot 1\ndevice ");
                snapshot_put_escaped(f, values[i], true);
                fprintf(f, "\ndevpath /x\nlayout bus\nprop K=");
                snapshot_put_escaped(f, values[i], true);
                fprintf(f, "\nparent bus ");
                snapshot_put_escaped(f, values[i], false);
                fprintf(f, " - ");
                snapshot_put_escaped(f, values[i], true);
                fprintf(f, "\nend\n");
                fclose(f);
                struct snapshot *s = NULL;
                CHECK_INT(parse(buf, &s), 0);
                if (s) {
                        CHECK_STR(s->devices[0].key, values[i]);
                        CHECK(strncmp(s->devices[0].props[0], "K=", 2) == 0);
                        CHECK_STR(s->devices[0].props[0] + 2, values[i]);
                        CHECK_STR(s->devices[0].parents[0].subsystem, values[i]);
                        CHECK_STR(s->devices[0].parents[0].sysname, values[i]);
                }
                snapshot_free(s);
                free(buf);
        }
}

TEST_MAIN(TEST(test_escape), TEST(test_parse), TEST(test_errors), TEST(test_roundtrip))
