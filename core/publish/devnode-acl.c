/* SPDX-License-Identifier: MIT */
#include "devnode-acl.h"

#include <endian.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "macros.h"

#define ACL_XATTR "system.posix_acl_access"
#define ACL_VERSION 2
enum {
        TAG_USER_OBJ = 0x01,
        TAG_USER = 0x02,
        TAG_GROUP_OBJ = 0x04,
        TAG_GROUP = 0x08,
        TAG_MASK = 0x10,
        TAG_OTHER = 0x20,
};
#define PERM_RW 6u /* read 4, write 2 */
#define ID_NONE 0xffffffffu

struct acl_entry {
        uint16_t tag, perm;
        uint32_t id;
};

/* The entries of path's ACL, or the three its mode implies when it has none. */
static int acl_read(const char *path, struct acl_entry **ret, size_t *ret_n)
{
        ssize_t len = getxattr(path, ACL_XATTR, NULL, 0);
        if (len < 0 && errno != ENODATA)
                return -errno;
        if (len < 0) {
                struct stat st;
                if (stat(path, &st) < 0)
                        return -errno;
                struct acl_entry *e = calloc(3 + 2, sizeof(*e)); /* room for a new user and a mask */
                if (!e)
                        return -ENOMEM;
                e[0] = (struct acl_entry){TAG_USER_OBJ, (st.st_mode >> 6) & 7, ID_NONE};
                e[1] = (struct acl_entry){TAG_GROUP_OBJ, (st.st_mode >> 3) & 7, ID_NONE};
                e[2] = (struct acl_entry){TAG_OTHER, st.st_mode & 7, ID_NONE};
                *ret = e;
                *ret_n = 3;
                return 0;
        }
        _cleanup_free_ uint8_t *buf = malloc(len + 1);
        if (!buf)
                return -ENOMEM;
        len = getxattr(path, ACL_XATTR, buf, len);
        if (len < 0)
                return -errno;
        if (len < 4 || (len - 4) % 8 != 0)
                return -EBADMSG;
        uint32_t version;
        memcpy(&version, buf, 4);
        if (le32toh(version) != ACL_VERSION)
                return -EBADMSG;
        size_t n = (len - 4) / 8;
        struct acl_entry *e = calloc(n + 2, sizeof(*e)); /* room for a new user and a mask */
        if (!e)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                uint16_t t, p;
                uint32_t id;
                memcpy(&t, buf + 4 + 8 * i, 2);
                memcpy(&p, buf + 6 + 8 * i, 2);
                memcpy(&id, buf + 8 + 8 * i, 4);
                e[i] = (struct acl_entry){le16toh(t), le16toh(p), le32toh(id)};
        }
        *ret = e;
        *ret_n = n;
        return 0;
}

static int entry_cmp(const void *a, const void *b)
{
        const struct acl_entry *x = a, *y = b;
        if (x->tag != y->tag)
                return x->tag < y->tag ? -1 : 1;
        return x->id < y->id ? -1 : x->id > y->id;
}

int devnode_acl_set_user(const char *path, uid_t uid)
{
        struct acl_entry *e = NULL;
        size_t n = 0;
        int r = acl_read(path, &e, &n);
        if (r < 0)
                return r;
        _cleanup_free_ struct acl_entry *owned = e; /* acl_read() left room for two more */

        /* drop named users and the mask; add ours; recompute the mask over the group class */
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (e[i].tag != TAG_USER && e[i].tag != TAG_MASK)
                        e[k++] = e[i];
        if (uid != (uid_t)-1)
                e[k++] = (struct acl_entry){TAG_USER, PERM_RW, (uint32_t)uid};
        bool named = false;
        uint16_t mask = 0;
        for (size_t i = 0; i < k; i++) {
                if (e[i].tag == TAG_USER || e[i].tag == TAG_GROUP)
                        named = true;
                if (e[i].tag == TAG_USER || e[i].tag == TAG_GROUP || e[i].tag == TAG_GROUP_OBJ)
                        mask |= e[i].perm;
        }
        if (named)
                e[k++] = (struct acl_entry){TAG_MASK, mask, ID_NONE};
        qsort(e, k, sizeof(*e), entry_cmp);

        size_t len = 4 + 8 * k;
        _cleanup_free_ uint8_t *buf = malloc(len);
        if (!buf)
                return -ENOMEM;
        uint32_t v = htole32(ACL_VERSION);
        memcpy(buf, &v, 4);
        for (size_t i = 0; i < k; i++) {
                uint16_t t = htole16(e[i].tag), p = htole16(e[i].perm);
                uint32_t id = htole32(e[i].tag == TAG_USER || e[i].tag == TAG_GROUP ? e[i].id : ID_NONE);
                memcpy(buf + 4 + 8 * i, &t, 2);
                memcpy(buf + 6 + 8 * i, &p, 2);
                memcpy(buf + 8 + 8 * i, &id, 4);
        }
        if (setxattr(path, ACL_XATTR, buf, len, 0) < 0)
                return -errno;
        return 0;
}

int devnode_acl_get_users(const char *path, uid_t **ret, size_t *ret_n)
{
        struct acl_entry *e = NULL;
        size_t n = 0;
        int r = acl_read(path, &e, &n);
        if (r < 0)
                return r;
        _cleanup_free_ struct acl_entry *owned = e;
        uid_t *u = calloc(n + 1, sizeof(uid_t));
        if (!u)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (e[i].tag == TAG_USER && (e[i].perm & PERM_RW) == PERM_RW)
                        u[k++] = e[i].id;
        *ret = u;
        *ret_n = k;
        return 0;
}
