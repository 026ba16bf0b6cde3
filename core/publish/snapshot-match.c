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

/* One side's devices, their physical chains, and per stage the look-up key of each. */
struct side {
        const struct snapshot *s;
        char **chains; /* per device */
        ssize_t *pair; /* the match arrays of struct snapshot_match */
};

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

static int match_stage(enum match_how how, struct side *old, struct side *new, enum match_how *hows)
{
        struct index io = {0}, in = {0};
        /* the OLD side's index only counts candidates, for the stage that wants them unique */
        int r = how == MATCH_PARENT ? index_build(how, old, &io) : 0;
        if (r >= 0)
                r = index_build(how, new, &in);
        for (size_t i = 0; r >= 0 && i < old->s->n_devices; i++) {
                _cleanup_free_ char *k = NULL;
                if (old->pair[i] >= 0)
                        continue;
                if ((r = stage_key(how, old, i, &k)) < 0 || !k)
                        continue;
                if (how == MATCH_PARENT && (index_count(&io, old, k) != 1 || index_count(&in, new, k) != 1))
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
        }
        index_clear(&io);
        index_clear(&in);
        return r < 0 ? r : 0;
}

void snapshot_match_clear(struct snapshot_match *m)
{
        free(m->old_to_new);
        free(m->new_to_old);
        free(m->how);
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

int snapshot_match(const struct snapshot *old, const struct snapshot *new, struct snapshot_match *ret)
{
        static const enum match_how stages[] = {MATCH_NAME_AND_PARENT, MATCH_DEVT, MATCH_PARENT, MATCH_NAME,
                                                MATCH_NODE};
        _cleanup_strv_free_ char **old_chains = chains_of(old), **new_chains = chains_of(new);
        struct snapshot_match m = {
                .old_to_new = malloc((old->n_devices + 1) * sizeof(ssize_t)),
                .new_to_old = malloc((new->n_devices + 1) * sizeof(ssize_t)),
                .how = calloc(old->n_devices + 1, sizeof(enum match_how)),
        };
        int r = 0;

        if (!old_chains || !new_chains || !m.old_to_new || !m.new_to_old || !m.how) {
                snapshot_match_clear(&m);
                return -ENOMEM;
        }
        for (size_t i = 0; i < old->n_devices; i++)
                m.old_to_new[i] = -1;
        for (size_t j = 0; j < new->n_devices; j++)
                m.new_to_old[j] = -1;
        struct side so = {old, old_chains, m.old_to_new}, sn = {new, new_chains, m.new_to_old};
        for (size_t s = 0; r >= 0 && s < sizeof(stages) / sizeof(stages[0]); s++)
                r = match_stage(stages[s], &so, &sn, m.how);
        if (r < 0) {
                snapshot_match_clear(&m);
                return r;
        }
        *ret = m;
        return 0;
}
