"""The mdev.conf files the mdev tests share (mdev-differential.py, mdev-convert.py): written for
the tests in the style of those busybox's examples, Alpine and Buildroot ship."""


def log_cmd(tag, hotplug, log):
    extra = " DEVPATH=$DEVPATH DEVNAME=$DEVNAME" if hotplug else ""
    return '@echo "%s MDEV=$MDEV ACTION=$ACTION SUBSYSTEM=$SUBSYSTEM%s" >> %s' % (tag, extra, log)


def confs(hotplug, log, command=None):
    """(name, text): mdev.conf files in the style of busybox's examples, Alpine and Buildroot.
    command(tag) is the command each line with one runs (default: log_cmd's)."""
    def c(tag, when="@"):
        return when + (command(tag) if command else log_cmd(tag, hotplug, log)[1:])
    examples = "\n".join([
        "# busybox examples style",
        "null\t\t0:0 666",
        "zero\t\t0:0 666",
        "urandom\t\t0:0 444",
        "kmem\t\t0:9 000",
        "mem\t\t0:9 640",
        "console\t\t0:5 600 " + c("console"),
        "ptmx\t\t0:5 660",
        "tty[0-9]*\t0:5 660",
        "ttyS[0-9]*\t0:20 640",
        "sd[a-z]*\t0:6 660 " + c("disk", "*"),
        "hw_random\t0:0 600 =hwrng",
        "",
    ])
    alpine = "\n".join([
        "# Alpine style",
        "$MODALIAS=.*\troot:root\t0660\t" + c("modalias") if hotplug else "# (no MODALIAS in scan mode)",
        "null\t\troot:root 666 " + c("null"),
        "zero\t\troot:root 666",
        "full\t\troot:root 666",
        "random\t\troot:root 444",
        "urandom\t\troot:root 444",
        "console\t\troot:tty 600",
        "ptmx\t\troot:tty 666",
        "tty\t\troot:tty 666",
        "tty[0-9]*\troot:tty 660",
        "ttyS[0-9]*\troot:dialout 660",
        "loop([0-9]+)\troot:disk 660 >loop/%1",
        "sd[a-z].*\troot:disk 660 " + c("storage", "*"),
        "nvme.*\t\troot:disk 660",
        "-SUBSYSTEM=input;.*\troot:input 660",
        "input/event[0-9]+\troot:input 660",
        "input/mice\troot:input 660",
        "input/mouse[0-9]+\troot:input 660 =mice/",
        "bus/usb/([0-9]+)/([0-9]+)\troot:root 660 =usb/%1.%2",
        "-SUBSYSTEM=net;DEVPATH=.*/net/.*;.*\troot:root 600 " + c("net") if hotplug else "# (net: no devt)",
        "fuse\t\troot:root 666",
        "kmsg\t\troot:root 640",
        "uinput\t\troot:input 660 =input/",
        "rfkill\t\troot:root 664",
        "",
    ])
    buildroot = "\n".join([
        "# Buildroot style",
        "-.*\t\t0:0 600 " + c("any", "*"),
        "null\t\t0:0 666",
        "@1,5-9\t\t0:0 644",
        "tty\t\t0:5 666",
        "tty[0-9]+\t0:5 660 !",
        "ttyS([0-9]+)\t0:0 620 >tts/%1",
        "ttyS[0-9]+\t0:0 600",
        "sd[a-z][0-9]\t0:6 660 =part/",
        "sd[a-z]\t\t0:6 660 " + c("whole", "$"),
        "nvme0n1(p[0-9]+)?\t0:6 640 >nvme/n1%1",
        "input/(.*)\t0:0 640 =in/%1",
        "",
    ])
    return [("examples", examples), ("alpine", alpine), ("buildroot", buildroot)]
