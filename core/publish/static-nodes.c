/* SPDX-License-Identifier: MIT */
#include "static-nodes.h"

#include <ctype.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "log.h"
#include "macros.h"

struct static_node *static_nodes_free(struct static_node *nodes, size_t n)
{
        for (size_t i = 0; nodes && i < n; i++) {
                free(nodes[i].module);
                free(nodes[i].devname);
        }
        free(nodes);
        return NULL;
}

/* One line; 1 when it held a node, 0 for blank/comment, -EINVAL when malformed. */
static int parse_line(char *line, struct static_node *n)
{
        char *save = NULL;
        char *module = strtok_r(line, " \t\n", &save);
        if (!module || *module == '#')
                return 0;
        char *devname = strtok_r(NULL, " \t\n", &save), *spec = strtok_r(NULL, " \t\n", &save);
        if (!devname || !spec || strtok_r(NULL, " \t\n", &save))
                return -EINVAL;
        if ((spec[0] != 'c' && spec[0] != 'b') || !isdigit((unsigned char)spec[1]))
                return -EINVAL;
        char *end;
        errno = 0;
        unsigned long maj = strtoul(spec + 1, &end, 10);
        if (errno || *end != ':' || !isdigit((unsigned char)end[1]))
                return -EINVAL;
        unsigned long min = strtoul(end + 1, &end, 10);
        if (errno || *end || maj > 0xfff || min > 0xfffff)
                return -EINVAL;
        n->module = strdup(module);
        n->devname = strdup(devname);
        if (!n->module || !n->devname) {
                free(n->module);
                free(n->devname);
                return -ENOMEM;
        }
        n->type = spec[0];
        n->devnum = makedev(maj, min);
        return 1;
}

int static_nodes_parse(FILE *f, const char *fname, struct static_node **ret, size_t *ret_n)
{
        struct static_node *nodes = NULL;
        size_t n = 0, cap = 0, sz = 0;
        unsigned lineno = 0;
        _cleanup_free_ char *line = NULL;
        int r = 0;
        while (getline(&line, &sz, f) >= 0) {
                lineno++;
                if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        struct static_node *p = realloc(nodes, cap * sizeof(*p));
                        if (!p) {
                                r = -ENOMEM;
                                break;
                        }
                        nodes = p;
                }
                r = parse_line(line, &nodes[n]);
                if (r == -ENOMEM)
                        break;
                if (r == -EINVAL)
                        log_warning("%s:%u: malformed line, ignoring", fname, lineno);
                if (r > 0)
                        n++;
                r = 0;
        }
        if (r == 0 && ferror(f))
                r = -EIO;
        if (r < 0) {
                static_nodes_free(nodes, n);
                return r;
        }
        *ret = nodes;
        *ret_n = n;
        return 0;
}

int static_nodes_path(const char *root, const char *release, char **ret)
{
        struct utsname u;
        if (!release) {
                if (uname(&u) < 0)
                        return -errno;
                release = u.release;
        }
        const char *prefix = root && !streq(root, "/") ? root : "";
        return asprintf(ret, "%s/lib/modules/%s/modules.devname", prefix, release) < 0 ? -ENOMEM : 0;
}
