/* SPDX-License-Identifier: MIT */
#include "hwdb.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "glob-match.h"
#include "hwdb-format.h"
#include "hashmap.h"
#include "macros.h"

/* Longest glob pattern a lookup assembles. Compiled sources cap lines at this length too, so
 * only a corrupt file gets here. */
#define HWDB_PATTERN_MAX (1024 * 1024)

const char *const hwdb_bin_paths[] = {
        "/etc/systemd/hwdb/hwdb.bin",
        "/etc/udev/hwdb.bin",
        "/usr/lib/systemd/hwdb/hwdb.bin",
        "/lib/systemd/hwdb/hwdb.bin",
        "/usr/lib/udev/hwdb.bin",
        "/lib/udev/hwdb.bin",
        NULL,
};

/* A decoded node: where its arrays are and how long they are. */
struct node {
        uint64_t off;
        const char *prefix;
        unsigned n_children;
        uint64_t n_values;
        uint64_t children_off;
        uint64_t values_off;
};

/* One frame of the glob walk: a node and the next child to visit. */
struct frame {
        struct node node;
        unsigned next_child;
        size_t pattern_len;    /* pattern length to restore when the frame is popped */
        struct glob_state gs;  /* which text positions the pattern so far can reach */
};

struct hwdb {
        char *path;
        char *root;    /* set when path was found by searching the standard locations */
        const uint8_t *map;
        uint64_t size;
        struct stat st;

        /* header, validated */
        uint64_t header_size, node_size, child_size, value_size;
        uint64_t nodes_end, root_off, max_nodes;
        bool v2;

        /* scratch, reused by every lookup */
        char *pattern;
        size_t pattern_len, pattern_alloc;
        struct frame *stack;
        size_t stack_alloc;
        uint64_t *sets; /* the frames' glob_state bitsets, text.words each */
        size_t sets_alloc;
        struct hwdb_property *props;
        uint64_t *props_filename_off; /* parallel to props: v2 files without priorities order by it */
        size_t n_props, props_alloc, props_filename_alloc;
        uint32_t *index; /* hash of props by key (slot = prop index + 1), once there are many */
        size_t index_size;
        bool index_active;
        uint64_t budget; /* nodes a lookup may still visit; bounds work on a corrupt DAG */
};

static char *path_join_root(const char *root, const char *path)
{
        char *s;
        if (isempty(root) || streq(root, "/"))
                return strdup(path);
        size_t l = strlen(root);
        while (l > 1 && root[l - 1] == '/')
                l--;
        if (asprintf(&s, "%.*s%s", (int)l, root, path) < 0)
                return NULL;
        return s;
}

struct hwdb *hwdb_free(struct hwdb *h)
{
        if (!h)
                return NULL;
        if (h->map)
                munmap((void *)h->map, h->size);
        free(h->path);
        free(h->root);
        free(h->pattern);
        free(h->stack);
        free(h->sets);
        free(h->props);
        free(h->props_filename_off);
        free(h->index);
        return mfree(h);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hwdb, hwdb_free);

/* Checks the header: sizes the reader relies on and the bounds of the node area. */
static int validate_header(struct hwdb *h)
{
        const uint8_t *m = h->map;

        if (h->size < HWDB_HEADER_SIZE || memcmp(m, HWDB_SIGNATURE, HWDB_SIGNATURE_SIZE) != 0)
                return -EBADMSG;
        if (hwdb_rd64(m + HWDB_HDR_FILE_SIZE) != h->size)
                return -EBADMSG;

        h->header_size = hwdb_rd64(m + HWDB_HDR_HEADER_SIZE);
        h->node_size = hwdb_rd64(m + HWDB_HDR_NODE_SIZE);
        h->child_size = hwdb_rd64(m + HWDB_HDR_CHILD_ENTRY_SIZE);
        h->value_size = hwdb_rd64(m + HWDB_HDR_VALUE_ENTRY_SIZE);
        uint64_t nodes_len = hwdb_rd64(m + HWDB_HDR_NODES_LEN);
        h->root_off = hwdb_rd64(m + HWDB_HDR_NODES_ROOT_OFF);

        /* Entry sizes may grow in future versions (readers skip the tail) but must hold the
         * fields we read; the upper bound only keeps the arithmetic far from overflow. */
        if (h->header_size < HWDB_HEADER_SIZE || h->header_size > h->size)
                return -EBADMSG;
        if (h->node_size < HWDB_NODE_SIZE || h->node_size > 4096 || h->child_size < HWDB_CHILD_SIZE ||
            h->child_size > 4096 || h->value_size < HWDB_VALUE_V1_SIZE || h->value_size > 4096)
                return -EBADMSG;
        if (nodes_len > h->size - h->header_size)
                return -EBADMSG;
        h->nodes_end = h->header_size + nodes_len;
        if (h->root_off < h->header_size || h->root_off > h->nodes_end ||
            h->nodes_end - h->root_off < h->node_size)
                return -EBADMSG;
        /* Every string ends before the end of the file, so strlen() on any in-file offset
         * stops inside the mapping. */
        if (m[h->size - 1] != '\0')
                return -EBADMSG;

        h->v2 = h->value_size >= HWDB_VALUE_V2_SIZE;
        h->max_nodes = nodes_len / h->node_size;
        return 0;
}

static int open_one(const char *file, struct hwdb **ret)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        _cleanup_close_ int fd = -1;

        fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;

        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->path = strdup(file);
        if (!h->path)
                return -ENOMEM;

        if (fstat(fd, &h->st) < 0)
                return -errno;
        if (!S_ISREG(h->st.st_mode))
                return -EBADMSG;
        if ((uint64_t)h->st.st_size < HWDB_HEADER_SIZE)
                return -EBADMSG;
        if ((uint64_t)h->st.st_size > SIZE_MAX)
                return -EFBIG;

        void *m = mmap(NULL, (size_t)h->st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
                return -errno;
        h->map = m;
        h->size = (uint64_t)h->st.st_size;
        /* Lookups touch a few scattered nodes: no read-ahead, so only those pages become
         * resident. */
        (void)madvise(m, (size_t)h->size, MADV_RANDOM);

        int r = validate_header(h);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(h);
        return 0;
}

int hwdb_open(const char *root, const char *path, struct hwdb **ret)
{
        if (path) {
                _cleanup_free_ char *p = path_join_root(root, path);
                if (!p)
                        return -ENOMEM;
                return open_one(p, ret);
        }

        for (size_t i = 0; hwdb_bin_paths[i]; i++) {
                _cleanup_free_ char *p = path_join_root(root, hwdb_bin_paths[i]);
                if (!p)
                        return -ENOMEM;
                int r = open_one(p, ret);
                if (r == -ENOENT)
                        continue;
                if (r >= 0) {
                        (*ret)->root = strdup(isempty(root) ? "/" : root);
                        if (!(*ret)->root) {
                                *ret = hwdb_free(*ret);
                                return -ENOMEM;
                        }
                }
                return r;
        }
        return -ENOENT;
}

const char *hwdb_get_path(const struct hwdb *h)
{
        return h->path;
}

bool hwdb_is_stale(const struct hwdb *h)
{
        struct stat st;

        if (h->root) {
                /* A database that appeared at a location searched earlier wins now. */
                for (size_t i = 0; hwdb_bin_paths[i]; i++) {
                        _cleanup_free_ char *p = path_join_root(h->root, hwdb_bin_paths[i]);
                        if (!p)
                                return false; /* cannot tell; keep what works */
                        if (streq(p, h->path))
                                break;
                        if (access(p, F_OK) == 0)
                                return true;
                }
        }
        if (stat(h->path, &st) < 0)
                return true;
        return st.st_dev != h->st.st_dev || st.st_ino != h->st.st_ino || st.st_size != h->st.st_size ||
               st.st_mtim.tv_sec != h->st.st_mtim.tv_sec || st.st_mtim.tv_nsec != h->st.st_mtim.tv_nsec;
}

void hwdb_trim(struct hwdb *h)
{
        /* The mapping is read-only and shared: dropping its page table entries loses nothing,
         * the pages stay in the page cache for the next lookup's (minor) faults. */
        (void)madvise((void *)h->map, (size_t)h->size, MADV_DONTNEED);
}

/* A string at an in-file offset (terminated: the last byte of the file is NUL). */
static const char *string_at(const struct hwdb *h, uint64_t off)
{
        if (off >= h->size)
                return NULL;
        return (const char *)h->map + off;
}

/* Decodes and bounds-checks the node at off; the node, its children and its values must lie
 * inside the node area. */
static int node_at(struct hwdb *h, uint64_t off, struct node *n)
{
        if (h->budget == 0)
                return -EBADMSG; /* more node visits than nodes: a cycle or shared subtrees */
        h->budget--;

        if (off < h->header_size || off > h->nodes_end || h->nodes_end - off < h->node_size)
                return -EBADMSG;
        const uint8_t *p = h->map + off;
        uint64_t avail = h->nodes_end - off - h->node_size;

        n->off = off;
        n->n_children = p[HWDB_NODE_CHILDREN_COUNT];
        n->n_values = hwdb_rd64(p + HWDB_NODE_VALUES_COUNT);
        uint64_t children_len = n->n_children * h->child_size;
        if (children_len > avail)
                return -EBADMSG;
        avail -= children_len;
        if (n->n_values > avail / h->value_size)
                return -EBADMSG;
        n->children_off = off + h->node_size;
        n->values_off = n->children_off + children_len;

        uint64_t prefix_off = hwdb_rd64(p + HWDB_NODE_PREFIX_OFF);
        if (prefix_off == 0)
                n->prefix = ""; /* no prefix */
        else if (!(n->prefix = string_at(h, prefix_off)))
                return -EBADMSG;
        return 0;
}

static uint8_t child_char(const struct hwdb *h, const struct node *n, unsigned i)
{
        return h->map[n->children_off + i * h->child_size + HWDB_CHILD_C];
}

static uint64_t child_off(const struct hwdb *h, const struct node *n, unsigned i)
{
        return hwdb_rd64(h->map + n->children_off + i * h->child_size + HWDB_CHILD_OFF);
}

/* Bisects the children (sorted by character); returns the child's node offset or 0. */
static uint64_t child_lookup(const struct hwdb *h, const struct node *n, uint8_t c)
{
        unsigned lo = 0, hi = n->n_children;

        while (lo < hi) {
                unsigned mid = lo + (hi - lo) / 2;
                uint8_t mc = child_char(h, n, mid);
                if (mc == c)
                        return child_off(h, n, mid);
                if (mc < c)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return 0;
}

static int grow(void **p, size_t *alloc, size_t need, size_t elem)
{
        if (need <= *alloc)
                return 0;
        size_t n = *alloc ? *alloc : 16;
        while (n < need)
                n *= 2;
        void *q = reallocarray(*p, n, elem);
        if (!q)
                return -ENOMEM;
        *p = q;
        *alloc = n;
        return 0;
}

static int pattern_append(struct hwdb *h, const char *s, size_t len)
{
        if (h->pattern_len + len >= HWDB_PATTERN_MAX)
                return -EBADMSG;
        int r = grow((void **)&h->pattern, &h->pattern_alloc, h->pattern_len + len + 1, 1);
        if (r < 0)
                return r;
        memcpy(h->pattern + h->pattern_len, s, len);
        h->pattern_len += len;
        h->pattern[h->pattern_len] = '\0';
        return 0;
}

static void pattern_truncate(struct hwdb *h, size_t len)
{
        h->pattern_len = len;
        h->pattern[len] = '\0';
}

/* Results are few (Debian's largest is 55), so keys are compared in a list; a corrupt file
 * with huge value arrays would make that quadratic, so past this many a hash index is used. */
#define HWDB_LINEAR_MAX 64

static size_t index_slot(const struct hwdb *h, const char *key)
{
        size_t mask = h->index_size - 1, i = (size_t)hash_string(key) & mask;
        while (h->index[i] != 0 && !streq(h->props[h->index[i] - 1].key, key))
                i = (i + 1) & mask;
        return i;
}

/* (Re)builds the index over all current properties with room for twice as many. */
static int index_rebuild(struct hwdb *h)
{
        size_t size = 2 * HWDB_LINEAR_MAX;
        while (size < 4 * (h->n_props + 1))
                size *= 2;
        if (size > h->index_size) {
                uint32_t *n = reallocarray(h->index, size, sizeof(*n));
                if (!n)
                        return -ENOMEM;
                h->index = n;
                h->index_size = size;
        }
        memset(h->index, 0, h->index_size * sizeof(*h->index));
        for (size_t k = 0; k < h->n_props; k++)
                h->index[index_slot(h, h->props[k].key)] = (uint32_t)(k + 1);
        h->index_active = true;
        return 0;
}

/* The position of key among the properties, or -1. */
static ssize_t find_property(const struct hwdb *h, const char *key)
{
        if (h->index_active) {
                uint32_t v = h->index[index_slot(h, key)];
                return v ? (ssize_t)v - 1 : -1;
        }
        for (size_t k = 0; k < h->n_props; k++)
                if (streq(h->props[k].key, key))
                        return (ssize_t)k;
        return -1;
}

/* Merges one value entry into the result, keeping the higher-precedence entry per key. */
static int add_value(struct hwdb *h, const struct node *n, uint64_t i)
{
        const uint8_t *e = h->map + n->values_off + i * h->value_size;
        const char *key = string_at(h, hwdb_rd64(e + HWDB_VALUE_KEY_OFF));
        const char *value = string_at(h, hwdb_rd64(e + HWDB_VALUE_VALUE_OFF));

        if (!key || !value)
                return -EBADMSG;
        /* Keys without the leading space are reserved for extensions: skip them. */
        if (key[0] != ' ')
                return 0;
        key++;

        struct hwdb_property prop = {.key = key, .value = value};
        uint64_t filename_off = 0;
        if (h->v2) {
                filename_off = hwdb_rd64(e + HWDB_VALUE_FILENAME_OFF);
                prop.filename = string_at(h, filename_off);
                prop.line = hwdb_rd32(e + HWDB_VALUE_LINE);
                prop.file_priority = hwdb_rd16(e + HWDB_VALUE_PRIORITY);
        }

        ssize_t k = find_property(h, key);
        if (k >= 0) {
                struct hwdb_property *old = &h->props[k];
                if (h->v2) {
                        bool lower;
                        /* Priority 0: an old v2 file; files were stored in priority order,
                         * so the file name's offset stands in for the priority. */
                        if (prop.file_priority == 0)
                                lower = filename_off < h->props_filename_off[k] ||
                                        (filename_off == h->props_filename_off[k] && prop.line < old->line);
                        else
                                lower = prop.file_priority < old->file_priority ||
                                        (prop.file_priority == old->file_priority && prop.line < old->line);
                        if (lower)
                                return 0;
                }
                *old = prop; /* keeps its place in the order; the key text is the same */
                h->props_filename_off[k] = filename_off;
                return 0;
        }
        if (h->n_props >= UINT32_MAX - 1)
                return -EBADMSG;

        int r = grow((void **)&h->props, &h->props_alloc, h->n_props + 1, sizeof(*h->props));
        if (r < 0)
                return r;
        r = grow((void **)&h->props_filename_off, &h->props_filename_alloc, h->n_props + 1,
                 sizeof(*h->props_filename_off));
        if (r < 0)
                return r;
        h->props[h->n_props] = prop;
        h->props_filename_off[h->n_props] = filename_off;
        h->n_props++;
        if (h->index_active && 4 * h->n_props <= h->index_size) {
                h->index[index_slot(h, key)] = (uint32_t)h->n_props;
                return 0;
        }
        if (h->n_props > HWDB_LINEAR_MAX)
                return index_rebuild(h);
        return 0;
}

static int add_values(struct hwdb *h, const struct node *n)
{
        for (uint64_t i = 0; i < n->n_values; i++) {
                int r = add_value(h, n, i);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Pushes the node at off as frame depth: appends its prefix (from byte skip on) to the
 * pattern and advances the frame's glob state over the new pattern bytes, from the parent's
 * state (or from scratch over the whole pattern so far for the first frame).
 * Returns 0, 1 when no pattern below the node can match (the pattern is restored and the
 * frame is not in use), or -errno. */
static int push_frame(struct hwdb *h, const struct glob_text *text, size_t depth, uint64_t off, size_t skip,
                      size_t restore_len)
{
        struct frame *f;
        size_t from;
        int r;

        r = grow((void **)&h->stack, &h->stack_alloc, depth + 1, sizeof(*h->stack));
        if (r < 0)
                return r;
        r = grow((void **)&h->sets, &h->sets_alloc, (depth + 1) * text->words, sizeof(*h->sets));
        if (r < 0)
                return r;
        f = &h->stack[depth];
        r = node_at(h, off, &f->node);
        if (r < 0)
                return r;
        size_t plen = strlen(f->node.prefix);
        if (skip > plen)
                return -EBADMSG;
        f->next_child = 0;
        f->pattern_len = restore_len;

        f->gs.set = h->sets + depth * text->words;
        if (depth == 0) {
                glob_state_start(text, &f->gs);
                from = 0;
        } else {
                struct frame *parent = &h->stack[depth - 1];
                parent->gs.set = h->sets + (depth - 1) * text->words; /* sets may have moved */
                glob_state_copy(text, &f->gs, &parent->gs);
                from = restore_len; /* the child's character */
        }
        r = pattern_append(h, f->node.prefix + skip, plen - skip);
        if (r < 0)
                return r;
        for (size_t i = from; i < h->pattern_len; i++)
                glob_state_feed(text, &f->gs, h->pattern, i);
        if (!glob_state_viable(text, &f->gs)) {
                pattern_truncate(h, restore_len);
                return 1;
        }
        return 0;
}

/* Below a glob character every remaining path is a candidate pattern: walk the subtree
 * rooted at off (its prefix from byte skip on), building each pattern in h->pattern, and
 * match it (fnmatch semantics) against the rest of the lookup string wherever a node
 * carries values. Subtrees no pattern of which can match are skipped. Children come before
 * the node's own values, as in systemd, so results keep its order.
 * Iterative, so a deep (corrupt) trie cannot overflow the C stack. */
static int glob_walk(struct hwdb *h, uint64_t off, size_t skip, const char *rest)
{
        struct glob_text text;
        size_t depth = 0;
        int r;

        glob_text_init(&text, rest);
        r = push_frame(h, &text, depth, off, skip, h->pattern_len);
        if (r != 0)
                return r < 0 ? r : 0;
        depth = 1;

        while (depth > 0) {
                struct frame *f = &h->stack[depth - 1];

                if (f->next_child < f->node.n_children) {
                        unsigned i = f->next_child++;
                        size_t len = h->pattern_len;
                        char c = (char)child_char(h, &f->node, i);

                        r = pattern_append(h, &c, 1);
                        if (r < 0)
                                return r;
                        r = push_frame(h, &text, depth, child_off(h, &f->node, i), 0, len);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                depth++;
                        continue;
                }

                if (f->node.n_values > 0 && glob_match(h->pattern, rest)) {
                        r = add_values(h, &f->node);
                        if (r < 0)
                                return r;
                }
                pattern_truncate(h, f->pattern_len);
                depth--;
        }
        return 0;
}

/* Starts a glob walk at the child of n named by the glob character c, if there is one. */
static int glob_child(struct hwdb *h, const struct node *n, char c, const char *rest)
{
        uint64_t off = child_lookup(h, n, (uint8_t)c);
        if (off == 0)
                return 0;
        pattern_truncate(h, 0);
        int r = pattern_append(h, &c, 1);
        if (r < 0)
                return r;
        return glob_walk(h, off, 0, rest);
}

/* The literal walk: follow the lookup string down the trie; at each node, glob children
 * ('*', '?', '[') start a glob walk over the rest of the string. Each step consumes a
 * character of the lookup string, so the walk ends even on a corrupt file. */
static int search(struct hwdb *h, const char *s)
{
        uint64_t off = h->root_off;
        size_t i = 0;
        int r;

        for (;;) {
                struct node n;

                r = node_at(h, off, &n);
                if (r < 0)
                        return r;

                for (size_t p = 0; n.prefix[p]; p++) {
                        char c = n.prefix[p];
                        if (c == '*' || c == '?' || c == '[') {
                                pattern_truncate(h, 0);
                                h->budget++; /* the node is visited again by the walk */
                                return glob_walk(h, off, p, s + i + p);
                        }
                        if (c != s[i + p])
                                return 0;
                }
                i += strlen(n.prefix);

                static const char globs[] = {'*', '?', '['};
                for (size_t g = 0; g < ELEMENTSOF(globs); g++) {
                        r = glob_child(h, &n, globs[g], s + i);
                        if (r < 0)
                                return r;
                }

                if (s[i] == '\0')
                        return add_values(h, &n);

                off = child_lookup(h, &n, (uint8_t)s[i]);
                if (off == 0)
                        return 0;
                i++;
        }
}

int hwdb_lookup(struct hwdb *h, const char *modalias, const struct hwdb_property **ret)
{
        int r;

        h->n_props = 0;
        h->index_active = false;
        h->pattern_len = 0;
        h->budget = h->max_nodes + 1;
        if (!h->pattern) {
                r = pattern_append(h, "", 0);
                if (r < 0)
                        return r;
        }

        r = search(h, modalias);
        if (r < 0) {
                h->n_props = 0;
                return r;
        }
        if (ret)
                *ret = h->n_props > 0 ? h->props : NULL;
        return (int)h->n_props;
}

int hwdb_foreach(struct hwdb *h, const char *modalias,
                 int (*cb)(const struct hwdb_property *p, void *userdata), void *userdata)
{
        const struct hwdb_property *props;
        int n = hwdb_lookup(h, modalias, &props);
        if (n < 0)
                return n;
        for (int k = 0; k < n; k++) {
                int r = cb(&props[k], userdata);
                if (r < 0)
                        return r;
        }
        return n;
}

int hwdb_query(const char *root, const char *path, const char *modalias, FILE *out)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        const struct hwdb_property *props;
        int r, n;

        r = hwdb_open(root, path, &h);
        if (r < 0)
                return r;
        n = hwdb_lookup(h, modalias, &props);
        if (n < 0)
                return n;
        for (int i = 0; i < n; i++)
                if (fprintf(out, "%s=%s\n", props[i].key, props[i].value) < 0)
                        return -EIO;
        return n;
}
