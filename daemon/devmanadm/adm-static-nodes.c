/* SPDX-License-Identifier: MIT */
/*
 * devmanadm static-nodes: creates the device nodes of modules that load on first open
 * (modules.devname of the running kernel, see static-nodes.h) under the /dev root, mode 0600,
 * owned by root, as `kmod static-nodes` + systemd-tmpfiles do at boot; rules tagged
 * static_node may then adjust them. Existing nodes of the right type and number are left as
 * they are. Without a modules.devname (a kernel without modules) there is nothing to do.
 */
#include <fcntl.h>
#include <getopt.h>
#include <sys/sysmacros.h>

#include "adm.h"
#include "log.h"
#include "node.h"
#include "static-nodes.h"

static void help(void)
{
        printf("Usage: devmanadm static-nodes [--root=DIR] [--kernel=RELEASE] [--file=PATH] [--dry-run]\n"
               "\n"
               "Create the static nodes of modules that load on first open.\n"
               "\n"
               "  -h --help            Show this help\n"
               "     --root=DIR        Read DIR/lib/modules/... (default /)\n"
               "     --kernel=RELEASE  Kernel release (default: the running kernel)\n"
               "     --file=PATH       Read this modules.devname instead\n"
               "  -n --dry-run         Only print what would be created\n");
}

int verb_static_nodes(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"root", required_argument, NULL, 'R'},
                {"kernel", required_argument, NULL, 'k'},
                {"file", required_argument, NULL, 'f'},
                {"dry-run", no_argument, NULL, 'n'},
                {},
        };
        const char *root = NULL, *release = NULL, *file = NULL;
        bool dry_run = false;
        int c, r;
        while ((c = getopt_long(argc, argv, "hn", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'R':
                        root = optarg;
                        break;
                case 'k':
                        release = optarg;
                        break;
                case 'f':
                        file = optarg;
                        break;
                case 'n':
                        dry_run = true;
                        break;
                default:
                        return 2;
                }
        r = adm_no_arguments("static-nodes", optind, argc, argv);
        if (r != 0)
                return r;

        _cleanup_free_ char *path = NULL;
        if (file)
                path = strdup(file);
        else if (static_nodes_path(root, release, &path) < 0)
                path = NULL;
        if (!path) {
                log_oom();
                return 1;
        }
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT) {
                        log_info("%s does not exist: no static nodes", path);
                        return 0;
                }
                log_error_errno(errno, "Cannot open %s: %m", path);
                return 1;
        }
        struct static_node *nodes = NULL;
        size_t n = 0;
        r = static_nodes_parse(f, path, &nodes, &n);
        if (r < 0) {
                log_error_errno(r, "Cannot read %s: %m", path);
                return 1;
        }

        _cleanup_close_ int devfd = -1;
        if (!dry_run) {
                devfd = open(ctx->dev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (devfd < 0) {
                        log_error_errno(errno, "Cannot open %s: %m", ctx->dev_root);
                        static_nodes_free(nodes, n);
                        return 1;
                }
        }
        int failed = 0;
        for (size_t i = 0; i < n; i++) {
                if (dry_run) {
                        printf("%c %u:%u %s (%s)\n", nodes[i].type, major(nodes[i].devnum), minor(nodes[i].devnum),
                               nodes[i].devname, nodes[i].module);
                        continue;
                }
                const struct node_access a = {0600, NODE_UID_UNSET, NODE_GID_UNSET};
                r = node_apply(devfd, NULL, nodes[i].devname, nodes[i].type, nodes[i].devnum, &a,
                               NODE_NO_DEVNUM_LINK);
                if (r < 0) {
                        log_error_errno(r, "%s/%s (module %s): %m", ctx->dev_root, nodes[i].devname, nodes[i].module);
                        failed++;
                } else
                        log_debug("%s/%s: %s", ctx->dev_root, nodes[i].devname, r > 0 ? "created" : "exists");
        }
        static_nodes_free(nodes, n);
        return failed ? 1 : 0;
}
