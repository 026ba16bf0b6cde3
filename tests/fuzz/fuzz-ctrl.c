/* SPDX-License-Identifier: MIT */
/* The control message decoder: any datagram is rejected or yields a message within the
 * limits ctrl.h promises. */
#include <string.h>

#include "ctrl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ctrl_message m;
        const char *why = NULL;

        fuzz_quiet_logs();
        memset(&m, 0xa5, sizeof(m));
        int r = ctrl_message_decode(data, size, &m, &why);
        if (r < 0) {
                FUZZ_ASSERT(r == -EBADMSG && why != NULL);
                return 0;
        }
        FUZZ_ASSERT(size == sizeof(struct ctrl_wire));
        FUZZ_ASSERT(m.type >= 0 && m.type < _CTRL_MSG_TYPE_MAX);
        switch (m.type) {
        case CTRL_SET_LOG_LEVEL:
                FUZZ_ASSERT(m.intval >= 0 && m.intval <= 7);
                break;
        case CTRL_SET_CHILDREN_MAX:
                FUZZ_ASSERT(m.intval > 0);
                break;
        case CTRL_SET_ENV:
                FUZZ_ASSERT(m.key && m.key >= m.env && m.key < m.env + sizeof(m.env));
                FUZZ_ASSERT(strnlen(m.key, sizeof(m.env)) < sizeof(m.env) && *m.key && !strchr(m.key, '='));
                FUZZ_ASSERT(!m.value || (m.value > m.key && m.value < m.env + sizeof(m.env)));
                break;
        default:
                break;
        }
        return 0;
}
