/* SPDX-License-Identifier: MIT */
/*
 * hwdb: devman's compiler and reader on a small source set written here (globs, overrides,
 * several files and directories, syntax errors), checked against this file's own table; the
 * same database read by libsystemd's sd-hwdb and a systemd-hwdb-compiled one read by devman
 * must agree; corrupt and truncated databases are rejected, never crash.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hwdb-compile.h"
#include "hwdb-format.h"
#include "hwdb-oracle.h"
#include "hwdb.h"
#include "log.h"
#include "macros.h"
#include "strv.h"
#include "test-util.h"

/* 10-base.hwdb: line numbers matter for the error count below (6 syntax errors). */
static const char base_hwdb[] =
        "# base records\n"
        "usb:v1234p*\n"
        " ID_VENDOR_FROM_DATABASE=Acme\n"
        " ID_CLASS=base\n"
        "\n"
        "usb:v1234p5678*\n"
        " ID_MODEL_FROM_DATABASE=Rocket   # trailing comment\n"
        " ID_CLASS=specific\n"
        " LINE_TEST=first\n"
        "\n"
        "usb:v1234p56[0-9][0-9]d*\n"
        " RANGE=yes\n"
        "\n"
        "usb:v1234p5?78\n"
        "usb:vFFFFp0000*\n"
        " QMARK=1\n"
        "   MULTI_SPACE=ok\n"
        " SPACES=some string\t \n"
        "\n"
        "evdev:name:*[Tt]rackball*:*\n"
        " ID_INPUT_TRACKBALL=1\n"
        "\n"
        "usb:v12*\n"
        " LINE_TEST=second\n"
        "\n"
        " ORPHAN=1\n"                /* error: property without a match */
        "nomatchvalue\n"
        "\n"                         /* error: record without properties */
        "broken:*\n"
        " NOEQUALS\n"                /* error: no '=' (the record goes on) */
        " =empty\n"                  /* error: empty key */
        " GOOD=after_errors\n"
        "notindented=1\n"            /* error: ends the record */
        " LOST=1\n"                  /* error: property without a match */
        "\n"
        "dup:x\n"
        " DUP=1\n"
        "\n"
        "dup:x\n"
        " DUP=2\n"
        " EQ=a=b\n"
        "\n"
        "neg:[!a]z\n"
        " NEG=1\n";

/* Masked by the same name in /etc, which wins although it sorts equal. */
static const char usr_over_hwdb[] = "usb:v1234p5678*\n ID_CLASS=override-usr\n USR_ONLY=1\n";
static const char etc_over_hwdb[] = "usb:v1234*\n ID_CLASS=etc-override\n ETC=1\n";
static const char lib_hwdb[] = "usb:v1234p5678d0001*\n ID_CLASS=lib15\n LIB=1\n";
static const char masked_hwdb[] = "usb:*\n MASKED=1\n";
static const char ignored_name[] = "usb:*\n IGNORED=1\n";

struct expect {
        const char *lookup;
        const char *props; /* sorted "KEY=VALUE\n" lines */
};

static const struct expect table[] = {
        {"usb:v1234p5678d0001dc00",
         "ETC=1\nID_CLASS=etc-override\nID_MODEL_FROM_DATABASE=Rocket\nID_VENDOR_FROM_DATABASE=Acme\n"
         "LIB=1\nLINE_TEST=second\nRANGE=yes\n"},
        /* "usb:v1234p5?78" matches too */
        {"usb:v1234p5678",
         "ETC=1\nID_CLASS=etc-override\nID_MODEL_FROM_DATABASE=Rocket\nID_VENDOR_FROM_DATABASE=Acme\n"
         "LINE_TEST=second\nMULTI_SPACE=ok\nQMARK=1\nSPACES=some string\n"},
        {"usb:v1234p5A78",
         "ETC=1\nID_CLASS=etc-override\nID_VENDOR_FROM_DATABASE=Acme\nLINE_TEST=second\nMULTI_SPACE=ok\n"
         "QMARK=1\nSPACES=some string\n"},
        {"usb:vFFFFp0000", "MULTI_SPACE=ok\nQMARK=1\nSPACES=some string\n"},
        {"usb:vFFFFp0000d0001", "MULTI_SPACE=ok\nQMARK=1\nSPACES=some string\n"},
        {"usb:v1234", "ETC=1\nID_CLASS=etc-override\nLINE_TEST=second\n"},
        {"usb:v1299", "LINE_TEST=second\n"},
        {"usb:v1", ""},
        {"evdev:name:Kensington trackball Pro:phys", "ID_INPUT_TRACKBALL=1\n"},
        {"evdev:name:Kensington TrackBall:phys", ""},
        {"broken:zzz", "GOOD=after_errors\n"},
        {"nomatchvalue", ""},
        {"notindented=1", ""},
        {"dup:x", "DUP=2\nEQ=a=b\n"},
        {"dup:xx", ""},
        {"neg:bz", "NEG=1\n"},
        {"neg:az", ""},
        {"unknown", ""},
        {"", ""},
};

static int cmp_line(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rendering with lines sorted: the table does not depend on result order. */
static char *sorted(const char *text)
{
        char *copy = strdup(text), *lines[256], *save = NULL, *out;
        size_t n = 0, len = 0;
        for (char *t = strtok_r(copy, "\n", &save); t && n < ELEMENTSOF(lines); t = strtok_r(NULL, "\n", &save))
                lines[n++] = t;
        qsort(lines, n, sizeof(*lines), cmp_line);
        FILE *f = open_memstream(&out, &len);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s\n", lines[i]);
        fclose(f);
        free(copy);
        return out;
}

static char *path_in(const char *root, const char *rel)
{
        char *p;
        if (asprintf(&p, "%s%s", root, rel) < 0)
                abort();
        return p;
}

static void write_in(const char *root, const char *rel, const char *text)
{
        char *p = path_in(root, rel);
        char *dir = strdup(p);
        *strrchr(dir, '/') = '\0';
        mkdir_p(dir);
        write_file(p, text);
        free(dir);
        free(p);
}

/* Writes the sources below root, a merged-/usr tree like Debian 12's (/lib -> usr/lib), so
 * systemd-hwdb (which reads /etc and /lib) and devman see the same files. */
static void make_sources(const char *root)
{
        char *usrlib = path_in(root, "/usr/lib"), *lib = path_in(root, "/lib");
        mkdir_p(usrlib);
        CHECK_INT(symlink("usr/lib", lib), 0);
        free(usrlib);
        free(lib);
        write_in(root, "/usr/lib/udev/hwdb.d/10-base.hwdb", base_hwdb);
        write_in(root, "/usr/lib/udev/hwdb.d/20-over.hwdb", usr_over_hwdb);
        write_in(root, "/etc/udev/hwdb.d/20-over.hwdb", etc_over_hwdb);
        write_in(root, "/lib/udev/hwdb.d/15-lib.hwdb", lib_hwdb);
        write_in(root, "/lib/udev/hwdb.d/30-masked.hwdb", masked_hwdb);
        write_in(root, "/usr/lib/udev/hwdb.d/40-ignored.rules", ignored_name);
        write_in(root, "/usr/lib/udev/hwdb.d/.50-hidden.hwdb", ignored_name);
        char *mask = path_in(root, "/etc/udev/hwdb.d/30-masked.hwdb");
        CHECK_INT(symlink("/dev/null", mask), 0);
        free(mask);
}

static void check_table(struct hwdb *h, const char *what)
{
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                char *got = render_devman(h, table[i].lookup);
                CHECK(got != NULL);
                if (!got)
                        continue;
                char *s = sorted(got);
                if (!streq(s, table[i].props))
                        fprintf(stderr, "%s: lookup \"%s\"\n", what, table[i].lookup);
                CHECK_STR(s, table[i].props);
                free(s);
                free(got);
        }
}

static void test_sources_listing(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        char **files = NULL;
        CHECK(mkdtemp(root) != NULL);
        make_sources(root);

        int n = hwdb_source_files(root, &files);
        CHECK_INT(n, 4);
        if (n == 4) {
                char *want[4] = {
                        path_in(root, "/usr/lib/udev/hwdb.d/10-base.hwdb"),
                        path_in(root, "/usr/lib/udev/hwdb.d/15-lib.hwdb"),
                        path_in(root, "/etc/udev/hwdb.d/20-over.hwdb"),
                        path_in(root, "/etc/udev/hwdb.d/30-masked.hwdb"),
                };
                for (int i = 0; i < 4; i++) {
                        CHECK_STR(files[i], want[i]);
                        free(want[i]);
                }
                CHECK(files[4] == NULL);
        }
        strv_free(files);
        rm_rf_tmp(root);

        /* Without merged /usr: /usr/lib hides /lib, /etc hides both. */
        char root2[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root2) != NULL);
        write_in(root2, "/lib/udev/hwdb.d/a.hwdb", "");
        write_in(root2, "/usr/lib/udev/hwdb.d/a.hwdb", "");
        write_in(root2, "/lib/udev/hwdb.d/b.hwdb", "");
        write_in(root2, "/etc/udev/hwdb.d/b.hwdb", "");
        write_in(root2, "/lib/udev/hwdb.d/c.hwdb", "");
        n = hwdb_source_files(root2, &files);
        CHECK_INT(n, 3);
        if (n == 3) {
                char *a = path_in(root2, "/usr/lib/udev/hwdb.d/a.hwdb"), *b = path_in(root2, "/etc/udev/hwdb.d/b.hwdb"),
                     *c = path_in(root2, "/lib/udev/hwdb.d/c.hwdb");
                CHECK_STR(files[0], a);
                CHECK_STR(files[1], b);
                CHECK_STR(files[2], c);
                free(a);
                free(b);
                free(c);
        }
        strv_free(files);
        rm_rf_tmp(root2);
}

static void test_syntax_errors_counted(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        make_sources(root);
        char *src = path_in(root, "/usr/lib/udev/hwdb.d/10-base.hwdb");
        char *out = path_in(root, "/out.bin");

        struct hwdb_compiler *c = hwdb_compiler_new();
        CHECK(c != NULL);
        CHECK_INT(hwdb_compiler_add_file(c, src, "10-base.hwdb", 1), 6);
        CHECK_INT(hwdb_compiler_add_file(c, "/nonexistent/x.hwdb", NULL, 2), -ENOENT);
        CHECK_INT(hwdb_compiler_write(c, out), 0);
        hwdb_compiler_free(c);

        /* strict: the database is written, the errors fail the run */
        char *def = path_in(root, "/etc/udev/hwdb.bin");
        CHECK_INT(hwdb_update(root, NULL, true), -EINVAL);
        struct stat st;
        CHECK_INT(stat(def, &st), 0);
        CHECK_INT(st.st_mode & 0777, 0444);
        CHECK_INT(hwdb_update(root, NULL, false), 0);

        /* no leftover temporary files next to the output */
        char *etc = path_in(root, "/etc/udev");
        DIR *d = opendir(etc);
        struct dirent *de;
        int entries = 0;
        while (d && (de = readdir(d)))
                if (de->d_name[0] != '.')
                        entries++;
        if (d)
                closedir(d);
        CHECK_INT(entries, 2); /* hwdb.d and hwdb.bin */

        free(etc);
        free(def);
        free(src);
        free(out);
        rm_rf_tmp(root);
}

static int run(const char *cmd)
{
        int st = system(cmd);
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_compile_and_lookup(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        make_sources(root);
        char *out = path_in(root, "/devman.bin");

        CHECK_INT(hwdb_update(root, out, false), 0);

        struct hwdb *h = NULL;
        CHECK_INT(hwdb_open(NULL, out, &h), 0);
        if (h) {
                check_table(h, "devman compiler + devman reader");

                /* Source information of the winning entry. */
                const struct hwdb_property *p;
                int n = hwdb_lookup(h, "dup:x", &p);
                CHECK_INT(n, 2);
                for (int i = 0; i < n; i++)
                        if (streq(p[i].key, "DUP")) {
                                CHECK_STR(p[i].value, "2");
                                CHECK_STR(p[i].filename, "/usr/lib/udev/hwdb.d/10-base.hwdb");
                                CHECK_INT(p[i].line, 40);
                                CHECK_INT(p[i].file_priority, 1);
                        }
                n = hwdb_lookup(h, "usb:v1234p5678", &p);
                for (int i = 0; i < n; i++)
                        if (streq(p[i].key, "ID_CLASS")) {
                                CHECK_STR(p[i].filename, "/etc/udev/hwdb.d/20-over.hwdb");
                                CHECK_INT(p[i].file_priority, 3);
                        }
        }

        /* systemd's reader agrees on devman's database, in order too. */
        sd_hwdb *sd = NULL;
        CHECK_INT(sd_hwdb_new_from_path(out, &sd), 0);
        if (sd && h)
                for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                        char *a = render_systemd(sd, table[i].lookup), *b = render_devman(h, table[i].lookup);
                        CHECK(a && b);
                        if (a && b)
                                CHECK_STR(b, a);
                        free(a);
                        free(b);
                }
        sd_hwdb_unref(sd);

        /* The query helper prints what the reader returns. */
        char *text = NULL;
        size_t text_len = 0;
        FILE *mf = open_memstream(&text, &text_len);
        CHECK_INT(hwdb_query(root, "/devman.bin", "dup:x", mf), 2);
        fclose(mf);
        char *st = sorted(text);
        CHECK_STR(st, "DUP=2\nEQ=a=b\n");
        free(st);
        free(text);

        /* Replacing the file makes the handle stale; until then it is current. */
        if (h) {
                CHECK(!hwdb_is_stale(h));
                CHECK_INT(hwdb_update(root, out, false), 0);
                CHECK(hwdb_is_stale(h));
        }
        hwdb_free(h);

        /* systemd-hwdb compiles the same root; devman's reader gives the table's answers. */
        char *cmd;
        CHECK(asprintf(&cmd, "systemd-hwdb update --root='%s' 2>/dev/null", root) > 0);
        CHECK_INT(run(cmd), 0);
        free(cmd);
        h = NULL;
        CHECK_INT(hwdb_open(root, NULL, &h), 0);
        if (h) {
                char *sysbin = path_in(root, "/etc/udev/hwdb.bin");
                CHECK_STR(hwdb_get_path(h), sysbin);
                free(sysbin);
                check_table(h, "systemd-hwdb compiler + devman reader");
                CHECK(!hwdb_is_stale(h));
                /* a database appearing earlier in the search order makes the handle stale */
                char *etc_systemd = path_in(root, "/etc/systemd/hwdb");
                mkdir_p(etc_systemd);
                char *earlier = path_in(root, "/etc/systemd/hwdb/hwdb.bin");
                CHECK_INT(copy_file(out, earlier), 0);
                CHECK(hwdb_is_stale(h));
                free(earlier);
                free(etc_systemd);
        }
        hwdb_free(h);

        free(out);
        rm_rf_tmp(root);
}

static void test_open_errors(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        struct hwdb *h = NULL;

        /* No sources: nothing to compile, and a stale database goes away (as with systemd). */
        write_in(root, "/etc/udev/hwdb.bin", "old");
        char *old = path_in(root, "/etc/udev/hwdb.bin");
        CHECK_INT(hwdb_update(root, NULL, true), 0);
        CHECK(access(old, F_OK) < 0 && errno == ENOENT);
        CHECK_INT(hwdb_update(root, NULL, true), 0);
        free(old);

        CHECK_INT(hwdb_open(root, NULL, &h), -ENOENT);
        CHECK_INT(hwdb_open(root, "/nope.bin", &h), -ENOENT);
        write_in(root, "/empty.bin", "");
        CHECK_INT(hwdb_open(root, "/empty.bin", &h), -EBADMSG);
        write_in(root, "/text.bin", "this is not a database, but it is long enough to hold a header.............\n");
        CHECK_INT(hwdb_open(root, "/text.bin", &h), -EBADMSG);
        char *dir = path_in(root, "/dir.bin");
        mkdir_p(dir);
        CHECK(hwdb_open(root, "/dir.bin", &h) < 0);
        free(dir);
        CHECK(h == NULL);
        rm_rf_tmp(root);
}

/* Reads a whole file. */
static uint8_t *slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "re");
        uint8_t *buf = NULL;
        if (!f)
                return NULL;
        fseek(f, 0, SEEK_END);
        *len = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc(*len ? *len : 1);
        if (buf && fread(buf, 1, *len, f) != *len) {
                free(buf);
                buf = NULL;
        }
        fclose(f);
        return buf;
}

static void spew(const char *path, const uint8_t *buf, size_t len)
{
        (void)unlink(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
                abort();
        close(fd);
}

/* Opens buf as a database and runs every table lookup; returns the first error, 0 if all
 * succeeded. Any other outcome than success or -EBADMSG is a failure. */
static int try_db(const char *path, const uint8_t *buf, size_t len)
{
        struct hwdb *h = NULL;
        spew(path, buf, len);
        int r = hwdb_open(NULL, path, &h);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                const struct hwdb_property *p;
                int n = hwdb_lookup(h, table[i].lookup, &p);
                if (n < 0) {
                        r = r < 0 ? r : n;
                        continue;
                }
                for (int k = 0; k < n; k++) /* every returned string is readable */
                        (void)(strlen(p[k].key) + strlen(p[k].value) + (p[k].filename ? strlen(p[k].filename) : 0));
        }
        hwdb_free(h);
        return r;
}

static uint64_t rng_next(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static void test_corrupt_and_truncated(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        make_sources(root);
        char *good = path_in(root, "/good.bin"), *bad = path_in(root, "/bad.bin");
        CHECK_INT(hwdb_update(root, good, false), 0);

        size_t len = 0;
        uint8_t *orig = slurp(good, &len), *buf = malloc(len);
        CHECK(orig && buf && len > HWDB_HEADER_SIZE);
        if (!orig || !buf) {
                free(orig);
                free(buf);
                return;
        }
        CHECK_INT(try_db(bad, orig, len), 0);

        /* Every truncation is rejected when opening. */
        int truncated_ok = 0;
        for (size_t l = 0; l < len; l++)
                if (try_db(bad, orig, l) == -EBADMSG)
                        truncated_ok++;
        CHECK_INT(truncated_ok, len);

        /* Random byte mutations: success or -EBADMSG, nothing else, never a crash. */
        uint64_t seed = 0x9e3779b97f4a7c15ULL;
        int opened = 0, rejected = 0, lookup_errors = 0, other = 0;
        for (int iter = 0; iter < 4000; iter++) {
                memcpy(buf, orig, len);
                int flips = 1 + (int)(rng_next(&seed) % 4);
                for (int k = 0; k < flips; k++) {
                        /* mostly the node area, where offsets live */
                        size_t pos = (size_t)(rng_next(&seed) % len);
                        buf[pos] = (uint8_t)rng_next(&seed);
                }
                struct hwdb *h = NULL;
                spew(bad, buf, len);
                int r = hwdb_open(NULL, bad, &h);
                if (r == -EBADMSG) {
                        rejected++;
                        continue;
                }
                if (r < 0) {
                        other++;
                        continue;
                }
                opened++;
                for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                        const struct hwdb_property *p;
                        int n = hwdb_lookup(h, table[i].lookup, &p);
                        if (n == -EBADMSG)
                                lookup_errors++;
                        else if (n < 0)
                                other++;
                }
                hwdb_free(h);
        }
        fprintf(stderr, "mutations: %d opened, %d rejected at open, %d lookups rejected\n", opened, rejected,
                lookup_errors);
        CHECK_INT(other, 0);
        CHECK(opened > 0);
        CHECK(rejected > 0);
        CHECK(lookup_errors > 0);

        /* Targeted: header fields. */
        uint64_t root_off = hwdb_rd64(orig + HWDB_HDR_NODES_ROOT_OFF);
        memcpy(buf, orig, len);
        hwdb_wr64(buf + HWDB_HDR_NODES_ROOT_OFF, len * 4);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        memcpy(buf, orig, len);
        hwdb_wr64(buf + HWDB_HDR_NODE_SIZE, 8);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        memcpy(buf, orig, len);
        hwdb_wr64(buf + HWDB_HDR_NODES_LEN, UINT64_MAX - 10);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        memcpy(buf, orig, len);
        buf[len - 1] = 'x'; /* strings must end inside the file */
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        memcpy(buf, orig, len);
        buf[0] = 'X';
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);

        /* Targeted: the root's values count, its first child pointing back at the root (a
         * cycle), a child pointing past the node area, a prefix past the end of the file. */
        memcpy(buf, orig, len);
        hwdb_wr64(buf + root_off + HWDB_NODE_VALUES_COUNT, UINT64_MAX / 2);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        CHECK(orig[root_off + HWDB_NODE_CHILDREN_COUNT] > 0);
        memcpy(buf, orig, len);
        for (unsigned k = 0; k < orig[root_off + HWDB_NODE_CHILDREN_COUNT]; k++)
                hwdb_wr64(buf + root_off + HWDB_NODE_SIZE + k * HWDB_CHILD_SIZE + HWDB_CHILD_OFF, len + 100);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);
        memcpy(buf, orig, len);
        hwdb_wr64(buf + root_off + HWDB_NODE_PREFIX_OFF, len);
        CHECK_INT(try_db(bad, buf, len), -EBADMSG);

        free(orig);
        free(buf);
        free(good);
        free(bad);
        rm_rf_tmp(root);
}

/* A hand-made database whose root has a '*' child pointing back at the root: a lookup must
 * end with -EBADMSG instead of looping or overflowing the stack. */
static void test_glob_cycle(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char *path = path_in(root, "/cycle.bin");
        uint8_t db[HWDB_HEADER_SIZE + HWDB_NODE_SIZE + HWDB_CHILD_SIZE + 1] = {0};
        uint64_t node = HWDB_HEADER_SIZE, strings = node + HWDB_NODE_SIZE + HWDB_CHILD_SIZE;

        memcpy(db, HWDB_SIGNATURE, HWDB_SIGNATURE_SIZE);
        hwdb_wr64(db + HWDB_HDR_TOOL_VERSION, 252);
        hwdb_wr64(db + HWDB_HDR_FILE_SIZE, sizeof(db));
        hwdb_wr64(db + HWDB_HDR_HEADER_SIZE, HWDB_HEADER_SIZE);
        hwdb_wr64(db + HWDB_HDR_NODE_SIZE, HWDB_NODE_SIZE);
        hwdb_wr64(db + HWDB_HDR_CHILD_ENTRY_SIZE, HWDB_CHILD_SIZE);
        hwdb_wr64(db + HWDB_HDR_VALUE_ENTRY_SIZE, HWDB_VALUE_V2_SIZE);
        hwdb_wr64(db + HWDB_HDR_NODES_ROOT_OFF, node);
        hwdb_wr64(db + HWDB_HDR_NODES_LEN, strings - HWDB_HEADER_SIZE);
        hwdb_wr64(db + HWDB_HDR_STRINGS_LEN, 1);
        hwdb_wr64(db + node + HWDB_NODE_PREFIX_OFF, strings);
        db[node + HWDB_NODE_CHILDREN_COUNT] = 1;
        db[node + HWDB_NODE_SIZE + HWDB_CHILD_C] = '*';
        hwdb_wr64(db + node + HWDB_NODE_SIZE + HWDB_CHILD_OFF, node);

        spew(path, db, sizeof(db));
        struct hwdb *h = NULL;
        CHECK_INT(hwdb_open(NULL, path, &h), 0);
        if (h) {
                const struct hwdb_property *p;
                CHECK_INT(hwdb_lookup(h, "anything", &p), -EBADMSG);
                /* The handle stays usable after an error. */
                CHECK_INT(hwdb_lookup(h, "anything", &p), -EBADMSG);
        }
        hwdb_free(h);
        free(path);
        rm_rf_tmp(root);
}

/* More properties than the reader compares in a list: 300 keys from two records of one file
 * and a later file overriding every third; each key must come out once with the winner. */
static void test_many_properties(void)
{
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char *a = NULL, *b = NULL;
        size_t la = 0, lb = 0;
        FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
        fprintf(fa, "many:*\n");
        for (int i = 0; i < 150; i++)
                fprintf(fa, " KEY_%03d=a%d\n", i, i);
        fprintf(fa, "\nmany:x*\n");
        for (int i = 150; i < 300; i++)
                fprintf(fa, " KEY_%03d=a%d\n", i, i);
        fprintf(fb, "many:?y\n");
        for (int i = 0; i < 300; i += 3)
                fprintf(fb, " KEY_%03d=b%d\n", i, i);
        fclose(fa);
        fclose(fb);
        write_in(root, "/etc/udev/hwdb.d/10-a.hwdb", a);
        write_in(root, "/etc/udev/hwdb.d/20-b.hwdb", b);
        free(a);
        free(b);
        char *out = path_in(root, "/many.bin");
        CHECK_INT(hwdb_update(root, out, true), 0);

        struct hwdb *h = NULL;
        sd_hwdb *sd = NULL;
        CHECK_INT(hwdb_open(NULL, out, &h), 0);
        CHECK_INT(sd_hwdb_new_from_path(out, &sd), 0);
        if (h && sd) {
                const struct hwdb_property *p;
                for (int round = 0; round < 2; round++) { /* the index is reset between lookups */
                        int n = hwdb_lookup(h, "many:xy", &p);
                        CHECK_INT(n, 300);
                        int seen[300] = {0};
                        for (int k = 0; k < n; k++) {
                                int i = atoi(p[k].key + 4);
                                CHECK(i >= 0 && i < 300);
                                if (i < 0 || i >= 300)
                                        continue;
                                seen[i]++;
                                char want[16];
                                snprintf(want, sizeof(want), "%c%d", i % 3 == 0 ? 'b' : 'a', i);
                                CHECK_STR(p[k].value, want);
                        }
                        int once = 0;
                        for (int i = 0; i < 300; i++)
                                once += seen[i] == 1;
                        CHECK_INT(once, 300);
                        CHECK_INT(hwdb_lookup(h, "many:q", &p), 150);
                }
                char *x = render_systemd(sd, "many:xy"), *y = render_devman(h, "many:xy");
                CHECK(x && y);
                if (x && y)
                        CHECK_STR(y, x);
                free(x);
                free(y);
        }
        hwdb_free(h);
        sd_hwdb_unref(sd);
        free(out);
        rm_rf_tmp(root);
}

/* Odd but legal input parsed as systemd-hwdb parses it: CRLF line ends, tab-indented lines
 * (which are match lines), '#' inside values, empty values, keys with inner blanks, blank
 * runs before keys, a record without a final newline. systemd-hwdb compiles the same root;
 * both databases must answer alike (sd-hwdb reads both) for lookups aimed at every record. */
static void test_syntax_like_systemd(void)
{
        static const char odd[] =
                "crlf:*\r\n"
                " CRLF=yes\r\n"
                "\r\n"
                "tab:*\n"
                "\ttab:also*\n"
                " TAB=1\n"
                "\n"
                "hash:*\n"
                " HASH=before#after\n"
                " EMPTY=\n"
                " KEY WITH SPACE=v\n"
                " \t BLANKS=v\n"
                "  TRAIL=v   \n"
                "#comment:*\n"
                " COMMENTED=1\n"
                "\n"
                "dupmatch:*\n"
                "dupmatch:*\n"
                " DUPMATCH=1\n"
                "\n"
                "nofinal:x\n"
                " NOFINAL=1";
        static const char *const lookups[] = {
                "crlf:a", "tab:b", "\ttab:also", "\ttab:alsoX", "hash:z", "#comment:z", "dupmatch:q", "nofinal:x",
                "none",
        };
        char root[] = "/tmp/test-hwdb.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        write_in(root, "/etc/udev/hwdb.d/50-odd.hwdb", odd);
        char *out = path_in(root, "/devman.bin"), *sysbin = path_in(root, "/etc/udev/hwdb.bin"), *cmd;
        CHECK_INT(hwdb_update(root, out, false), 0);
        CHECK(asprintf(&cmd, "systemd-hwdb update --root='%s' 2>/dev/null", root) > 0);
        CHECK_INT(run(cmd), 0);
        free(cmd);

        sd_hwdb *sd_sys = NULL, *sd_dm = NULL;
        struct hwdb *dm = NULL;
        CHECK_INT(sd_hwdb_new_from_path(sysbin, &sd_sys), 0);
        CHECK_INT(sd_hwdb_new_from_path(out, &sd_dm), 0);
        CHECK_INT(hwdb_open(NULL, out, &dm), 0);
        size_t nonempty = 0;
        if (sd_sys && sd_dm && dm)
                for (size_t i = 0; i < ELEMENTSOF(lookups); i++) {
                        char *want = render_systemd(sd_sys, lookups[i]), *a = render_systemd(sd_dm, lookups[i]),
                             *b = render_devman(dm, lookups[i]);
                        CHECK(want && a && b);
                        if (want && a && b) {
                                if (!streq(want, a) || !streq(want, b))
                                        fprintf(stderr, "lookup \"%s\"\n", lookups[i]);
                                CHECK_STR(a, want);
                                CHECK_STR(b, want);
                                nonempty += *want != '\0';
                        }
                        free(want);
                        free(a);
                        free(b);
                }
        CHECK_INT(nonempty, 7);
        /* and a few answers spelled out */
        if (dm) {
                char *x = render_devman(dm, "hash:z");
                char *sx = x ? sorted(x) : NULL;
                /* the comment line is skipped, so COMMENTED continues the hash record */
                CHECK_STR(sx, "BLANKS=v\nCOMMENTED=1\nEMPTY=\nHASH=before\nKEY WITH SPACE=v\nTRAIL=v\n");
                free(x);
                free(sx);
        }
        hwdb_free(dm);
        sd_hwdb_unref(sd_sys);
        sd_hwdb_unref(sd_dm);
        free(out);
        free(sysbin);
        rm_rf_tmp(root);
}

TEST_MAIN(TEST(test_sources_listing), TEST(test_syntax_like_systemd), TEST(test_many_properties), TEST(test_syntax_errors_counted), TEST(test_compile_and_lookup),
          TEST(test_open_errors), TEST(test_corrupt_and_truncated), TEST(test_glob_cycle))
