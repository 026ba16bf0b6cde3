/* SPDX-License-Identifier: MIT */
/*
 * Libraries devman opens on first use (dlopen) instead of linking are declared in the binary,
 * as ELF notes of the format systemd and distributions use for this (type 0x407c0c0a, owner
 * "FDO", a JSON array of {"feature", "description", "priority", "soname"}), so that whoever
 * packages devman or builds an initramfs for it (tests/vm/initramfs.py) finds them with
 * `readelf -n` where ldd cannot see them.
 */
#pragma once

#include <stdint.h>

#define DLOPEN_NOTE_TYPE 0x407c0c0aU
#define DLOPEN_NOTE_DESC_SIZE(json) ((sizeof(json) + 3) & ~(size_t)3)

/* One note for one library; json is a string literal (the note's description). */
#define DLOPEN_NOTE(id, json)                                                                                \
        __attribute__((used, section(".note.dlopen"), aligned(4))) static const struct {                      \
                uint32_t namesz, descsz, type;                                                               \
                char name[4];                                                                                \
                char desc[DLOPEN_NOTE_DESC_SIZE(json)];                                                      \
        } id = {4, DLOPEN_NOTE_DESC_SIZE(json), DLOPEN_NOTE_TYPE, "FDO", json}
