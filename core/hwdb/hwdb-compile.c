/* SPDX-License-Identifier: MIT */
#include "hwdb-compile.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "array.h"
#include "fs-util.h"
#include "hashmap.h"
#include "hwdb-format.h"
#include "log.h"
#include "macros.h"
#include "strv.h"

/* Source lines longer than this are an error (systemd's limit too). */
#define HWDB_LINE_MAX (1024 * 1024)

static const char *const source_dirs[] = {
        "/etc/udev/hwdb.d",
        "/usr/lib/udev/hwdb.d",
        "/lib/udev/hwdb.d",
        NULL,
};

struct cvalue {
        uint32_t key, value, filename; /* string pool indices */
        uint32_t line;
        uint16_t priority;
};

struct cnode;
struct cchild {
        uint8_t c;
        struct cnode *node;
};

/* A trie node under construction. The prefix is a slice of a pooled match string, so
 * splitting a node never copies text. */
struct cnode {
        const char *prefix;
        uint32_t prefix_len;
        uint32_t prefix_str; /* string table entry, assigned when writing */
        uint16_t n_children;
        uint32_t n_values;
        struct cchild *children; /* sorted by c */
        struct cvalue *values;   /* sorted by key */
        uint64_t off;            /* file offset, assigned when writing */
        uint32_t subtree;        /* nodes in this subtree, computed when writing */
        bool hot;                /* stored in the leading block, see nodes_layout() */
};

/* A string to place in the output: text (not necessarily NUL-terminated) and its offset. */
struct span {
        const char *p;
        uint32_t len;
        uint64_t off;
};

struct hwdb_compiler {
        struct cnode *root;
        size_t n_nodes;

        /* Interned keys, values and file names: pool[i] is owned; index maps text to i + 1. */
        char **pool;
        size_t n_pool, pool_alloc;
        struct hashmap *index;

        /* Every match line, owned and kept to the end: node prefixes point into them. */
        char **match_lines;
        size_t n_match_lines, match_lines_alloc;

        /* The record being parsed: its match lines. */
        const char **matches;
        size_t n_matches, matches_alloc;
};

static void cnode_free(struct cnode *n)
{
        /* Iterative: a trie built from long lines may be deep. Children are freed by
         * detaching them one at a time onto a worklist threaded through their arrays. */
        struct cnode **work = NULL;
        size_t n_work = 0, alloc = 0;

        if (!n)
                return;
        if (array_grow((void **)&work, &alloc, 1, sizeof(*work)) < 0) {
                /* Out of memory while freeing: fall back to recursion. */
                for (unsigned i = 0; i < n->n_children; i++)
                        cnode_free(n->children[i].node);
                free(n->children);
                free(n->values);
                free(n);
                return;
        }
        work[n_work++] = n;
        while (n_work > 0) {
                struct cnode *x = work[--n_work];
                for (unsigned i = 0; i < x->n_children; i++) {
                        if (array_grow((void **)&work, &alloc, n_work + 1, sizeof(*work)) < 0)
                                cnode_free(x->children[i].node);
                        else
                                work[n_work++] = x->children[i].node;
                }
                free(x->children);
                free(x->values);
                free(x);
        }
        free(work);
}

struct hwdb_compiler *hwdb_compiler_free(struct hwdb_compiler *c)
{
        if (!c)
                return NULL;
        cnode_free(c->root);
        hashmap_free(c->index);
        for (size_t i = 0; i < c->n_pool; i++)
                free(c->pool[i]);
        free(c->pool);
        for (size_t i = 0; i < c->n_match_lines; i++)
                free(c->match_lines[i]);
        free(c->match_lines);
        free(c->matches);
        return mfree(c);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hwdb_compiler, hwdb_compiler_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct hashmap, hashmap_free);

struct hwdb_compiler *hwdb_compiler_new(void)
{
        _cleanup_(hwdb_compiler_freep) struct hwdb_compiler *c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->root = calloc(1, sizeof(*c->root));
        c->index = hashmap_new_string();
        if (!c->root || !c->index)
                return NULL;
        c->root->prefix = "";
        c->n_nodes = 1;
        return TAKE_PTR(c);
}

/* Interns s; returns its pool index or -ENOMEM. */
static int64_t intern(struct hwdb_compiler *c, const char *s)
{
        void *v = hashmap_get(c->index, s);
        if (v)
                return (int64_t)(uintptr_t)v - 1;
        if (c->n_pool >= UINT32_MAX - 1)
                return -E2BIG;
        if (array_grow((void **)&c->pool, &c->pool_alloc, c->n_pool + 1, sizeof(*c->pool)) < 0)
                return -ENOMEM;
        char *d = strdup(s);
        if (!d)
                return -ENOMEM;
        if (hashmap_put(c->index, d, (void *)(uintptr_t)(c->n_pool + 1)) < 0) {
                free(d);
                return -ENOMEM;
        }
        c->pool[c->n_pool] = d;
        return (int64_t)c->n_pool++;
}

/* Inserts child into n's sorted child array. */
static int node_add_child(struct cnode *n, uint8_t ch, struct cnode *child)
{
        unsigned pos = 0;
        while (pos < n->n_children && n->children[pos].c < ch)
                pos++;
        struct cchild *a = reallocarray(n->children, n->n_children + 1u, sizeof(*a));
        if (!a)
                return -ENOMEM;
        n->children = a;
        memmove(a + pos + 1, a + pos, (n->n_children - pos) * sizeof(*a));
        a[pos] = (struct cchild){.c = ch, .node = child};
        n->n_children++;
        return 0;
}

static struct cnode *node_find_child(const struct cnode *n, uint8_t ch)
{
        for (unsigned i = 0; i < n->n_children; i++)
                if (n->children[i].c == ch)
                        return n->children[i].node;
        return NULL;
}

/* Adds a value to n, keyed by the key's text; the same key on the same node is replaced,
 * because sources are read in priority order. */
static int node_add_value(struct hwdb_compiler *c, struct cnode *n, const struct cvalue *v)
{
        const char *key = c->pool[v->key];
        uint32_t lo = 0, hi = n->n_values;

        while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                int d = strcmp(c->pool[n->values[mid].key], key);
                if (d == 0) {
                        n->values[mid] = *v;
                        return 0;
                }
                if (d < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (n->n_values == UINT32_MAX)
                return -E2BIG;
        struct cvalue *a = reallocarray(n->values, n->n_values + 1u, sizeof(*a));
        if (!a)
                return -ENOMEM;
        n->values = a;
        memmove(a + lo + 1, a + lo, (n->n_values - lo) * sizeof(*a));
        a[lo] = *v;
        n->n_values++;
        return 0;
}

/* Inserts the match string (kept until the compiler is freed, so prefixes may point into
 * it) with value v. */
static int trie_insert(struct hwdb_compiler *c, const char *match, const struct cvalue *v)
{
        struct cnode *n = c->root;
        const char *s = match;

        for (;;) {
                uint32_t p = 0;
                while (p < n->prefix_len && n->prefix[p] == s[p])
                        p++;

                if (p < n->prefix_len) {
                        /* Split: the tail of the prefix and everything below moves to a
                         * new child named by the first differing character. */
                        struct cnode *tail = calloc(1, sizeof(*tail));
                        if (!tail)
                                return -ENOMEM;
                        *tail = (struct cnode){
                                .prefix = n->prefix + p + 1,
                                .prefix_len = n->prefix_len - p - 1,
                                .n_children = n->n_children,
                                .children = n->children,
                                .n_values = n->n_values,
                                .values = n->values,
                        };
                        uint8_t ch = (uint8_t)n->prefix[p];
                        n->prefix_len = p;
                        n->n_children = 0;
                        n->children = NULL;
                        n->n_values = 0;
                        n->values = NULL;
                        int r = node_add_child(n, ch, tail);
                        if (r < 0) {
                                /* undo, so nothing is lost or leaked */
                                n->prefix_len = p + 1 + tail->prefix_len;
                                n->n_children = tail->n_children;
                                n->children = tail->children;
                                n->n_values = tail->n_values;
                                n->values = tail->values;
                                free(tail);
                                return r;
                        }
                        c->n_nodes++;
                }
                s += p;

                if (*s == '\0')
                        return node_add_value(c, n, v);

                struct cnode *child = node_find_child(n, (uint8_t)*s);
                if (!child) {
                        child = calloc(1, sizeof(*child));
                        if (!child)
                                return -ENOMEM;
                        child->prefix = s + 1;
                        child->prefix_len = (uint32_t)strlen(s + 1);
                        int r = node_add_child(n, (uint8_t)*s, child);
                        if (r < 0) {
                                free(child);
                                return r;
                        }
                        c->n_nodes++;
                        return node_add_value(c, child, v);
                }
                n = child;
                s++;
        }
}

/* A " KEY=VALUE" line (line[0] is a space): adds the property to every match of the record.
 * Returns 1 when the line is malformed (logged), 0, or -errno. */
static int add_property(struct hwdb_compiler *c, char *line, const char *name, uint32_t line_number,
                        uint16_t priority)
{
        char *eq = strchr(line, '=');
        if (!eq) {
                log_warning("%s:%u: Key-value pair expected but got \"%s\", ignoring.", name, line_number,
                            line);
                return 1;
        }
        *eq = '\0';
        const char *value = eq + 1;

        /* The key keeps exactly one leading blank: readers require it. */
        while (isblank((unsigned char)line[0]) && isblank((unsigned char)line[1]))
                line++;
        if (line[1] == '\0') {
                log_warning("%s:%u: Empty key in \"%s=%s\", ignoring.", name, line_number, line, value);
                return 1;
        }

        int64_t k = intern(c, line), val = intern(c, value), f = intern(c, name);
        if (k < 0 || val < 0 || f < 0)
                return -ENOMEM;
        struct cvalue v = {
                .key = (uint32_t)k,
                .value = (uint32_t)val,
                .filename = (uint32_t)f,
                .line = line_number,
                .priority = priority,
        };
        for (size_t i = 0; i < c->n_matches; i++) {
                int r = trie_insert(c, c->matches[i], &v);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int add_match(struct hwdb_compiler *c, const char *line)
{
        if (array_grow((void **)&c->match_lines, &c->match_lines_alloc, c->n_match_lines + 1,
                 sizeof(*c->match_lines)) < 0 ||
            array_grow((void **)&c->matches, &c->matches_alloc, c->n_matches + 1, sizeof(*c->matches)) < 0)
                return -ENOMEM;
        char *m = strdup(line);
        if (!m)
                return -ENOMEM;
        c->match_lines[c->n_match_lines++] = m;
        c->matches[c->n_matches++] = m;
        return 0;
}

int hwdb_compiler_add_file(struct hwdb_compiler *c, const char *path, const char *name, uint16_t priority)
{
        enum { EXPECT_MATCH, IN_MATCHES, IN_PROPERTIES } state = EXPECT_MATCH;
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        size_t buf_alloc = 0;
        uint32_t line_number = 0;
        int errors = 0, r;

        if (!name)
                name = path;
        f = fopen(path, "re");
        if (!f)
                return -errno;
        c->n_matches = 0;

        for (;;) {
                errno = 0;
                ssize_t n = getline(&buf, &buf_alloc, f);
                if (n < 0) {
                        if (ferror(f))
                                return errno > 0 ? -errno : -EIO;
                        break;
                }
                line_number++;
                if (n > HWDB_LINE_MAX) {
                        log_warning("%s:%u: Line longer than %d bytes, ignoring the rest of the file.", name,
                                    line_number, HWDB_LINE_MAX);
                        errors++;
                        break;
                }
                char *line = buf;

                if (line[0] == '#')
                        continue;
                char *hash = strchr(line, '#');
                if (hash)
                        *hash = '\0';
                size_t len = strlen(line);
                while (len > 0 && isspace((unsigned char)line[len - 1]))
                        len--;
                line[len] = '\0';

                switch (state) {
                case EXPECT_MATCH:
                        if (len == 0)
                                break;
                        if (line[0] == ' ') {
                                log_warning("%s:%u: Match expected but got indented property \"%s\", ignoring line.",
                                            name, line_number, line);
                                errors++;
                                break;
                        }
                        r = add_match(c, line);
                        if (r < 0)
                                return r;
                        state = IN_MATCHES;
                        break;

                case IN_MATCHES:
                        if (len == 0) {
                                log_warning("%s:%u: Property expected, ignoring record with no properties.", name,
                                            line_number);
                                errors++;
                                c->n_matches = 0;
                                state = EXPECT_MATCH;
                                break;
                        }
                        if (line[0] != ' ') {
                                r = add_match(c, line);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        state = IN_PROPERTIES;
                        r = add_property(c, line, name, line_number, priority);
                        if (r < 0)
                                return r;
                        errors += r;
                        break;

                case IN_PROPERTIES:
                        if (len == 0) {
                                c->n_matches = 0;
                                state = EXPECT_MATCH;
                                break;
                        }
                        if (line[0] != ' ') {
                                log_warning("%s:%u: Property or empty line expected, got \"%s\", ignoring record.",
                                            name, line_number, line);
                                errors++;
                                c->n_matches = 0;
                                state = EXPECT_MATCH;
                                break;
                        }
                        r = add_property(c, line, name, line_number, priority);
                        if (r < 0)
                                return r;
                        errors += r;
                        break;
                }
        }

        if (state == IN_MATCHES) {
                log_warning("%s:%u: Property expected, ignoring record with no properties.", name, line_number);
                errors++;
        }
        c->n_matches = 0;
        return errors;
}

struct area {
        char *buf;
        size_t len, alloc;
};

#define NOT_PLACED UINT64_MAX

/* Appends span s to the area unless it is placed already; empty strings share byte 0. */
static int place(struct area *a, struct span *s)
{
        if (s->off != NOT_PLACED)
                return 0;
        if (s->len == 0) {
                s->off = 0;
                return 0;
        }
        if (array_grow((void **)&a->buf, &a->alloc, a->len + s->len + 1, 1) < 0)
                return -ENOMEM;
        memcpy(a->buf + a->len, s->p, s->len);
        a->buf[a->len + s->len] = '\0';
        s->off = a->len;
        a->len += s->len + 1;
        return 0;
}

/* Lays out the strings for locality, since a lookup's cost in resident memory is the number
 * of distinct file regions it touches: first the few keys and file names every lookup shares,
 * then, in node order, each node's prefix followed by its values, so the strings of a path
 * through the trie lie close together. Equal strings are stored once (they are interned).
 * spans[0..n_pool) are the pool, then one prefix per node in nodes[] order. */
static int layout_strings(const struct hwdb_compiler *c, struct cnode *const *nodes, struct span *spans,
                          char **ret, size_t *ret_len)
{
        struct area a = {0};
        int r;

        for (size_t i = 0; i < c->n_pool + c->n_nodes; i++)
                spans[i].off = NOT_PLACED;
        if (array_grow((void **)&a.buf, &a.alloc, 1, 1) < 0)
                return -ENOMEM;
        a.buf[a.len++] = '\0';

        for (size_t i = 0; i < c->n_nodes; i++)
                for (uint32_t k = 0; k < nodes[i]->n_values; k++) {
                        r = place(&a, &spans[nodes[i]->values[k].key]);
                        if (r < 0)
                                goto fail;
                        r = place(&a, &spans[nodes[i]->values[k].filename]);
                        if (r < 0)
                                goto fail;
                }
        for (size_t i = 0; i < c->n_nodes; i++) {
                r = place(&a, &spans[c->n_pool + i]);
                if (r < 0)
                        goto fail;
                for (uint32_t k = 0; k < nodes[i]->n_values; k++) {
                        r = place(&a, &spans[nodes[i]->values[k].value]);
                        if (r < 0)
                                goto fail;
                }
        }
        *ret = a.buf;
        *ret_len = a.len;
        return 0;
fail:
        free(a.buf);
        return r;
}

/* Lists the nodes children-first, iteratively, and sets their subtree sizes. */
static int nodes_post_order(struct hwdb_compiler *c, struct cnode ***ret)
{
        struct stack {
                struct cnode *n;
                unsigned next;
        };
        _cleanup_free_ struct stack *st = NULL;
        _cleanup_free_ struct cnode **out = NULL;
        size_t st_alloc = 0, n_st = 0, n_out = 0;

        out = reallocarray(NULL, c->n_nodes, sizeof(*out));
        if (!out || array_grow((void **)&st, &st_alloc, 1, sizeof(*st)) < 0)
                return -ENOMEM;
        st[n_st++] = (struct stack){c->root, 0};
        while (n_st > 0) {
                struct stack *top = &st[n_st - 1];
                if (top->next < top->n->n_children) {
                        struct cnode *child = top->n->children[top->next++].node;
                        if (array_grow((void **)&st, &st_alloc, n_st + 1, sizeof(*st)) < 0)
                                return -ENOMEM;
                        st[n_st++] = (struct stack){child, 0};
                        continue;
                }
                if (n_out >= c->n_nodes)
                        return -EINVAL; /* cannot happen: node count out of sync */
                top->n->subtree = 1;
                for (unsigned i = 0; i < top->n->n_children; i++)
                        top->n->subtree += top->n->children[i].node->subtree;
                out[n_out++] = top->n;
                n_st--;
        }
        if (n_out != c->n_nodes)
                return -EINVAL;
        *ret = TAKE_PTR(out);
        return 0;
}

/* Subtrees at least this big are "hot": lookups pass through them all the time. */
#define HOT_SUBTREE_MIN 100

/* The order nodes are stored in. Lookups start at the root and mostly walk down through the
 * big subtrees, so those nodes come first, together (breadth first); everything else follows
 * children-first, so each small subtree is contiguous. Fewer distinct file regions per lookup
 * means fewer resident pages in the readers' mappings. */
static int nodes_layout(struct hwdb_compiler *c, struct cnode ***ret)
{
        _cleanup_free_ struct cnode **post = NULL;
        struct cnode **out;
        size_t head = 0, n = 0;
        int r;

        r = nodes_post_order(c, &post);
        if (r < 0)
                return r;
        out = reallocarray(NULL, c->n_nodes, sizeof(*out));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_nodes; i++)
                post[i]->hot = false;
        out[n++] = c->root;
        c->root->hot = true;
        while (head < n) {
                struct cnode *x = out[head++];
                for (unsigned i = 0; i < x->n_children; i++) {
                        struct cnode *y = x->children[i].node;
                        if (y->subtree >= HOT_SUBTREE_MIN) {
                                y->hot = true;
                                out[n++] = y;
                        }
                }
        }
        for (size_t i = 0; i < c->n_nodes; i++)
                if (!post[i]->hot)
                        out[n++] = post[i];
        *ret = out;
        return 0;
}

static int write_all(FILE *f, const void *p, size_t n)
{
        if (n > 0 && fwrite(p, 1, n, f) != n)
                return errno > 0 ? -errno : -EIO;
        return 0;
}

/* Serializes the trie into f: header, nodes in post order, strings. */
static int write_db(struct hwdb_compiler *c, FILE *f)
{
        _cleanup_free_ struct cnode **nodes = NULL;
        _cleanup_free_ struct span *spans = NULL;
        _cleanup_free_ char *strings = NULL;
        size_t strings_len;
        int r;

        r = nodes_layout(c, &nodes);
        if (r < 0)
                return r;

        /* Strings: the pool first (index = pool index), then one per node prefix. */
        if (c->n_pool + c->n_nodes > UINT32_MAX)
                return -E2BIG;
        uint32_t n_spans = (uint32_t)(c->n_pool + c->n_nodes);
        spans = reallocarray(NULL, n_spans, sizeof(*spans));
        if (!spans)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_pool; i++)
                spans[i] = (struct span){.p = c->pool[i], .len = (uint32_t)strlen(c->pool[i])};
        for (size_t i = 0; i < c->n_nodes; i++) {
                nodes[i]->prefix_str = (uint32_t)(c->n_pool + i);
                spans[c->n_pool + i] = (struct span){.p = nodes[i]->prefix, .len = nodes[i]->prefix_len};
        }
        r = layout_strings(c, nodes, spans, &strings, &strings_len);
        if (r < 0)
                return r;

        /* Node offsets, in layout order. */
        uint64_t off = HWDB_HEADER_SIZE;
        for (size_t i = 0; i < c->n_nodes; i++) {
                nodes[i]->off = off;
                off += HWDB_NODE_SIZE + (uint64_t)nodes[i]->n_children * HWDB_CHILD_SIZE +
                       (uint64_t)nodes[i]->n_values * HWDB_VALUE_V2_SIZE;
        }
        uint64_t strings_off = off;

        uint8_t hdr[HWDB_HEADER_SIZE] = {0};
        memcpy(hdr, HWDB_SIGNATURE, HWDB_SIGNATURE_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_TOOL_VERSION, HWDB_TOOL_VERSION);
        hwdb_wr64(hdr + HWDB_HDR_FILE_SIZE, strings_off + strings_len);
        hwdb_wr64(hdr + HWDB_HDR_HEADER_SIZE, HWDB_HEADER_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_NODE_SIZE, HWDB_NODE_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_CHILD_ENTRY_SIZE, HWDB_CHILD_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_VALUE_ENTRY_SIZE, HWDB_VALUE_V2_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_NODES_ROOT_OFF, c->root->off);
        hwdb_wr64(hdr + HWDB_HDR_NODES_LEN, strings_off - HWDB_HEADER_SIZE);
        hwdb_wr64(hdr + HWDB_HDR_STRINGS_LEN, strings_len);
        r = write_all(f, hdr, sizeof(hdr));
        if (r < 0)
                return r;

        for (size_t i = 0; i < c->n_nodes; i++) {
                const struct cnode *n = nodes[i];
                uint8_t b[HWDB_VALUE_V2_SIZE];

                memset(b, 0, HWDB_NODE_SIZE);
                hwdb_wr64(b + HWDB_NODE_PREFIX_OFF, strings_off + spans[n->prefix_str].off);
                b[HWDB_NODE_CHILDREN_COUNT] = (uint8_t)n->n_children;
                hwdb_wr64(b + HWDB_NODE_VALUES_COUNT, n->n_values);
                r = write_all(f, b, HWDB_NODE_SIZE);
                if (r < 0)
                        return r;

                for (unsigned k = 0; k < n->n_children; k++) {
                        memset(b, 0, HWDB_CHILD_SIZE);
                        b[HWDB_CHILD_C] = n->children[k].c;
                        hwdb_wr64(b + HWDB_CHILD_OFF, n->children[k].node->off);
                        r = write_all(f, b, HWDB_CHILD_SIZE);
                        if (r < 0)
                                return r;
                }
                for (uint32_t k = 0; k < n->n_values; k++) {
                        const struct cvalue *v = &n->values[k];
                        memset(b, 0, HWDB_VALUE_V2_SIZE);
                        hwdb_wr64(b + HWDB_VALUE_KEY_OFF, strings_off + spans[v->key].off);
                        hwdb_wr64(b + HWDB_VALUE_VALUE_OFF, strings_off + spans[v->value].off);
                        hwdb_wr64(b + HWDB_VALUE_FILENAME_OFF, strings_off + spans[v->filename].off);
                        hwdb_wr32(b + HWDB_VALUE_LINE, v->line);
                        hwdb_wr16(b + HWDB_VALUE_PRIORITY, v->priority);
                        r = write_all(f, b, HWDB_VALUE_V2_SIZE);
                        if (r < 0)
                                return r;
                }
        }
        return write_all(f, strings, strings_len);
}

int hwdb_compiler_write(struct hwdb_compiler *c, const char *output)
{
        _cleanup_free_ char *tmp = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        int fd, r;

        if (asprintf(&tmp, "%s.XXXXXX", output) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "w");
        if (!f) {
                r = -errno;
                close(fd);
                goto fail;
        }
        if (fchmod(fd, 0444) < 0) {
                r = -errno;
                goto fail;
        }
        r = write_db(c, f);
        if (r < 0)
                goto fail;
        if (fflush(f) != 0 || fsync(fd) < 0) {
                r = negative_errno();
                goto fail;
        }
        /* Drop the written pages from the page cache: as the writer left them (large folios)
         * a reader's page fault maps far more of the file than it touches. Readers fault in
         * just what their lookups need. */
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (rename(tmp, output) < 0) {
                r = -errno;
                goto fail;
        }
        return 0;
fail:
        (void)unlink(tmp);
        return r;
}

static int cmp_basename(const void *a, const void *b)
{
        const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
        return strcmp(x, y);
}

int hwdb_source_files(const char *root, char ***ret)
{
        _cleanup_(hashmap_freep) struct hashmap *seen = NULL;
        char **files = NULL;
        size_t n = 0, alloc = 0;
        int r = 0;

        seen = hashmap_new_string();
        if (!seen)
                return -ENOMEM;

        for (size_t d = 0; source_dirs[d]; d++) {
                _cleanup_free_ char *dir = fs_root_join(root, source_dirs[d]);
                _cleanup_closedir_ DIR *dh = NULL;

                if (!dir) {
                        r = -ENOMEM;
                        goto fail;
                }
                dh = opendir(dir);
                if (!dh) {
                        if (errno == ENOENT || errno == ENOTDIR)
                                continue;
                        r = -errno;
                        goto fail;
                }
                struct dirent *de;
                while ((de = fs_readdir(dh, true))) {
                        const char *name = de->d_name;
                        size_t l = strlen(name);
                        if (l <= 5 || !streq(name + l - 5, ".hwdb") || de->d_type == DT_DIR)
                                continue;
                        char *path;
                        if (asprintf(&path, "%s/%s", dir, name) < 0) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        /* Earlier directories win; the key is the basename inside path. */
                        const char *base = strrchr(path, '/') + 1;
                        if (hashmap_get(seen, base)) {
                                free(path);
                                continue;
                        }
                        if (array_grow((void **)&files, &alloc, n + 2, sizeof(*files)) < 0 ||
                            hashmap_put(seen, base, path) < 0) {
                                free(path);
                                r = -ENOMEM;
                                goto fail;
                        }
                        files[n++] = path;
                        files[n] = NULL;
                }
        }

        if (n == 0) {
                files = calloc(1, sizeof(*files));
                if (!files)
                        return -ENOMEM;
        }
        qsort(files, n, sizeof(*files), cmp_basename);
        *ret = files;
        return (int)n;
fail:
        strv_free(files);
        return r;
}

int hwdb_update(const char *root, const char *output_path, bool strict)
{
        _cleanup_(hwdb_compiler_freep) struct hwdb_compiler *c = NULL;
        _cleanup_free_ char *output = NULL;
        char **files = NULL;
        int n, r, errors = 0;

        output = output_path ? strdup(output_path) : fs_root_join(root, "/etc/udev/hwdb.bin");
        if (!output)
                return log_oom();

        n = hwdb_source_files(root, &files);
        if (n < 0)
                return log_error_errno(n, "Failed to enumerate hwdb sources: %m");
        if (n == 0) {
                strv_free(files);
                if (unlink(output) < 0) {
                        if (errno != ENOENT)
                                return log_error_errno(errno, "Failed to remove %s: %m", output);
                        log_info("No hwdb files found, nothing to do.");
                } else
                        log_info("No hwdb files found, removed %s.", output);
                return 0;
        }
        if (n > UINT16_MAX) {
                strv_free(files);
                return log_error_errno(E2BIG, "Too many hwdb source files (%d).", n);
        }

        c = hwdb_compiler_new();
        if (!c) {
                strv_free(files);
                return log_oom();
        }

        for (int i = 0; i < n; i++) {
                const char *name = files[i];
                if (!isempty(root) && !streq(root, "/")) {
                        size_t l = strlen(root);
                        while (l > 1 && root[l - 1] == '/')
                                l--;
                        name += l;
                }
                if (fs_is_masked(files[i]))
                        continue;
                log_debug("Reading %s", files[i]);
                r = hwdb_compiler_add_file(c, files[i], name, (uint16_t)(i + 1));
                if (r < 0) {
                        log_error_errno(r, "Failed to read %s: %m", files[i]);
                        errors++;
                        continue;
                }
                errors += r;
        }
        strv_free(files);

        r = fs_mkdir_parents(output, 0755);
        if (r < 0)
                return log_error_errno(r, "Failed to create the directory of %s: %m", output);
        r = hwdb_compiler_write(c, output);
        if (r < 0)
                return log_error_errno(r, "Failed to write %s: %m", output);
        if (strict && errors > 0)
                return log_error_errno(EINVAL, "%d error(s) in hwdb sources.", errors);
        return 0;
}
