/* SPDX-License-Identifier: MIT */
/*
 * String encodings udev uses for property values that end up in /dev names and in the
 * database (ID_FS_LABEL_ENC, ID_MODEL_ENC, …).
 *
 *  - encode_string(): every byte that is not an ASCII letter or digit, not one of "#+-.:=@_",
 *    and not part of a valid UTF-8 multi-byte sequence becomes "\xNN" (lower-case hex); a
 *    backslash is always encoded. This is what udev's encoder and libblkid's
 *    blkid_encode_string() produce.
 *  - encode_safe_string(): what libblkid's blkid_safe_string() makes of a label or UUID
 *    (ID_FS_LABEL): leading and trailing whitespace removed, each run of inner whitespace
 *    turned into one '_', then every byte of an invalid UTF-8 sequence replaced by '_'
 *    (other ASCII, control characters included, stays).
 *
 * Valid UTF-8 follows libblkid: shortest form, at most U+10FFFF, no surrogates, not
 * U+FDD0..U+FDEF, not U+xFFFF. (systemd's own encoder also rejects U+xFFFE; for the values
 * the blkid builtin encodes, libblkid's rule is the reference.)
 *
 * Both return a new string in *ret (owned by the caller), 0 or -ENOMEM.
 */
#pragma once

int encode_string(const char *s, char **ret);
int encode_safe_string(const char *s, char **ret);

/* Length (1–4) of the valid UTF-8 character at s, or -1 when s does not start one (overlong,
 * surrogate, out of range, bad continuation). An ASCII byte is 1. */
int utf8_valid_char_len(const char *s);
