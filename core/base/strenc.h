/* SPDX-License-Identifier: MIT */
/*
 * String sanitizing and encoding the way udev's builtins do it, so that identifiers built
 * from device strings (ID_VENDOR, ID_SERIAL, ID_PATH_TAG, …) come out byte for byte as
 * systemd-udevd 252 makes them.
 *
 * "Devnode-safe" characters are ASCII letters and digits and "#+-.:=@_".
 * A valid UTF-8 character here is a 2–4 byte sequence in shortest form for a code point
 * below U+110000 that is neither a surrogate nor a non-character (U+FDD0–U+FDEF, U+xFFFE,
 * U+xFFFF); as in udev, only the high bit of the trailing bytes is checked.
 *
 * core/encode.h is the libblkid flavour of the same encoding (ID_FS_*_ENC come from libblkid,
 * which accepts U+xFFFE and checks trailing bytes strictly); these are systemd's, for the values
 * udev's own builtins make (ID_VENDOR_ENC, ID_MODEL_ENC, ...).
 *
 * Functions returning char * return a new string owned by the caller, or NULL on ENOMEM.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* True for a devnode-safe character or one listed in extra (may be NULL). */
bool strenc_char_allowed(char c, const char *extra);

/* Length (2–4) of the valid multi-byte UTF-8 character at s, 1 for an ASCII character, or
 * -EINVAL when s does not start with a valid character. */
int strenc_utf8_char_len(const char *s);

/* Copies s with every character that is not devnode-safe and not part of a valid multi-byte
 * UTF-8 character (and every backslash) written as "\xNN": what ID_VENDOR_ENC holds. */
char *strenc_encode_devnode(const char *s);

/* Copies at most max bytes of s, dropping leading and trailing whitespace and turning each
 * inner run of whitespace into one '_'. The result is at most max bytes long. */
char *strenc_replace_whitespace(const char *s, size_t max);

/* In place: every byte that is not devnode-safe, not in allow, not the start of "\x" and not
 * part of a valid multi-byte UTF-8 character becomes '_' (whitespace becomes ' ' when allow
 * contains ' '). Returns the number of bytes replaced. */
size_t strenc_replace_chars(char *s, const char *allow);

/* Drops trailing '\n' and '\r' in place (what a sysfs attribute value ends with). Returns s. */
char *strenc_strip_newline(char *s);
