/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>

#include "devman-config.h"
#include "log.h"
#include "macros.h"
#include "test-util.h"

#define SEC UINT64_C(1000000)

/* A private directory tree under /tmp for one test; removed by rm_tree(). */
static char *make_root(void)
{
        char *dir = strdup("/tmp/devman-test-config.XXXXXX");
        if (!dir || !mkdtemp(dir)) {
                perror("mkdtemp");
                exit(1);
        }
        return dir;
}

static void rm_tree(char *dir)
{
        char *cmd;
        if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0) {
                if (system(cmd) != 0)
                        fprintf(stderr, "could not remove %s\n", dir);
                free(cmd);
        }
        free(dir);
}

/* Writes text to root/rel, creating parent directories. Returns the full path (caller frees). */
static char *write_file(const char *root, const char *rel, const char *text)
{
        char *path, *p;
        FILE *f;

        if (asprintf(&path, "%s/%s", root, rel) < 0)
                exit(1);
        for (p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
                *p = '\0';
                mkdir(path, 0755);
                *p = '/';
        }
        f = fopen(path, "we");
        if (!f) {
                perror(path);
                exit(1);
        }
        fputs(text, f);
        fclose(f);
        return path;
}

static struct devman_config *new_config(void)
{
        struct devman_config *c = NULL;
        if (devman_config_new(&c) < 0)
                exit(1);
        return c;
}

/* Parses text as a configuration file into a fresh config; *skipped gets the return value. */
static struct devman_config *parse_text(const char *text, int *skipped)
{
        char *root = make_root();
        char *path = write_file(root, "udev.conf", text);
        struct devman_config *c = new_config();
        *skipped = devman_config_parse_file(c, path);
        free(path);
        rm_tree(root);
        return c;
}

static void test_defaults(void)
{
        struct devman_config *c = new_config();

        CHECK_INT(c->log_level, LOG_INFO);
        CHECK_INT(c->children_max, 0);
        CHECK_INT(c->exec_delay_sec, 0);
        CHECK(c->event_timeout_usec == 180 * SEC);
        CHECK_INT(c->timeout_signal, SIGKILL);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_EARLY);
        CHECK_STR(c->sysfs_root, "/sys");
        CHECK_STR(c->dev_root, "/dev");
        CHECK_STR(c->run_root, "/run/udev");
        CHECK(c->n_rules_dirs >= 4);
        CHECK_STR(c->rules_dirs[0], "/etc/udev/rules.d");
        CHECK_STR(c->rules_dirs[1], "/run/udev/rules.d");
        CHECK(c->rules_dirs[c->n_rules_dirs] == NULL);
        /* The build's own rules directory is searched, and only once. */
        int seen = 0;
        for (size_t i = 0; i < c->n_rules_dirs; i++)
                seen += streq(c->rules_dirs[i], DEVMAN_RULESDIR);
        CHECK_INT(seen, 1);
        devman_config_free(c);
        CHECK(devman_config_free(NULL) == NULL);
}

static void test_paths_and_rules_dirs(void)
{
        struct devman_config *c = new_config();

        CHECK_INT(devman_config_set_path(&c->sysfs_root, "/tmp/fake/sys///"), 0);
        CHECK_STR(c->sysfs_root, "/tmp/fake/sys");
        CHECK_INT(devman_config_set_path(&c->dev_root, "/"), 0);
        CHECK_STR(c->dev_root, "/");
        CHECK_INT(devman_config_set_path(&c->run_root, ""), -EINVAL);
        CHECK_STR(c->run_root, "/run/udev");

        devman_config_clear_rules_dirs(c);
        CHECK_INT(c->n_rules_dirs, 0);
        CHECK_INT(devman_config_add_rules_dir(c, "/a/rules.d/"), 0);
        CHECK_INT(devman_config_add_rules_dir(c, "b"), 0);
        CHECK_INT(devman_config_add_rules_dir(c, ""), -EINVAL);
        CHECK_INT(c->n_rules_dirs, 2);
        CHECK_STR(c->rules_dirs[0], "/a/rules.d");
        CHECK_STR(c->rules_dirs[1], "b");
        CHECK(c->rules_dirs[2] == NULL);
        devman_config_free(c);
}

static void test_every_key(void)
{
        int skipped;
        struct devman_config *c = parse_text("udev_log=debug\n"
                                             "children_max=8\n"
                                             "exec_delay=3\n"
                                             "event_timeout=60\n"
                                             "timeout_signal=SIGTERM\n"
                                             "resolve_names=late\n",
                                             &skipped);
        CHECK_INT(skipped, 0);
        CHECK_INT(c->log_level, LOG_DEBUG);
        CHECK_INT(c->children_max, 8);
        CHECK_INT(c->exec_delay_sec, 3);
        CHECK(c->event_timeout_usec == 60 * SEC);
        CHECK_INT(c->timeout_signal, SIGTERM);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_LATE);
        devman_config_free(c);

        /* Other spellings of the same values. */
        c = parse_text("udev_log=3\n"
                       "children_max=0\n"
                       "exec_delay=2min\n"
                       "event_timeout=1h 30s\n"
                       "timeout_signal=HUP\n"
                       "resolve_names=never\n",
                       &skipped);
        CHECK_INT(skipped, 0);
        CHECK_INT(c->log_level, LOG_ERR);
        CHECK_INT(c->children_max, 0);
        CHECK_INT(c->exec_delay_sec, 120);
        CHECK(c->event_timeout_usec == 3630 * SEC);
        CHECK_INT(c->timeout_signal, SIGHUP);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_NEVER);
        devman_config_free(c);

        c = parse_text("udev_log=err\nevent_timeout=infinity\ntimeout_signal=9\nresolve_names=early\n"
                       "udev_log=info\n" /* a repeated key: the later line wins */,
                       &skipped);
        CHECK_INT(skipped, 0);
        CHECK_INT(c->log_level, LOG_INFO);
        CHECK(c->event_timeout_usec == DEVMAN_USEC_INFINITY);
        CHECK_INT(c->timeout_signal, SIGKILL);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_EARLY);
        devman_config_free(c);
}

static void test_bad_values(void)
{
        static const char *const lines[] = {
                "udev_log=loud\n",
                "udev_log=8\n",
                "udev_log=\n",
                "children_max=-1\n",
                "children_max=4294967296\n",
                "children_max=12abc\n",
                "children_max= \n",
                "exec_delay=1.5\n",
                "exec_delay=500ms\n",
                "exec_delay=infinity\n",
                "exec_delay=5 fortnights\n",
                "event_timeout=0\n",
                "event_timeout=-3\n",
                "event_timeout=99999999999999999999\n",
                "timeout_signal=SIGFOO\n",
                "timeout_signal=0\n",
                "timeout_signal=SIG9\n",
                "timeout_signal=RTMIN+999\n",
                "timeout_signal=sigterm\n",
                "resolve_names=sometimes\n",
                "resolve_names=EARLY\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                int skipped;
                struct devman_config *c = parse_text(lines[i], &skipped);
                if (skipped != 1)
                        fprintf(stderr, "line: %s", lines[i]);
                CHECK_INT(skipped, 1);
                /* Nothing changed. */
                CHECK_INT(c->log_level, LOG_INFO);
                CHECK_INT(c->children_max, 0);
                CHECK_INT(c->exec_delay_sec, 0);
                CHECK(c->event_timeout_usec == 180 * SEC);
                CHECK_INT(c->timeout_signal, SIGKILL);
                CHECK_INT(c->resolve_names, RESOLVE_NAMES_EARLY);
                devman_config_free(c);
        }
}

static void test_unknown_keys_and_syntax(void)
{
        int skipped;
        /* Bad lines are skipped, the good lines around them still apply. */
        struct devman_config *c = parse_text("children_max=2\n"
                                             "udev_root=/dev\n"     /* unknown (an old udev key) */
                                             "children-max=5\n"     /* unknown: files use '_' only */
                                             "just some words\n"    /* no '=' */
                                             "=4\n"                 /* no key */
                                             "exec_delay 4\n"       /* no '=' */
                                             "udev_log=\"debug\n"   /* unterminated quote */
                                             "udev_log=\"info\"x\n" /* text after the quote */
                                             "timeout_signal=TERM\n",
                                             &skipped);
        CHECK_INT(skipped, 7);
        CHECK_INT(c->children_max, 2);
        CHECK_INT(c->log_level, LOG_INFO);
        CHECK_INT(c->timeout_signal, SIGTERM);
        devman_config_free(c);
}

static void test_quoting_comments_whitespace(void)
{
        int skipped;
        struct devman_config *c = parse_text("# udev.conf as Debian ships it\n"
                                             "\n"
                                             "   ; a semicolon comment\n"
                                             "  \t# indented comment with children_max=99\n"
                                             "udev_log=\"debug\"\n"
                                             "  children_max   =   \t7   \n"
                                             "exec_delay='4'  \n"
                                             "event_timeout=\"2 min\"\r\n" /* CRLF line end */
                                             "timeout_signal = \"SIGUSR1\"\n"
                                             "resolve_names=\"l\\ate\"\n", /* \a is not an escape */
                                             &skipped);
        CHECK_INT(skipped, 1); /* only the last line: "l\ate" is not a mode */
        CHECK_INT(c->log_level, LOG_DEBUG);
        CHECK_INT(c->children_max, 7);
        CHECK_INT(c->exec_delay_sec, 4);
        CHECK(c->event_timeout_usec == 120 * SEC);
        CHECK_INT(c->timeout_signal, SIGUSR1);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_EARLY);
        devman_config_free(c);

        /* Escapes inside double quotes; single quotes keep backslashes. */
        c = parse_text("resolve_names=\"\\never\"\n", &skipped); /* \n is not an escape: "\never" */
        CHECK_INT(skipped, 1);
        devman_config_free(c);
        c = parse_text("resolve_names='late'\nudev_log='\\\"'\n", &skipped);
        CHECK_INT(skipped, 1);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_LATE);
        devman_config_free(c);

        /* An empty file and a file without a final newline. */
        c = parse_text("", &skipped);
        CHECK_INT(skipped, 0);
        devman_config_free(c);
        c = parse_text("children_max=3", &skipped);
        CHECK_INT(skipped, 0);
        CHECK_INT(c->children_max, 3);
        devman_config_free(c);
}

/* Runs fn(arg) with stderr sent to a file; returns what was written (caller frees). */
static char *capture_stderr(void (*fn)(const char *), const char *arg)
{
        char path[] = "/tmp/devman-test-config-log.XXXXXX";
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (fd < 0 || saved < 0)
                exit(1);
        fflush(stderr);
        dup2(fd, STDERR_FILENO);
        fn(arg);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        f = fdopen(fd, "r");
        rewind(f);
        if (getdelim(&text, &size, '\0', f) < 0)
                text = strdup("");
        fclose(f);
        unlink(path);
        return text;
}

static void parse_one_file(const char *path)
{
        struct devman_config *c = new_config();
        CHECK_INT(devman_config_parse_file(c, path), 3);
        CHECK_INT(c->children_max, 2);
        devman_config_free(c);
}

static void parse_one_cmdline(const char *cmdline)
{
        struct devman_config *c = new_config();
        CHECK_INT(devman_config_parse_cmdline(c, cmdline, false), 2);
        devman_config_free(c);
}

static void test_diagnostics_name_file_and_line(void)
{
        char *root = make_root();
        char *path = write_file(root, "udev.conf",
                                "# comment\n"
                                "udev_root=/dev\n"
                                "children_max=2\n"
                                "\n"
                                "event_timeout=soon\n"
                                "resolve_names='never\n");
        char *log = capture_stderr(parse_one_file, path), *want;

        if (asprintf(&want, "%s:2: unknown key 'udev_root', ignoring.", path) < 0)
                exit(1);
        CHECK(strstr(log, want));
        free(want);
        if (asprintf(&want, "%s:5: invalid value 'soon' for event_timeout, ignoring", path) < 0)
                exit(1);
        CHECK(strstr(log, want));
        free(want);
        if (asprintf(&want, "%s:6: missing closing quote, ignoring line.", path) < 0)
                exit(1);
        CHECK(strstr(log, want));
        free(want);
        free(log);

        log = capture_stderr(parse_one_cmdline, "quiet udev.children_max=many devman.frobnicate=1");
        CHECK(strstr(log, "invalid value in 'udev.children_max=many'"));
        CHECK(strstr(log, "unknown option 'devman.frobnicate'"));
        CHECK(!strstr(log, "quiet"));
        free(log);
        free(path);
        rm_tree(root);
}

/* The shipped example states the defaults; uncommented, each of its lines must parse. */
static void test_shipped_example(void)
{
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        struct devman_config *defaults = new_config(), *c = new_config();
        char *root = make_root(), *uncommented;
        size_t size = 0;
        int settings = 0;

        if (asprintf(&path, "%s/data/devman.conf", DEVMAN_SOURCE_ROOT) < 0)
                exit(1);
        CHECK_INT(devman_config_parse_file(c, path), 0);

        f = fopen(path, "re");
        CHECK(f);
        if (!f || getdelim(&text, &size, '\0', f) < 0)
                return;
        /* "#key=value" lines become "key=value"; prose comments have a blank after '#'. */
        for (char *p = text; (p = strstr(p, "\n#")); p++)
                if (p[2] >= 'a' && p[2] <= 'z') {
                        p[1] = ' ';
                        settings++;
                }
        CHECK_INT(settings, 6);
        uncommented = write_file(root, "uncommented.conf", text);
        CHECK_INT(devman_config_parse_file(c, uncommented), 0);
        CHECK_INT(c->log_level, defaults->log_level);
        CHECK_INT(c->children_max, defaults->children_max);
        CHECK_INT(c->exec_delay_sec, defaults->exec_delay_sec);
        CHECK(c->event_timeout_usec == defaults->event_timeout_usec);
        CHECK_INT(c->timeout_signal, defaults->timeout_signal);
        CHECK_INT(c->resolve_names, defaults->resolve_names);
        free(uncommented);
        rm_tree(root);
        devman_config_free(c);
        devman_config_free(defaults);
}

static void test_missing_file(void)
{
        struct devman_config *c = new_config();
        CHECK_INT(devman_config_parse_file(c, "/nonexistent/devman/udev.conf"), -ENOENT);
        devman_config_free(c);
}

static void test_value_parsers(void)
{
        uint64_t usec = 0;
        unsigned u = 0;

        CHECK_INT(devman_parse_timespan("250ms", &usec), 0);
        CHECK(usec == 250000);
        CHECK_INT(devman_parse_timespan("1min30s", &usec), 0);
        CHECK(usec == 90 * SEC);
        CHECK_INT(devman_parse_timespan("7usec", &usec), 0);
        CHECK(usec == 7);
        CHECK_INT(devman_parse_timespan("2 hours", &usec), 0);
        CHECK(usec == 7200 * SEC);
        CHECK_INT(devman_parse_timespan("", &usec), -EINVAL);
        CHECK_INT(devman_parse_timespan("s", &usec), -EINVAL);
        CHECK_INT(devman_parse_timespan("5x", &usec), -EINVAL);
        CHECK_INT(devman_parse_timespan("+5", &usec), -EINVAL);
        CHECK_INT(devman_parse_timespan("18446744073709551615h", &usec), -ERANGE);
        CHECK_INT(devman_parse_timespan("18446744073709551615us", &usec), -ERANGE);
        CHECK_INT(devman_parse_timespan("18446744073709551614us", &usec), 0);
        CHECK(usec == UINT64_MAX - 1);

        CHECK_INT(devman_parse_unsigned("4294967295", &u), 0);
        CHECK(u == 4294967295u);
        CHECK_INT(devman_parse_unsigned("4294967296", &u), -ERANGE);
        CHECK_INT(devman_parse_unsigned(" 1", &u), -EINVAL);
        CHECK_INT(devman_parse_unsigned("+1", &u), -EINVAL);

        CHECK_INT(devman_signal_from_string("SIGTERM"), SIGTERM);
        CHECK_INT(devman_signal_from_string("TERM"), SIGTERM);
        CHECK_INT(devman_signal_from_string("15"), SIGTERM);
        CHECK_INT(devman_signal_from_string("SIGKILL"), SIGKILL);
        CHECK_INT(devman_signal_from_string("INT"), SIGINT);
        CHECK_INT(devman_signal_from_string("RTMIN"), SIGRTMIN);
        CHECK_INT(devman_signal_from_string("SIGRTMIN+2"), SIGRTMIN + 2);
        CHECK_INT(devman_signal_from_string("RTMAX-1"), SIGRTMAX - 1);
        CHECK_INT(devman_signal_from_string("RTMAX+1"), -EINVAL);
        CHECK_INT(devman_signal_from_string("RTMIN-1"), -EINVAL);
        CHECK_INT(devman_signal_from_string(""), -EINVAL);
        CHECK_INT(devman_signal_from_string("SIG"), -EINVAL);
        char big[16];
        snprintf(big, sizeof(big), "%d", SIGRTMAX + 1);
        CHECK_INT(devman_signal_from_string(big), -EINVAL);

        CHECK_INT(devman_resolve_names_from_string("late"), RESOLVE_NAMES_LATE);
        CHECK_INT(devman_resolve_names_from_string(NULL), -EINVAL);
        CHECK_STR(devman_resolve_names_to_string(RESOLVE_NAMES_NEVER), "never");
        CHECK(devman_resolve_names_to_string(_RESOLVE_NAMES_MAX) == NULL);

        /* devman_config_set is what the daemon's options use. */
        struct devman_config *c = new_config();
        CHECK_INT(devman_config_set(c, "children_max", "3"), 0);
        CHECK_INT(c->children_max, 3);
        CHECK_INT(devman_config_set(c, "children_max", "x"), -EINVAL);
        CHECK_INT(c->children_max, 3);
        CHECK_INT(devman_config_set(c, "no_such_key", "1"), -ENOENT);
        devman_config_free(c);
}

static void test_cmdline(void)
{
        struct devman_config *c = new_config();

        CHECK_INT(devman_config_parse_cmdline(c,
                                              "BOOT_IMAGE=/vmlinuz root=UUID=1234 ro quiet "
                                              "devman.log_level=debug udev.children_max=4 "
                                              "devman.exec-delay=2 udev.event_timeout=30 "
                                              "devman.timeout_signal=SIGTERM udev.resolve_names=never\n",
                                              false),
                  0);
        CHECK_INT(c->log_level, LOG_DEBUG);
        CHECK_INT(c->children_max, 4);
        CHECK_INT(c->exec_delay_sec, 2);
        CHECK(c->event_timeout_usec == 30 * SEC);
        CHECK_INT(c->timeout_signal, SIGTERM);
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_NEVER);
        devman_config_free(c);

        /* Old and dashed spellings, quotes, later words win. */
        c = new_config();
        CHECK_INT(devman_config_parse_cmdline(c,
                                              "udev.log_priority=err udev.children-max=1 "
                                              "udev.event-timeout=\"2 min\" devman.children_max=6 "
                                              "'devman.timeout_signal=HUP'",
                                              false),
                  0);
        CHECK_INT(c->log_level, LOG_ERR);
        CHECK_INT(c->children_max, 6);
        CHECK(c->event_timeout_usec == 120 * SEC);
        CHECK_INT(c->timeout_signal, SIGHUP);
        devman_config_free(c);

        /* Bad words are logged and skipped; foreign words are not ours to judge. */
        c = new_config();
        CHECK_INT(
                devman_config_parse_cmdline(c,
                                            "udev.children_max=lots udev.bogus=1 devman.log_level "
                                            "udev.blockdev_read_only devman.event_timeout=0 "
                                            "udevlog=7 log_level=7 devmanx.children_max=9 udev.exec_delay=1",
                                            false),
                5);
        CHECK_INT(c->children_max, 0);
        CHECK_INT(c->log_level, LOG_INFO);
        CHECK(c->event_timeout_usec == 180 * SEC);
        CHECK_INT(c->exec_delay_sec, 1);
        devman_config_free(c);

        c = new_config();
        CHECK_INT(devman_config_parse_cmdline(c, "", false), 0);
        CHECK_INT(devman_config_parse_cmdline(c, " \n", true), 0);
        CHECK_INT(c->log_level, LOG_INFO);
        devman_config_free(c);
}

static void test_cmdline_initrd(void)
{
        const char *line = "rd.udev.log_level=debug rd.devman.children_max=2 udev.exec_delay=5 "
                           "rd.udev.event_timeout=10 rd.udev.nonsense=1";
        struct devman_config *c = new_config();

        /* On the real root rd.* words are not for us, not even the unknown one. */
        CHECK_INT(devman_config_parse_cmdline(c, line, false), 0);
        CHECK_INT(c->log_level, LOG_INFO);
        CHECK_INT(c->children_max, 0);
        CHECK_INT(c->exec_delay_sec, 5);
        CHECK(c->event_timeout_usec == 180 * SEC);
        devman_config_free(c);

        /* In the initramfs both kinds apply. */
        c = new_config();
        CHECK_INT(devman_config_parse_cmdline(c, line, true), 1);
        CHECK_INT(c->log_level, LOG_DEBUG);
        CHECK_INT(c->children_max, 2);
        CHECK_INT(c->exec_delay_sec, 5);
        CHECK(c->event_timeout_usec == 10 * SEC);
        devman_config_free(c);
}

static void test_load_precedence(void)
{
        char *root = make_root();
        char *own_conf_rel;
        struct devman_config *c;

        /* udev.conf sets everything; devman.conf overrides some; the command line overrides fewer. */
        free(write_file(root, "etc/udev/udev.conf",
                        "udev_log=err\nchildren_max=2\nexec_delay=1\nevent_timeout=10\n"
                        "timeout_signal=TERM\nresolve_names=late\nbogus=1\n"));
        if (asprintf(&own_conf_rel, "%s/devman/devman.conf", SYSCONFDIR) < 0)
                exit(1);
        free(write_file(root, own_conf_rel, "children_max=3\nexec_delay=2\nevent_timeout=20\n"));
        free(write_file(root, "proc/cmdline", "ro quiet devman.exec_delay=4 rd.udev.event_timeout=40\n"));

        c = new_config();
        CHECK_INT(devman_config_load(c, root, NULL), 1); /* bogus=1 */
        CHECK_INT(c->log_level, LOG_ERR);                /* udev.conf */
        CHECK_INT(c->timeout_signal, SIGTERM);           /* udev.conf */
        CHECK_INT(c->resolve_names, RESOLVE_NAMES_LATE); /* udev.conf */
        CHECK_INT(c->children_max, 3);                   /* devman.conf over udev.conf */
        CHECK(c->event_timeout_usec == 20 * SEC);        /* rd.* ignored outside an initramfs */
        CHECK_INT(c->exec_delay_sec, 4);                 /* command line over both files */
        /* The daemon's options come last. */
        CHECK_INT(devman_config_set(c, "exec_delay", "9"), 0);
        CHECK_INT(c->exec_delay_sec, 9);
        devman_config_free(c);

        /* In an initramfs the rd.* word applies too. */
        free(write_file(root, "etc/initrd-release", "NAME=test\n"));
        c = new_config();
        CHECK_INT(devman_config_load(c, root, NULL), 1);
        CHECK(c->event_timeout_usec == 40 * SEC);
        devman_config_free(c);

        /* --config FILE replaces devman.conf; a missing explicit file is reported. */
        char *explicit = write_file(root, "other.conf", "children_max=11\n");
        c = new_config();
        CHECK_INT(devman_config_load(c, root, explicit), 1);
        CHECK_INT(c->children_max, 11);
        devman_config_free(c);
        c = new_config();
        CHECK_INT(devman_config_load(c, root, "/nonexistent/devman.conf"), 2);
        CHECK_INT(c->children_max, 2);
        devman_config_free(c);
        free(explicit);
        free(own_conf_rel);
        rm_tree(root);

        /* An empty root: no files at all is fine and leaves the defaults. */
        root = make_root();
        c = new_config();
        CHECK_INT(devman_config_load(c, root, NULL), 0);
        CHECK_INT(c->children_max, 0);
        CHECK(c->event_timeout_usec == 180 * SEC);
        devman_config_free(c);
        rm_tree(root);
}

/* mdev_conf: an absolute path, empty for none; relative paths are refused (the daemon changes
 * to "/"); the kernel command line spelling too. */
static void test_mdev_conf(void)
{
        int skipped = -1;
        struct devman_config *c = new_config();
        CHECK(c->mdev_conf == NULL);
        devman_config_free(c);
        c = parse_text("mdev_conf=/etc/mdev.conf\nmdev_conf=relative.conf\n", &skipped);
        CHECK_INT(skipped, 1);
        CHECK_STR(c->mdev_conf, "/etc/mdev.conf");
        CHECK_INT(devman_config_set(c, "mdev_conf", ""), 0);
        CHECK(c->mdev_conf == NULL);
        CHECK_INT(devman_config_parse_cmdline(c, "quiet devman.mdev_conf=/x/mdev.conf", false), 0);
        CHECK_STR(c->mdev_conf, "/x/mdev.conf");
        devman_config_free(c);
}

TEST_MAIN(TEST(test_defaults), TEST(test_paths_and_rules_dirs), TEST(test_every_key), TEST(test_bad_values),
          TEST(test_unknown_keys_and_syntax), TEST(test_diagnostics_name_file_and_line),
          TEST(test_quoting_comments_whitespace), TEST(test_shipped_example), TEST(test_missing_file),
          TEST(test_value_parsers), TEST(test_cmdline), TEST(test_cmdline_initrd),
          TEST(test_load_precedence), TEST(test_mdev_conf))
