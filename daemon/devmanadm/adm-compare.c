/* SPDX-License-Identifier: MIT */
/*
 * devmanadm compare OLD [NEW]: what a kernel change (typically a class conversion from
 * class_device to struct device) changed for userspace, from two snapshots.
 *
 * Devices are matched by what userspace sees, never by devpath (a conversion moves
 * /class/usb_device/usbdev1.1 below /devices): see snapshot-match.h. A pair whose names differ
 * is reported as renamed.
 * Parents are compared by bus identity (subsystem/sysname of the non-class ancestors), since
 * the class-device layer in between differs by design. What the conversion brings by design
 * is reported apart and is not a change: class entries going from legacy directories to
 * symlinks; on devices that gain their DEVTYPE with it, the DEVTYPE/DEVMODE/PARTN/DISKSEQ
 * keys and whatever rules add because of them (additions only); the retired PHYSDEV* keys.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "adm-snapshot.h"
#include "adm.h"
#include "hashmap.h"
#include "log.h"
#include "snapshot-file.h"
#include "snapshot-match.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hashmap, hashmap_free)

enum field {
        F_VANISHED,
        F_APPEARED,
        F_RENAMED,
        F_DUPLICATE,
        F_LAYOUT,
        F_NODE,
        F_TYPE,
        F_DEVT,
        F_MODE,
        F_OWNER,
        F_LINKS,
        F_TAGS,
        F_PROPS,
        F_KPROPS,
        F_DEVTYPE,
        F_DRIVER,
        F_PARENT,
        _F_MAX,
};

static const char *const field_names[_F_MAX] = {
        [F_VANISHED] = "vanished",   [F_APPEARED] = "appeared",   [F_RENAMED] = "renamed",
        [F_DUPLICATE] = "duplicate", [F_LAYOUT] = "layout",       [F_NODE] = "node",
        [F_TYPE] = "type",           [F_DEVT] = "devt",           [F_MODE] = "mode",
        [F_OWNER] = "owner",         [F_LINKS] = "links",         [F_TAGS] = "tags",
        [F_PROPS] = "props",         [F_KPROPS] = "kernel-props", [F_DEVTYPE] = "devtype",
        [F_DRIVER] = "driver",       [F_PARENT] = "parent",
};

/* Kernel keys that are fields of their own (compared there) or describe the event. */
static const char *const kprops_compared_elsewhere[] = {
        "MAJOR", "MINOR", "DEVNAME", "DEVPATH", "SUBSYSTEM", "DEVTYPE", "DRIVER", "SEQNUM", "ACTION", NULL};
/* Keys the conversion introduced (class_device kernels sent none of them) ... */
static const char *const kprops_gained_by_conversion[] = {"DEVTYPE", "DEVMODE", "PARTN", "DISKSEQ", NULL};
/* ... and the ones it retired (the parent chain says it now). */
static const char *const kprops_retired_by_conversion[] = {"PHYSDEVPATH", "PHYSDEVBUS", "PHYSDEVDRIVER",
                                                           NULL};

struct class_stat {
        char *name;
        unsigned n_old, n_new, converted, changed, vanished, appeared, duplicated;
        unsigned fields; /* bit per enum field that changed */
};

struct compare {
        const struct snapshot *old, *new;
        bool ignore[_F_MAX];
        char **ignore_props; /* globs of property keys */
        char **ignore_links; /* globs of link names */
        bool verbose;
        bool across_conversion; /* OLD has legacy class entries */
        char **lines[_F_MAX];
        char **converted; /* informational */
        char **gained;    /* informational */
        unsigned n_changes;
        struct hashmap *classes; /* name -> struct class_stat */
        int error;
};

static bool in_list(const char *const *l, const char *s, size_t len)
{
        for (; *l; l++)
                if (strlen(*l) == len && strncmp(*l, s, len) == 0)
                        return true;
        return false;
}

static bool matches_any(char **globs, const char *s)
{
        STRV_FOREACH(g, globs) {
                if (fnmatch(*g, s, 0) == 0)
                        return true;
        }
        return false;
}

static struct class_stat *class_stat(struct compare *c, const struct snapshot_device *d)
{
        const char *name = d->subsystem ? d->subsystem : "(no subsystem)";
        struct class_stat *s = hashmap_get(c->classes, name);
        if (s)
                return s;
        s = calloc(1, sizeof(*s));
        if (!s || !(s->name = strdup(name)) || hashmap_put(c->classes, s->name, s) < 0) {
                if (s)
                        free(s->name);
                free(s);
                c->error = -ENOMEM;
                return NULL;
        }
        return s;
}

static void add_line(struct compare *c, char ***l, const char *fmt, ...) _printf_(3, 4);
static void add_line(struct compare *c, char ***l, const char *fmt, ...)
{
        va_list ap;
        char *s = NULL;
        va_start(ap, fmt);
        int r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0) {
                c->error = -ENOMEM;
                return;
        }
        if (strv_push_copy(l, s) < 0)
                c->error = -ENOMEM;
        free(s);
}

/* A userspace-visible change of field f on device d (the NEW record when there is one). */
#define CHANGE(c, f, d, ...)                                                                                \
        do {                                                                                                \
                if (!(c)->ignore[f]) {                                                                      \
                        add_line(c, &(c)->lines[f], __VA_ARGS__);                                           \
                        (c)->n_changes++;                                                                   \
                        struct class_stat *_s = class_stat(c, d);                                           \
                        if (_s)                                                                             \
                                _s->fields |= 1u << (f);                                                    \
                        changed = true;                                                                     \
                }                                                                                           \
        } while (0)

static const char *na(const char *s)
{
        return s ? s : "-";
}

static char *devt_string(const struct snapshot_device *d)
{
        char *s = NULL;
        int r = d->devt_type ? asprintf(&s, "%c %s", d->devt_type, d->devt) : asprintf(&s, "none (no node)");
        return r < 0 ? NULL : s;
}

static int cmp_prop_key(const void *a, const void *b)
{
        const char *x = *(const char *const *)a, *y = *(const char *const *)b;
        size_t xl = strcspn(x, "="), yl = strcspn(y, "=");
        int r = strncmp(x, y, xl < yl ? xl : yl);
        return r ? r : xl < yl ? -1 : xl > yl ? 1 : strcmp(x, y);
}

/* A NULL-terminated copy of the pointers of l, ordered by key ("A" before "A1" before "A_B",
 * which a plain string order of "KEY=VALUE" does not give). */
static char **by_key(char **l)
{
        size_t n = strv_length(l);
        char **v = calloc(n + 1, sizeof(char *));
        if (!v)
                return NULL;
        memcpy(v, l, n * sizeof(char *));
        qsort(v, n, sizeof(char *), cmp_prop_key);
        return v;
}

/* KEY=VALUE lists compared key by key; what is reported goes to field f. */
static bool compare_props(struct compare *c, enum field f, const struct snapshot_device *n, char **pa,
                          char **pb, bool kernel, bool gain_ok)
{
        _cleanup_free_ char **a = by_key(pa), **b = by_key(pb);
        bool changed = false;
        size_t i = 0, j = 0;
        if (!a || !b) {
                c->error = -ENOMEM;
                return false;
        }
        while (a[i] || b[j]) {
                const char *x = a[i], *y = b[j];
                size_t xl = x ? strcspn(x, "=") : 0, yl = y ? strcspn(y, "=") : 0;
                int cmp = !x ? 1 : !y ? -1 : strncmp(x, y, xl < yl ? xl : yl);
                if (cmp == 0 && xl != yl)
                        cmp = xl < yl ? -1 : 1;
                const char *key = cmp <= 0 ? x : y;
                size_t kl = cmp <= 0 ? xl : yl;
                _cleanup_free_ char *k = strndup(key, kl);
                if (!k) {
                        c->error = -ENOMEM;
                        return changed;
                }
                bool skip = matches_any(c->ignore_props, k) ||
                            (kernel && in_list(kprops_compared_elsewhere, k, kl));
                if (cmp < 0) { /* only in OLD */
                        if (skip)
                                ;
                        else if (kernel && c->across_conversion &&
                                 in_list(kprops_retired_by_conversion, k, kl))
                                add_line(c, &c->gained, "retired %s: %s", n->key, x);
                        else
                                CHANGE(c, f, n, "%s %s: - %s", field_names[f], n->key, x);
                        i++;
                } else if (cmp > 0) { /* only in NEW */
                        if (skip)
                                ;
                        else if (c->across_conversion &&
                                 ((kernel && in_list(kprops_gained_by_conversion, k, kl)) || gain_ok))
                                add_line(c, &c->gained, "gained %s: %s", n->key, y);
                        else
                                CHANGE(c, f, n, "%s %s: + %s", field_names[f], n->key, y);
                        j++;
                } else {
                        if (!skip && !streq(x, y))
                                CHANGE(c, f, n, "%s %s: %s -> %s", field_names[f], n->key, x, y + yl + 1);
                        i++;
                        j++;
                }
        }
        return changed;
}

/* Sorted string lists (links, tags). */
static bool compare_sets(struct compare *c, enum field f, const struct snapshot_device *n, char **a,
                         char **b, char **ignore, bool gain_ok)
{
        bool changed = false;
        size_t i = 0, j = 0;
        while (a[i] || b[j]) {
                int cmp = !a[i] ? 1 : !b[j] ? -1 : strcmp(a[i], b[j]);
                if (cmp < 0) {
                        if (!matches_any(ignore, a[i]))
                                CHANGE(c, f, n, "%s %s: - %s", field_names[f], n->key, a[i]);
                        i++;
                } else if (cmp > 0) {
                        if (matches_any(ignore, b[j]))
                                ;
                        else if (gain_ok)
                                add_line(c, &c->gained, "gained %s: %s %s", n->key,
                                         f == F_LINKS ? "link" : "tag", b[j]);
                        else
                                CHANGE(c, f, n, "%s %s: + %s", field_names[f], n->key, b[j]);
                        j++;
                } else {
                        i++;
                        j++;
                }
        }
        return changed;
}

/* Compares a matched pair; true when something userspace-visible changed. */
static bool compare_pair(struct compare *c, const struct snapshot_match *m, size_t i, size_t j)
{
        const struct snapshot_device *o = &c->old->devices[i], *n = &c->new->devices[j];
        bool changed = false;
        struct class_stat *s = class_stat(c, n);

        /* legacy -> converted is what the conversion is for */
        bool conversion = streq(o->layout, "legacy") && streq(n->layout, "converted");
        if (conversion) {
                if (s)
                        s->converted++;
                if (c->verbose)
                        add_line(c, &c->converted, "converted %s: %s -> %s", n->key, o->found, n->devpath);
        } else if (!streq(o->layout, n->layout))
                CHANGE(c, F_LAYOUT, n, "layout %s: %s -> %s (found at %s)", n->key, o->layout, n->layout,
                       n->found);

        if (o->devt_type && n->devt_type) {
                if (o->devt_type != n->devt_type)
                        CHANGE(c, F_TYPE, n, "type %s: %c -> %c", n->key, o->devt_type, n->devt_type);
                if (!streq(o->devt, n->devt))
                        CHANGE(c, F_DEVT, n, "devt %s: %c %s -> %c %s", n->key, o->devt_type, o->devt,
                               n->devt_type, n->devt);
                if (!streq_ptr(o->node, n->node))
                        CHANGE(c, F_NODE, n, "node %s: %s -> %s", n->key, na(o->node), na(n->node));
                if (o->mode && n->mode && !streq(o->mode, n->mode))
                        CHANGE(c, F_MODE, n, "mode %s: %s -> %s", n->key, o->mode, n->mode);
                if (o->owner && n->owner && !streq(o->owner, n->owner))
                        CHANGE(c, F_OWNER, n, "owner %s: %s -> %s", n->key, o->owner, n->owner);
        } else if (o->devt_type || n->devt_type) {
                _cleanup_free_ char *a = devt_string(o), *b = devt_string(n);
                CHANGE(c, F_DEVT, n, "devt %s: %s -> %s", n->key, na(a), na(b));
        }

        /* a device that gains its DEVTYPE with the conversion may gain what rules add for it */
        bool devtype_gained = c->across_conversion && !o->devtype && n->devtype;
        if (devtype_gained)
                add_line(c, &c->gained, "gained %s: devtype %s", n->key, n->devtype);
        else if (!streq_ptr(o->devtype, n->devtype))
                CHANGE(c, F_DEVTYPE, n, "devtype %s: %s -> %s", n->key, na(o->devtype), na(n->devtype));
        if (!streq_ptr(o->driver, n->driver))
                CHANGE(c, F_DRIVER, n, "driver %s: %s -> %s", n->key, na(o->driver), na(n->driver));

        changed |= compare_sets(c, F_LINKS, n, o->links, n->links, c->ignore_links, devtype_gained);
        changed |= compare_sets(c, F_TAGS, n, o->tags, n->tags, NULL, devtype_gained);
        changed |= compare_props(c, F_PROPS, n, o->props, n->props, false, devtype_gained);
        changed |= compare_props(c, F_KPROPS, n, o->kprops, n->kprops, true, false);

        _cleanup_free_ char *pa = snapshot_physical_chain(o, false), *pb = snapshot_physical_chain(n, false);
        if (!pa || !pb)
                c->error = -ENOMEM;
        else if (!snapshot_match_same_parents(c->old, c->new, m, i, j, false))
                CHANGE(c, F_PARENT, n, "parent %s: %s -> %s", n->key, pa, pb);
        else if (!snapshot_match_same_parents(c->old, c->new, m, i, j, true)) {
                _cleanup_free_ char *da = snapshot_physical_chain(o, true),
                                    *db = snapshot_physical_chain(n, true);
                if (!da || !db)
                        c->error = -ENOMEM;
                else
                        CHANGE(c, F_DRIVER, n, "driver %s: parents %s -> %s", n->key, da, db);
        }
        return changed;
}

static void describe(const struct snapshot_device *d, char **ret)
{
        _cleanup_free_ char *devt = devt_string(d);
        if (asprintf(ret, "found at %s (%s), devt %s%s%s", d->found, d->layout, na(devt),
                     d->node ? ", node " : "", d->node ? d->node : "") < 0)
                *ret = NULL;
}

static const char *const how_names[] = {
        [MATCH_NAME_AND_PARENT] = "name",
        [MATCH_PAIRED_PARENT] = "parent",
        [MATCH_ONLY_CHILD] = "parent",
        [MATCH_DEVT] = "devt",
        [MATCH_PARENT] = "parent",
        [MATCH_NAME] = "name",
        [MATCH_NODE] = "node",
};

static int run_compare(struct compare *c)
{
        const struct snapshot *old = c->old, *new = c->new;
        /* NEW keys seen more than once: value 2 */
        _cleanup_(hashmap_freep) struct hashmap *new_keys = hashmap_new_string();
        struct snapshot_match m;
        int r;

        if (!new_keys)
                return -ENOMEM;
        for (size_t i = 0; i < old->n_devices; i++) {
                struct class_stat *s = class_stat(c, &old->devices[i]);
                if (s)
                        s->n_old++;
                if (streq(old->devices[i].layout, "legacy"))
                        c->across_conversion = true;
        }
        for (size_t j = 0; j < new->n_devices; j++) {
                struct class_stat *s = class_stat(c, &new->devices[j]);
                if (s)
                        s->n_new++;
                void *seen = hashmap_get(new_keys, new->devices[j].key);
                if (hashmap_replace(new_keys, new->devices[j].key, (void *)(uintptr_t)(seen ? 2 : 1), NULL) <
                    0)
                        return -ENOMEM;
        }
        r = snapshot_match(old, new, &m);
        if (r < 0)
                return r;

        for (size_t i = 0; i < old->n_devices; i++) {
                const struct snapshot_device *o = &old->devices[i];
                bool changed = false;
                if (m.old_to_new[i] < 0) {
                        _cleanup_free_ char *desc = NULL;
                        describe(o, &desc);
                        CHANGE(c, F_VANISHED, o, "vanished %s: %s", o->key, na(desc));
                        struct class_stat *s = class_stat(c, o);
                        if (s && changed)
                                s->vanished++;
                        continue;
                }
                const struct snapshot_device *n = &new->devices[m.old_to_new[i]];
                if (!streq(o->key, n->key)) {
                        _cleanup_free_ char *devt = devt_string(n),
                                            *chain = snapshot_physical_chain(n, false);
                        enum match_how how = m.how[i];
                        const char *what; /* what both have the same */
                        switch (how) {
                        case MATCH_DEVT:
                                what = na(devt);
                                break;
                        case MATCH_PAIRED_PARENT:
                        case MATCH_ONLY_CHILD:
                        case MATCH_PARENT:
                                what = na(chain);
                                break;
                        default:
                                what = na(n->node);
                                break;
                        }
                        CHANGE(c, F_RENAMED, n, "renamed %s: -> %s (same %s %s)", o->key, n->key,
                               how_names[how], what);
                }
                changed |= compare_pair(c, &m, i, (size_t)m.old_to_new[i]);
                struct class_stat *s = class_stat(c, n);
                if (s && changed)
                        s->changed++;
        }
        for (size_t j = 0; j < new->n_devices; j++) {
                if (m.new_to_old[j] >= 0)
                        continue;
                const struct snapshot_device *d = &new->devices[j];
                _cleanup_free_ char *desc = NULL;
                bool changed = false;
                describe(d, &desc);
                /* left over from two records under one name (a legacy directory next to the
                 * converted symlink, say) */
                bool dup = (uintptr_t)hashmap_get(new_keys, d->key) == 2;
                if (dup)
                        CHANGE(c, F_DUPLICATE, d, "duplicate %s: a second device of that name, %s", d->key,
                               na(desc));
                else
                        CHANGE(c, F_APPEARED, d, "appeared %s: %s", d->key, na(desc));
                struct class_stat *s = class_stat(c, d);
                if (s && changed)
                        dup ? s->duplicated++ : s->appeared++;
        }
        snapshot_match_clear(&m);
        return c->error;
}

static int cmp_class(const void *a, const void *b)
{
        return strcmp((*(struct class_stat *const *)a)->name, (*(struct class_stat *const *)b)->name);
}

static void print_report(struct compare *c)
{
        for (int f = 0; f < _F_MAX; f++) {
                size_t n = strv_length(c->lines[f]);
                if (n == 0)
                        continue;
                printf("== %s (%zu)\n", field_names[f], n);
                STRV_FOREACH(l, c->lines[f]) {
                        printf("%s\n", *l);
                }
                printf("\n");
        }
        if (c->verbose && c->converted) {
                printf("== converted (%zu, expected)\n", strv_length(c->converted));
                STRV_FOREACH(l, c->converted) {
                        printf("%s\n", *l);
                }
                printf("\n");
        }
        if (c->gained) {
                printf("== gained or retired by the conversion (%zu, expected)\n", strv_length(c->gained));
                if (!c->verbose)
                        printf("(--verbose lists them)\n");
                STRV_FOREACH(l, c->verbose ? c->gained : NULL) {
                        printf("%s\n", *l);
                }
                printf("\n");
        }

        size_t n = hashmap_size(c->classes), k = 0;
        _cleanup_free_ struct class_stat **v = calloc(n + 1, sizeof(*v));
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        void *val;
        if (!v)
                return;
        while (hashmap_iterate(c->classes, &it, NULL, &val))
                v[k++] = val;
        qsort(v, k, sizeof(*v), cmp_class);
        printf("== classes (%zu)\n", k);
        for (size_t i = 0; i < k; i++) {
                struct class_stat *s = v[i];
                printf("%s: %u device%s", s->name, s->n_new, s->n_new == 1 ? "" : "s");
                if (s->converted && s->converted == s->n_new)
                        printf(" converted");
                else if (s->converted)
                        printf(", %u converted", s->converted);
                if (!s->fields) {
                        printf(", nothing visible changed\n");
                        continue;
                }
                if (s->changed)
                        printf(", %u changed", s->changed);
                if (s->vanished)
                        printf(", %u vanished", s->vanished);
                if (s->appeared)
                        printf(", %u appeared", s->appeared);
                if (s->duplicated)
                        printf(", %u duplicated", s->duplicated);
                printf(" (");
                const char *sep = "";
                for (int f = 0; f < _F_MAX; f++)
                        if (s->fields & (1u << f)) {
                                printf("%s%s", sep, field_names[f]);
                                sep = ", ";
                        }
                printf(")\n");
        }
        printf("\n");
        if (c->n_changes)
                printf("verdict: %u userspace-visible difference%s\n", c->n_changes,
                       c->n_changes == 1 ? "" : "s");
        else
                printf("verdict: nothing userspace-visible changed\n");
}

static void compare_clear(struct compare *c)
{
        for (int f = 0; f < _F_MAX; f++)
                strv_free(c->lines[f]);
        strv_free(c->converted);
        strv_free(c->gained);
        strv_free(c->ignore_props);
        strv_free(c->ignore_links);
        if (c->classes) {
                struct hashmap_iter it = HASHMAP_ITER_INIT;
                void *v;
                while (hashmap_iterate(c->classes, &it, NULL, &v)) {
                        free(((struct class_stat *)v)->name);
                        free(v);
                }
                hashmap_free(c->classes);
        }
}

static void help(void)
{
        printf("Usage: devmanadm compare [OPTIONS] OLD [NEW]\n"
               "\n"
               "Compare two snapshots (devmanadm snapshot) taken on two kernels, typically before\n"
               "and after converting a class from class_device to struct device. NEW defaults to a\n"
               "fresh snapshot of the sysfs root (--sysfs, /sys). Devices are matched by what\n"
               "userspace sees (name and physical parents, then name stem or the only device of\n"
               "its kind below an already paired parent, then devt, then physical parents, then\n"
               "name, then node name), not by devpath; parents by bus identity, skipping the\n"
               "class-device layer.\n"
               "\n"
               "Reported, grouped and counted (FIELD names, one line each: FIELD KEY: detail):\n"
               "  vanished appeared renamed duplicate layout node type devt mode owner links tags\n"
               "  props kernel-props devtype driver parent\n"
               "Class entries going from legacy directory to converted symlink are expected and\n"
               "listed with --verbose; so are DEVTYPE/DEVMODE/PARTN/DISKSEQ and rules' additions on\n"
               "devices that gain their DEVTYPE with the conversion, and the retired PHYSDEV* keys.\n"
               "Ends with one verdict line per class and an overall verdict.\n"
               "\n"
               "Exit status: 0 nothing userspace-visible changed, 1 something did, 2 usage error or\n"
               "unreadable snapshot.\n"
               "\n"
               "  -h --help              Show this help\n"
               "  -v --verbose           List the expected differences too\n"
               "     --ignore=FIELD      Do not report FIELD (repeatable); also prop:GLOB (a property\n"
               "                         key, in props and kernel-props) and link:GLOB\n"
               "     --rules-dir=DIR     Rules for the fresh snapshot (repeatable)\n"
               "     --no-rules          Take the fresh snapshot without rules\n");
}

int verb_compare(const struct adm_ctx *ctx, int argc, char **argv)
{
        enum { ARG_IGNORE = 0x100, ARG_RULES_DIR, ARG_NO_RULES };
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"verbose", no_argument, NULL, 'v'},
                {"ignore", required_argument, NULL, ARG_IGNORE},
                {"rules-dir", required_argument, NULL, ARG_RULES_DIR},
                {"no-rules", no_argument, NULL, ARG_NO_RULES},
                {},
        };
        _cleanup_(compare_clear) struct compare c = {0};
        _cleanup_strv_free_ char **dirs = NULL;
        struct snapshot_options so = {.sysfs_root = ctx->sysfs_root, .dev_root = ctx->dev_root};
        int opt, r;

        while ((opt = getopt_long(argc, argv, "hv", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        help();
                        return 0;
                case 'v':
                        c.verbose = true;
                        break;
                case ARG_IGNORE: {
                        const char *g;
                        if ((g = startswith(optarg, "prop:")) && *g) {
                                if (strv_push_copy(&c.ignore_props, g) < 0)
                                        return log_oom(), 2;
                                break;
                        }
                        if ((g = startswith(optarg, "link:")) && *g) {
                                if (strv_push_copy(&c.ignore_links, g) < 0)
                                        return log_oom(), 2;
                                break;
                        }
                        int f;
                        for (f = 0; f < _F_MAX; f++)
                                if (streq(optarg, field_names[f]))
                                        break;
                        if (f == _F_MAX)
                                return adm_usage_error("compare", "unknown field for --ignore: %s", optarg);
                        c.ignore[f] = true;
                        break;
                }
                case ARG_RULES_DIR:
                        if (strv_push_copy(&dirs, optarg) < 0)
                                return log_oom(), 2;
                        break;
                case ARG_NO_RULES:
                        so.no_rules = true;
                        break;
                default:
                        return 2;
                }
        if (optind >= argc)
                return adm_usage_error("compare", "missing OLD snapshot (see --help)");
        if (argc - optind > 2)
                return adm_usage_error("compare", "unexpected argument: %s", argv[optind + 2]);
        so.rules_dirs = dirs;

        _cleanup_(snapshot_freep) struct snapshot *old = NULL, *new = NULL;
        if (snapshot_read(argv[optind], &old) < 0 ||
            (argc - optind == 2 ? snapshot_read(argv[optind + 1], &new) : snapshot_take(&so, &new)) < 0)
                return 2;
        c.old = old;
        c.new = new;
        c.classes = hashmap_new_string();
        if (!c.classes)
                return log_oom(), 2;
        r = run_compare(&c);
        if (r < 0) {
                log_error_errno(r, "Comparison failed: %m");
                return 2;
        }
        print_report(&c);
        return c.n_changes ? 1 : 0;
}
