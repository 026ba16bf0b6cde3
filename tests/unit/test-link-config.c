/* SPDX-License-Identifier: MIT */
/*
 * core/builtins/link-config.c on .link files written below a temporary root: directory precedence,
 * ordering, masking, drop-ins, files without [Match], unsupported conditions, line
 * continuation; [Match] semantics (globs, "!" negation, Property=, Host=, KernelCommandLine=,
 * MACAddress=) and the NamePolicy=/Name= decision, against hand-written expectations from
 * systemd.link(5).
 */
#include <sys/stat.h>

#include "device.h"
#include "link-config.h"
#include "macros.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;

static void put(const char *rel, const char *content)
{
        char *p, *cmd;
        CHECK(asprintf(&p, "%s%s", root, rel) > 0);
        CHECK(asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", p) > 0);
        CHECK_INT(system(cmd), 0);
        FILE *f = fopen(p, "we");
        CHECK(f != NULL);
        if (f) {
                fputs(content, f);
                fclose(f);
        }
        free(p);
        free(cmd);
}

static void test_hw_addr(void)
{
        char *s = NULL;
        CHECK_INT(hw_addr_normalize("AA:BB:CC:DD:EE:0F", &s), 0);
        CHECK_STR(s, "aa:bb:cc:dd:ee:0f");
        free(s);
        CHECK_INT(hw_addr_normalize("aa-bb-cc-dd-ee-ff", &s), 0);
        CHECK_STR(s, "aa:bb:cc:dd:ee:ff");
        free(s);
        CHECK_INT(hw_addr_normalize("aabb.ccdd.eeff", &s), 0);
        CHECK_STR(s, "aa:bb:cc:dd:ee:ff");
        free(s);
        CHECK_INT(hw_addr_normalize("aa:bb-cc:dd:ee:ff", &s), -EINVAL);
        CHECK_INT(hw_addr_normalize("zz:bb:cc:dd:ee:ff", &s), -EINVAL);
        CHECK_INT(hw_addr_normalize("aa:", &s), -EINVAL);
        CHECK_INT(hw_addr_normalize("", &s), -EINVAL);
        char *t = link_type_string(NULL, 1);
        CHECK_STR(t, "ether");
        free(t);
        t = link_type_string("wlan", 1);
        CHECK_STR(t, "wlan");
        free(t);
        t = link_type_string(NULL, 32);
        CHECK_STR(t, "infiniband");
        free(t);
}

static struct device *dev_with(const char *const *props)
{
        struct device *d;
        CHECK_INT(device_new("/devices/virtual/net/x", &d), 0);
        for (; props && *props; props += 2)
                CHECK_INT(props_set(&d->props, props[0], props[1], PROP_DB), 0);
        return d;
}

static void test_load_and_match(void)
{
        root = test_tmpdir_new("link-config");
        /* /etc hides /usr/lib's file of the same name; the rest is ordered by name */
        put("/usr/lib/systemd/network/50-a.link", "[Match]\nOriginalName=*\n[Link]\nName=from-usr\n");
        put("/etc/systemd/network/50-a.link", "[Match]\nOriginalName=eth*\n[Link]\nName=from-etc\n");
        put("/usr/lib/systemd/network/50-a.link.d/x.conf", "[Link]\nName=dropin\n");
        put("/run/systemd/network/40-b.link",
            "# comment\n; comment\n[Match]\nMACAddress=00:11:22:33:44:55 \\\n 00-11-22-33-44-66\n"
            "[Link]\nNamePolicy=bogus onboard path\nName=bad/name\n");
        put("/lib/systemd/network/10-nomatch.link", "[Link]\nName=never\n");
        put("/etc/systemd/network/20-virt.link", "[Match]\nVirtualization=yes\n[Link]\nName=virt\n");
        put("/etc/systemd/network/30-masked.link", "");
        put("/usr/lib/systemd/network/30-masked.link", "[Match]\nOriginalName=*\n[Link]\nName=masked\n");
        put("/etc/systemd/network/60-prop.link",
            "[Match]\nProperty=\"ID_MODEL=Foo Bar*\" !SKIP=1\nHost=!otherhost\nKernelCommandLine=devtest\n"
            "[Unknown]\nX=1\n[Link]\nNamePolicy=kernel keep database\nName=propname\n");
        put("/etc/systemd/network/70-neg.link", "[Match]\nOriginalName=!eth* !lo\nType=ether\n[Link]\nName=negated\n");

        struct link_config_set *s = NULL;
        CHECK_INT(link_config_load(root, &s), 0);
        if (!s)
                return;
        /* 10-nomatch (no [Match]) dropped, 30-masked masked */
        CHECK_INT(s->n, 5);
        const char *want[] = {"/etc/systemd/network/20-virt.link", "/run/systemd/network/40-b.link",
                              "/etc/systemd/network/50-a.link", "/etc/systemd/network/60-prop.link",
                              "/etc/systemd/network/70-neg.link"};
        for (unsigned i = 0; i < s->n && i < ELEMENTSOF(want); i++)
                CHECK_STR(s->configs[i]->filename, want[i]);

        struct link_info eth = {.ifname = "eth0", .iftype = 1, .name_assign_type = 1, .mac = "00:11:22:33:44:66",
                                .hostname = "myhost", .proc_cmdline = "quiet devtest=1"};
        const struct link_config *c = link_config_find(s, &eth);
        CHECK(c && streq(c->filename, "/run/systemd/network/40-b.link"));
        /* Name=bad/name was rejected, bogus policy skipped: onboard, then path, then the old name */
        CHECK_INT(c ? c->n_name_policy : 0, 2);
        CHECK(c && !c->name);
        const char *p1[] = {"ID_NET_NAME_ONBOARD", "bad name", "ID_NET_NAME_PATH", "enp1s0", NULL};
        eth.dev = dev_with(p1);
        CHECK_STR(c ? link_config_new_name(c, &eth) : NULL, "enp1s0");
        device_unref(eth.dev);
        eth.dev = NULL;
        CHECK_STR(c ? link_config_new_name(c, &eth) : NULL, "eth0");

        /* another MAC: 50-a (drop-in from /usr/lib applies to /etc's file) */
        eth.mac = "00:11:22:33:44:77";
        c = link_config_find(s, &eth);
        CHECK(c && streq(c->filename, "/etc/systemd/network/50-a.link"));
        CHECK_STR(c ? link_config_new_name(c, &eth) : NULL, "dropin");

        /* 60-prop: property glob with a space, negated property, Host=, KernelCommandLine= */
        const char *p2[] = {"ID_MODEL", "Foo Bar 2000", "ID_NET_NAME_FROM_DATABASE", "dbname", NULL};
        struct link_info w = {.ifname = "wlan0", .iftype = 1, .devtype = "wlan", .name_assign_type = 2,
                              .hostname = "myhost", .proc_cmdline = "quiet devtest=1", .dev = dev_with(p2)};
        c = link_config_find(s, &w);
        CHECK(c && streq(c->filename, "/etc/systemd/network/60-prop.link"));
        CHECK_STR(c ? link_config_new_name(c, &w) : NULL, "wlan0"); /* kernel: predictable name kept */
        w.name_assign_type = 4;
        CHECK_STR(c ? link_config_new_name(c, &w) : NULL, "wlan0"); /* keep: renamed by userspace */
        w.name_assign_type = 1;
        CHECK_STR(c ? link_config_new_name(c, &w) : NULL, "dbname");
        w.hostname = "otherhost";
        CHECK(!c || !link_config_match(c, &w));
        w.hostname = "myhost";
        w.proc_cmdline = "quiet devtest2";
        CHECK(!c || !link_config_match(c, &w));
        w.proc_cmdline = "devtest";
        CHECK(!c || link_config_match(c, &w));
        CHECK_INT(props_set(&w.dev->props, "SKIP", "1", PROP_DB), 0);
        CHECK(!c || !link_config_match(c, &w));
        /* then 70-neg: only negative OriginalName patterns, Type= from DEVTYPE (wlan != ether) */
        c = link_config_find(s, &w);
        CHECK(c == NULL);
        w.devtype = NULL;
        c = link_config_find(s, &w);
        CHECK(c && streq(c->filename, "/etc/systemd/network/70-neg.link"));
        struct link_info lo = {.ifname = "lo", .iftype = 1};
        CHECK(!c || !link_config_match(c, &lo));
        device_unref(w.dev);

        /* Virtualization= is not supported: that file never matches */
        CHECK(!link_config_match(s->configs[0], &eth));
        link_config_set_free(s);
        root = test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_hw_addr), TEST(test_load_and_match))
