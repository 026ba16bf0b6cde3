/* SPDX-License-Identifier: MIT */
/*
 * libblkid's "safe" form of a label or UUID (ID_FS_LABEL, ID_FS_UUID, ...), as
 * blkid_safe_string() makes it: leading and trailing whitespace removed, each run of inner
 * whitespace turned into one '_', then every byte of an invalid UTF-8 sequence replaced by '_'
 * (other ASCII, control characters included, stays). Valid UTF-8 is libblkid's rule
 * (strenc_utf8_char_len() with STRENC_UTF8_BLKID); the _ENC form is strenc_encode_devnode()
 * with the same flag.
 *
 * Returns a new string in *ret (owned by the caller), 0 or -ENOMEM.
 */
#pragma once

int encode_blkid_safe_string(const char *s, char **ret);
