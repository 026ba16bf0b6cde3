# SPDX-License-Identifier: MIT
"""The fixture machine of gen-sysfs.py plus network interfaces of every kind net_id names:
on-board (acpi_index, label, index 0, rubbish index, label without index), hotplug slots (multi-function, behind a
single-function bridge), PCI domain, dev_port and phys_port_name, WLAN, virtio, SR-IOV VF,
InfiniBand, stacked (VLAN), random MAC, ACPI platform, netdevsim, ARI, s390 function_id slot,
BCMA, a USB interface of configuration 2, s390 CCW, IBM VIO, Xen. Used by the net_id and
net_setup_link comparisons with the reference; gen-sysfs.py's machine itself is unchanged.

build(root) writes the tree and returns the names of the interfaces (/sys/class/net/<name>).
DEVMAN_ONLY names the interfaces the reference cannot judge in a fake /sys (it reads the
devicetree through /proc/device-tree, devman below the sysfs root)."""

DEVMAN_ONLY = {"eth34"}

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gen_sysfs", os.path.join(HERE, "gen-sysfs.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def _nic(m, parent, name, ifindex, mac, type_=1, devtype=None, assign=0, extra=None, iflink=None):
    dev = gen.net_device(m, parent, name, ifindex, mac, type_=type_)
    dev.attrs["addr_assign_type"] = "%d\n" % assign
    if iflink is not None:
        dev.attrs["iflink"] = "%d\n" % iflink
    if devtype:
        dev.devtype = devtype
    dev.attrs.update(extra or {})
    return dev


def build(root):
    m = gen.build_machine()
    pci = m.by_path["/devices/pci0000:00"]
    multi = []      # PCI devices whose config space says multi-function
    # on-board NIC with firmware index and label (function 6 of slot 31)
    onb = gen.pci_device(m, pci, "0000:00:1f.6", "e1000e", 0x8086, 0x15bb, 0x020000)
    onb.attrs.update({"acpi_index": "1\n", "label": "Onboard LAN\n"})
    _nic(m, onb, "eth10", 10, "3c:97:0e:11:22:33")
    # index 0 (allowed since v240), SMBIOS index, rubbish index beyond 16 bits
    z = gen.pci_device(m, pci, "0000:00:1a.0", "igb", 0x8086, 0x1533, 0x020000)
    z.attrs["acpi_index"] = "0\n"
    _nic(m, z, "eth11", 11, "a0:36:9f:00:00:01")
    smb = gen.pci_device(m, pci, "0000:00:1b.0", "igb", 0x8086, 0x1533, 0x020000)
    smb.attrs.update({"index": "2\n", "label": "LAN 2\n"})
    _nic(m, smb, "eth12", 12, "a0:36:9f:00:00:02", assign=3)          # MAC set by userspace
    bad = gen.pci_device(m, pci, "0000:00:1e.0", "igb", 0x8086, 0x1533, 0x020000)
    bad.attrs["acpi_index"] = "16777215\n"
    _nic(m, bad, "eth13", 13, "a0:36:9f:00:00:03")
    # a label without an index
    lab = gen.pci_device(m, pci, "0000:00:0a.0", "igb", 0x8086, 0x1533, 0x020000)
    lab.attrs["label"] = "Only Label\n"
    _nic(m, lab, "eth26", 26, "a0:36:9f:00:00:04")
    # hotplug slot 3: a dual-port card (multi-function) behind a root port
    rp = gen.pci_device(m, pci, "0000:00:1c.4", "pcieport", 0x8086, 0x9d14, 0x060400, module="pcieportdrv")
    f0 = gen.pci_device(m, rp, "0000:05:00.0", "ixgbe", 0x8086, 0x10fb, 0x020000)
    f1 = gen.pci_device(m, rp, "0000:05:00.1", "ixgbe", 0x8086, 0x10fb, 0x020000)
    multi += [f0, f1]
    _nic(m, f0, "eth14", 14, "90:e2:ba:00:00:01", extra={"dev_port": "0\n"})
    _nic(m, f1, "eth15", 15, "90:e2:ba:00:00:02", extra={"phys_port_name": "p1\n"})
    # slot 4 belongs to a bridge; the single-function device behind it must not take it
    rp2 = gen.pci_device(m, pci, "0000:00:1c.5", "pcieport", 0x8086, 0x9d15, 0x060400, module="pcieportdrv")
    behind = gen.pci_device(m, rp2, "0000:06:00.0", "r8169", 0x10ec, 0x8168, 0x020000)
    _nic(m, behind, "eth16", 16, "00:e0:4c:68:00:01")
    # PCI domain 1, second port of a function (dev_port)
    pci1 = m.plain(None, "pci0001:00")
    dom = gen.pci_device(m, pci1, "0001:07:00.0", "mlx4_core", 0x15b3, 0x1003, 0x020000)
    _nic(m, dom, "eth17", 17, "00:02:c9:00:00:01", extra={"dev_port": "2\n"})
    # WLAN
    wl = gen.pci_device(m, rp, "0000:03:00.0", "iwlwifi", 0x8086, 0x24fd, 0x028000)
    _nic(m, wl, "wlan0", 18, "34:f3:9a:00:00:01", devtype="wlan")
    # virtio-net: the virtio bus device sits between the PCI device and the interface
    vpci = gen.pci_device(m, pci, "0000:00:03.0", "virtio-pci", 0x1af4, 0x1000, 0x020000, module="virtio_pci")
    vio = m.bus(vpci, "virtio0", "virtio", driver="virtio_net", module="virtio_net",
                attrs={"modalias": "virtio:d00000001v00001AF4\n"}, env=[("MODALIAS", "virtio:d00000001v00001AF4")])
    _nic(m, vio, "eth19", 19, "52:54:00:12:34:56")
    # SR-IOV: physical function and its virtual function 0
    pf = gen.pci_device(m, pci, "0000:00:08.0", "ixgbe", 0x8086, 0x10fb, 0x020000)
    vf = gen.pci_device(m, pci, "0000:00:08.2", "ixgbevf", 0x8086, 0x10ed, 0x020000)
    _nic(m, pf, "eth20", 20, "90:e2:ba:00:01:00")
    _nic(m, vf, "eth21", 21, "02:00:00:00:01:01", assign=1)
    # InfiniBand (20-byte address, no MAC name; dev_id stands in for dev_port)
    ib = gen.pci_device(m, pci, "0000:00:09.0", "mlx4_core", 0x15b3, 0x1003, 0x0c0600)
    ibdev = _nic(m, ib, "ib0", 22, "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:00:01", type_=32,
                 extra={"dev_id": "1\n", "addr_len": "20\n"})
    # stacked: a VLAN on eth0 (iflink names the lower device)
    _nic(m, None, "eth0.100", 23, "00:1b:21:3a:4c:5d", iflink=2)
    # ACPI platform NIC (arm64 style) and a netdevsim port
    platform = m.by_path["/devices/platform"]
    hisi = m.bus(platform, "HISI00C2:01", "platform", driver="hns", module="hns_enet_drv",
                 attrs={"modalias": "acpi:HISI00C2:\n"}, env=[("MODALIAS", "acpi:HISI00C2:")])
    _nic(m, hisi, "eth24", 24, "c4:b8:b4:00:00:01")
    nsim = m.bus(None, "netdevsim0", "netdevsim")
    _nic(m, nsim, "eth25", 25, "0e:00:00:00:00:01", assign=1, extra={"phys_port_name": "p1\n"})

    # ARI: slot and function read as one 8-bit function number
    ari = gen.pci_device(m, pci, "0000:00:0c.2", "ixgbe", 0x8086, 0x10fb, 0x020000)
    ari.attrs["ari_enabled"] = "1\n"
    _nic(m, ari, "eth27", 27, "90:e2:ba:00:02:00")
    # s390: function_id names the slot directory
    fid = gen.pci_device(m, pci, "0000:00:0d.0", "mlx5_core", 0x15b3, 0x1017, 0x020000)
    fid.attrs["function_id"] = "0x00000017\n"
    _nic(m, fid, "eth28", 28, "00:02:c9:00:00:28")
    # Broadcom BCMA core behind PCI (WLAN)
    bpci = gen.pci_device(m, pci, "0000:00:0b.0", "bcma-pci-bridge", 0x14e4, 0x4331, 0x028000)
    bcore = m.bus(bpci, "bcma0:1", "bcma", driver="b43", module="b43")
    _nic(m, bcore, "wlan1", 29, "00:90:4c:00:00:01", devtype="wlan")
    # USB interface 1 of configuration 2
    usb3 = m.by_path["/devices/pci0000:00/0000:00:1d.7/usb3"]
    udev = m.bus(usb3, "3-3", "usb", devtype="usb_device")
    uif = m.bus(udev, "3-3:2.1", "usb", devtype="usb_interface", driver="cdc_ether", module="cdc_ether")
    _nic(m, uif, "eth32", 32, "00:0e:c6:88:03:03")
    # s390 CCW, IBM VIO, Xen netfront
    css = m.plain(None, "css0")
    sch = m.bus(css, "0.0.0000", "css")
    ccw = m.bus(sch, "0.0.0600", "ccw", driver="qeth", module="qeth")
    _nic(m, ccw, "eth33", 33, "02:00:00:00:06:00")
    vio = m.plain(None, "vio")
    vdev = m.bus(vio, "30000002", "vio", driver="ibmveth", module="ibmveth")
    _nic(m, vdev, "eth30", 30, "b6:00:00:00:00:02")
    xen = m.bus(None, "vif-0", "xen", driver="vif", module="xen_netfront")
    _nic(m, xen, "eth31", 31, "00:16:3e:00:00:01")
    # devicetree: an "ethernet0" alias names the platform device's of_node
    soc = m.plain(platform, "soc")
    dtnic = m.bus(soc, "1000.ethernet", "platform", driver="stmmaceth", module="stmmac_platform")
    _nic(m, dtnic, "eth34", 34, "00:04:9f:00:00:01")

    os.makedirs(root, 0o755, exist_ok=True)
    gen.write_converted(m, root)

    def put(path, content):
        full = root + path
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(content)

    for dev in multi:
        cfg = bytearray(256)
        cfg[0x0e] = 0x80
        put(dev.devpath + "/config", bytes(cfg))
    for dev in (onb, smb, behind, dom, pf, vf, wl):
        put(dev.devpath + "/config", bytes(256))
    put("/bus/pci/slots/3/address", b"0000:05:00\n")
    os.makedirs(root + "/bus/pci/slots/00000017", exist_ok=True)
    put("/firmware/devicetree/base/soc/ethernet@1000/compatible", b"snps,dwmac\0")
    put("/firmware/devicetree/base/aliases/ethernet0", b"/soc/ethernet@1000\0")
    put("/firmware/devicetree/base/aliases/serial0", b"/soc/serial@2000\0")
    os.symlink("../../../../firmware/devicetree/base/soc/ethernet@1000", root + dtnic.devpath + "/of_node")
    put("/bus/pci/slots/4/address", b"0000:00:1c\n")   # the root port's slot (00:1c.5's)
    put("/bus/pci/slots/9/address", b"0000:00:1f\n")   # slot 9 holds the on-board 00:1f.x
    os.symlink("../0000:00:08.0", root + vf.devpath + "/physfn")
    os.symlink("../0000:00:08.2", root + pf.devpath + "/virtfn0")
    del ibdev
    return sorted(d.sysname for d in m.devices if d.subsystem == "net")
