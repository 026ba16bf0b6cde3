/* SPDX-License-Identifier: MIT */
/*
 * The rules executor against a small sysfs tree (rules-fixture.h): a table of cases, each a
 * rules file, a device, an action and the results udev(7) says must come out. Each case gets
 * a fresh tree, so writes and tags of one case cannot leak into another.
 *
 * Expectation codes:
 *   E:KEY=VALUE   property value        E:KEY     property absent
 *   L:a b         exact link list (LC:n the number of links)       T:a b     exact current tags   TA:a b  all tags
 *   M:0660 U:0 G:0 (or M:- …)           N:name / N:-   NAME result
 *   R:cmd|cmd     RUN list (builtins as builtin:cmd)
 *   P:prio W:0|1 D:0|1                  link priority, watch, db_persist
 *   X:1,3         line numbers of the matched rules
 *   F:rel=content a file below the fixture root has exactly this content
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "format.h"
#include "log.h"
#include "rules-exec.h"
#include "rules-fixture.h"
#include "strv.h"
#include "test-util.h"

struct rcase {
        const char *name;
        const char *devpath;
        const char *action;
        const char *rules;
        const char *expect[16];
};

static const struct rcase rcases[] = {
        {"action", FIX_SDA, "add",
         "ACTION==\"add\", ENV{A}=\"1\"\n"
         "ACTION==\"remove\", ENV{B}=\"1\"\n"
         "ACTION!=\"add\", ENV{C}=\"1\"\n"
         "ACTION!=\"change\", ENV{D}=\"1\"\n",
         {"E:A=1", "E:B", "E:C", "E:D=1", "X:1,4"}},
        /* lines the SUBSYSTEM/ACTION pre-filter skips, and lines it must not skip */
        {"prefilter", FIX_SDA, "add",
         "SUBSYSTEM==\"net\", ENV{A}=\"1\"\n"
         "SUBSYSTEM==\"block\", ENV{B}=\"1\"\n"
         "SUBSYSTEM==\"blo*\", ENV{C}=\"1\"\n"
         "SUBSYSTEM==\"net|block\", ENV{D}=\"1\"\n"
         "ACTION==\"remove\", ENV{E}=\"1\"\n"
         "ACTION==\"add\", SUBSYSTEM==\"block\", ENV{F}=\"1\"\n"
         "SUBSYSTEM!=\"net\", GOTO=\"end\"\n"
         "ENV{G}=\"1\"\n"
         "LABEL=\"end\"\n"
         "SUBSYSTEM==\"\", ENV{H}=\"1\"\n",
         {"E:A", "E:B=1", "E:C=1", "E:D=1", "E:E", "E:F=1", "E:G", "E:H", "X:2,3,4,6,7"}},
        /* lines the KERNEL first-byte pre-filter skips ("sda" starts with 's'), and lines it
         * must not skip: alternatives, globs in the first byte, an empty alternative, !=, and
         * '3', whose bit is 's''s (the match itself then decides) */
        {"kernel-prefilter", FIX_SDA, "add",
         "KERNEL==\"nomatch\", ENV{A}=\"1\"\n"
         "KERNEL==\"sd*\", ENV{B}=\"1\"\n"
         "KERNEL==\"xx|sda\", ENV{C}=\"1\"\n"
         "KERNEL==\"*da\", ENV{D}=\"1\"\n"
         "KERNEL==\"[rs]da\", ENV{E}=\"1\"\n"
         "KERNEL==\"?da\", ENV{F}=\"1\"\n"
         "KERNEL==\"|xx\", ENV{G}=\"1\"\n"
         "KERNEL!=\"sda\", ENV{H}=\"1\"\n"
         "KERNEL==\"3da\", ENV{I}=\"1\"\n"
         "KERNEL==\"x*\", KERNEL==\"s*\", ENV{J}=\"1\"\n"
         "KERNEL==\"s*\", KERNEL==\"*a\", ENV{K}=\"1\"\n"
         "KERNEL==\"S*\", ENV{L}=\"1\"\n",
         {"E:A", "E:B=1", "E:C=1", "E:D=1", "E:E=1", "E:F=1", "E:G", "E:H", "E:I", "E:J", "E:K=1", "E:L",
          "X:2,3,4,5,6,11"}},
        /* lines the ENV pre-filter skips (a needed key is absent) and lines it must not skip:
         * patterns that match "", !=, derived keys, keys set by earlier lines */
        {"env-prefilter", FIX_SDA, "add",
         "ENV{ABSENT}==\"1\", ENV{A}=\"1\"\n"
         "ENV{ABSENT}==\"?*\", ENV{B}=\"1\"\n"
         "ENV{ABSENT}==\"*\", ENV{C}=\"1\"\n"
         "ENV{ABSENT}==\"|x\", ENV{D}=\"1\"\n"
         "ENV{ABSENT}!=\"1\", ENV{E}=\"1\"\n"
         "ENV{DISKSEQ}==\"9\", ENV{F}=\"1\"\n"
         "ENV{DEVPATH}==\"/devices/*\", ENV{G}=\"1\"\n"
         "ENV{NEW}=\"1\"\n"
         "ENV{NEW}==\"1\", ENV{H}=\"1\"\n"
         "ENV{IMP}==\"1\", IMPORT{program}=\"/bin/echo IMP=1\", ENV{I}=\"1\"\n"
         "ENV{ABSENT}==\"x*|y\", ENV{J}=\"1\"\n"
         "ENV{ABSENT}!=\"\", ENV{K}=\"1\"\n"
         "ENV{DISKSEQ}!=\"\", ENV{L}=\"1\"\n"
         "ENV{NEW}==\"?*\", ENV{M}=\"1\"\n",
         {"E:A", "E:B", "E:C=1", "E:D=1", "E:E=1", "E:F=1", "E:G=1", "E:H=1", "E:I", "E:IMP", "E:J", "E:K",
          "E:L=1", "E:M=1", "X:3,4,5,6,7,8,9,13,14"}},
        {"action-remove-skips-devlink-lines", FIX_SDA, "remove",
         "SYMLINK+=\"gone\"\nMODE=\"0600\"\nENV{R}=\"1\"\n",
         {"L:", "M:-", "E:R=1", "X:3"}},
        {"kernel-glob", FIX_SDA, "add",
         "KERNEL==\"sd[a-z]\", ENV{K}=\"disk\"\n"
         "KERNEL==\"sd*[0-9]\", ENV{P}=\"part\"\n"
         "KERNEL==\"s?a\", ENV{Q}=\"1\"\n"
         "KERNEL==\"sd[!a]\", ENV{NOT}=\"1\"\n",
         {"E:K=disk", "E:P", "E:Q=1", "E:NOT"}},
        {"kernel-partition", FIX_SDA1, "add",
         "KERNEL==\"sd[a-z]\", ENV{K}=\"disk\"\nKERNEL==\"sd*[0-9]\", ENV{P}=\"part\"\n",
         {"E:K", "E:P=part"}},
        {"alternatives", FIX_SDA, "add",
         "KERNEL==\"hd*|sd*\", ENV{X}=\"1\"\n"
         "SUBSYSTEM==\"net|block\", ENV{Y}=\"1\"\n"
         "KERNEL==\"|nomatch\", ENV{Z}=\"1\"\n"
         "ENV{UNSET}==\"|nomatch\", ENV{EMPTYALT}=\"1\"\n"
         "KERNEL!=\"hd*|sd*\", ENV{W}=\"1\"\n",
         {"E:X=1", "E:Y=1", "E:Z", "E:EMPTYALT=1", "E:W"}},
        {"empty-and-nonempty", FIX_SDA, "add",
         "ENV{DEVTYPE}==\"?*\", ENV{HAS}=\"1\"\n"
         "ENV{NOPE}==\"?*\", ENV{NO}=\"1\"\n"
         "ENV{NOPE}==\"\", ENV{EMPTY}=\"1\"\n"
         "ENV{DEVTYPE}!=\"\", ENV{NONEMPTY}=\"1\"\n",
         {"E:HAS=1", "E:NO", "E:EMPTY=1", "E:NONEMPTY=1"}},
        {"devpath-subsystem-driver", FIX_SDA, "add",
         "DEVPATH==\"/devices/pci*/block/sda\", ENV{D}=\"1\"\n"
         "SUBSYSTEM==\"block\", ENV{S}=\"1\"\n"
         "SUBSYSTEM==\"net\", ENV{S2}=\"1\"\n"
         "DRIVER==\"\", ENV{ND}=\"1\"\n"
         "DRIVER==\"sd\", ENV{WRONG}=\"1\"\n"
         "ENV{DEVNAME}==\"/dev/sda\", ENV{DN}=\"1\"\n"
         "ENV{MAJOR}==\"8\", ENV{MINOR}==\"0\", ENV{MM}=\"1\"\n",
         {"E:D=1", "E:S=1", "E:S2", "E:ND=1", "E:WRONG", "E:DN=1", "E:MM=1"}},
        {"parents-same-device", FIX_SDA, "add",
         "SUBSYSTEMS==\"scsi\", ATTRS{vendor}==\"ATA\", ENV{V}=\"$attr{model}\"\n"
         "SUBSYSTEMS==\"pci\", ATTRS{vendor}==\"ATA\", ENV{WRONG}=\"1\"\n"
         "SUBSYSTEMS==\"pci\", ATTRS{vendor}==\"0x8086\", DRIVERS==\"ahci\", ENV{RIGHT}=\"%b %d\"\n"
         "KERNELS==\"0:0:0:0\", DRIVERS==\"sd\", ENV{ID}=\"%b $id $driver\"\n"
         "KERNELS==\"sda\", ENV{SELF}=\"1\"\n"
         "KERNELS==\"nothere\", ENV{NONE}=\"1\"\n"
         "SUBSYSTEMS==\"scsi\", KERNELS!=\"0:0:0:0\", ENV{NEG}=\"1\"\n",
         {"E:V=Samsung SSD 860", "E:WRONG", "E:RIGHT=0000:00:1f.2 ahci", "E:ID=0:0:0:0 0:0:0:0 sd", "E:SELF=1",
          "E:NONE", "E:NEG"}},
        {"attr-whitespace", FIX_SDA, "add",
         "ATTR{size}==\"1000\", ENV{S}=\"1\"\n"
         "ATTRS{model}==\"Samsung SSD 860\", ENV{M}=\"1\"\n"
         "ATTRS{model}==\"Samsung SSD 860 \", ENV{M2}=\"1\"\n"
         "ATTRS{vendor}==\"ATA*\", ENV{V}=\"1\"\n"
         "ATTR{nonexistent}!=\"x\", ENV{MISS}=\"1\"\n"
         "ATTR{queue/rotational}==\"0\", ENV{SSD}=\"1\"\n"
         "ATTR{[block/sda1]partition}==\"1\", ENV{SUBSYS}=\"1\"\n",
         {"E:S=1", "E:M=1", "E:M2=1", "E:V=1", "E:MISS", "E:SSD=1", "E:SUBSYS=1"}},
        {"env-assign", FIX_SDA, "add",
         "ENV{L}=\"a\"\nENV{L}+=\"b\"\nENV{E}=\"x\"\nENV{E}=\"\"\nENV{L}+=\"\"\nENV{N}=\"%k\"\n",
         {"E:L=a b", "E:E", "E:N=sda"}},
        {"symlinks", FIX_SDA, "add",
         "SYMLINK+=\"disk/by-id/foo%n bar\"\n"
         "SUBSYSTEMS==\"scsi\", SYMLINK+=\"disk/by-model/$attr{model}\"\n"
         "SYMLINK+=\"../etc/passwd\"\n"
         "SYMLINK+=\"a/../../x\"\n"
         "SYMLINK+=\"//norm//ali/zed/\"\n"
         "SYMLINK+=\"bar\"\n",
         {"L:disk/by-id/foo bar disk/by-model/Samsung_SSD_860 norm/ali/zed"}},
        {"symlink-escape-none", FIX_SDA, "add",
         "SUBSYSTEMS==\"scsi\", OPTIONS+=\"string_escape=none\", SYMLINK+=\"x/$attr{model}\"\n"
         "SYMLINK+=\"y/$attr{model}\"\n",
         {"L:x/Samsung SSD 860 y/Samsung_SSD_860", "LC:4"}},
        {"symlink-escape-replace", FIX_SDA, "add",
         "OPTIONS+=\"string_escape=replace\", SYMLINK+=\"y/a b\"\nSYMLINK+=\"z*z\"\n",
         {"L:y/a_b z_z"}},
        {"symlink-assign-final", FIX_SDA, "add",
         "SYMLINK+=\"one\"\nSYMLINK=\"two\"\nSYMLINK:=\"three\"\nSYMLINK+=\"four\"\n",
         {"L:three"}},
        {"symlink-match", FIX_SDA, "add",
         "SYMLINK+=\"one\"\nSYMLINK==\"one\", ENV{SL}=\"1\"\nSYMLINK!=\"one\", ENV{NSL}=\"1\"\n"
         "SYMLINK==\"o*\", ENV{SLG}=\"1\"\nSYMLINK!=\"zzz\", ENV{NZ}=\"1\"\n",
         {"E:SL=1", "E:NSL", "E:SLG=1", "E:NZ=1"}},
        {"symlink-needs-node", FIX_ETH, "add", "SYMLINK+=\"nope\"\nENV{X}=\"1\"\n", {"L:", "E:X=1", "X:2"}},
        {"name-net", FIX_ETH, "add",
         "SUBSYSTEM==\"net\", NAME=\"lan0\"\nNAME==\"lan0\", ENV{NM}=\"1\"\nNAME:=\"lan1\"\nNAME=\"lan2\"\n"
         "ENV{DN}=\"$name\"\n",
         {"N:lan1", "E:NM=1", "E:DN=lan1"}},
        {"name-not-for-block", FIX_SDA, "add", "NAME=\"foo\"\n", {"N:-", "X:"}},
        {"name-sanitized", FIX_ETH, "add", "NAME=\"a/b:c d%%e\"\n", {"N:a_b_c_d_e"}},
        {"name-too-long", FIX_ETH, "add", "NAME=\"abcdefghijklmnop\"\n", {"N:-"}},
        {"owner-group-mode", FIX_SDA, "add",
         "MODE=\"0660\", OWNER=\"0\", GROUP=\"root\"\n", {"M:0660", "U:0", "G:0"}},
        {"mode-final", FIX_SDA, "add", "MODE:=\"0600\"\nMODE=\"0666\"\nOWNER:=\"1\"\nOWNER=\"2\"\n",
         {"M:0600", "U:1"}},
        {"mode-substituted", FIX_SDA, "add", "ENV{MYMODE}=\"0640\"\nMODE=\"$env{MYMODE}\"\n", {"M:0640"}},
        {"mode-needs-node", FIX_ETH, "add", "MODE=\"0600\", GROUP=\"root\"\n", {"M:-", "G:-"}},
        {"tags", FIX_SDA, "add",
         "TAG+=\"systemd\"\nTAG+=\"uaccess\"\nTAG-=\"uaccess\"\nTAG==\"systemd\", ENV{TG}=\"1\"\n"
         "TAG==\"uaccess\", ENV{TU}=\"1\"\nTAG+=\"bad tag\"\nTAG==\"nosuch\", ENV{TN}=\"1\"\n",
         {"T:systemd", "TA:systemd uaccess", "E:TG=1", "E:TU=1", "E:TN"}}, /* TAG== sees all tags */
        {"tag-assign", FIX_SDA, "add", "TAG+=\"a\"\nTAG=\"b\"\n", {"T:b", "TA:b"}},
        {"run", FIX_SDA, "add",
         "RUN+=\"/bin/true %k\"\nRUN{builtin}+=\"kmod load\"\nRUN{program}+=\"helper $devpath\"\n",
         {"R:/bin/true sda|builtin:kmod load|helper " FIX_SDA}},
        {"run-assign-final", FIX_SDA, "add", "RUN+=\"a\"\nRUN=\"b\"\nRUN:=\"c\"\nRUN+=\"d\"\n", {"R:c"}},
        {"goto-label", FIX_SDA, "add",
         "KERNEL==\"sda\", GOTO=\"end\"\nENV{SKIPPED}=\"1\"\nLABEL=\"end\"\nENV{AFTER}=\"1\"\n",
         {"E:SKIPPED", "E:AFTER=1", "X:1,4"}},
        {"goto-not-taken", FIX_SDA1, "add",
         "KERNEL==\"sda\", GOTO=\"end\"\nENV{SKIPPED}=\"1\"\nLABEL=\"end\"\nENV{AFTER}=\"1\"\n",
         {"E:SKIPPED=1", "E:AFTER=1", "X:2,4"}},
        {"import-file", FIX_SDA, "add",
         "IMPORT{file}=\"%S/import.env\"\nIMPORT{file}==\"%S/missing.env\", ENV{MISSING}=\"1\"\n",
         {"E:IA=1", "E:IB=two words", "E:IC=q", "E:MISSING", "E:ID=spaced", "E:IE", "E:IF=", "E:IG"}},
        {"import-cmdline", FIX_SDA, "add",
         "IMPORT{cmdline}=\"devman.flag\"\nIMPORT{cmdline}=\"devman.value\"\n"
         "IMPORT{cmdline}==\"absent\", ENV{CA}=\"1\"\nIMPORT{cmdline}!=\"absent\", ENV{CNA}=\"1\"\n"
         "IMPORT{cmdline}=\"devman-dash_key\"\nIMPORT{cmdline}==\"devman.val\", ENV{PREFIX}=\"1\"\n",
         {"E:devman.flag=1", "E:devman.value=42", "E:CA", "E:CNA=1", "E:devman-dash_key=x", "E:PREFIX"}},
        {"import-parent", FIX_SDA1, "add", "IMPORT{parent}=\"DISK*\"\nIMPORT{parent}=\"DEV*\"\n",
         {"E:DISKSEQ=9", "E:DEVTYPE=partition", "E:DEVNAME=/dev/sda1", "E:DEVPATH=" FIX_SDA1}},
        {"import-reserved", FIX_SDA, "add",
         "IMPORT{program}=\"/usr/bin/printf 'DEVNAME=/etc/passwd\\nDEVPATH=/x\\nMAJOR=1\\nOK=1\\n'\"\n",
         {"E:DEVNAME=/dev/sda", "E:DEVPATH=" FIX_SDA, "E:MAJOR=8", "E:OK=1"}},
        {"test", FIX_SDA, "add",
         "TEST==\"size\", ENV{T1}=\"1\"\nTEST!=\"nonexistent\", ENV{T2}=\"1\"\n"
         "TEST{0200}==\"size\", ENV{T3}=\"1\"\nTEST==\"/nonexistent/x\", ENV{T4}=\"1\"\n"
         "TEST==\"[block/sda1]partition\", ENV{T5}=\"1\"\nTEST{0001}==\"size\", ENV{T6}=\"1\"\n"
         "TEST==\"queue/*\", ENV{T7}=\"1\"\n",
         {"E:T1=1", "E:T2=1", "E:T3=1", "E:T4", "E:T5=1", "E:T6", "E:T7=1"}},
        {"sysctl", FIX_ETH, "add",
         "SYSCTL{kernel.hostname}==\"fixturehost\", ENV{H}=\"1\"\n"
         "SYSCTL{net.ipv4.conf.%k.forwarding}=\"1\"\n"
         "SYSCTL{kernel/domainname}=\"newname\"\n",
         {"E:H=1", "F:/procsys/kernel/domainname=newname", "F:/procsys/net/ipv4/conf/eth9/forwarding=1"}},
        {"attr-write", FIX_SDA, "add",
         "ATTR{queue/scheduler}=\"mq-deadline\"\nPROGRAM=\"/bin/echo ../../../../../../../../../x\", ATTR{%c}=\"x\"\n",
         {"F:" FIX_SDA "/queue/scheduler=mq-deadline", "X:1,2", "F:/x="}},
        {"attr-parent-write", FIX_SDA1, "add", "ATTR{../removable}=\"1\"\nATTR{../size}==\"1000\", ENV{PS}=\"1\"\n",
         {"F:" FIX_SDA "/removable=1\n", "E:PS=1"}},
        {"const", FIX_SDA, "add",
         "CONST{arch}==\"?*\", ENV{AR}=\"1\"\nCONST{virt}==\"qemu\", ENV{VQ}=\"1\"\nCONST{virt}==\"kvm\", ENV{VK}=\"1\"\n",
         {"E:AR=1", "E:VQ=1", "E:VK"}},
        {"substitutions", FIX_SDA1, "add",
         "ENV{S}=\"%k|$kernel|%n|$number|%p|%M:%m|$major:$minor|%%|$$|%r|$root|$devnode|%N|$name|%D\"\n"
         "ENV{S2}=\"%E{DEVTYPE}|$env{DEVTYPE}|%s{size}|$attr{size}|$sysfs{size}|%P|$parent|$attr{[block/sda]size}\"\n"
         "SYMLINK+=\"l1 l2\"\nENV{LN}=\"$links|%L\"\n",
         {"E:S=sda1|sda1|1|1|" FIX_SDA1 "|8:1|8:1|%|$|/dev|/dev|/dev/sda1|/dev/sda1|sda1|sda1",
          "E:S2=partition|partition|900|900|900|sda|sda|1000", "E:LN=l1 l2|l1 l2"}},
        {"program", FIX_SDA, "add",
         "PROGRAM==\"/bin/echo hello world\", RESULT==\"hello world\", ENV{P}=\"%c|%c{2}|%c{1+}|$result{2+}\"\n"
         "PROGRAM==\"/bin/false\", ENV{PF}=\"1\"\n"
         "PROGRAM!=\"/bin/false\", ENV{PNF}=\"1\"\n"
         "PROGRAM=\"/bin/sh -c 'echo $$DEVNAME $$ACTION $$SUBSYSTEM'\", RESULT==\"/dev/sda add block\", ENV{PE}=\"1\"\n"
         "PROGRAM=\"/bin/echo abc\", RESULT==\"x*|a*\", ENV{PG}=\"1\"\n"
         "PROGRAM=\"/bin/echo abc\", RESULT!=\"a*\", ENV{PNG}=\"1\"\n",
         {"E:P=hello world|world|hello world|world", "E:PF", "E:PNF=1", "E:PE=1", "E:PG=1", "E:PNG"}},
        {"result-before-program", FIX_SDA, "add",
         "RESULT==\"late\", PROGRAM=\"/bin/echo late\", ENV{RP}=\"1\"\n", {"E:RP=1"}},
        {"import-program", FIX_SDA, "add",
         "IMPORT{program}=\"/bin/echo ID_FOO=bar\"\nIMPORT{program}==\"/bin/false\", ENV{IF}=\"1\"\n"
         "IMPORT{program}=\"/usr/bin/printf 'A=1\\nB=\\\"x y\\\"\\n'\"\n",
         {"E:ID_FOO=bar", "E:IF", "E:A=1", "E:B=x y"}},
        {"options", FIX_SDA, "add",
         "OPTIONS+=\"link_priority=-100\"\nOPTIONS+=\"watch\"\nOPTIONS+=\"db_persist\"\n"
         "OPTIONS+=\"string_escape=replace\", ENV{R}=\"a/b c\"\nENV{NR}=\"a/b c\"\n",
         {"P:-100", "W:1", "D:1", "E:R=a_b_c", "E:NR=a/b c"}},
        {"watch-final", FIX_SDA, "add", "OPTIONS:=\"nowatch\"\nOPTIONS+=\"watch\"\n", {"W:0"}},
        {"builtin-unavailable", FIX_SDA, "add",
         "IMPORT{builtin}==\"path_id\", ENV{B}=\"1\"\nIMPORT{builtin}!=\"path_id\", ENV{NB}=\"1\"\n",
         {"E:B", "E:NB=1"}},
        {"line-order-independent", FIX_SDA, "add", "ENV{O}=\"1\", KERNEL==\"nomatch\"\n", {"E:O"}},
};

static const char *check_expect(struct rules_fixture *f, struct rules_exec *x, struct device *d, const char *e)
{
        static char why[512];
        struct device_udev *u = d->udev;
        const char *v;

        if ((v = startswith(e, "E:"))) {
                const char *eq = strchr(v, '=');
                char key[128];
                snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - v) : (int)strlen(v), v);
                _cleanup_free_ char *buf = NULL;
                const char *got = format_get_property(d, "/dev", key, &buf);
                if (!eq)
                        return got ? (snprintf(why, sizeof(why), "%s is \"%s\", expected absent", key, got), why) : NULL;
                if (!got || !streq(got, eq + 1))
                        return snprintf(why, sizeof(why), "%s is \"%s\"", key, got ? got : "(absent)"), why;
                return NULL;
        }
        if ((v = startswith(e, "LC:")))
                return strv_length(u->links) == (size_t)atoi(v) ? NULL : "link count differs";
        if ((v = startswith(e, "L:")) || (v = startswith(e, "T:")) || (v = startswith(e, "TA:"))) {
                char **l = e[0] == 'L' ? u->links : e[1] == 'A' ? u->tags : u->current_tags;
                _cleanup_free_ char *j = strv_join(l, NULL, " ");
                if (!streq(j ? j : "", v))
                        return snprintf(why, sizeof(why), "list is \"%s\"", j ? j : ""), why;
                return NULL;
        }
        if ((v = startswith(e, "M:")) || (v = startswith(e, "U:")) || (v = startswith(e, "G:"))) {
                long long got = e[0] == 'M' ? (long long)(u->mode == (mode_t)-1 ? -1 : (long long)u->mode)
                                : e[0] == 'U' ? (u->uid == (uid_t)-1 ? -1 : (long long)u->uid)
                                              : (u->gid == (gid_t)-1 ? -1 : (long long)u->gid);
                long long want = streq(v, "-") ? -1 : strtoll(v, NULL, e[0] == 'M' ? 8 : 10);
                if (got != want)
                        return snprintf(why, sizeof(why), "value is %llo/%lld", got, got), why;
                return NULL;
        }
        if ((v = startswith(e, "N:"))) {
                const char *n = rules_exec_name(x);
                if (streq(v, "-") ? n != NULL : !streq_ptr(n, v))
                        return snprintf(why, sizeof(why), "NAME is %s", strna(n)), why;
                return NULL;
        }
        if ((v = startswith(e, "R:"))) {
                size_t n;
                const struct rules_run *run = rules_exec_run_list(x, &n);
                char buf[1024] = "";
                for (size_t i = 0; i < n; i++)
                        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s%s", i ? "|" : "",
                                 run[i].builtin ? "builtin:" : "", run[i].cmd);
                if (!streq(buf, v))
                        return snprintf(why, sizeof(why), "RUN is \"%s\"", buf), why;
                return NULL;
        }
        if ((v = startswith(e, "P:")))
                return u->link_priority == atoi(v) ? NULL : (snprintf(why, sizeof(why), "prio %d", u->link_priority), why);
        if ((v = startswith(e, "W:")))
                return u->watch == (atoi(v) != 0) ? NULL : "watch differs";
        if ((v = startswith(e, "D:")))
                return u->db_persist == (atoi(v) != 0) ? NULL : "db_persist differs";
        if ((v = startswith(e, "X:"))) {
                size_t n;
                const struct rule_line *const *t = rules_exec_trace(x, &n);
                char buf[512] = "";
                for (size_t i = 0; i < n; i++)
                        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", i ? "," : "", t[i]->line);
                if (!streq(buf, v))
                        return snprintf(why, sizeof(why), "trace is \"%s\"", buf), why;
                return NULL;
        }
        if ((v = startswith(e, "F:"))) {
                const char *eq = strchr(v, '=');
                char path[1024], content[256] = "";
                snprintf(path, sizeof(path), "%s%.*s", f->root, (int)(eq - v), v);
                FILE *fp = fopen(path, "re");
                if (fp) {
                        size_t k = fread(content, 1, sizeof(content) - 1, fp);
                        content[k] = '\0';
                        fclose(fp);
                }
                return streq(content, eq + 1) ? NULL : (snprintf(why, sizeof(why), "file has \"%s\"", content), why);
        }
        return "unknown expectation code";
}

static void run_case(const struct rcase *c)
{
        struct rules_fixture f;
        rules_fixture_init(&f);
        rules_fixture_put(&f, "/import.env",
                          "IA=1\nIB='two words'\n# comment\n\nIC=\"q\"\nbroken line\n  ID = spaced  \nIE=\nIF=\"\"\nIG='x\n");

        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        CHECK_INT(rules_parse_buffer(rules, "t.rules", c->rules, strlen(c->rules)), 0);

        struct device *d = NULL;
        CHECK_INT(model_resolve(f.model, c->devpath, &d), 0);
        if (!d) {
                rules_free(rules);
                rules_fixture_free(&f);
                return;
        }
        struct rules_exec_options o = {
                .sysfs_root = f.root,
                .sysctl_root = f.sysctl,
                .cmdline_file = f.cmdline,
                .virt = "qemu",
        };
        struct rules_exec *x = NULL;
        CHECK_INT(rules_exec_new(rules, d, uevent_action_from_string(c->action), &o, &x), 0);
        CHECK_INT(rules_fixture_exec(x, 5 * 1000000ULL), 0);

        /* %S expands to the sysfs root; the import case reads below it */
        for (size_t i = 0; i < ELEMENTSOF(c->expect) && c->expect[i]; i++) {
                const char *why = check_expect(&f, x, d, c->expect[i]);
                test_state.checks++;
                if (why) {
                        test_state.failed_checks++;
                        fprintf(stderr, "case %s: expectation \"%s\" failed: %s\n", c->name, c->expect[i], why);
                }
        }
        rules_exec_free(x);
        rules_free(rules);
        rules_fixture_free(&f);
}

static void test_table(void)
{
        /* once with the lines' pre-filter, once without it (debug logging evaluates every
         * token): the same results */
        int level = log_get_max_level();
        for (int pass = 0; pass < 2; pass++) {
                log_set_max_level(pass == 0 ? LOG_ERR : LOG_DEBUG);
                for (size_t i = 0; i < ELEMENTSOF(rcases); i++)
                        run_case(&rcases[i]);
        }
        log_set_max_level(level);
}

static struct rules *parse_ok(const char *text)
{
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        CHECK_INT(rules_parse_buffer(rules, "p.rules", text, strlen(text)), 0);
        return rules;
}

/* The daemon's path: NEED_PROGRAM, the caller runs the child, hands back the outcome, resumes. */
static void test_resumable_program(void)
{
        struct rules_fixture f;
        rules_fixture_init(&f);
        struct rules *rules = parse_ok("ENV{BEFORE}=\"1\"\n"
                                       "PROGRAM==\"prog-one %k\", RESULT==\"r1 r2\", ENV{A}=\"%c{2}\"\n"
                                       "IMPORT{program}=\"/opt/imp --flag\"\n"
                                       "ENV{B}=\"done\"\n");
        struct device *d = NULL;
        CHECK_INT(model_resolve(f.model, FIX_SDA, &d), 0);
        struct rules_exec_options o = {.sysfs_root = f.root, .program_dir = "/usr/lib/devman-test"};
        struct rules_exec *x = NULL;
        CHECK_INT(rules_exec_new(rules, d, UEVENT_ADD, &o, &x), 0);

        CHECK_INT(rules_exec_program_done(x, 0, "x", 1), -EINVAL);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_NEED_PROGRAM);
        const struct rules_program *p = rules_exec_get_program(x);
        CHECK(p != NULL);
        CHECK_STR(p->argv[0], "/usr/lib/devman-test/prog-one");
        CHECK_STR(p->argv[1], "sda");
        CHECK(p->argv[2] == NULL);
        CHECK(!p->import);
        CHECK_INT(p->rule->line, 2);
        CHECK(strv_contains(p->envp, "ACTION=add"));
        CHECK(strv_contains(p->envp, "DEVNAME=/dev/sda"));
        CHECK(strv_contains(p->envp, "SUBSYSTEM=block"));
        CHECK(strv_contains(p->envp, "DEVPATH=" FIX_SDA));
        CHECK(strv_contains(p->envp, "BEFORE=1")); /* properties set so far reach the child */
        /* asking again before the outcome arrived is refused */
        CHECK_INT(rules_exec_run(x), -EBUSY);

        CHECK_INT(rules_exec_program_done(x, 0, "r1 r2\n\n", 7), 0);
        CHECK(rules_exec_get_program(x) == NULL);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_NEED_PROGRAM);
        p = rules_exec_get_program(x);
        CHECK(p && p->import);
        CHECK_STR(p->argv[0], "/opt/imp");
        CHECK_STR(p->argv[1], "--flag");
        CHECK_STR(device_get_property(d, "A"), "r2");
        CHECK(device_get_property(d, "B") == NULL);

        CHECK_INT(rules_exec_program_done(x, 0, "X=1\nY='2'\n", 10), 0);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_DONE);
        CHECK_STR(device_get_property(d, "X"), "1");
        CHECK_STR(device_get_property(d, "Y"), "2");
        CHECK_STR(device_get_property(d, "B"), "done");
        size_t n;
        rules_exec_trace(x, &n);
        CHECK_INT(n, 4);
        rules_exec_free(x);

        /* a failing PROGRAM: the rule does not match, evaluation goes on */
        CHECK_INT(rules_exec_new(rules, d, UEVENT_CHANGE, &o, &x), 0);
        CHECK(device_get_property(d, "A") == NULL); /* the previous event's results are gone */
        CHECK_INT(rules_exec_run(x), RULES_EXEC_NEED_PROGRAM);
        CHECK_INT(rules_exec_program_done(x, 1, "r1 r2\n", 6), 0);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_NEED_PROGRAM);
        CHECK_INT(rules_exec_program_done(x, -ENOENT, NULL, 0), 0);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_DONE);
        CHECK(device_get_property(d, "A") == NULL);
        CHECK(device_get_property(d, "X") == NULL);
        CHECK_STR(device_get_property(d, "B"), "done");
        rules_exec_free(x);

        rules_free(rules);
        rules_fixture_free(&f);
}

/* A new event starts from scratch; the previous links and database properties stay reachable. */
static void test_event_reset_and_import_db(void)
{
        struct rules_fixture f;
        rules_fixture_init(&f);
        struct rules *rules = parse_ok("ENV{OLD}==\"1\", ENV{SEEN}=\"1\"\n"
                                       "IMPORT{db}=\"OLD\"\n"
                                       "IMPORT{db}==\"NOTTHERE\", ENV{NT}=\"1\"\n"
                                       "SYMLINK+=\"new\"\n");
        struct device *d = NULL;
        CHECK_INT(model_resolve(f.model, FIX_SDA, &d), 0);
        struct device_udev *u = device_get_udev(d);
        CHECK_INT(strv_push_copy(&u->links, "old"), 0);
        CHECK_INT(strv_push_copy(&u->current_tags, "stale"), 0);
        u->mode = 0600;
        CHECK_INT(props_set(&d->props, "OLD", "1", PROP_DB), 0);

        struct rules_exec_options o = {.sysfs_root = f.root};
        struct rules_exec *x = NULL;
        CHECK_INT(rules_exec_new(rules, d, UEVENT_CHANGE, &o, &x), 0);
        CHECK(device_get_property(d, "OLD") == NULL);
        CHECK(u->links == NULL);
        CHECK(strv_length(u->current_tags) == 0);
        CHECK(u->mode == (mode_t)-1);
        CHECK(strv_contains(rules_exec_old_links(x), "old"));
        CHECK_INT(rules_exec_run(x), RULES_EXEC_DONE);
        CHECK(device_get_property(d, "SEEN") == NULL);
        CHECK_STR(device_get_property(d, "OLD"), "1");
        CHECK(device_get_property(d, "NT") == NULL);
        CHECK(strv_contains(u->links, "new") && !strv_contains(u->links, "old"));
        rules_exec_free(x);

        /* remove keeps the database properties for matching */
        CHECK_INT(rules_exec_new(rules, d, UEVENT_REMOVE, &o, &x), 0);
        CHECK_INT(rules_exec_run(x), RULES_EXEC_DONE);
        CHECK_STR(device_get_property(d, "SEEN"), "1");
        rules_exec_free(x);

        rules_free(rules);
        rules_fixture_free(&f);
}

static void check_prop(struct device *d, const char *key, const char *want)
{
        _cleanup_free_ char *buf = NULL;
        const char *got = format_get_property(d, "/tmp/d", key, &buf);
        if (want)
                CHECK_STR(got, want);
        else
                CHECK(got == NULL);
}

/* The keys rules and programs see derived from the record when the property set lacks them,
 * and the set's own value when it has one. */
static void test_derived_properties(void)
{
        struct device *d = NULL;
        CHECK_INT(device_new("/devices/virtual/net/eth7", &d), 0);
        check_prop(d, "DEVPATH", "/devices/virtual/net/eth7");
        check_prop(d, "SUBSYSTEM", NULL);
        check_prop(d, "MAJOR", NULL);
        check_prop(d, "IFINDEX", NULL);
        check_prop(d, "DEVLINKS", NULL);
        check_prop(d, "TAGS", NULL);
        check_prop(d, "", NULL);
        CHECK_INT(device_set_subsystem(d, "block"), 0);
        CHECK_INT(device_set_devtype(d, "disk"), 0);
        CHECK_INT(device_set_driver(d, "loop"), 0);
        CHECK_INT(device_set_devname(d, "loop7"), 0);
        d->devnum_type = 'b';
        d->devnum = makedev(7, 26007);
        d->ifindex = 12;
        check_prop(d, "SUBSYSTEM", "block");
        check_prop(d, "DEVTYPE", "disk");
        check_prop(d, "DRIVER", "loop");
        check_prop(d, "DEVNAME", "/tmp/d/loop7");
        check_prop(d, "MAJOR", "7");
        check_prop(d, "MINOR", "26007");
        check_prop(d, "IFINDEX", "12");
        check_prop(d, "DEVNAM", NULL);
        check_prop(d, "DEVNAMES", NULL);
        check_prop(d, "DM_NAME", NULL);
        check_prop(d, "MAJORS", NULL);

        struct device_udev *u = device_get_udev(d);
        CHECK(u != NULL);
        CHECK_INT(strv_push_copy(&u->links, "disk/by-id/a"), 0);
        CHECK_INT(strv_push_copy(&u->links, "b"), 0);
        CHECK_INT(strv_push_copy(&u->tags, "systemd"), 0);
        CHECK_INT(strv_push_copy(&u->tags, "seat"), 0);
        CHECK_INT(strv_push_copy(&u->current_tags, "seat"), 0);
        check_prop(d, "DEVLINKS", "/tmp/d/disk/by-id/a /tmp/d/b");
        check_prop(d, "TAGS", ":systemd:seat:");
        check_prop(d, "CURRENT_TAGS", ":seat:");

        /* the set wins for every key but DEVLINKS, TAGS and CURRENT_TAGS */
        CHECK_INT(props_set(&d->props, "MAJOR", "8", PROP_KERNEL), 0);
        CHECK_INT(props_set(&d->props, "DEVNAME", "/dev/sda", PROP_KERNEL), 0);
        CHECK_INT(props_set(&d->props, "TAGS", ":x:", PROP_DB), 0);
        CHECK_INT(props_set(&d->props, "DM_NAME", "vg-root", PROP_DB), 0);
        check_prop(d, "MAJOR", "8");
        check_prop(d, "DEVNAME", "/dev/sda");
        check_prop(d, "TAGS", ":systemd:seat:");
        check_prop(d, "DM_NAME", "vg-root");
        device_unref(d);
}

TEST_MAIN(TEST(test_table), TEST(test_derived_properties), TEST(test_resumable_program), TEST(test_event_reset_and_import_db))
