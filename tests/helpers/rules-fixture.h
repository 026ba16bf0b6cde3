/* SPDX-License-Identifier: MIT */
/*
 * A small sysfs tree for the rules tests, built in a private temporary directory:
 *
 *   /devices/pci0000:00/0000:00:1f.2                 pci, driver ahci, vendor 0x8086
 *     ata1/host0/target0:0:0/0:0:0:0                 scsi, driver sd, vendor "ATA     ", model "Samsung SSD 860 \n"
 *       block/sda                                    block disk 8:0, size 1000, removable 0
 *         sda1                                       block partition 8:1, partition 1
 *   /devices/virtual/mem/null                        mem 1:3
 *   /devices/virtual/net/eth9                        net, ifindex 5, address 52:54:00:12:34:56
 *   /devices/virtual/tty/ttyS0                       tty 4:64 (legacy-free converted layout)
 *
 * plus <root>/procsys/kernel/hostname ("fixturehost"), <root>/cmdline and a rules directory
 * root. The tree is removed by rules_fixture_free().
 */
#pragma once

#include <stdint.h>

#include "model.h"
#include "rules-exec.h"

struct rules_fixture {
        char *root;       /* temporary directory, also the sysfs root */
        char *sysctl;     /* <root>/procsys */
        char *cmdline;    /* <root>/cmdline */
        struct model *model;
};

#define FIX_PCI "/devices/pci0000:00/0000:00:1f.2"
#define FIX_SCSI FIX_PCI "/ata1/host0/target0:0:0/0:0:0:0"
#define FIX_SDA FIX_SCSI "/block/sda"
#define FIX_SDA1 FIX_SDA "/sda1"
#define FIX_NULL "/devices/virtual/mem/null"
#define FIX_ETH "/devices/virtual/net/eth9"
#define FIX_TTY "/devices/virtual/tty/ttyS0"

void rules_fixture_init(struct rules_fixture *f);
void rules_fixture_free(struct rules_fixture *f);
/* Writes a file below the fixture root (creating directories). */
void rules_fixture_put(struct rules_fixture *f, const char *rel, const char *content);
void rules_fixture_link(struct rules_fixture *f, const char *rel, const char *target);
/* Runs the executor to completion, each PROGRAM through spawn_run_sync() (the spawner the
 * daemon uses) with timeout_usec and reported with spawn_status(). 0 or -errno. */
int rules_fixture_exec(struct rules_exec *x, uint64_t timeout_usec);
