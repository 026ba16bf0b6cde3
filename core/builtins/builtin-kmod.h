/* SPDX-License-Identifier: MIT */
/*
 * kmod load [MODULE|ALIAS...]: loads kernel modules with libkmod (deny-lists of modprobe.d
 * applied). Without names it loads what the device's MODALIAS names, as Debian's
 * 80-drivers.rules expects (RUN{builtin}+="kmod load"). In test mode nothing is loaded: the
 * modules that would be are printed ("kmod: load NAME").
 *
 * libkmod is linked (an initramfs built from ldd's list must carry it); its context — the
 * configuration read and the module indexes mapped — is made by the first run and lives in
 * the builtin's state slot until builtin exit.
 *
 * Where the modules directory (<ctx->root>/lib/modules/<uname -r>) does not exist every run is
 * a no-op, logged once (info); the daemon says at start, louder when it matters
 * (builtin_kmod_report_setup()). How each result is logged: builtin_kmod_result_level().
 * Returns 0 (also for modules not found or failing), -EINVAL for a command other than "load",
 * -ENOMEM.
 *
 * Loading is synchronous, as modprobe is: init_module() returns after the module's init
 * function ran, which for some drivers takes a while (seconds under emulation). A daemon that
 * ran it in its event loop would hold every other event meanwhile, so builtin_kmod_needs_child()
 * tells it when a call would insert a module (one the command names is neither built in, nor
 * loaded or loading, nor deny-listed): only then is a child worth its fork. It also tells it
 * when the call would do nothing at all, which is most of a coldplug's calls: the daemon then
 * skips run() and its second set of look-ups.
 */
#pragma once

#include "builtin.h"

int builtin_kmod_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
void builtin_kmod_exit(struct builtin_ctx *ctx);
/* struct builtin's needs_child: BUILTIN_IN_CHILD when run() would insert a module;
 * BUILTIN_IN_PLACE when it would only log something worth seeing (a named module that does not
 * exist, a command other than "load"); BUILTIN_NOTHING when every module it names is built in,
 * loaded, loading or deny-listed, or none matches the device's MODALIAS; -ENOMEM. */
int builtin_kmod_needs_child(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv);

/* What stands between `kmod load` and loading modules, found without libkmod. */
enum kmod_setup {
        KMOD_SETUP_READY,
        KMOD_SETUP_NO_DIRECTORY, /* <root>/lib/modules/<release> is not a directory */
        KMOD_SETUP_NO_INDEX,     /* it has no modules.dep.bin: depmod was not run */
};

/* enum kmod_setup, or -errno; *ret_dir (optional) gets the modules directory. */
int builtin_kmod_setup(const struct builtin_ctx *ctx, char **ret_dir);

/* The level at which the daemon reports setup at start: an error when rules load modules, the
 * kernel can load them and they cannot be found; info when the kernel has no module support;
 * debug otherwise. */
int builtin_kmod_setup_level(enum kmod_setup setup, bool rules_load_modules, bool kernel_loads_modules);

/* Logs builtin_kmod_setup() at builtin_kmod_setup_level(), saying what is missing and what to
 * do. kernel_loads_modules: the running kernel has module support (/proc/modules exists). */
void builtin_kmod_report_setup(const struct builtin_ctx *ctx, bool rules_load_modules,
                               bool kernel_loads_modules);

/* The log level of one module's result. found: the lookup matched (false: no module has that
 * name or alias); then r is what the probe returned (0, KMOD_PROBE_APPLY_BLACKLIST, -errno).
 * named: the rules gave the name (not the device's MODALIAS). Debug for what is normal in
 * MODALIAS-driven loading — no module for an alias, deny-listed, loaded meanwhile (-EEXIST),
 * no device for the driver (-ENODEV); a warning for a named module that does not exist and
 * any other failure (a module file gone from disk, -EPERM, -ENOMEM, a failing install command).
 * systemd-udevd 252 logs every one of these results at debug; devman keeps real failures visible. */
int builtin_kmod_result_level(int r, bool found, bool named);
