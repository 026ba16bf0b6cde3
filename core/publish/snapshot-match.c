/* SPDX-License-Identifier: MIT */
#include "snapshot-match.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hashmap, hashmap_free)

static const char *na(const char *s)
{
        return s ? s : "-";
}

char *snapshot_physical_chain(const struct snapshot_device *d, bool drivers)
{
        _cleanup_strv_free_ char **l = calloc(d->n_parents + 1, sizeof(char *));
        size_t n = 0;
        if (!l)
                return NULL;
        for (size_t i = 0; i < d->n_parents; i++) {
                const struct snapshot_parent *p = &d->parents[i];
                if (streq(p->kind, "class"))
                        continue;
                if ((drivers ? asprintf(&l[n], "%s/%s(%s)", na(p->subsystem), p->sysname, na(p->driver))
                             : asprintf(&l[n], "%s/%s", na(p->subsystem), p->sysname)) < 0) {
                        l[n] = NULL;
                        return NULL;
                }
                n++;
        }
        return n ? strv_join(l, NULL, " < ") : strdup("none");
}

#define KEY_NOT_UNIQUE ((void *)SIZE_MAX)

/* device key -> index + 1, KEY_NOT_UNIQUE for a key two devices have */
static struct hashmap *keys_of(const struct snapshot *s)
{
        _cleanup_(hashmap_freep) struct hashmap *m = hashmap_new_string();
        if (!m)
                return NULL;
        for (size_t i = 0; i < s->n_devices; i++) {
                void *v = hashmap_get(m, s->devices[i].key) ? KEY_NOT_UNIQUE : (void *)(uintptr_t)(i + 1);
                if (hashmap_replace(m, s->devices[i].key, v, NULL) < 0)
                        return NULL;
        }
        return TAKE_PTR(m);
}

/* The index of the device a parent line names, or -1 (not in the snapshot, or not unique). */
static ssize_t parent_index(struct hashmap *keys, const struct snapshot_parent *p)
{
        _cleanup_free_ char *key = NULL;
        if (!p->subsystem || asprintf(&key, "%s/%s", p->subsystem, p->sysname) < 0)
                return -1;
        void *v = hashmap_get(keys, key);
        return !v || v == KEY_NOT_UNIQUE ? -1 : (ssize_t)((uintptr_t)v - 1);
}

/* One side's devices, their physical chains, and per stage the look-up key of each. */
struct side {
        const struct snapshot *s;
        char **chains; /* per device */
        ssize_t *pair; /* the match arrays of struct snapshot_match */
        ssize_t *up;   /* per device: its nearest parent's index, or -1 */
        bool is_new;
};

/* The length of a name without its trailing number: "event" of event4, "ttyS" of ttyS0. */
static int stem_len(const char *name)
{
        size_t n = strlen(name);
        while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9')
                n--;
        return (int)n;
}

/* The stage's key of a device, or NULL (new string in *ret) when it takes no part. */
static int stage_key(enum match_how how, const struct side *side, size_t i, char **ret)
{
        const struct snapshot_device *d = &side->s->devices[i];
        int r = 0;
        *ret = NULL;
        switch (how) {
        case MATCH_NAME_AND_PARENT:
                r = asprintf(ret, "%s|%s", d->key, side->chains[i]);
                break;
        case MATCH_PAIRED_PARENT:
        case MATCH_ONLY_CHILD: {
                /* keyed by the NEW side's index of the parent, so that both sides agree */
                ssize_t up = side->up[i];
                if (!d->subsystem || up < 0 || side->pair[up] < 0)
                        break;
                ssize_t parent = side->is_new ? up : side->pair[up];
                if (how == MATCH_ONLY_CHILD) {
                        r = asprintf(ret, "%s|%s|%zd", d->subsystem, na(d->devtype), parent);
                        break;
                }
                /* a name made of the parent's (sda1 of sda, input5::capslock of input5) keeps
                 * only its own part; any other name its stem */
                const char *name = strchr(d->key, '/') ? strchr(d->key, '/') + 1 : d->key,
                           *pname = d->parents[0].sysname;
                size_t plen = strlen(pname);
                if (strncmp(name, pname, plen) == 0 && name[plen])
                        r = asprintf(ret, "%s|<>%s|%zd", d->subsystem, name + plen, parent);
                else
                        r = asprintf(ret, "%s|%.*s|%zd", d->subsystem, stem_len(name), name, parent);
                break;
        }
        case MATCH_DEVT:
                if (d->devt_type)
                        r = asprintf(ret, "%s|%c%s", na(d->subsystem), d->devt_type, d->devt);
                break;
        case MATCH_PARENT:
                /* only real parents say who a device is */
                if (d->subsystem && !streq(side->chains[i], "none"))
                        r = asprintf(ret, "%s|%s", d->subsystem, side->chains[i]);
                break;
        case MATCH_NAME:
                *ret = strdup(d->key);
                r = *ret ? 0 : -1;
                break;
        case MATCH_NODE:
                if (d->node)
                        r = asprintf(ret, "%s|%s", na(d->subsystem), d->node);
                break;
        }
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}

static int score(const struct snapshot_device *a, const struct snapshot_device *b)
{
        return (a->devt_type == b->devt_type && streq_ptr(a->devt, b->devt)) * 2 +
               streq(a->layout, b->layout);
}

/* The unmatched devices of a side by stage key: key -> first index + 1; next[] chains the rest. */
struct index {
        struct hashmap *map;
        char **keys;  /* owns the map's keys */
        size_t *next; /* index + 1 of the next device with the same key, 0 at the end */
};

static void index_clear(struct index *x)
{
        hashmap_free(x->map);
        strv_free(x->keys);
        free(x->next);
}

static int index_build(enum match_how how, const struct side *side, struct index *x)
{
        size_t n = side->s->n_devices;
        *x = (struct index){0};
        x->map = hashmap_new_string();
        x->keys = calloc(n + 1, sizeof(char *));
        x->next = calloc(n + 1, sizeof(size_t));
        if (!x->map || !x->keys || !x->next)
                return -ENOMEM;
        /* backwards, so that chains run in snapshot order */
        for (size_t i = n; i-- > 0;) {
                if (side->pair[i] >= 0)
                        continue;
                if (stage_key(how, side, i, &x->keys[i]) < 0)
                        return -ENOMEM;
                if (!x->keys[i])
                        continue;
                void *old = NULL;
                if (hashmap_replace(x->map, x->keys[i], (void *)(uintptr_t)(i + 1), &old) < 0)
                        return -ENOMEM;
                x->next[i] = (uintptr_t)old;
        }
        /* keys[] has holes: keep it NULL-terminated for strv_free by compacting */
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
                if (x->keys[i])
                        x->keys[w++] = x->keys[i];
        for (size_t i = w; i < n; i++)
                x->keys[i] = NULL;
        return 0;
}

/* Unmatched devices of a side under key k, and the first of them. */
static size_t index_count(const struct index *x, const struct side *side, const char *k)
{
        size_t n = 0;
        for (uintptr_t v = (uintptr_t)hashmap_get(x->map, k); v; v = x->next[v - 1])
                if (side->pair[v - 1] < 0)
                        n++;
        return n;
}

/* Pairs what the stage can; the number of pairs made, or -ENOMEM. */
static int match_stage(enum match_how how, struct side *old, struct side *new, enum match_how *hows)
{
        struct index io = {0}, in = {0};
        bool unique = how == MATCH_PARENT || how == MATCH_PAIRED_PARENT || how == MATCH_ONLY_CHILD;
        int made = 0;
        /* the OLD side's index only counts candidates, for the stages that want them unique */
        int r = unique ? index_build(how, old, &io) : 0;
        if (r >= 0)
                r = index_build(how, new, &in);
        for (size_t i = 0; r >= 0 && i < old->s->n_devices; i++) {
                _cleanup_free_ char *k = NULL;
                if (old->pair[i] >= 0)
                        continue;
                if ((r = stage_key(how, old, i, &k)) < 0 || !k)
                        continue;
                if (unique && (index_count(&io, old, k) != 1 || index_count(&in, new, k) != 1))
                        continue;
                ssize_t best = -1;
                int best_score = -1;
                for (uintptr_t v = (uintptr_t)hashmap_get(in.map, k); v; v = in.next[v - 1]) {
                        if (new->pair[v - 1] >= 0)
                                continue;
                        int sc = score(&old->s->devices[i], &new->s->devices[v - 1]);
                        if (sc > best_score) {
                                best_score = sc;
                                best = (ssize_t)(v - 1);
                        }
                }
                if (best < 0)
                        continue;
                old->pair[i] = best;
                new->pair[best] = (ssize_t)i;
                hows[i] = how;
                made++;
        }
        index_clear(&io);
        index_clear(&in);
        return r < 0 ? r : made;
}

void snapshot_match_clear(struct snapshot_match *m)
{
        free(m->old_to_new);
        free(m->new_to_old);
        free(m->how);
        hashmap_free(m->old_keys);
        hashmap_free(m->new_keys);
        *m = (struct snapshot_match){0};
}

static char **chains_of(const struct snapshot *s)
{
        _cleanup_strv_free_ char **l = calloc(s->n_devices + 1, sizeof(char *));
        if (!l)
                return NULL;
        for (size_t i = 0; i < s->n_devices; i++)
                if (!(l[i] = snapshot_physical_chain(&s->devices[i], false)))
                        return NULL;
        return TAKE_PTR(l);
}

/* Per device, its nearest parent's index in the same snapshot, or -1. */
static ssize_t *parents_of(const struct snapshot *s, struct hashmap *keys)
{
        ssize_t *up = malloc((s->n_devices + 1) * sizeof(ssize_t));
        if (!up)
                return NULL;
        for (size_t i = 0; i < s->n_devices; i++)
                up[i] = s->devices[i].n_parents ? parent_index(keys, &s->devices[i].parents[0]) : -1;
        return up;
}

int snapshot_match(const struct snapshot *old, const struct snapshot *new, struct snapshot_match *ret)
{
        static const enum match_how stages[] = {MATCH_NAME_AND_PARENT, MATCH_PAIRED_PARENT, MATCH_DEVT,
                                                MATCH_PARENT,          MATCH_NAME,          MATCH_NODE};
        _cleanup_strv_free_ char **old_chains = chains_of(old), **new_chains = chains_of(new);
        struct snapshot_match m = {
                .old_to_new = malloc((old->n_devices + 1) * sizeof(ssize_t)),
                .new_to_old = malloc((new->n_devices + 1) * sizeof(ssize_t)),
                .how = calloc(old->n_devices + 1, sizeof(enum match_how)),
                .old_keys = keys_of(old),
                .new_keys = keys_of(new),
        };
        _cleanup_free_ ssize_t *old_up = m.old_keys ? parents_of(old, m.old_keys) : NULL,
                               *new_up = m.new_keys ? parents_of(new, m.new_keys) : NULL;
        int r = 0;

        if (!old_chains || !new_chains || !m.old_to_new || !m.new_to_old || !m.how || !old_up || !new_up) {
                snapshot_match_clear(&m);
                return -ENOMEM;
        }
        for (size_t i = 0; i < old->n_devices; i++)
                m.old_to_new[i] = -1;
        for (size_t j = 0; j < new->n_devices; j++)
                m.new_to_old[j] = -1;
        struct side so = {old, old_chains, m.old_to_new, old_up, false},
                    sn = {new, new_chains, m.new_to_old, new_up, true};
        for (size_t s = 0; r >= 0 && s < sizeof(stages) / sizeof(stages[0]); s++) {
                if (stages[s] != MATCH_PAIRED_PARENT) {
                        r = match_stage(stages[s], &so, &sn, m.how);
                        continue;
                }
                /* pairing below paired parents goes down the tree one level per round; by
                 * name as far as it goes, then an only child, whose children may go on */
                do {
                        do
                                r = match_stage(MATCH_PAIRED_PARENT, &so, &sn, m.how);
                        while (r > 0);
                        if (r >= 0)
                                r = match_stage(MATCH_ONLY_CHILD, &so, &sn, m.how);
                } while (r > 0);
        }
        if (r < 0) {
                snapshot_match_clear(&m);
                return r;
        }
        *ret = m;
        return 0;
}

bool snapshot_match_same_parents(const struct snapshot *old, const struct snapshot *new,
                                 const struct snapshot_match *m, size_t i, size_t j, bool drivers)
{
        const struct snapshot_device *o = &old->devices[i], *n = &new->devices[j];
        size_t a = 0, b = 0;
        for (;;) {
                while (a < o->n_parents && streq(o->parents[a].kind, "class"))
                        a++;
                while (b < n->n_parents && streq(n->parents[b].kind, "class"))
                        b++;
                if (a == o->n_parents || b == n->n_parents)
                        return a == o->n_parents && b == n->n_parents;
                const struct snapshot_parent *p = &o->parents[a++], *q = &n->parents[b++];
                if (drivers && !streq_ptr(p->driver, q->driver))
                        return false;
                if (streq_ptr(p->subsystem, q->subsystem) && streq(p->sysname, q->sysname))
                        continue;
                ssize_t pi = parent_index(m->old_keys, p), qj = parent_index(m->new_keys, q);
                if (pi < 0 || qj < 0 || m->old_to_new[pi] != qj)
                        return false;
        }
}
