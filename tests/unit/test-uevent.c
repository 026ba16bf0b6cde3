/* SPDX-License-Identifier: MIT */
#include <sys/sysmacros.h>

#include "test-util.h"
#include "uevent.h"

/* Builds a kernel-style message from NUL-separated pieces given with explicit length. */
#define MSG(s) s, sizeof(s)

static void test_parse_good(void)
{
        static const char msg[] = "add@/devices/virtual/mem/null\0ACTION=add\0DEVPATH=/devices/virtual/mem/null\0"
                                  "SUBSYSTEM=mem\0MAJOR=1\0MINOR=3\0DEVNAME=null\0DEVMODE=0666\0SEQNUM=4242";
        struct uevent *ev = NULL;
        const char *why = NULL;
        CHECK_INT(uevent_parse(msg, sizeof(msg), &ev, &why), 0);
        CHECK(ev != NULL);
        if (!ev)
                return;
        CHECK_INT(ev->action, UEVENT_ADD);
        CHECK_STR(ev->devpath, "/devices/virtual/mem/null");
        CHECK_STR(ev->subsystem, "mem");
        CHECK_INT(ev->seqnum, 4242);
        CHECK_STR(props_get(&ev->props, "DEVMODE"), "0666");
        CHECK(ev->devpath_old == NULL);
        uevent_free(ev);
}

static void test_parse_move(void)
{
        static const char msg[] = "move@/devices/pci0000:00/net/eth1\0ACTION=move\0DEVPATH=/devices/pci0000:00/net/eth1\0"
                                  "DEVPATH_OLD=/devices/pci0000:00/net/eth0\0SUBSYSTEM=net\0SEQNUM=1";
        struct uevent *ev = NULL;
        const char *why;
        CHECK_INT(uevent_parse(msg, sizeof(msg), &ev, &why), 0);
        if (ev)
                CHECK_STR(ev->devpath_old, "/devices/pci0000:00/net/eth0");
        uevent_free(ev);

        static const char nomove[] = "move@/devices/x\0ACTION=move\0DEVPATH=/devices/x\0SUBSYSTEM=net";
        ev = NULL;
        CHECK_INT(uevent_parse(nomove, sizeof(nomove), &ev, &why), -EBADMSG);
        CHECK(ev == NULL);
}

static void expect_bad(const char *buf, size_t len, const char *what)
{
        struct uevent *ev = NULL;
        const char *why = NULL;
        int r = uevent_parse(buf, len, &ev, &why);
        if (r != -EBADMSG || ev || !why)
                fprintf(stderr, "expected rejection of %s (r=%d)\n", what, r);
        CHECK_INT(r, -EBADMSG);
        CHECK(ev == NULL);
        CHECK(why != NULL);
        uevent_free(ev);
}

static void test_parse_bad(void)
{
        expect_bad("", 0, "empty");
        static const char trunc[] = "add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0SUBSYS";
        expect_bad(trunc, sizeof(trunc) - 1, "no trailing NUL");
        expect_bad(MSG("add/devices/x\0ACTION=add\0DEVPATH=/devices/x"), "no @");
        expect_bad(MSG("add@/devices/x\0DEVPATH=/devices/x"), "no ACTION");
        expect_bad(MSG("add@/devices/x\0ACTION=add"), "no DEVPATH");
        expect_bad(MSG("add@/devices/x\0ACTION=remove\0DEVPATH=/devices/x"), "ACTION contradicts header");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/y"), "DEVPATH contradicts header");
        expect_bad(MSG("frob@/devices/x\0ACTION=frob\0DEVPATH=/devices/x"), "unknown action");
        expect_bad(MSG("add@/devices/../etc\0ACTION=add\0DEVPATH=/devices/../etc"), "dotdot devpath");
        expect_bad(MSG("add@devices/x\0ACTION=add\0DEVPATH=devices/x"), "relative devpath");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0NOEQUALS"), "entry without =");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0=value"), "empty key");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0\0"), "empty entry");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0SEQNUM=12a"), "bad seqnum");
        expect_bad(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0SEQNUM=-1"), "negative seqnum");
        expect_bad(MSG("libudev\0\xfe\xed\xca\xfe"), "libudev message");

        size_t big = UEVENT_MAX_SIZE + 16;
        char *buf = calloc(1, big);
        memcpy(buf, "add@/devices/x", 14);
        expect_bad(buf, big, "oversized");
        free(buf);
}

static void expect_reason(const char *buf, size_t len, const char *reason)
{
        struct uevent *ev = NULL;
        const char *why = NULL;
        CHECK_INT(uevent_parse(buf, len, &ev, &why), -EBADMSG);
        CHECK_STR(why, reason);
        uevent_free(ev);
}

/* Keys: a space or control byte rejects the message; an entry without '=' is reported as such
 * first; '=' in a value is part of the value; a repeated key keeps its last value. */
static void test_parse_keys(void)
{
        expect_reason(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0BAD KEY=1"), "bad character in a key");
        expect_reason(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0BAD\x01KEY=1"), "bad character in a key");
        expect_reason(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0BAD\x7f=1"), "bad character in a key");
        expect_reason(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0NO\x01EQUALS"), "entry without KEY=VALUE");
        expect_reason(MSG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0=v"), "entry without KEY=VALUE");

        struct uevent *ev = NULL;
        const char *why = NULL;
        static const char ok[] = "add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0K=a=b\0E=\0D=1\0D=2\0V=x y\tz";
        CHECK_INT(uevent_parse(ok, sizeof(ok), &ev, &why), 0);
        if (ev) {
                CHECK_STR(props_get(&ev->props, "K"), "a=b");
                CHECK_STR(props_get(&ev->props, "E"), "");
                CHECK_STR(props_get(&ev->props, "D"), "2");
                CHECK_STR(props_get(&ev->props, "V"), "x y\tz");
                CHECK_INT(ev->props.n, 6);
        }
        uevent_free(ev);
}

static void test_devname_safety(void)
{
        CHECK(devname_is_safe("sda"));
        CHECK(devname_is_safe("input/event3"));
        CHECK(devname_is_safe("bus/usb/001/002"));
        CHECK(!devname_is_safe(""));
        CHECK(!devname_is_safe("/etc/passwd"));
        CHECK(!devname_is_safe("../etc/passwd"));
        CHECK(!devname_is_safe("input/../../x"));
        CHECK(!devname_is_safe("a//b"));
        CHECK(!devname_is_safe("./x"));
        CHECK(!devname_is_safe("a/"));
        CHECK(!devname_is_safe("tty\n1"));
        CHECK(!devname_is_safe("tty\x1b"));
        char longname[300];
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        CHECK(!devname_is_safe(longname));
}

static void test_devnum(void)
{
        static const struct {
                const char *major, *minor;
                bool valid;
                unsigned ma, mi;
        } cases[] = {
                {"7", "761002", true, 7, 761002},  {"4095", "1048575", true, 4095, 1048575},
                {"0", "5", false, 0, 0},           {"4096", "0", false, 0, 0},
                {"8", "1048576", false, 0, 0},     {"8", "-1", false, 0, 0},
                {" 8", "1", false, 0, 0},          {"8x", "1", false, 0, 0},
                {NULL, "1", false, 0, 0},          {"8", NULL, false, 0, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct props p = PROPS_INIT;
                if (cases[i].major)
                        props_set(&p, "MAJOR", cases[i].major, PROP_KERNEL);
                if (cases[i].minor)
                        props_set(&p, "MINOR", cases[i].minor, PROP_KERNEL);
                struct uevent *ev = NULL;
                CHECK_INT(uevent_new(UEVENT_ADD, "/devices/virtual/block/loop1", &p, &ev), 0);
                props_clear(&p);
                if (!ev)
                        continue;
                CHECK(ev->devnum == (cases[i].valid ? makedev(cases[i].ma, cases[i].mi) : 0));
                uevent_free(ev);
        }
}

static void test_synthetic(void)
{
        struct uevent *ev = NULL;
        CHECK_INT(uevent_new(UEVENT_CHANGE, "/devices/virtual/tty/tty1", NULL, &ev), 0);
        if (ev) {
                CHECK_STR(props_get(&ev->props, "ACTION"), "change");
                CHECK_STR(ev->devpath, "/devices/virtual/tty/tty1");
                CHECK_INT(ev->seqnum, 0);
        }
        uevent_free(ev);
        ev = NULL;
        CHECK_INT(uevent_new(UEVENT_ADD, "../x", NULL, &ev), -EBADMSG);
        CHECK_STR(uevent_action_to_string(UEVENT_UNBIND), "unbind");
        CHECK_INT(uevent_action_from_string("online"), UEVENT_ONLINE);
        CHECK_INT(uevent_action_from_string("nope"), -EINVAL);
}

TEST_MAIN(TEST(test_parse_good), TEST(test_parse_move), TEST(test_parse_bad), TEST(test_parse_keys), TEST(test_devname_safety),
          TEST(test_devnum), TEST(test_synthetic))
