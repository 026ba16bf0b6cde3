/* SPDX-License-Identifier: MIT */
#include "publish-retry.h"

#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

struct pending {
        char *devpath; /* the key (owned: a move renames the device) */
        struct device *dev;
};

struct publish_retry {
        struct hashmap *by_devpath; /* devpath -> struct pending */
        int first_error;
        unsigned long failures;
};

static struct pending *pending_free(struct pending *p)
{
        if (p) {
                device_unref(p->dev);
                free(p->devpath);
                free(p);
        }
        return NULL;
}

struct publish_retry *publish_retry_new(void)
{
        struct publish_retry *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->by_devpath = hashmap_new_string();
        if (!s->by_devpath) {
                free(s);
                return NULL;
        }
        return s;
}

/* The entries as an array (caller frees), so the map may change while they are worked
 * through; NULL with *n = 0 when there are none or no memory. */
static struct pending **entries(struct publish_retry *s, size_t *n)
{
        size_t size = hashmap_size(s->by_devpath), i = 0;
        struct pending **all = size ? calloc(size, sizeof(*all)) : NULL;
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        const void *key;
        void *value;

        while (all && hashmap_iterate(s->by_devpath, &it, &key, &value))
                all[i++] = value;
        *n = i;
        return all;
}

/* Removes every entry. */
static void clear(struct publish_retry *s)
{
        size_t i;
        struct pending **all = entries(s, &i);
        for (size_t k = 0; k < i; k++) {
                hashmap_remove(s->by_devpath, all[k]->devpath);
                pending_free(all[k]);
        }
        free(all);
}

struct publish_retry *publish_retry_free(struct publish_retry *s)
{
        if (!s)
                return NULL;
        clear(s);
        hashmap_free(s->by_devpath);
        free(s);
        return NULL;
}

int publish_retry_add(struct publish_retry *s, struct device *d, int error)
{
        bool was_empty = hashmap_size(s->by_devpath) == 0;
        if (was_empty) {
                s->first_error = error;
                s->failures = 0;
        }
        s->failures++;
        if (hashmap_get(s->by_devpath, d->devpath))
                return 0;
        struct pending *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->devpath = strdup(d->devpath);
        p->dev = device_ref(d);
        if (!p->devpath || hashmap_put(s->by_devpath, p->devpath, p) < 0) {
                pending_free(p);
                return -ENOMEM;
        }
        return was_empty;
}

void publish_retry_forget(struct publish_retry *s, const struct device *d)
{
        pending_free(hashmap_remove(s->by_devpath, d->devpath));
}

size_t publish_retry_pending(const struct publish_retry *s)
{
        return hashmap_size(s->by_devpath);
}

int publish_retry_first_error(const struct publish_retry *s)
{
        return hashmap_size(s->by_devpath) ? s->first_error : 0;
}

unsigned long publish_retry_failures(const struct publish_retry *s)
{
        return s->failures;
}

size_t publish_retry_flush(struct publish_retry *s, int (*publish)(struct device *d, void *userdata), void *userdata,
                           size_t *published)
{
        size_t i, done = 0;
        struct pending **all = entries(s, &i);
        for (size_t k = 0; k < i; k++) {
                struct pending *p = all[k];
                bool gone = !p->dev->model; /* removed meanwhile: nothing to publish */
                if (!gone) {
                        if (publish(p->dev, userdata) < 0) {
                                s->failures++;
                                continue;
                        }
                        done++;
                }
                hashmap_remove(s->by_devpath, p->devpath);
                pending_free(p);
        }
        free(all);
        if (published)
                *published = done;
        return hashmap_size(s->by_devpath);
}
