/* SPDX-License-Identifier: MIT */
/*
 * core/publish/netif-rename.c against the kernel, in a private network namespace (root; 77 otherwise):
 * ifb links made with ip(8) are renamed, a taken name and an up link are refused cleanly
 * (nothing changes), a missing ifindex and invalid names fail, and a name that becomes free
 * while retrying (two links swapping names) is taken by the retrying rename.
 */
#include <net/if.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>

#include "macros.h"
#include "netif-rename.h"
#include "test-util.h"

static bool have_link(const char *name)
{
        return if_nametoindex(name) > 0;
}

static void test_names(void)
{
        CHECK(netif_name_valid("eth0"));
        CHECK(netif_name_valid("enp0s31f6"));
        CHECK(netif_name_valid("a23456789012345")); /* 15 bytes */
        CHECK(!netif_name_valid("a234567890123456"));
        CHECK(!netif_name_valid(""));
        CHECK(!netif_name_valid("."));
        CHECK(!netif_name_valid(".."));
        CHECK(!netif_name_valid("a/b"));
        CHECK(!netif_name_valid("a:b"));
        CHECK(!netif_name_valid("a b"));
        CHECK(!netif_name_valid("a\tb"));
        CHECK(!netif_name_valid(NULL));
        CHECK_INT(netif_rename(1, "a/b", NULL), -EINVAL);
        CHECK_INT(netif_rename(0, "x", NULL), -EINVAL);
}

static void test_rename(void)
{
        CHECK_INT(system("ip link add dm0 type ifb && ip link add dm1 type ifb"), 0);
        int i0 = (int)if_nametoindex("dm0"), i1 = (int)if_nametoindex("dm1");
        CHECK(i0 > 0 && i1 > 0);

        char *old = NULL;
        CHECK_INT(netif_rename(i0, "lan0", &old), 0);
        CHECK_STR(old, "dm0");
        free(old);
        CHECK_INT((int)if_nametoindex("lan0"), i0);
        CHECK(!have_link("dm0"));

        CHECK_INT(netif_rename(i0, "lan0", NULL), 0); /* already so named */

        /* taken: refused, both links keep their names */
        old = NULL;
        CHECK_INT(netif_rename(i0, "dm1", &old), -EEXIST);
        CHECK(old == NULL);
        CHECK_INT((int)if_nametoindex("lan0"), i0);
        CHECK_INT((int)if_nametoindex("dm1"), i1);

        CHECK_INT(netif_rename(999999, "nope0", NULL), -ENODEV);
        CHECK(!have_link("nope0"));
}

static void test_up_link(void)
{
        CHECK_INT(system("ip link add up0 type ifb && ip link set up0 up"), 0);
        int i = (int)if_nametoindex("up0");
        int r = netif_rename(i, "up1", NULL);
        /* kernels refuse to rename a running link unless the driver allows live renames */
        if (r == 0) {
                CHECK_INT((int)if_nametoindex("up1"), i);
                return;
        }
        CHECK_INT(r, -EBUSY);
        CHECK_INT((int)if_nametoindex("up0"), i);
        CHECK(!have_link("up1"));
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        CHECK_INT(netif_rename_retry(i, "up1", 3, NULL), -EBUSY);
        clock_gettime(CLOCK_MONOTONIC, &b);
        long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
        CHECK(ms >= 15 && ms < 1000); /* waited 5 + 10 ms, bounded */
}

/* sw0 wants sw1's name; sw1 moves away a moment later (in another process) */
static void test_swap_race(void)
{
        CHECK_INT(system("ip link add sw0 type ifb && ip link add sw1 type ifb"), 0);
        int i0 = (int)if_nametoindex("sw0"), i1 = (int)if_nametoindex("sw1");
        pid_t pid = fork();
        if (pid == 0) {
                struct timespec ts = {0, 3 * 1000000L};
                nanosleep(&ts, NULL);
                _exit(netif_rename(i1, "sw2", NULL) == 0 ? 0 : 1);
        }
        CHECK(pid > 0);
        int r = netif_rename_retry(i0, "sw1", 8, NULL);
        int status = -1;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_INT(r, 0);
        CHECK_INT((int)if_nametoindex("sw1"), i0);
        CHECK_INT((int)if_nametoindex("sw2"), i1);
}

int main(int argc, char **argv)
{
        if (geteuid() != 0) {
                printf("skipped: needs root\n");
                return 77;
        }
        if (unshare(CLONE_NEWNET) < 0) {
                printf("skipped: no private network namespace: %m\n");
                return 77;
        }
        if (system("ip link add probe0 type ifb 2>/dev/null && ip link del probe0") != 0) {
                printf("skipped: cannot create ifb links\n");
                return 77;
        }
        static const struct test_case cases[] = {TEST(test_names), TEST(test_rename), TEST(test_up_link),
                                                 TEST(test_swap_race)};
        return test_run(cases, ELEMENTSOF(cases), argc, argv);
}

struct test_state test_state;
