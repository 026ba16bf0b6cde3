/* SPDX-License-Identifier: MIT */
/* `devmanadm control`: udevadm control's options over the control socket (core/ctrl.h). */
#pragma once

#include <stdint.h>

/* argv[0] is the verb name. Options as udevadm control (-e, -l, -s, -S, -R, -p, -m, --ping,
 * -t), plus --run-dir=DIR (default /run/udev). Messages are sent in the order given, then the
 * command waits for the daemon's answer. Returns 0, or a negative errno after printing why. */
int verb_control(int argc, char **argv);

/* "5", "2.5", "5s", "500ms", "1min" -> microseconds; -EINVAL when malformed. */
int parse_timeout_usec(const char *s, uint64_t *ret);
