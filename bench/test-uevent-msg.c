/* SPDX-License-Identifier: MIT */
/* The bench's datagram parser: both framings, and what it must refuse. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>

#include "test-util.h"
#include "uevent-msg.h"

/* Builds "ACTION@DEVPATH\0K=V\0…" into buf; returns its length. */
static size_t kernel_msg(char *buf, const char *head, const char *const *kv)
{
        size_t n = strlen(head) + 1;
        memcpy(buf, head, n);
        for (; *kv; kv++) {
                size_t l = strlen(*kv) + 1;
                memcpy(buf + n, *kv, l);
                n += l;
        }
        return n;
}

static void test_kernel_framing(void)
{
        static const char *const kv[] = {"ACTION=add", "DEVPATH=/devices/virtual/block/loop20000",
                                         "SUBSYSTEM=block", "MAJOR=7", "MINOR=20000", "DEVNAME=loop20000",
                                         "SEQNUM=4242", NULL};
        char buf[512];
        struct uevent_msg m;
        size_t n = kernel_msg(buf, "add@/devices/virtual/block/loop20000", kv);

        CHECK_INT(uevent_msg_parse(buf, n, &m), 0);
        CHECK(!m.from_udev);
        CHECK_STR(m.action, "add");
        CHECK_STR(m.devpath, "/devices/virtual/block/loop20000");
        CHECK_STR(m.subsystem, "block");
        CHECK_STR(m.devname, "loop20000");
        CHECK_STR(m.major, "7");
        CHECK_STR(m.minor, "20000");
        CHECK_STR(m.seqnum, "4242");
}

static void test_udev_framing(void)
{
        static const char props[] = "ACTION=remove\0DEVPATH=/devices/virtual/mem/null\0SEQNUM=7\0";
        char buf[512] = "libudev";
        uint32_t magic = htonl(0xfeedcafe), hdr = 40, off = 40, len = sizeof(props) - 1;
        struct uevent_msg m;

        memcpy(buf + 8, &magic, 4);
        memcpy(buf + 12, &hdr, 4);
        memcpy(buf + 16, &off, 4);
        memcpy(buf + 20, &len, 4);
        memcpy(buf + off, props, len);
        CHECK_INT(uevent_msg_parse(buf, off + len, &m), 0);
        CHECK(m.from_udev);
        CHECK_STR(m.action, "remove");
        CHECK_STR(m.devpath, "/devices/virtual/mem/null");
        CHECK_STR(m.seqnum, "7");
        CHECK(m.devname == NULL);

        /* Properties said to reach past the datagram: refused. */
        len = 400;
        memcpy(buf + 20, &len, 4);
        CHECK_INT(uevent_msg_parse(buf, off + sizeof(props) - 1, &m), -EBADMSG);

        /* Wrong magic: refused. */
        len = sizeof(props) - 1;
        memcpy(buf + 20, &len, 4);
        magic = htonl(0xdeadbeef);
        memcpy(buf + 8, &magic, 4);
        CHECK_INT(uevent_msg_parse(buf, off + len, &m), -EBADMSG);
}

static void test_malformed(void)
{
        static const char *const none[] = {NULL};
        static const char *const no_devpath[] = {"ACTION=add", NULL};
        char buf[256];
        struct uevent_msg m;
        size_t n;

        /* No '@' in the header. */
        n = kernel_msg(buf, "garbage", none);
        CHECK_INT(uevent_msg_parse(buf, n, &m), -EBADMSG);
        /* A header that is not NUL-terminated within the datagram. */
        memcpy(buf, "add@/devices/x", 14);
        CHECK_INT(uevent_msg_parse(buf, 14, &m), -EBADMSG);
        /* Header but no DEVPATH property. */
        n = kernel_msg(buf, "add@/devices/x", no_devpath);
        CHECK_INT(uevent_msg_parse(buf, n, &m), -EBADMSG);
        /* An empty datagram. */
        CHECK_INT(uevent_msg_parse(buf, 0, &m), -EBADMSG);
}

TEST_MAIN(TEST(test_kernel_framing), TEST(test_udev_framing), TEST(test_malformed))
