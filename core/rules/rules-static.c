/* SPDX-License-Identifier: MIT */
#include "rules-static.h"

#include "strv.h"

int rules_foreach_static_node(const struct rules *rules, rules_static_node_cb cb, void *userdata)
{
        for (size_t i = 0; i < rules->n_lines; i++) {
                const struct rule_line *l = &rules->lines[i];
                if (!(l->flags & LINE_HAS_STATIC_NODE))
                        continue;
                mode_t mode = (mode_t)-1;
                uid_t uid = (uid_t)-1;
                gid_t gid = (gid_t)-1;
                _cleanup_strv_free_ char **tags = NULL;
                /* tokens are sorted: ids and tags come before the static_node option */
                for (unsigned k = 0; k < l->n_tokens; k++) {
                        const struct rule_token *t = &l->tokens[k];
                        int r;
                        switch (t->type) {
                        case TK_A_OWNER_ID:
                                uid = t->data.uid;
                                break;
                        case TK_A_GROUP_ID:
                                gid = t->data.gid;
                                break;
                        case TK_A_MODE_ID:
                                mode = t->data.mode;
                                break;
                        case TK_A_TAG:
                                if (t->op != RULE_OP_REMOVE && (r = strv_add_unique(&tags, t->value)) < 0)
                                        return r;
                                break;
                        case TK_A_OPTIONS_STATIC_NODE:
                                r = cb(t->value, mode, uid, gid, tags, userdata);
                                if (r < 0)
                                        return r;
                                break;
                        default:
                                break;
                        }
                }
        }
        return 0;
}
