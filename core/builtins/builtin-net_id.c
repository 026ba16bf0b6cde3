/* SPDX-License-Identifier: MIT */
/*
 * net_id: predictable network interface names (ID_NET_NAME_ONBOARD, _SLOT, _PATH, _MAC,
 * ID_NET_LABEL_ONBOARD, ID_NET_NAMING_SCHEME), composed as systemd-udevd 252 does for its
 * naming schemes v238 … v252 (default v252; NET_NAMING_SCHEME= in the environment or
 * net.naming-scheme= on the kernel command line select another).
 *
 * The name is made of a type prefix (en, wl, ww, ib, sl) and the device's position:
 *   o<index>[n<port>|d<devport>]        on-board index (ACPI _DSM / SMBIOS type 41)
 *   s<slot>[f<fn>][n<port>|d<devport>]  PCI hotplug slot (/sys/bus/pci/slots)
 *   [P<domain>]p<bus>s<slot>[f<fn>]…    PCI geography, plus u<port>… for USB, b<core> for BCMA
 *   x<MAC>                              permanent MAC address
 *   c<busid>, v<slot>, a<vendor><model>i<instance>, i<addr>n<port>, X<vif>, d<alias>
 *                                       s390 CCW, IBM VIO, ACPI platform, netdevsim, Xen, devicetree
 * The builtin state (ctx->state slot) holds the hwdb handle for the OUI vendor lookup.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>

#include "builtin-net_id.h"
#include "fs-util.h"
#include "hwdb.h"
#include "log.h"
#include "model.h"

enum {
        NAMING_SR_IOV_V = 1 << 0,
        NAMING_NPAR_ARI = 1 << 1,
        NAMING_INFINIBAND = 1 << 2,
        NAMING_ZERO_ACPI_INDEX = 1 << 3,
        NAMING_ALLOW_RERENAMES = 1 << 4,
        NAMING_STABLE_VIRTUAL_MACS = 1 << 5,
        NAMING_NETDEVSIM = 1 << 6,
        NAMING_LABEL_NOPREFIX = 1 << 7,
        NAMING_NSPAWN_LONG_HASH = 1 << 8,
        NAMING_BRIDGE_NO_SLOT = 1 << 9,
        NAMING_SLOT_FUNCTION_ID = 1 << 10,
        NAMING_16BIT_INDEX = 1 << 11,
        NAMING_REPLACE_STRICTLY = 1 << 12,
        NAMING_XEN_VIF = 1 << 13,
        NAMING_BRIDGE_MULTIFUNCTION_SLOT = 1 << 14,
        NAMING_DEVICETREE_ALIASES = 1 << 15,
};

#define V239 (NAMING_SR_IOV_V | NAMING_NPAR_ARI)
#define V240 (V239 | NAMING_INFINIBAND | NAMING_ZERO_ACPI_INDEX | NAMING_ALLOW_RERENAMES)
#define V241 (V240 | NAMING_STABLE_VIRTUAL_MACS)
#define V243 (V241 | NAMING_NETDEVSIM | NAMING_LABEL_NOPREFIX)
#define V245 (V243 | NAMING_NSPAWN_LONG_HASH)
#define V247 (V245 | NAMING_BRIDGE_NO_SLOT)
#define V249 (V247 | NAMING_SLOT_FUNCTION_ID | NAMING_16BIT_INDEX | NAMING_REPLACE_STRICTLY)
#define V250 (V249 | NAMING_XEN_VIF)
#define V251 (V250 | NAMING_BRIDGE_MULTIFUNCTION_SLOT)
#define V252 (V251 | NAMING_DEVICETREE_ALIASES)

static const struct naming_scheme {
        const char *name;
        unsigned flags;
} naming_schemes[] = {
        {"v238", 0},    {"v239", V239}, {"v240", V240}, {"v241", V241}, {"v243", V243}, {"v245", V245},
        {"v247", V247}, {"v249", V249}, {"v250", V250}, {"v251", V251}, {"v252", V252},
};

#define ARPHRD_ETHER_ 1
#define ARPHRD_INFINIBAND_ 32
#define ARPHRD_SLIP_ 256

struct net_id_state {
        struct hwdb *hwdb; /* NULL when there is no database */
        bool hwdb_tried;
        const struct naming_scheme *scheme;
};

/* What one run works with. */
struct net_id {
        struct builtin_ctx *ctx;
        struct device *dev;
        bool test;
        const char *prefix;
        unsigned flags;
        int iftype;
        char *phys_port_name; /* NULL when absent or empty */
};

/* The results of the PCI, USB and BCMA probes (udev's NetNames). */
struct pci_names {
        struct device *pcidev;
        bool is_pci;           /* the PCI device is the interface's direct parent */
        char *onboard, *label; /* o…, label (only with an on-board index) */
        char *path, *slot;     /* p…s…, s… */
};

static void pci_names_clear(struct pci_names *n)
{
        free(n->onboard);
        free(n->label);
        free(n->path);
        free(n->slot);
        *n = (struct pci_names){0};
}

/* ---- attribute helpers ------------------------------------------------------------------ */

/* An attribute of d without its trailing newlines, as sd-device hands it out. New string. */
static int attr_get(const struct net_id *n, struct device *d, const char *attr, char **ret)
{
        const char *v;
        int r = device_get_sysattr(d, n->ctx->sysfs_root, attr, &v);
        if (r < 0)
                return r;
        if (!v)
                return -ENOENT;
        size_t l = strlen(v);
        while (l > 0 && v[l - 1] == '\n')
                l--;
        char *s = strndup(v, l);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* Unsigned parse like systemd's safe_atolu_full(): no sign, no trailing garbage. */
static int parse_ulong(const char *s, int base, unsigned long *ret)
{
        while (*s == ' ' || *s == '\t' || *s == '\n')
                s++;
        if (*s == '-')
                return -ERANGE;
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, base);
        if (errno > 0)
                return -errno;
        if (end == s || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int attr_ulong(const struct net_id *n, struct device *d, const char *attr, int base, unsigned long *ret)
{
        _cleanup_free_ char *v = NULL;
        int r = attr_get(n, d, attr, &v);
        if (r < 0)
                return r;
        return parse_ulong(v, base, ret);
}

static int attr_int(const struct net_id *n, struct device *d, const char *attr, int *ret)
{
        _cleanup_free_ char *v = NULL;
        int r = attr_get(n, d, attr, &v);
        if (r < 0)
                return r;
        char *end;
        errno = 0;
        long l = strtol(v, &end, 0);
        if (errno > 0)
                return -errno;
        if (end == v || *end || l < INT_MIN || l > INT_MAX)
                return -EINVAL;
        *ret = (int)l;
        return 0;
}

static char *syspath_of(const struct net_id *n, const struct device *d, const char *rel)
{
        char *p;
        if (asprintf(&p, "%s%s%s%s", n->ctx->sysfs_root, d->devpath, rel ? "/" : "", rel ? rel : "") < 0)
                return NULL;
        return p;
}

/* Appends formatted text to *s (allocated). 0 or -ENOMEM. */
_printf_(2, 3) static int append(char **s, const char *fmt, ...)
{
        va_list ap;
        char *t;
        va_start(ap, fmt);
        int r = vasprintf(&t, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (!*s) {
                *s = t;
                return 0;
        }
        char *u;
        r = asprintf(&u, "%s%s", *s, t);
        free(t);
        if (r < 0)
                return -ENOMEM;
        free(*s);
        *s = u;
        return 0;
}

static int add(struct net_id *n, const char *key, const char *a, const char *b)
{
        _cleanup_free_ char *v = NULL;
        if (asprintf(&v, "%s%s%s", n->prefix, strempty(a), strempty(b)) < 0)
                return -ENOMEM;
        return builtin_add_property(n->dev, n->test, key, v);
}

/* ---- naming scheme ---------------------------------------------------------------------- */

static const struct naming_scheme *scheme_find(const char *name)
{
        if (streq(name, "latest"))
                return &naming_schemes[ELEMENTSOF(naming_schemes) - 1];
        for (size_t i = 0; i < ELEMENTSOF(naming_schemes); i++)
                if (streq(naming_schemes[i].name, name))
                        return &naming_schemes[i];
        return NULL;
}

/* net.naming-scheme= from the kernel command line (the last one wins), new string or NULL. */
static char *cmdline_naming_scheme(void)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/cmdline", "re");
        if (!f)
                return NULL;
        char *line = NULL, *found = NULL;
        size_t sz = 0;
        if (getline(&line, &sz, f) > 0)
                for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
                        const char *v = startswith(tok, "net.naming-scheme=");
                        if (v) {
                                free(found);
                                found = strdup(v);
                        }
                }
        free(line);
        return found;
}

static const struct naming_scheme *naming_scheme_get(struct net_id_state *s)
{
        if (s->scheme)
                return s->scheme;
        _cleanup_free_ char *cmdline = cmdline_naming_scheme();
        /* the environment wins, unless its value starts with ':' (then the command line does) */
        const char *want = getenv("NET_NAMING_SCHEME");
        if (want && want[0] == ':')
                want = cmdline ? cmdline : want + 1;
        else if (!want)
                want = cmdline;
        s->scheme = want ? scheme_find(want) : NULL;
        if (want && !s->scheme)
                log_warning("net_id: unknown naming scheme \"%s\", using %s", want,
                            naming_schemes[ELEMENTSOF(naming_schemes) - 1].name);
        if (!s->scheme)
                s->scheme = &naming_schemes[ELEMENTSOF(naming_schemes) - 1];
        return s->scheme;
}

/* ---- PCI ------------------------------------------------------------------------------ */

/* Port suffix of the interface: n<phys_port_name> or d<dev_port> (dev_id for old InfiniBand
 * drivers when asked), or nothing. */
static int port_suffix(struct net_id *n, bool ib_dev_id_fallback, char **ret)
{
        *ret = NULL;
        if (n->phys_port_name)
                return asprintf(ret, "n%s", n->phys_port_name) < 0 ? -ENOMEM : 0;
        unsigned long dev_port = 0;
        _cleanup_free_ char *v = NULL;
        if (attr_get(n, n->dev, "dev_port", &v) >= 0) {
                if (parse_ulong(v, 10, &dev_port) < 0)
                        dev_port = 0;
                if (ib_dev_id_fallback && dev_port == 0 && n->iftype == ARPHRD_INFINIBAND_) {
                        free(v);
                        v = NULL;
                        if (attr_get(n, n->dev, "dev_id", &v) >= 0 && parse_ulong(v, 10, &dev_port) < 0)
                                dev_port = 0;
                }
        }
        if (dev_port > 0)
                return asprintf(ret, "d%lu", dev_port) < 0 ? -ENOMEM : 0;
        return 0;
}

/* Bit 7 of the header type byte in config space. */
static bool pci_is_multifunction(const struct net_id *n, struct device *pcidev)
{
        _cleanup_free_ char *p = syspath_of(n, pcidev, "config");
        if (!p)
                return false;
        _cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC);
        unsigned char header;
        if (fd < 0 || pread(fd, &header, 1, 0x0e) != 1)
                return false;
        return header & 0x80;
}

static bool pci_is_bridge(const struct net_id *n, struct device *pcidev)
{
        _cleanup_free_ char *m = NULL;
        if (attr_get(n, pcidev, "modalias", &m) < 0 || !startswith(m, "pci:"))
                return false;
        const char *p = strrchr(m, 's');
        return p && p[1] == 'c' && strncmp(p + 2, "04", 2) == 0;
}

static int pci_onboard(struct net_id *n, struct pci_names *names)
{
        _cleanup_free_ char *v = NULL;
        int r = attr_get(n, names->pcidev, "acpi_index", &v);
        if (r < 0)
                r = attr_get(n, names->pcidev, "index", &v);
        if (r < 0)
                return r;
        unsigned long idx;
        r = parse_ulong(v, 0, &idx);
        if (r < 0)
                return r;
        if (idx == 0 && !(n->flags & NAMING_ZERO_ACPI_INDEX))
                return -EINVAL;
        /* firmware reports rubbish indexes (2^24-1 …): beyond the cut-off they are not trusted */
        if (idx > ((n->flags & NAMING_16BIT_INDEX) ? 0xffffUL : 0x3fffUL))
                return -ENOENT;

        _cleanup_free_ char *port = NULL;
        r = port_suffix(n, false, &port);
        if (r < 0)
                return r;
        if (asprintf(&names->onboard, "o%lu%s", idx, strempty(port)) < 0)
                return -ENOMEM;
        (void)attr_get(n, names->pcidev, "label", &names->label);
        return 0;
}

/* s390: a function_id attribute names the slot directory directly (%08x). >0 found. */
static int slot_from_function_id(struct net_id *n, struct device *d, const char *slots, uint32_t *ret)
{
        if (!(n->flags & NAMING_SLOT_FUNCTION_ID))
                return 0;
        unsigned long id;
        if (attr_ulong(n, d, "function_id", 0, &id) < 0)
                return 0;
        if (id == 0 || id > UINT32_MAX)
                return -EINVAL;
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%08lx", slots, id) < 0)
                return -ENOMEM;
        if (access(p, F_OK) < 0)
                return -errno;
        *ret = (uint32_t)id;
        return 1;
}

/* The hotplug slot whose address is a prefix of sysname ("0000:03:00" for 0000:03:00.1). */
static int slot_from_address(const char *slots, const char *sysname, uint32_t *ret)
{
        _cleanup_closedir_ DIR *dir = opendir(slots);
        if (!dir)
                return -errno;
        struct dirent *de;
        while ((de = fs_readdir(dir, true))) {
                unsigned long i;
                if (parse_ulong(de->d_name, 0, &i) < 0 || i == 0 || i > UINT32_MAX)
                        continue;
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s/%s/address", slots, de->d_name) < 0)
                        return -ENOMEM;
                _cleanup_fclose_ FILE *f = fopen(p, "re");
                if (!f)
                        continue;
                _cleanup_free_ char *line = NULL;
                size_t sz = 0;
                ssize_t l = getline(&line, &sz, f);
                if (l < 0)
                        continue;
                while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
                        line[--l] = '\0';
                if (startswith(sysname, line)) {
                        *ret = (uint32_t)i;
                        return 1;
                }
        }
        return 0;
}

static int pci_slot(struct net_id *n, struct pci_names *names)
{
        unsigned domain, bus, slot, func;
        if (sscanf(names->pcidev->sysname, "%x:%x:%x.%u", &domain, &bus, &slot, &func) != 4)
                return -ENOENT;
        if ((n->flags & NAMING_NPAR_ARI)) {
                _cleanup_free_ char *ari = NULL;
                /* ARI: up to 256 functions, slot and function read as one 8-bit number */
                if (attr_get(n, names->pcidev, "ari_enabled", &ari) >= 0 && streq(ari, "1"))
                        func += slot * 8;
        }
        bool multi = func > 0 || pci_is_multifunction(n, names->pcidev);

        _cleanup_free_ char *port = NULL;
        int r = port_suffix(n, true, &port);
        if (r < 0)
                return r;

        r = 0;
        if (domain > 0)
                r = append(&names->path, "P%u", domain);
        if (r >= 0)
                r = append(&names->path, "p%us%u", bus, slot);
        if (r >= 0 && multi)
                r = append(&names->path, "f%u", func);
        if (r >= 0 && port)
                r = append(&names->path, "%s", port);
        if (r < 0)
                return r;

        /* ACPI _SUN: the slot of the device or of the nearest PCI ancestor that has one */
        _cleanup_free_ char *slots = NULL;
        if (asprintf(&slots, "%s/bus/pci/slots", n->ctx->sysfs_root) < 0)
                return -ENOMEM;
        _cleanup_closedir_ DIR *probe = opendir(slots);
        if (!probe)
                return 0;

        uint32_t hotplug_slot = 0;
        for (struct device *d = names->pcidev; d; d = device_find_parent_with_subsystem(d, "pci", NULL, false)) {
                r = slot_from_function_id(n, d, slots, &hotplug_slot);
                if (r < 0)
                        return 0;
                if (r > 0) {
                        domain = 0; /* s390 slot names are unique without the domain */
                        break;
                }
                r = slot_from_address(slots, d->sysname, &hotplug_slot);
                if (r < 0)
                        return 0;
                if (r > 0) {
                        /* a bridge's slot would be claimed by every device behind it */
                        if ((n->flags & NAMING_BRIDGE_NO_SLOT) && pci_is_bridge(n, d)) {
                                if (!(n->flags & NAMING_BRIDGE_MULTIFUNCTION_SLOT) ||
                                    !pci_is_multifunction(n, names->pcidev))
                                        return 0;
                        }
                        break;
                }
        }
        if (hotplug_slot == 0)
                return 0;

        r = 0;
        if (domain > 0)
                r = append(&names->slot, "P%u", domain);
        if (r >= 0)
                r = append(&names->slot, "s%" PRIu32, hotplug_slot);
        if (r >= 0 && multi)
                r = append(&names->slot, "f%u", func);
        if (r >= 0 && port)
                r = append(&names->slot, "%s", port);
        return r;
}

/* skips intermediate virtio devices: there is at most one virtio bus per parent */
static struct device *skip_virtio(struct device *d)
{
        while (d && streq_ptr(d->subsystem, "virtio"))
                d = d->parent;
        return d;
}

/* SR-IOV virtual function: the physical function's device and "v<N>" from its virtfnN link. */
static int virtfn_info(struct net_id *n, struct device *pcidev, struct device **ret_pf, char **ret_suffix)
{
        _cleanup_free_ char *vf_link = syspath_of(n, pcidev, "physfn"), *vf_real = syspath_of(n, pcidev, NULL);
        if (!vf_link || !vf_real)
                return -ENOMEM;
        _cleanup_free_ char *pf = realpath(vf_link, NULL), *vf = realpath(vf_real, NULL),
                            *root = realpath(n->ctx->sysfs_root, NULL);
        if (!pf || !vf || !root)
                return -ENOENT;
        const char *pf_devpath = startswith(pf, root);
        if (!pf_devpath || !n->dev->model)
                return -ENOENT;

        _cleanup_closedir_ DIR *dir = opendir(pf);
        if (!dir)
                return -errno;
        struct dirent *de;
        while ((de = readdir(dir))) {
                const char *num = startswith(de->d_name, "virtfn");
                if (!num || !*num || strspn(num, "0123456789") != strlen(num))
                        continue;
                _cleanup_free_ char *link = NULL;
                if (asprintf(&link, "%s/%s", pf, de->d_name) < 0)
                        return -ENOMEM;
                _cleanup_free_ char *target = realpath(link, NULL);
                if (!target || !streq(target, vf))
                        continue;
                struct device *pfdev;
                int r = model_resolve(n->dev->model, pf_devpath, &pfdev);
                if (r < 0)
                        return r;
                if (asprintf(ret_suffix, "v%s", num) < 0)
                        return -ENOMEM;
                *ret_pf = pfdev;
                return 0;
        }
        return -ENOENT;
}

static int names_pci(struct net_id *n, struct pci_names *names)
{
        struct device *parent = skip_virtio(n->dev->parent);
        if (!parent)
                return -ENOENT;
        if (streq_ptr(parent->subsystem, "pci")) {
                names->is_pci = true;
                names->pcidev = parent;
        } else {
                names->pcidev = device_find_parent_with_subsystem(n->dev, "pci", NULL, false);
                if (!names->pcidev)
                        return -ENOENT;
        }

        struct device *pf = NULL;
        _cleanup_free_ char *suffix = NULL;
        if ((n->flags & NAMING_SR_IOV_V) && virtfn_info(n, names->pcidev, &pf, &suffix) >= 0) {
                /* a VF is named after its physical function, plus v<N> */
                struct pci_names pfn = {.pcidev = pf};
                (void)pci_onboard(n, &pfn);
                int r = pci_slot(n, &pfn);
                if (r == -ENOMEM) {
                        pci_names_clear(&pfn);
                        return r;
                }
                r = 0;
                if (pfn.onboard)
                        r = asprintf(&names->onboard, "%s%s", pfn.onboard, suffix) < 0 ? -ENOMEM : 0;
                if (r >= 0 && pfn.slot)
                        r = asprintf(&names->slot, "%s%s", pfn.slot, suffix) < 0 ? -ENOMEM : 0;
                if (r >= 0 && pfn.path)
                        r = asprintf(&names->path, "%s%s", pfn.path, suffix) < 0 ? -ENOMEM : 0;
                pci_names_clear(&pfn);
                return r;
        }
        int r = pci_onboard(n, names);
        if (r == -ENOMEM)
                return r;
        r = pci_slot(n, names);
        return r == -ENOMEM ? r : 0;
}

/* u<port>[u<port>…][c<config>][i<interface>] from a USB interface name "2-1.4:1.0". */
static int usb_ports(const char *sysname, char **ret)
{
        const char *dash = strchr(sysname, '-');
        if (!dash)
                return -EINVAL;
        _cleanup_free_ char *ports = strdup(dash + 1);
        if (!ports)
                return -ENOMEM;
        char *config = strchr(ports, ':');
        if (!config)
                return -EINVAL;
        *config++ = '\0';
        char *intf = strchr(config, '.');
        if (!intf)
                return -EINVAL;
        *intf++ = '\0';
        for (char *p = ports; (p = strchr(p, '.'));)
                *p = 'u';
        if (asprintf(ret, "u%s%s%s%s%s", ports, streq(config, "1") ? "" : "c", streq(config, "1") ? "" : config,
                     streq(intf, "0") ? "" : "i", streq(intf, "0") ? "" : intf) < 0)
                return -ENOMEM;
        return 0;
}

/* The USB interface above d. Kernels before DEVTYPE (the legacy layout) name interfaces
 * "<bus>-<ports>:<config>.<interface>", which tells them from USB devices. */
static struct device *usb_interface_of(struct device *d)
{
        for (struct device *p = d->parent; p; p = p->parent)
                if (streq_ptr(p->subsystem, "usb") &&
                    (streq_ptr(p->devtype, "usb_interface") || (!p->devtype && strchr(p->sysname, ':'))))
                        return p;
        return NULL;
}

/* ---- other buses -------------------------------------------------------------------------- */

static int names_ccw(struct net_id *n)
{
        struct device *c = skip_virtio(n->dev->parent);
        if (!c || !(streq_ptr(c->subsystem, "ccwgroup") || streq_ptr(c->subsystem, "ccw")))
                return -ENOENT;
        const char *bus_id = c->sysname;
        size_t len = strlen(bus_id);
        if (len != 8 && len != 9)
                return -EINVAL;
        /* leading zeros and dots dropped (0.0.0600 -> 600), but "0" kept for 0.0.0000 */
        size_t start = strspn(bus_id, ".0");
        bus_id += start < len ? start : len - 1;
        return add(n, "ID_NET_NAME_PATH", "c", bus_id);
}

static int names_vio(struct net_id *n)
{
        if (!n->dev->parent || !streq_ptr(n->dev->parent->subsystem, "vio"))
                return -ENOENT;
        unsigned busid, slotid, ethid;
        if (sscanf(n->dev->devpath, "/devices/vio/%4x%4x/net/eth%u", &busid, &slotid, &ethid) != 3)
                return -EINVAL;
        char s[16];
        snprintf(s, sizeof(s), "v%u", slotid);
        return add(n, "ID_NET_NAME_SLOT", s, NULL);
}

static int names_platform(struct net_id *n)
{
        if (!n->dev->parent || !streq_ptr(n->dev->parent->subsystem, "platform"))
                return -ENOENT;
        const char *p = n->dev->devpath;
        static const char test[] = "/devices/platform/vvvvPPPP";
        if (strlen(p) < sizeof(test))
                return -EINVAL;
        /* ACPI IDs: a 4-character vendor (letters, digits) or a 3-letter PNP vendor */
        bool acpi = p[sizeof(test) - 1] == ':';
        char vendor[5] = "";
        unsigned model, instance, ethid;
        if (sscanf(p, acpi ? "/devices/platform/%4s%4x:%2u/net/eth%u" : "/devices/platform/%3s%4x:%2u/net/eth%u",
                   vendor, &model, &instance, &ethid) != 4)
                return -EINVAL;
        for (char *c = vendor; *c; c++) {
                if (!((*c >= 'A' && *c <= 'Z') || (acpi && *c >= '0' && *c <= '9')))
                        return -ENOENT;
                if (*c >= 'A' && *c <= 'Z')
                        *c = (char)(*c - 'A' + 'a');
        }
        char s[64];
        snprintf(s, sizeof(s), "a%s%xi%u", vendor, model, instance);
        return add(n, "ID_NET_NAME_PATH", s, NULL);
}

static int names_netdevsim(struct net_id *n)
{
        if (!(n->flags & NAMING_NETDEVSIM) || !n->phys_port_name)
                return -EINVAL;
        struct device *d = device_find_parent_with_subsystem(n->dev, "netdevsim", NULL, false);
        unsigned addr;
        if (!d)
                return -ENOENT;
        if (sscanf(d->sysname, "netdevsim%u", &addr) != 1)
                return -EINVAL;
        char s[32];
        snprintf(s, sizeof(s), "i%un", addr);
        return add(n, "ID_NET_NAME_PATH", s, n->phys_port_name);
}

static int names_xen(struct net_id *n)
{
        if (!(n->flags & NAMING_XEN_VIF) || !n->dev->parent || !streq_ptr(n->dev->parent->subsystem, "xen"))
                return -ENOENT;
        const char *p = startswith(n->dev->devpath, "/devices/vif-");
        if (!p || *p < '0' || *p > '9')
                return -ENOENT;
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (*end != '/' || id > UINT_MAX)
                return -ENOENT;
        char s[16];
        snprintf(s, sizeof(s), "X%lu", id);
        return add(n, "ID_NET_NAME_SLOT", s, NULL);
}

/* The "ethernet[N]" alias in /firmware/devicetree/base/aliases naming the parent's of_node. */
static int names_devicetree(struct net_id *n)
{
        if (!(n->flags & NAMING_DEVICETREE_ALIASES) || !streq(n->prefix, "en") || !n->dev->parent)
                return -EOPNOTSUPP;
        _cleanup_free_ char *ofnode_link = syspath_of(n, n->dev->parent, "of_node"), *base_path = NULL;
        if (!ofnode_link || asprintf(&base_path, "%s/firmware/devicetree/base", n->ctx->sysfs_root) < 0)
                return -ENOMEM;
        _cleanup_free_ char *ofnode = realpath(ofnode_link, NULL), *base = realpath(base_path, NULL);
        if (!ofnode || !base)
                return -ENOENT;
        const char *node = startswith(ofnode, base);
        if (!node || *node != '/')
                return -EINVAL;

        _cleanup_free_ char *aliases = NULL;
        if (asprintf(&aliases, "%s/aliases", base) < 0)
                return -ENOMEM;
        _cleanup_closedir_ DIR *dir = opendir(aliases);
        if (!dir)
                return -errno;
        struct dirent *de;
        while ((de = readdir(dir))) {
                const char *index = startswith(de->d_name, "ethernet");
                if (!index)
                        continue;
                _cleanup_free_ char *p = NULL, *target = NULL;
                if (asprintf(&p, "%s/%s", aliases, de->d_name) < 0)
                        return -ENOMEM;
                _cleanup_fclose_ FILE *f = fopen(p, "re");
                size_t sz = 0;
                if (!f || getdelim(&target, &sz, '\0', f) < 0)
                        continue;
                /* alias values are NUL-terminated paths; compare without trailing slashes */
                size_t tl = strlen(target), nl = strlen(node);
                while (tl > 1 && target[tl - 1] == '/')
                        tl--;
                while (nl > 1 && node[nl - 1] == '/')
                        nl--;
                if (tl != nl || strncmp(target, node, nl) != 0)
                        continue;
                unsigned long i = 0;
                const char *conflict = "ethernet";
                if (!*index)
                        conflict = "ethernet0";
                else if (parse_ulong(index, 0, &i) < 0 || i > UINT_MAX)
                        return -EINVAL;
                if (i == 0) {
                        /* "ethernet" and "ethernet0" would both claim index 0 */
                        _cleanup_free_ char *c = NULL;
                        if (asprintf(&c, "%s/%s", aliases, conflict) < 0)
                                return -ENOMEM;
                        if (access(c, F_OK) == 0)
                                return -EEXIST;
                }
                char s[16];
                snprintf(s, sizeof(s), "d%lu", i);
                return add(n, "ID_NET_NAME_ONBOARD", s, NULL);
        }
        return -ENOENT;
}

/* ---- MAC -------------------------------------------------------------------------------- */

static int oui_cb(const struct hwdb_property *p, void *userdata)
{
        struct net_id *n = userdata;
        return builtin_add_property(n->dev, n->test, p->key, p->value);
}

static int names_mac(struct net_id *n, struct net_id_state *st)
{
        if (n->iftype == ARPHRD_INFINIBAND_) /* 8-byte persistent part: does not fit a name */
                return -EOPNOTSUPP;
        _cleanup_free_ char *addr = NULL;
        if (attr_get(n, n->dev, "address", &addr) < 0)
                return -ENOENT;
        /* hex bytes separated by ':' */
        unsigned char mac[8];
        size_t len = 0;
        const char *p = addr;
        while (*p) {
                char *end;
                unsigned long b = strtoul(p, &end, 16);
                if (end == p || end - p > 2 || b > 0xff || len >= sizeof(mac))
                        return -EINVAL;
                mac[len++] = (unsigned char)b;
                if (*end == ':')
                        end++;
                else if (*end)
                        return -EINVAL;
                p = end;
        }
        if (len != 6)
                return -EOPNOTSUPP;
        unsigned long assign_type;
        int r = attr_ulong(n, n->dev, "addr_assign_type", 0, &assign_type);
        if (r < 0)
                return r;
        if (assign_type != 0) /* NET_ADDR_PERM only: random and stolen addresses change */
                return -EINVAL;

        char s[32];
        snprintf(s, sizeof(s), "x%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
        r = add(n, "ID_NET_NAME_MAC", s, NULL);
        if (r < 0)
                return r;

        /* the vendor from the IEEE OUI table in the hwdb; 00:00:00 is commonly misused */
        if (mac[0] == 0 && mac[1] == 0 && mac[2] == 0)
                return 0;
        if (!st->hwdb_tried) {
                st->hwdb_tried = true;
                r = hwdb_open(n->ctx->root, NULL, &st->hwdb);
                if (r < 0)
                        log_debug_errno(r, "net_id: no hwdb, no OUI vendor names");
        }
        if (!st->hwdb)
                return 0;
        snprintf(s, sizeof(s), "OUI:%02X%02X%02X%02X%02X%02X", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
        r = hwdb_foreach(st->hwdb, s, oui_cb, n);
        return r < 0 ? r : 0;
}

/* PCI devices, and USB and BCMA devices named after the PCI position of their host. */
static int names_pci_family(struct net_id *n)
{
        struct pci_names names = {0};
        _cleanup_free_ char *suffix = NULL;
        int r = names_pci(n, &names);
        if (r < 0)
                goto out;
        if (names.is_pci) {
                if (names.onboard)
                        r = add(n, "ID_NET_NAME_ONBOARD", names.onboard, NULL);
                if (r >= 0 && names.label) {
                        _cleanup_free_ char *v = NULL;
                        if (asprintf(&v, "%s%s", (n->flags & NAMING_LABEL_NOPREFIX) ? "" : n->prefix, names.label) < 0)
                                r = -ENOMEM;
                        else
                                r = builtin_add_property(n->dev, n->test, "ID_NET_LABEL_ONBOARD", v);
                }
                if (r >= 0 && names.path)
                        r = add(n, "ID_NET_NAME_PATH", names.path, NULL);
                if (r >= 0 && names.slot)
                        r = add(n, "ID_NET_NAME_SLOT", names.slot, NULL);
                goto out;
        }

        struct device *usb = usb_interface_of(n->dev);
        if (usb)
                r = usb_ports(usb->sysname, &suffix);
        if (!usb || r == -EINVAL) {
                struct device *bcma = device_find_parent_with_subsystem(n->dev, "bcma", NULL, false);
                unsigned core;
                if (!bcma)
                        r = -ENOENT;
                else if (sscanf(bcma->sysname, "bcma%*u:%u", &core) != 1)
                        r = -EINVAL;
                else if (core > 0 && asprintf(&suffix, "b%u", core) < 0)
                        r = -ENOMEM;
                else
                        r = 0;
        }
        if (r >= 0 && names.path)
                r = add(n, "ID_NET_NAME_PATH", names.path, suffix);
        if (r >= 0 && names.slot)
                r = add(n, "ID_NET_NAME_SLOT", names.slot, suffix);
out:
        pci_names_clear(&names);
        return r;
}

/* ---- entry ---------------------------------------------------------------------------- */

static struct net_id_state *state_get(struct builtin_ctx *ctx)
{
        void **slot = &ctx->state[builtin_index(builtin_lookup("net_id"))];
        if (!*slot)
                *slot = calloc(1, sizeof(struct net_id_state));
        return *slot;
}

void builtin_net_id_exit(struct builtin_ctx *ctx)
{
        void **slot = &ctx->state[builtin_index(builtin_lookup("net_id"))];
        struct net_id_state *st = *slot;
        if (!st)
                return;
        hwdb_free(st->hwdb);
        free(st);
        *slot = NULL;
}

void builtin_net_id_trim(struct builtin_ctx *ctx)
{
        struct net_id_state *st = ctx->state[builtin_index(builtin_lookup("net_id"))];
        if (st && st->hwdb)
                hwdb_trim(st->hwdb);
}

int builtin_net_id_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        (void)argc;
        (void)argv;
        struct net_id_state *st = state_get(ctx);
        if (!st)
                return log_oom();
        const struct naming_scheme *scheme = naming_scheme_get(st);

        struct net_id n = {.ctx = ctx, .dev = dev, .test = test, .prefix = "en", .flags = scheme->flags};
        int r, iflink;
        /* a stacked device (VLAN, macvlan …) is named by whoever creates it */
        r = attr_int(&n, dev, "iflink", &iflink);
        if (r < 0)
                return log_debug_errno(r, "%s: net_id: no iflink", dev->devpath);
        if (dev->ifindex != iflink)
                return 0;
        r = attr_int(&n, dev, "type", &n.iftype);
        if (r < 0)
                return log_debug_errno(r, "%s: net_id: no type", dev->devpath);
        switch (n.iftype) {
        case ARPHRD_ETHER_:
                break;
        case ARPHRD_INFINIBAND_:
                if (!(n.flags & NAMING_INFINIBAND))
                        return 0;
                n.prefix = "ib";
                break;
        case ARPHRD_SLIP_:
                n.prefix = "sl";
                break;
        default:
                return 0;
        }
        if (streq_ptr(dev->devtype, "wlan"))
                n.prefix = "wl";
        else if (streq_ptr(dev->devtype, "wwan"))
                n.prefix = "ww";

        if (attr_get(&n, dev, "phys_port_name", &n.phys_port_name) >= 0 && isempty(n.phys_port_name))
                n.phys_port_name = mfree(n.phys_port_name);

        r = builtin_add_property(dev, test, "ID_NET_NAMING_SCHEME", scheme->name);
        if (r >= 0 && names_mac(&n, st) == -ENOMEM)
                r = -ENOMEM;
        if (r >= 0 && names_devicetree(&n) == -ENOMEM)
                r = -ENOMEM;
        if (r < 0)
                goto finish;

        /* buses whose devices have a name of their own; the first that applies is the name */
        int (*const exclusive[])(struct net_id *) = {names_ccw, names_vio, names_platform, names_netdevsim,
                                                     names_xen};
        for (size_t i = 0; i < ELEMENTSOF(exclusive); i++) {
                r = exclusive[i](&n);
                if (r >= 0 || r == -ENOMEM)
                        goto finish;
        }

        r = names_pci_family(&n);
        if (r != -ENOMEM)
                r = 0;

finish:
        free(n.phys_port_name);
        return r < 0 ? log_error_errno(r, "%s: net_id: %m", dev->devpath) : 0;
}
