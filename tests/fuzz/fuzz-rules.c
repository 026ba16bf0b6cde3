/* SPDX-License-Identifier: MIT */
/* The rules parser on arbitrary file contents: never crashes, never reads past the buffer
 * (len bytes, not NUL-terminated), and every line it keeps is well formed. */
#include <string.h>

#include "fuzz.h"
#include "rules-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        fuzz_quiet_logs();
        struct rules *rules = rules_new(RESOLVE_NAMES_NEVER);
        if (!rules)
                return 0;
        int r = rules_parse_buffer(rules, "fuzz.rules", (const char *)data, size);
        FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
        if (r >= 0)
                FUZZ_ASSERT(rules->n_errors >= (unsigned)r);
        for (size_t i = 0; i < rules->n_lines; i++) {
                const struct rule_line *l = &rules->lines[i];
                FUZZ_ASSERT(l->line >= 1);
                FUZZ_ASSERT(l->file && strcmp(l->file, "fuzz.rules") == 0);
                if (l->flags & LINE_HAS_GOTO)
                        FUZZ_ASSERT(l->goto_line > i && l->goto_line < rules->n_lines);
                for (unsigned t = 0; t < l->n_tokens; t++) {
                        const struct rule_token *tk = &l->tokens[t];
                        FUZZ_ASSERT(tk->type < _TK_TYPE_MAX && tk->op < _RULE_OP_MAX);
                        FUZZ_ASSERT(t == 0 || l->tokens[t - 1].type <= tk->type); /* sorted by kind */
                        if (tk->type == TK_A_DEVLINK || tk->type == TK_A_NAME)
                                FUZZ_ASSERT(tk->value != NULL);
                }
        }
        rules_free(rules);
        return 0;
}
