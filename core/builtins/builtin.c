/* SPDX-License-Identifier: MIT */
#include "builtin.h"

#include <ctype.h>

#include "builtin-blkid.h"
#include "builtin-btrfs.h"
#include "builtin-hwdb.h"
#include "builtin-input_id.h"
#include "builtin-keyboard.h"
#include "builtin-kmod.h"
#include "builtin-net_id.h"
#include "builtin-net_setup_link.h"
#include "builtin-path_id.h"
#include "builtin-uaccess.h"
#include "builtin-usb_id.h"
#include "cmdline.h"
#include "log.h"
#include "strv.h"

/* Kept sorted by name. */
static const struct builtin builtins[] = {
        {.name = "blkid", .run = builtin_blkid_run, .help = "Identify the filesystem or partition table on a block device (libblkid)", .run_once = true},
        {.name = "btrfs", .run = builtin_btrfs_run, .help = "Tell whether every member of a btrfs volume is present"},
        {.name = "hwdb", .run = builtin_hwdb_run, .init = builtin_hwdb_init, .exit = builtin_hwdb_exit, .trim = builtin_hwdb_trim,
         .help = "Add the hardware database entries matching the device"},
        /* not run-once in systemd 252 either: rules may ask again after a change */
        {.name = "input_id", .run = builtin_input_id_run, .help = "Classify an input device from its capabilities"},
        {.name = "keyboard", .run = builtin_keyboard_run,
         .help = "Apply keyboard scancode remaps and input axis fixes from the hardware database"},
        {.name = "kmod", .run = builtin_kmod_run, .exit = builtin_kmod_exit, .needs_child = builtin_kmod_needs_child, .help = "Load the kernel modules the device asks for"},
        {.name = "net_id", .run = builtin_net_id_run, .exit = builtin_net_id_exit, .trim = builtin_net_id_trim, .help = "Compute predictable names for a network interface", .run_once = true},
        {.name = "net_setup_link", .run = builtin_net_setup_link_run, .exit = builtin_net_setup_link_exit, .help = "Apply the matching .link file to a network interface"},
        {.name = "path_id", .run = builtin_path_id_run, .help = "Describe the physical path to the device", .run_once = true},
        {.name = "uaccess", .run = builtin_uaccess_run, .help = "Give the active session's user access to the device node"},
        {.name = "usb_id", .run = builtin_usb_id_run, .help = "Identify a USB device: vendor, model, serial, interfaces", .run_once = true},
};

const struct builtin *builtin_lookup(const char *cmd)
{
        if (!cmd)
                return NULL;
        while (isspace((unsigned char)*cmd))
                cmd++;
        size_t n = strcspn(cmd, " \t\n\r");
        for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
                if (strlen(builtins[i].name) == n && strncmp(builtins[i].name, cmd, n) == 0)
                        return &builtins[i];
        return NULL;
}

unsigned builtin_index(const struct builtin *b)
{
        return (unsigned)(b - builtins);
}

unsigned builtin_count(void)
{
        return ELEMENTSOF(builtins);
}

const struct builtin *builtin_get(unsigned i)
{
        return i < ELEMENTSOF(builtins) ? &builtins[i] : NULL;
}

/* Splits cmdline and calls run or needs_child of b. */
static int builtin_call(const struct builtin *b, struct builtin_ctx *ctx, struct device *dev, const char *cmdline,
                        bool test, bool ask)
{
        _cleanup_strv_free_ char **argv = NULL;
        int r = cmdline_split(cmdline, &argv);
        if (r < 0)
                return r;
        int argc = 0;
        while (argv[argc])
                argc++;
        if (argc == 0)
                return -EINVAL;
        return ask ? b->needs_child(ctx, dev, argc, argv) : b->run(ctx, dev, argc, argv, test);
}

int builtin_run(const struct builtin *b, struct builtin_ctx *ctx, struct device *dev, const char *cmdline,
                bool test)
{
        return builtin_call(b, ctx, dev, cmdline, test, false);
}

int builtin_needs_child(const struct builtin *b, struct builtin_ctx *ctx, struct device *dev, const char *cmdline)
{
        return b->needs_child ? builtin_call(b, ctx, dev, cmdline, false, true) : 0;
}

int builtin_add_property(struct device *dev, bool test, const char *key, const char *value)
{
        /* test mode sets the same properties; what to show of them is the caller's business */
        return props_set(&dev->props, key, value, PROP_DB);
}

int builtin_init_all(struct builtin_ctx *ctx)
{
        for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
                if (builtins[i].init) {
                        int r = builtins[i].init(ctx);
                        if (r < 0)
                                return r;
                }
        return 0;
}

void builtin_exit_all(struct builtin_ctx *ctx)
{
        for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
                if (builtins[i].exit)
                        builtins[i].exit(ctx);
}

void builtin_trim_all(struct builtin_ctx *ctx)
{
        for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
                if (builtins[i].trim)
                        builtins[i].trim(ctx);
}
