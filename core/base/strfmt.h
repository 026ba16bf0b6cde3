/* SPDX-License-Identifier: MIT */
/*
 * printf-free string building for the per-event paths (device ids, property values, paths):
 * asprintf() costs over a thousand instructions for a two-field string, these a few dozen.
 *
 * strfmt_uint() writes into a caller buffer and returns a pointer into it; strfmt_concat()
 * returns a new heap string owned by the caller, or NULL on ENOMEM; struct strfmt_buf grows
 * one string from many appends (a database entry's lines). strfmt_parse_uint() reads the
 * numbers of every uevent (SEQNUM, MAJOR, MINOR) without strtoull()'s locale-aware code.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for the decimal digits of any uint64_t and the NUL. */
#define STRFMT_UINT_MAX 21

/* v in decimal, NUL-terminated, at the end of buf (STRFMT_UINT_MAX bytes); returns the first
 * digit's address inside buf. */
char *strfmt_uint(char buf[static STRFMT_UINT_MAX], uint64_t v);
/* The same for a signed value ("-5"). */
char *strfmt_int(char buf[static STRFMT_UINT_MAX], int64_t v);

/* s as a number in base 8 or 10 made of digits only (no sign, space or prefix), at most max:
 * 0, -EINVAL (not such a number) or -ERANGE (above max). */
int strfmt_parse_uint(const char *s, unsigned base, uint64_t max, uint64_t *ret);
/* The same with a leading '-' allowed, between min and max (min <= 0 <= max). */
int strfmt_parse_int(const char *s, int64_t min, int64_t max, int64_t *ret);

/* Writes c as udev escapes it, "\xNN" in lower-case hex (4 bytes, no NUL); returns the byte
 * after them. */
char *strfmt_hex_escape(char *out, unsigned char c);

/* The concatenation of the strings up to the NULL that ends the list. */
char *strfmt_concat(const char *first, ...) __attribute__((sentinel));

/* A string built by appending; zeroed to start, free(s) when done. After a failed allocation
 * it keeps what it had and `failed` is set: later appends do nothing, so a writer checks once
 * at the end. */
struct strfmt_buf {
        char *s; /* NUL-terminated once anything was appended, else NULL */
        size_t len, cap;
        bool failed;
};

/* Appends the strings up to the NULL that ends the list. */
void strfmt_buf_append(struct strfmt_buf *b, const char *first, ...) __attribute__((sentinel));
