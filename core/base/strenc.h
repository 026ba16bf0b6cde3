/* SPDX-License-Identifier: MIT */
/*
 * String sanitizing and encoding the way udev's builtins do it, so that identifiers built
 * from device strings (ID_VENDOR, ID_SERIAL, ID_PATH_TAG, …) come out byte for byte as
 * systemd-udevd 252 makes them.
 *
 * "Devnode-safe" characters are ASCII letters and digits and "#+-.:=@_".
 *
 * This is devman's one UTF-8 validator. A valid character is a sequence in shortest form whose
 * trailing bytes are all 10xxxxxx, for a code point below U+110000 that is not a surrogate, not
 * U+FDD0–U+FDEF and not U+xFFFF; U+xFFFE is valid only with STRENC_UTF8_BLKID. udevd 252 applies
 * the strict rule to everything it encodes itself: rules strings (PROGRAM results, $attr values,
 * NAME, SYMLINK, string_escape=replace) and the builtins' ID_*_ENC and sanitized values. libblkid,
 * whose blkid_encode_string()/blkid_safe_string() make ID_FS_*_ENC and ID_FS_LABEL (core/encode.h),
 * differs only in accepting U+xFFFE (both checked against Debian's udev 252 and libblkid 2.38).
 *
 * Functions returning char * return a new string owned by the caller, or NULL on ENOMEM.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* True for a devnode-safe character or one listed in extra (may be NULL). */
bool strenc_char_allowed(char c, const char *extra);

/* Flags of strenc_utf8_char_len(). */
enum {
        STRENC_UTF8_BLKID = 1 << 0, /* libblkid's rule: U+xFFFE is valid */
};

/* Length (2–4) of the valid multi-byte UTF-8 character at s, 1 for an ASCII character (NUL
 * included), or -EINVAL when s does not start with a valid character. Never reads past a NUL. */
int strenc_utf8_char_len(const char *s, unsigned flags);

/* Copies s with every character that is not devnode-safe and not part of a valid multi-byte
 * UTF-8 character (flags as in strenc_utf8_char_len()), and every backslash, written as "\xNN"
 * (lower-case hex): what ID_VENDOR_ENC holds, and with STRENC_UTF8_BLKID what libblkid's
 * blkid_encode_string() makes of ID_FS_LABEL_ENC. */
char *strenc_encode_devnode(const char *s, unsigned flags);

/* Copies at most max bytes of s, dropping leading and trailing whitespace and turning each
 * inner run of whitespace into one '_'. The result is at most max bytes long. */
char *strenc_replace_whitespace(const char *s, size_t max);

/* In place: every byte that is not devnode-safe, not in allow, not the start of "\x" and not
 * part of a valid multi-byte UTF-8 character becomes '_' (whitespace becomes ' ' when allow
 * contains ' '). Returns the number of bytes replaced. */
size_t strenc_replace_chars(char *s, const char *allow);

/* Drops trailing '\n' and '\r' in place (what a sysfs attribute value ends with). Returns s. */
char *strenc_strip_newline(char *s);
