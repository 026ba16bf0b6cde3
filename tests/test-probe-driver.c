/* SPDX-License-Identifier: MIT */
/*
 * DRIVER/DRIVERS while a parent's driver is probing. The kernel makes a device's `driver`
 * link before it calls the driver's probe(), and sends the device's "bind" event after probe()
 * returns; devices the probe registers (the PC speaker's input device, atkbd's keyboard) get
 * their "add" events in between. systemd-udevd 252 reads each parent's `driver` link when a
 * rule asks, so Debian's
 *   DRIVERS=="pcspkr", ENV{.INPUT_CLASS}="spkr"        (60-persistent-input.rules)
 *   DRIVERS=="atkbd", IMPORT{builtin}="hwdb 'evdev:atkbd:…'"   (60-evdev.rules)
 * match those events: input/by-path/platform-pcspkr-event-spkr. The fixture machine of
 * tests/gen-sysfs.py is put into that state with events: the parent's own (coldplug) "add" says
 * no DRIVER, its link is there, the children's "add" events come, and only then "bind".
 */
#include <sys/stat.h>

#include "builtin.h"
#include "model.h"
#include "rules-exec.h"
#include "rules-fixture.h"
#include "rules-parse.h"
#include "strv.h"
#include "test-tmpdir.h"
#include "test-util.h"
#include "uevent.h"

#define PCSPKR "/devices/platform/pcspkr"
#define PCSPKR_EVENT PCSPKR "/input/input9/event9"
#define SERIO0 "/devices/platform/i8042/serio0"
#define SERIO0_EVENT SERIO0 "/input/input0/event0"
#define DEBIAN_RULES "/usr/lib/udev/rules.d/60-persistent-input.rules"

struct fx {
        char *tmp, *sys, *dev;
        struct model *m;
        struct builtin_ctx ctx;
};

static void fx_init(struct fx *f)
{
        const char *src = getenv("DEVMAN_SOURCE_ROOT");
        char *cmd = NULL;

        memset(f, 0, sizeof(*f));
        f->tmp = test_tmpdir_new("probe-driver");
        if (asprintf(&f->sys, "%s/sys", f->tmp) < 0 || asprintf(&f->dev, "%s/dev", f->tmp) < 0 ||
            asprintf(&cmd, "python3 %s/tests/gen-sysfs.py %s >/dev/null", src ? src : ".", f->sys) < 0)
                abort();
        if (system(cmd) != 0 || mkdir(f->dev, 0755) < 0) {
                fprintf(stderr, "gen-sysfs.py failed\n");
                abort();
        }
        free(cmd);
        if (model_new(f->sys, &f->m) < 0 || model_set_dev_root(f->m, f->dev) < 0 || model_scan(f->m) <= 0)
                abort();
        f->ctx.sysfs_root = f->sys;
}

static void fx_done(struct fx *f)
{
        builtin_exit_all(&f->ctx);
        model_free(f->m);
        free(f->sys);
        free(f->dev);
        f->tmp = test_tmpdir_remove(f->tmp);
}

/* Applies a kernel event made of "KEY=VALUE" entries to the model. */
static struct device *apply(struct fx *f, const char *action, const char *devpath, const char *const *keys)
{
        _cleanup_free_ char *msg = NULL;
        size_t len = 0;
        char *buf = NULL;
        FILE *s = open_memstream(&buf, &len);
        if (!s)
                abort();
        fprintf(s, "%s@%s%cACTION=%s%cDEVPATH=%s%c", action, devpath, 0, action, 0, devpath, 0);
        for (; keys && *keys; keys++)
                fprintf(s, "%s%c", *keys, 0);
        fclose(s);
        msg = buf;

        struct uevent *ev = NULL;
        struct device *d = NULL;
        const char *why = NULL;
        if (uevent_parse(msg, len, &ev, &why) < 0 || model_apply_uevent(f->m, ev, &d) < 0 || !d) {
                fprintf(stderr, "event %s@%s not applied: %s\n", action, devpath, strna(why));
                abort();
        }
        uevent_free(ev);
        device_unref(d); /* the model holds it */
        return d;
}

/* The rules on dev's add event; returns its links joined by spaces (caller frees). */
static char *run_rules(struct fx *f, struct rules *rules, struct device *d)
{
        struct rules_exec_options o = {
                .sysfs_root = f->sys,
                .dev_root = f->dev,
                .virt = "qemu",
                .builtins = &f->ctx,
                .test = true,
        };
        struct rules_exec *x = NULL;
        CHECK_INT(rules_exec_new(rules, d, UEVENT_ADD, &o, &x), 0);
        CHECK_INT(rules_fixture_exec(x, 5 * 1000000ULL), 0);
        char *links = strv_join(d->udev ? d->udev->links : NULL, NULL, " ");
        rules_exec_free(x);
        return links;
}

/* The pcspkr module loaded by the platform device's coldplug event: probe in progress. */
static struct device *pcspkr_probing(struct fx *f)
{
        static const char *const add[] = {"SUBSYSTEM=platform", "MODALIAS=platform:pcspkr", "SEQNUM=100", NULL};
        struct device *p = apply(f, "add", PCSPKR, add);
        CHECK(p->driver == NULL); /* what the model knows: unbound */
        static const char *const input[] = {"SUBSYSTEM=input", "PRODUCT=10/1f/1/100", "NAME=\"PC Speaker\"",
                                            "PHYS=\"isa0061/input0\"", "PROP=0", "EV=40001", "SND=6",
                                            "MODALIAS=input:b0010v001Fp0001e0100-e0,12,kramls1,2,fw",
                                            "SEQNUM=101", NULL};
        apply(f, "add", PCSPKR "/input/input9", input);
        static const char *const event[] = {"SUBSYSTEM=input", "MAJOR=13", "MINOR=73", "DEVNAME=input/event9",
                                            "SEQNUM=102", NULL};
        return apply(f, "add", PCSPKR_EVENT, event);
}

static void test_parent_probing(void)
{
        struct fx f;
        fx_init(&f);
        static const char text[] =
                "SUBSYSTEM!=\"input\", GOTO=\"end\"\n"
                "KERNEL==\"event*\", DRIVERS==\"pcspkr\", SYMLINK+=\"t/drivers-$driver-%k\"\n"
                "KERNEL==\"event*\", DRIVERS==\"atkbd\", SYMLINK+=\"t/drivers-%d-%k\"\n"
                "LABEL=\"end\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_NEVER);
        CHECK_INT(rules_parse_buffer(rules, "t.rules", text, strlen(text)), 0);

        struct device *d = pcspkr_probing(&f);
        _cleanup_free_ char *links = run_rules(&f, rules, d);
        CHECK_STR(links, "t/drivers-pcspkr-event9");

        /* the same for atkbd, built in: serio0's coldplug event before its probe ended */
        static const char *const serio[] = {"SUBSYSTEM=serio", "SERIO_TYPE=06", "MODALIAS=serio:ty06pr00id00ex00",
                                            "SEQNUM=200", NULL};
        apply(&f, "add", SERIO0, serio);
        static const char *const event0[] = {"SUBSYSTEM=input", "MAJOR=13", "MINOR=64", "DEVNAME=input/event0",
                                             "SEQNUM=201", NULL};
        d = apply(&f, "add", SERIO0_EVENT, event0);
        free(links);
        links = run_rules(&f, rules, d);
        CHECK_STR(links, "t/drivers-atkbd-event0");

        /* after "bind" the model says it too */
        static const char *const bind[] = {"SUBSYSTEM=platform", "DRIVER=pcspkr", "SEQNUM=103", NULL};
        CHECK_STR(apply(&f, "bind", PCSPKR, bind)->driver, "pcspkr");

        /* no device of the chain has a driver: no match, no link */
        struct device *mice = NULL;
        CHECK_INT(model_resolve(f.m, "/devices/virtual/input/mice", &mice), 0);
        static const char any[] = "DRIVERS==\"?*\", SYMLINK+=\"t/any-%d\"\n";
        struct rules *any_rules = rules_new(RESOLVE_NAMES_NEVER);
        CHECK_INT(rules_parse_buffer(any_rules, "any.rules", any, strlen(any)), 0);
        if (mice) {
                free(links);
                links = run_rules(&f, any_rules, mice);
                CHECK_STR(links, "");
        }
        rules_free(any_rules);
        rules_free(rules);
        fx_done(&f);
}

/* Debian's rules file itself, with the input_id import of 60-input-id.rules. */
static void test_debian_rules(void)
{
        if (access(DEBIAN_RULES, R_OK) < 0) {
                printf("no %s: Debian's case skipped\n", DEBIAN_RULES);
                return;
        }
        struct fx f;
        fx_init(&f);
        static const char import[] = "SUBSYSTEM==\"input\", ENV{ID_INPUT}==\"\", IMPORT{builtin}=\"input_id\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_NEVER);
        CHECK_INT(rules_parse_buffer(rules, "60-input-id.rules", import, strlen(import)), 0);
        CHECK_INT(rules_parse_file(rules, DEBIAN_RULES), 0);

        struct device *d = pcspkr_probing(&f);
        _cleanup_free_ char *links = run_rules(&f, rules, d);
        CHECK_STR(links, "input/by-path/platform-pcspkr-event-spkr");
        CHECK_STR(device_get_property(d, "ID_INPUT"), "1");
        CHECK_STR(device_get_property(d, "ID_PATH"), "platform-pcspkr");
        rules_free(rules);
        fx_done(&f);
}

TEST_MAIN(TEST(test_parent_probing), TEST(test_debian_rules))
