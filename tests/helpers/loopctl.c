/* SPDX-License-Identifier: MIT */
/*
 * Test helper: add and remove loop devices through /dev/loop-control.
 *   loopctl add FIRST COUNT   adds loopFIRST … loopFIRST+COUNT-1 (fails if one exists)
 *   loopctl remove FIRST COUNT
 * Exit status 0 when every device was added/removed. Nothing else is touched.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        if (argc != 4 || (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "remove") != 0)) {
                fprintf(stderr, "usage: loopctl add|remove FIRST COUNT\n");
                return 2;
        }
        int first = atoi(argv[2]), count = atoi(argv[3]);
        bool add = strcmp(argv[1], "add") == 0;
        int fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                perror("loopctl: /dev/loop-control");
                return 77;
        }
        int failed = 0;
        for (int i = first; i < first + count; i++) {
                int r = ioctl(fd, add ? LOOP_CTL_ADD : LOOP_CTL_REMOVE, i);
                if (r < 0) {
                        /* EBUSY on remove: still opened by someone; retry a little */
                        for (int tries = 0; r < 0 && errno == EBUSY && !add && tries < 50; tries++) {
                                usleep(20000);
                                r = ioctl(fd, LOOP_CTL_REMOVE, i);
                        }
                }
                if (r < 0) {
                        fprintf(stderr, "loopctl: %s loop%d: %s\n", argv[1], i, strerror(errno));
                        failed++;
                }
        }
        close(fd);
        return failed ? 1 : 0;
}
