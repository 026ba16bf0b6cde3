/* SPDX-License-Identifier: MIT */
/* `devmanadm control`: udevadm control's options over the control socket (core/ctrl.h). */
#pragma once

#include <stdint.h>

/* verb_control() (declared in adm.h): options as udevadm control (-e, -l, -s, -S, -R, -p, -m,
 * --ping, -t) on <run>/control. Messages are sent in the order given, then the command waits
 * for the daemon's answer (it closes the connection). Exit status 0, 1 (no daemon, no answer)
 * or 2 (usage). */

/* "5", "2.5", "5s", "500ms", "1min" -> microseconds; -EINVAL when malformed. */
int parse_timeout_usec(const char *s, uint64_t *ret);
