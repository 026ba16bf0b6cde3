/* SPDX-License-Identifier: MIT */
#include "rules-fixture.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"
#include "test-tmpdir.h"

static void mkdirs(const char *p)
{
        if (mkdir(p, 0755) == 0 || errno == EEXIST)
                return; /* the common case: only the last component was missing */
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%s", p);
        for (char *s = buf + 1; (s = strchr(s, '/')); s++) {
                *s = '\0';
                mkdir(buf, 0755);
                *s = '/';
        }
        mkdir(buf, 0755);
}

static void parent_dirs(const char *path)
{
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%s", path);
        char *slash = strrchr(buf, '/');
        *slash = '\0';
        mkdirs(buf);
}

void rules_fixture_put(struct rules_fixture *f, const char *rel, const char *content)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", f->root, rel);
        parent_dirs(p);
        FILE *fp = fopen(p, "we");
        if (!fp)
                abort();
        fputs(content, fp);
        fclose(fp);
}

void rules_fixture_link(struct rules_fixture *f, const char *rel, const char *target)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", f->root, rel);
        parent_dirs(p);
        if (symlink(target, p) < 0)
                abort();
}

void rules_fixture_init(struct rules_fixture *f)
{
        *f = (struct rules_fixture){0};
        f->root = test_tmpdir_new("rules");
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/bus/pci/drivers/ahci", f->root);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/bus/scsi/drivers/sd", f->root);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/class/block", f->root);
        mkdirs(p);

        rules_fixture_put(f, "/devices/pci0000:00/uevent", "");
        rules_fixture_put(f, FIX_PCI "/uevent", "DRIVER=ahci\nPCI_CLASS=10601\nPCI_ID=8086:2922\n");
        rules_fixture_put(f, FIX_PCI "/vendor", "0x8086\n");
        rules_fixture_put(f, FIX_PCI "/class", "0x010601\n");
        rules_fixture_link(f, FIX_PCI "/subsystem", "../../../bus/pci");
        rules_fixture_link(f, FIX_PCI "/driver", "../../../bus/pci/drivers/ahci");
        rules_fixture_link(f, "/bus/pci/devices/0000:00:1f.2", "../../../devices/pci0000:00/0000:00:1f.2");

        rules_fixture_put(f, FIX_PCI "/ata1/uevent", "");
        rules_fixture_put(f, FIX_PCI "/ata1/host0/uevent", "DEVTYPE=scsi_host\n");
        rules_fixture_put(f, FIX_PCI "/ata1/host0/target0:0:0/uevent", "DEVTYPE=scsi_target\n");
        rules_fixture_put(f, FIX_SCSI "/uevent", "DEVTYPE=scsi_device\nDRIVER=sd\nMODALIAS=scsi:t-0x00\n");
        rules_fixture_put(f, FIX_SCSI "/vendor", "ATA     \n");
        rules_fixture_put(f, FIX_SCSI "/model", "Samsung SSD 860 \n");
        rules_fixture_put(f, FIX_SCSI "/type", "0\n");
        rules_fixture_link(f, FIX_SCSI "/subsystem", "../../../../../../../bus/scsi");
        rules_fixture_link(f, FIX_SCSI "/driver", "../../../../../../../bus/scsi/drivers/sd");

        rules_fixture_put(f, FIX_SDA "/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\nDISKSEQ=9\n");
        rules_fixture_put(f, FIX_SDA "/dev", "8:0\n");
        rules_fixture_put(f, FIX_SDA "/size", "1000\n");
        rules_fixture_put(f, FIX_SDA "/removable", "0\n");
        rules_fixture_put(f, FIX_SDA "/queue/rotational", "0\n");
        rules_fixture_put(f, FIX_SDA "/queue/scheduler", "none\n");
        rules_fixture_link(f, FIX_SDA "/subsystem", "../../../../../../../../../class/block");
        rules_fixture_link(f, FIX_SDA "/device", "../../../0:0:0:0");
        rules_fixture_link(f, "/class/block/sda", "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");

        rules_fixture_put(f, FIX_SDA1 "/uevent", "MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\nPARTN=1\n");
        rules_fixture_put(f, FIX_SDA1 "/dev", "8:1\n");
        rules_fixture_put(f, FIX_SDA1 "/partition", "1\n");
        rules_fixture_put(f, FIX_SDA1 "/size", "900\n");
        rules_fixture_link(f, FIX_SDA1 "/subsystem", "../../../../../../../../../../class/block");
        rules_fixture_link(f, "/class/block/sda1", "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1");

        rules_fixture_put(f, FIX_NULL "/uevent", "MAJOR=1\nMINOR=3\nDEVNAME=null\nDEVMODE=0666\n");
        rules_fixture_put(f, FIX_NULL "/dev", "1:3\n");
        rules_fixture_link(f, FIX_NULL "/subsystem", "../../../../class/mem");
        rules_fixture_link(f, "/class/mem/null", "../../devices/virtual/mem/null");

        rules_fixture_put(f, FIX_ETH "/uevent", "INTERFACE=eth9\nIFINDEX=5\n");
        rules_fixture_put(f, FIX_ETH "/ifindex", "5\n");
        rules_fixture_put(f, FIX_ETH "/address", "52:54:00:12:34:56\n");
        rules_fixture_put(f, FIX_ETH "/type", "1\n");
        rules_fixture_link(f, FIX_ETH "/subsystem", "../../../../class/net");
        rules_fixture_link(f, "/class/net/eth9", "../../devices/virtual/net/eth9");

        rules_fixture_put(f, FIX_TTY "/uevent", "MAJOR=4\nMINOR=64\nDEVNAME=ttyS0\n");
        rules_fixture_put(f, FIX_TTY "/dev", "4:64\n");
        rules_fixture_put(f, FIX_TTY "/type", "4\n");
        rules_fixture_link(f, FIX_TTY "/subsystem", "../../../../class/tty");
        rules_fixture_link(f, "/class/tty/ttyS0", "../../devices/virtual/tty/ttyS0");

        rules_fixture_put(f, "/procsys/kernel/hostname", "fixturehost\n");
        rules_fixture_put(f, "/procsys/kernel/domainname", "");
        rules_fixture_put(f, "/procsys/net/ipv4/conf/eth9/forwarding", "");
        rules_fixture_put(f, "/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet devman.flag devman.value=42 devman_dash-key=x devman.value.long=7\n");
        if (asprintf(&f->sysctl, "%s/procsys", f->root) < 0 || asprintf(&f->cmdline, "%s/cmdline", f->root) < 0)
                abort();
        if (model_new(f->root, &f->model) < 0)
                abort();
}

void rules_fixture_free(struct rules_fixture *f)
{
        model_free(f->model);
        free(f->sysctl);
        free(f->cmdline);
        f->root = test_tmpdir_remove(f->root);
}

int rules_fixture_exec(struct rules_exec *x, uint64_t timeout_usec)
{
        for (;;) {
                int r = rules_exec_run(x);
                if (r <= 0)
                        return r;
                const struct rules_program *p = rules_exec_get_program(x);
                struct spawn_options o = {.timeout_usec = timeout_usec, .capture_stdout = true};
                struct spawn_sync_result res = {0};
                r = spawn_run_sync(NULL, p->cmdline, p->envp, &o, &res);
                int status = r < 0 ? r : spawn_status(res.error, res.timed_out, res.signal, res.exit_status);
                r = rules_exec_program_done(x, status, res.output, res.output_len);
                free(res.output);
                if (r < 0)
                        return r;
        }
}
