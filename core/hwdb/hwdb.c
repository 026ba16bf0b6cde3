/* SPDX-License-Identifier: MIT */
#include "hwdb.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "fs-util.h"
#include "glob-match.h"
#include "hwdb-format.h"
#include "hashmap.h"
#include "macros.h"

/* Longest glob pattern a lookup assembles. Compiled sources cap lines at this length too, so
 * only a corrupt file gets here. */
#define HWDB_PATTERN_MAX (1024 * 1024)
/* Longest string read from the file, and most result text one lookup may gather: far above
 * any real database, low enough that a corrupt one cannot make a lookup copy gigabytes. */
#define HWDB_STRING_MAX HWDB_PATTERN_MAX
#define HWDB_TEXT_MAX (16 * 1024 * 1024)

/* The file is read with pread() through a small cache of its blocks, never mapped: the
 * kernel maps a cached file's folios whole, so a mapping that touched a few bytes counted
 * 2 MiB per touch in the reader's RSS whenever the page cache held the file in PMD-sized
 * folios (as it does after the file was written or read sequentially), and the daemon's
 * memory depended on how the file came into the page cache. Lookups on Debian's database
 * read a few dozen blocks, most of them near the root and shared between lookups; with 64
 * slots (256 KiB) a coldplug's lookups mostly hit. */
#define BLOCK_SHIFT 12
#define BLOCK_SIZE ((size_t)1 << BLOCK_SHIFT)
#define CACHE_BLOCKS 64

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
        return a < b ? a : b;
}

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
        uint64_t prefix_off; /* 0: no prefix */
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

/* One property of the lookup in progress: its strings are offsets into the handle's text,
 * which may move while the lookup gathers more. */
struct result {
        size_t key, value, filename; /* filename: SIZE_MAX when none */
        uint64_t filename_off;       /* v2 files without priorities order by it */
        uint32_t line;
        uint16_t file_priority;
};

struct hwdb {
        char *path;
        char *root;    /* set when path was found by searching the standard locations */
        int fd;
        uint64_t size;
        struct stat st;

        /* CACHE_BLOCKS blocks of the file, direct-mapped by block number; allocated on the
         * first read, given back by hwdb_trim() */
        uint8_t *cache;
        uint64_t cache_tag[CACHE_BLOCKS]; /* block number + 1 held in each slot; 0: none */
        uint64_t blocks_read;
        uint8_t *span; /* a range that straddles blocks, assembled */
        size_t span_alloc;
        char *str;     /* the last prefix or key read */
        size_t str_alloc;

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
        struct result *res;
        size_t n_res, res_alloc;
        char *text; /* the strings of res */
        size_t text_len, text_alloc;
        struct hwdb_property *props; /* res with pointers, once the lookup is done */
        size_t props_alloc;
        uint32_t *index; /* hash of res by key (slot = result index + 1), once there are many */
        size_t index_size;
        bool index_active;
        uint64_t budget; /* nodes a lookup may still visit; bounds work on a corrupt DAG */
};

struct hwdb *hwdb_free(struct hwdb *h)
{
        if (!h)
                return NULL;
        if (h->fd >= 0)
                close(h->fd);
        free(h->path);
        free(h->root);
        free(h->cache);
        free(h->span);
        free(h->str);
        free(h->pattern);
        free(h->stack);
        free(h->sets);
        free(h->res);
        free(h->text);
        free(h->props);
        free(h->index);
        return mfree(h);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hwdb, hwdb_free);

/* Makes block blk of the file resident in its cache slot. */
static int load_block(struct hwdb *h, uint64_t blk, const uint8_t **ret)
{
        size_t slot = (size_t)(blk % CACHE_BLOCKS);

        if (!h->cache) {
                h->cache = malloc(CACHE_BLOCKS * BLOCK_SIZE);
                if (!h->cache)
                        return -ENOMEM;
        }
        uint8_t *b = h->cache + slot * BLOCK_SIZE;
        if (h->cache_tag[slot] != blk + 1) {
                uint64_t off = blk << BLOCK_SHIFT;
                size_t want = off < h->size ? (size_t)min_u64(BLOCK_SIZE, h->size - off) : 0;
                h->cache_tag[slot] = 0;
                for (size_t got = 0; got < want;) {
                        ssize_t n = pread(h->fd, b + got, want - got, (off_t)(off + got));
                        if (n < 0) {
                                if (errno == EINTR)
                                        continue;
                                return -errno;
                        }
                        if (n == 0)
                                return -EBADMSG; /* the file shrank under us */
                        got += (size_t)n;
                }
                h->cache_tag[slot] = blk + 1;
                h->blocks_read++;
        }
        *ret = b;
        return 0;
}

/* The len bytes at off, contiguous. The pointer is valid until the next read from h. */
static int bytes_at(struct hwdb *h, uint64_t off, size_t len, const uint8_t **ret)
{
        const uint8_t *b;
        int r;

        if (off > h->size || len > h->size - off)
                return -EBADMSG;
        size_t in = (size_t)(off & (BLOCK_SIZE - 1));
        if (in + len <= BLOCK_SIZE) {
                r = load_block(h, off >> BLOCK_SHIFT, &b);
                if (r < 0)
                        return r;
                *ret = b + in;
                return 0;
        }
        r = array_grow((void **)&h->span, &h->span_alloc, len, 1);
        if (r < 0)
                return r;
        for (size_t done = 0; done < len;) {
                uint64_t o = off + done;
                size_t bi = (size_t)(o & (BLOCK_SIZE - 1)), k = (size_t)min_u64(BLOCK_SIZE - bi, len - done);
                r = load_block(h, o >> BLOCK_SHIFT, &b);
                if (r < 0)
                        return r;
                memcpy(h->span + done, b + bi, k);
                done += k;
        }
        *ret = h->span;
        return 0;
}

/* Copies the NUL-terminated string at off to *buf from position at on (growing it) and
 * terminates it there; its length goes to *ret_len. The file's last byte is a NUL, so the
 * string ends inside the file. */
static int string_at(struct hwdb *h, uint64_t off, char **buf, size_t *alloc, size_t at, size_t *ret_len)
{
        size_t len = 0;
        int r;

        for (;;) {
                const uint8_t *b;
                if (off >= h->size)
                        return -EBADMSG;
                r = load_block(h, off >> BLOCK_SHIFT, &b);
                if (r < 0)
                        return r;
                size_t bi = (size_t)(off & (BLOCK_SIZE - 1));
                size_t avail = (size_t)min_u64(BLOCK_SIZE - bi, h->size - off);
                const uint8_t *nul = memchr(b + bi, '\0', avail);
                size_t k = nul ? (size_t)(nul - (b + bi)) : avail;
                if (len + k >= HWDB_STRING_MAX)
                        return -EBADMSG;
                r = array_grow((void **)buf, alloc, at + len + k + 1, 1);
                if (r < 0)
                        return r;
                memcpy(*buf + at + len, b + bi, k);
                len += k;
                if (nul)
                        break;
                off += k;
        }
        (*buf)[at + len] = '\0';
        *ret_len = len;
        return 0;
}

/* Checks the header: sizes the reader relies on and the bounds of the node area. */
static int validate_header(struct hwdb *h)
{
        const uint8_t *m;
        int r;

        if (h->size < HWDB_HEADER_SIZE)
                return -EBADMSG;
        /* Every string ends before the end of the file, so a string read stops inside it. */
        r = bytes_at(h, h->size - 1, 1, &m);
        if (r < 0)
                return r;
        if (m[0] != '\0')
                return -EBADMSG;

        r = bytes_at(h, 0, HWDB_HEADER_SIZE, &m);
        if (r < 0)
                return r;
        if (memcmp(m, HWDB_SIGNATURE, HWDB_SIGNATURE_SIZE) != 0)
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

        h->v2 = h->value_size >= HWDB_VALUE_V2_SIZE;
        h->max_nodes = nodes_len / h->node_size;
        return 0;
}

static int open_one(const char *file, struct hwdb **ret)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;

        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (h->fd < 0)
                return -errno;
        h->path = strdup(file);
        if (!h->path)
                return -ENOMEM;

        if (fstat(h->fd, &h->st) < 0)
                return -errno;
        if (!S_ISREG(h->st.st_mode))
                return -EBADMSG;
        if ((uint64_t)h->st.st_size < HWDB_HEADER_SIZE)
                return -EBADMSG;
        h->size = (uint64_t)h->st.st_size;
        /* Lookups read a few scattered blocks: no read-ahead around them. */
        (void)posix_fadvise(h->fd, 0, 0, POSIX_FADV_RANDOM);

        int r = validate_header(h);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(h);
        return 0;
}

int hwdb_open(const char *root, const char *path, struct hwdb **ret)
{
        if (path) {
                _cleanup_free_ char *p = fs_root_join(root, path);
                if (!p)
                        return -ENOMEM;
                return open_one(p, ret);
        }

        for (size_t i = 0; hwdb_bin_paths[i]; i++) {
                _cleanup_free_ char *p = fs_root_join(root, hwdb_bin_paths[i]);
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
                        _cleanup_free_ char *p = fs_root_join(h->root, hwdb_bin_paths[i]);
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
        /* The cache is one allocation above malloc's mmap threshold: freeing it returns its
         * pages to the kernel at once. */
        h->cache = mfree(h->cache);
        memset(h->cache_tag, 0, sizeof(h->cache_tag));
        h->span = mfree(h->span);
        h->span_alloc = 0;
}

uint64_t hwdb_blocks_read(const struct hwdb *h)
{
        return h->blocks_read;
}

/* Decodes and bounds-checks the node at off; the node, its children and its values must lie
 * inside the node area. */
static int node_at(struct hwdb *h, uint64_t off, struct node *n)
{
        const uint8_t *p;

        if (h->budget == 0)
                return -EBADMSG; /* more node visits than nodes: a cycle or shared subtrees */
        h->budget--;

        if (off < h->header_size || off > h->nodes_end || h->nodes_end - off < h->node_size)
                return -EBADMSG;
        int r = bytes_at(h, off, HWDB_NODE_SIZE, &p);
        if (r < 0)
                return r;
        uint64_t avail = h->nodes_end - off - h->node_size;

        n->off = off;
        n->n_children = p[HWDB_NODE_CHILDREN_COUNT];
        n->n_values = hwdb_rd64(p + HWDB_NODE_VALUES_COUNT);
        n->prefix_off = hwdb_rd64(p + HWDB_NODE_PREFIX_OFF);
        uint64_t children_len = n->n_children * h->child_size;
        if (children_len > avail)
                return -EBADMSG;
        avail -= children_len;
        if (n->n_values > avail / h->value_size)
                return -EBADMSG;
        n->children_off = off + h->node_size;
        n->values_off = n->children_off + children_len;
        if (n->prefix_off >= h->size)
                return -EBADMSG;
        return 0;
}

/* The node's prefix, read into h->str (valid until the next string read). */
static int node_prefix(struct hwdb *h, const struct node *n, size_t *ret_len)
{
        if (n->prefix_off == 0) { /* no prefix */
                int r = array_grow((void **)&h->str, &h->str_alloc, 1, 1);
                if (r < 0)
                        return r;
                h->str[0] = '\0';
                *ret_len = 0;
                return 0;
        }
        return string_at(h, n->prefix_off, &h->str, &h->str_alloc, 0, ret_len);
}

/* Child i of n: its character and node offset. */
static int child_at(struct hwdb *h, const struct node *n, unsigned i, uint8_t *ret_c, uint64_t *ret_off)
{
        const uint8_t *e;
        int r = bytes_at(h, n->children_off + i * h->child_size, HWDB_CHILD_SIZE, &e);
        if (r < 0)
                return r;
        *ret_c = e[HWDB_CHILD_C];
        *ret_off = hwdb_rd64(e + HWDB_CHILD_OFF);
        return 0;
}

/* Bisects the children (sorted by character) for c: sets *ret to the child's node offset,
 * or 0 when there is none. */
static int child_lookup(struct hwdb *h, const struct node *n, uint8_t c, uint64_t *ret)
{
        const uint8_t *children;
        unsigned lo = 0, hi = n->n_children;

        *ret = 0;
        if (hi == 0)
                return 0;
        int r = bytes_at(h, n->children_off, n->n_children * h->child_size, &children);
        if (r < 0)
                return r;
        while (lo < hi) {
                unsigned mid = lo + (hi - lo) / 2;
                const uint8_t *e = children + mid * h->child_size;
                if (e[HWDB_CHILD_C] == c) {
                        *ret = hwdb_rd64(e + HWDB_CHILD_OFF);
                        return 0;
                }
                if (e[HWDB_CHILD_C] < c)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return 0;
}

static int pattern_append(struct hwdb *h, const char *s, size_t len)
{
        if (h->pattern_len + len >= HWDB_PATTERN_MAX)
                return -EBADMSG;
        int r = array_grow((void **)&h->pattern, &h->pattern_alloc, h->pattern_len + len + 1, 1);
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

static const char *result_key(const struct hwdb *h, size_t k)
{
        return h->text + h->res[k].key;
}

static size_t index_slot(const struct hwdb *h, const char *key)
{
        size_t mask = h->index_size - 1, i = (size_t)hash_string(key) & mask;
        while (h->index[i] != 0 && !streq(result_key(h, h->index[i] - 1), key))
                i = (i + 1) & mask;
        return i;
}

/* (Re)builds the index over all current results with room for twice as many. */
static int index_rebuild(struct hwdb *h)
{
        size_t size = 2 * HWDB_LINEAR_MAX;
        while (size < 4 * (h->n_res + 1))
                size *= 2;
        if (size > h->index_size) {
                uint32_t *n = reallocarray(h->index, size, sizeof(*n));
                if (!n)
                        return -ENOMEM;
                h->index = n;
                h->index_size = size;
        }
        memset(h->index, 0, h->index_size * sizeof(*h->index));
        for (size_t k = 0; k < h->n_res; k++)
                h->index[index_slot(h, result_key(h, k))] = (uint32_t)(k + 1);
        h->index_active = true;
        return 0;
}

/* The position of key among the results, or -1. */
static ssize_t find_result(const struct hwdb *h, const char *key)
{
        if (h->index_active) {
                uint32_t v = h->index[index_slot(h, key)];
                return v ? (ssize_t)v - 1 : -1;
        }
        for (size_t k = 0; k < h->n_res; k++)
                if (streq(result_key(h, k), key))
                        return (ssize_t)k;
        return -1;
}

/* Copies the string at off to the result text; *ret is its position there. */
static int text_add(struct hwdb *h, uint64_t off, size_t *ret)
{
        size_t len;
        int r = string_at(h, off, &h->text, &h->text_alloc, h->text_len, &len);
        if (r < 0)
                return r;
        if (h->text_len + len + 1 > HWDB_TEXT_MAX)
                return -EBADMSG;
        *ret = h->text_len;
        h->text_len += len + 1;
        return 0;
}

/* Sets the value and source of result k from a value entry. */
static int result_set(struct hwdb *h, size_t k, uint64_t value_off, uint64_t filename_off, uint32_t line,
                      uint16_t file_priority)
{
        size_t value, filename = SIZE_MAX;
        int r = text_add(h, value_off, &value);
        if (r < 0)
                return r;
        /* an unreadable source name is left out, not an error: the value stands without it */
        if (h->v2 && filename_off < h->size) {
                r = text_add(h, filename_off, &filename);
                if (r < 0)
                        return r;
        }
        struct result *res = &h->res[k];
        res->value = value;
        res->filename = filename;
        res->filename_off = filename_off;
        res->line = line;
        res->file_priority = file_priority;
        return 0;
}

/* Merges one value entry into the result, keeping the higher-precedence entry per key. */
static int add_value(struct hwdb *h, const struct node *n, uint64_t i)
{
        const uint8_t *e;
        size_t klen;
        int r;

        r = bytes_at(h, n->values_off + i * h->value_size, h->v2 ? HWDB_VALUE_V2_SIZE : HWDB_VALUE_V1_SIZE,
                     &e);
        if (r < 0)
                return r;
        uint64_t key_off = hwdb_rd64(e + HWDB_VALUE_KEY_OFF), value_off = hwdb_rd64(e + HWDB_VALUE_VALUE_OFF);
        uint64_t filename_off = 0;
        uint32_t line = 0;
        uint16_t file_priority = 0;
        if (h->v2) {
                filename_off = hwdb_rd64(e + HWDB_VALUE_FILENAME_OFF);
                line = hwdb_rd32(e + HWDB_VALUE_LINE);
                file_priority = hwdb_rd16(e + HWDB_VALUE_PRIORITY);
        }
        if (value_off >= h->size)
                return -EBADMSG;

        r = string_at(h, key_off, &h->str, &h->str_alloc, 0, &klen);
        if (r < 0)
                return r;
        /* Keys without the leading space are reserved for extensions: skip them. */
        if (h->str[0] != ' ')
                return 0;
        const char *key = h->str + 1;

        ssize_t k = find_result(h, key);
        if (k >= 0) {
                const struct result *old = &h->res[k];
                if (h->v2) {
                        bool lower;
                        /* Priority 0: an old v2 file; files were stored in priority order,
                         * so the file name's offset stands in for the priority. */
                        if (file_priority == 0)
                                lower = filename_off < old->filename_off ||
                                        (filename_off == old->filename_off && line < old->line);
                        else
                                lower = file_priority < old->file_priority ||
                                        (file_priority == old->file_priority && line < old->line);
                        if (lower)
                                return 0;
                }
                /* keeps its place in the order; the key text is the same */
                return result_set(h, (size_t)k, value_off, filename_off, line, file_priority);
        }
        if (h->n_res >= UINT32_MAX - 1)
                return -EBADMSG;

        r = array_grow((void **)&h->res, &h->res_alloc, h->n_res + 1, sizeof(*h->res));
        if (r < 0)
                return r;
        h->res[h->n_res] = (struct result){0};
        r = text_add(h, key_off + 1, &h->res[h->n_res].key); /* without the space; a cached block */
        if (r < 0)
                return r;
        r = result_set(h, h->n_res, value_off, filename_off, line, file_priority);
        if (r < 0)
                return r;
        h->n_res++;
        if (h->index_active && 4 * h->n_res <= h->index_size) {
                h->index[index_slot(h, result_key(h, h->n_res - 1))] = (uint32_t)h->n_res;
                return 0;
        }
        if (h->n_res > HWDB_LINEAR_MAX)
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

        r = array_grow((void **)&h->stack, &h->stack_alloc, depth + 1, sizeof(*h->stack));
        if (r < 0)
                return r;
        r = array_grow((void **)&h->sets, &h->sets_alloc, (depth + 1) * text->words, sizeof(*h->sets));
        if (r < 0)
                return r;
        f = &h->stack[depth];
        r = node_at(h, off, &f->node);
        if (r < 0)
                return r;
        size_t plen;
        r = node_prefix(h, &f->node, &plen);
        if (r < 0)
                return r;
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
        r = pattern_append(h, h->str + skip, plen - skip);
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
                        uint8_t c;
                        uint64_t child;

                        r = child_at(h, &f->node, i, &c, &child);
                        if (r < 0)
                                return r;
                        r = pattern_append(h, (const char *)&c, 1);
                        if (r < 0)
                                return r;
                        r = push_frame(h, &text, depth, child, 0, len);
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
        uint64_t off;
        int r = child_lookup(h, n, (uint8_t)c, &off);
        if (r < 0 || off == 0)
                return r;
        pattern_truncate(h, 0);
        r = pattern_append(h, &c, 1);
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

                size_t plen;

                r = node_at(h, off, &n);
                if (r < 0)
                        return r;
                r = node_prefix(h, &n, &plen);
                if (r < 0)
                        return r;

                for (size_t p = 0; p < plen; p++) {
                        char c = h->str[p];
                        if (c == '*' || c == '?' || c == '[') {
                                pattern_truncate(h, 0);
                                h->budget++; /* the node is visited again by the walk */
                                return glob_walk(h, off, p, s + i + p);
                        }
                        if (c != s[i + p])
                                return 0;
                }
                i += plen;

                static const char globs[] = {'*', '?', '['};
                for (size_t g = 0; g < ELEMENTSOF(globs); g++) {
                        r = glob_child(h, &n, globs[g], s + i);
                        if (r < 0)
                                return r;
                }

                if (s[i] == '\0')
                        return add_values(h, &n);

                r = child_lookup(h, &n, (uint8_t)s[i], &off);
                if (r < 0 || off == 0)
                        return r;
                i++;
        }
}

int hwdb_lookup(struct hwdb *h, const char *modalias, const struct hwdb_property **ret)
{
        int r;

        h->n_res = 0;
        h->text_len = 0;
        h->index_active = false;
        h->pattern_len = 0;
        h->budget = h->max_nodes + 1;
        if (!h->pattern) {
                r = pattern_append(h, "", 0);
                if (r < 0)
                        return r;
        }

        r = search(h, modalias);
        if (r >= 0)
                r = array_grow((void **)&h->props, &h->props_alloc, h->n_res, sizeof(*h->props));
        if (r < 0) {
                h->n_res = 0;
                return r;
        }
        /* the text no longer moves: hand out pointers into it */
        for (size_t k = 0; k < h->n_res; k++) {
                const struct result *res = &h->res[k];
                h->props[k] = (struct hwdb_property){
                        .key = h->text + res->key,
                        .value = h->text + res->value,
                        .filename = res->filename == SIZE_MAX ? NULL : h->text + res->filename,
                        .line = res->line,
                        .file_priority = res->file_priority,
                };
        }
        if (ret)
                *ret = h->n_res > 0 ? h->props : NULL;
        return (int)h->n_res;
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
