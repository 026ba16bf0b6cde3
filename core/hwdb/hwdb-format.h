/* SPDX-License-Identifier: MIT */
/*
 * The on-disk layout of a compiled hardware database (hwdb.bin), as read and written by
 * systemd 252 and by devman. All integers are little endian; the file is:
 *
 *   header | nodes (each node followed by its child entries, then its value entries) | strings
 *
 * Every *_off field is an absolute file offset. Strings are NUL-terminated and may share
 * tails. Node prefixes, keys, values and file names all live in the string area.
 *
 * This header only names offsets and sizes; readers access fields with the helpers below
 * (memcpy based, so unaligned offsets in a corrupt file are harmless).
 */
#pragma once

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define HWDB_SIGNATURE "KSLPHHRH" /* 8 bytes, no terminator in the file */
#define HWDB_SIGNATURE_SIZE 8
#define HWDB_TOOL_VERSION 252     /* we write what systemd 252 writes */

/* Header: signature, then nine 64-bit fields. */
enum {
        HWDB_HDR_TOOL_VERSION = 8,
        HWDB_HDR_FILE_SIZE = 16,
        HWDB_HDR_HEADER_SIZE = 24,
        HWDB_HDR_NODE_SIZE = 32,
        HWDB_HDR_CHILD_ENTRY_SIZE = 40,
        HWDB_HDR_VALUE_ENTRY_SIZE = 48,
        HWDB_HDR_NODES_ROOT_OFF = 56,
        HWDB_HDR_NODES_LEN = 64,
        HWDB_HDR_STRINGS_LEN = 72,
        HWDB_HEADER_SIZE = 80,
};

/* Node: prefix string, number of children (one byte, then 7 bytes padding), number of values.
 * The children array follows the node; the values array follows the children. */
enum {
        HWDB_NODE_PREFIX_OFF = 0,
        HWDB_NODE_CHILDREN_COUNT = 8,
        HWDB_NODE_VALUES_COUNT = 16,
        HWDB_NODE_SIZE = 24,
};

/* Child entry: the character (then 7 bytes padding) and the child's node offset.
 * Children are sorted by character, so readers may bisect. */
enum {
        HWDB_CHILD_C = 0,
        HWDB_CHILD_OFF = 8,
        HWDB_CHILD_SIZE = 16,
};

/* Value entry: key and value strings. The key carries a leading space; readers ignore keys
 * without it. Version 2 entries (value_entry_size >= 32) add the source file name, the line
 * number (32 bits) and the file priority (16 bits, then 16 bits padding). A priority of 0
 * marks old v2 files where the line field was 64 bits wide. */
enum {
        HWDB_VALUE_KEY_OFF = 0,
        HWDB_VALUE_VALUE_OFF = 8,
        HWDB_VALUE_V1_SIZE = 16,
        HWDB_VALUE_FILENAME_OFF = 16,
        HWDB_VALUE_LINE = 24,
        HWDB_VALUE_PRIORITY = 28,
        HWDB_VALUE_V2_SIZE = 32,
};

static inline uint64_t hwdb_rd64(const uint8_t *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return le64toh(v);
}

static inline uint32_t hwdb_rd32(const uint8_t *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return le32toh(v);
}

static inline uint16_t hwdb_rd16(const uint8_t *p)
{
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return le16toh(v);
}

static inline void hwdb_wr64(uint8_t *p, uint64_t v)
{
        v = htole64(v);
        memcpy(p, &v, sizeof(v));
}

static inline void hwdb_wr32(uint8_t *p, uint32_t v)
{
        v = htole32(v);
        memcpy(p, &v, sizeof(v));
}

static inline void hwdb_wr16(uint8_t *p, uint16_t v)
{
        v = htole16(v);
        memcpy(p, &v, sizeof(v));
}
