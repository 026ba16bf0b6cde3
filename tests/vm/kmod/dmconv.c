// SPDX-License-Identifier: GPL-2.0
/*
 * dmconv: a test class for devman's class-conversion check (tests/vm/vm-kmod.py).
 *
 * Registers the class "dmconv" and a dynamic char major; character devices dmconvN (minor N)
 * are made with device_create() and removed with device_destroy() on request, through write-only
 * class attributes:
 *   /sys/class/dmconv/add     N         make the next N devices
 *   /sys/class/dmconv/remove  NAME      destroy one device
 *   /sys/class/dmconv/rename  OLD NEW   device_rename() one device
 *
 * layout= says where the devices hang, so that loading the module one way and then the other is
 * a conversion as a driver author makes it:
 *   parent   below the platform device "dmconv" the module registers
 *            (/sys/devices/platform/dmconv/dmconv/dmconvN)
 *   nested   below the class device "dmconvhost0" (class dmconvhost, no devt; registered in
 *            every layout) of that same platform device: the physical parent is unchanged,
 *            only the class layer in between moved
 *            (/sys/devices/platform/dmconv/dmconvhost/dmconvhost0/dmconvN)
 *   virtual  parent NULL: the virtual tree (/sys/devices/virtual/dmconv/dmconvN)
 *   broken   as parent, but dmconv1 gets minor 101 instead of 1 (a conversion that changed
 *            a devt)
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#define DMCONV_MAX 32
#define DMCONV_MINORS 128
#define DMCONV_BROKEN_INDEX 1
#define DMCONV_BROKEN_SHIFT 100

enum dmconv_layout { LAYOUT_PARENT, LAYOUT_NESTED, LAYOUT_VIRTUAL, LAYOUT_BROKEN };

static char *layout = "parent";
module_param(layout, charp, 0444);
MODULE_PARM_DESC(layout, "parent | nested | virtual | broken");

/* A module has one instance; this is it. */
static struct {
	enum dmconv_layout layout;
	dev_t base;
	struct class *cls;
	struct class *host_cls;
	struct platform_device *pdev;
	struct device *host;
	struct mutex lock;
	struct device *devs[DMCONV_MAX];
	unsigned int next;
} dm;

static dev_t dmconv_devt(unsigned int i)
{
	unsigned int minor = i;

	if (dm.layout == LAYOUT_BROKEN && i == DMCONV_BROKEN_INDEX)
		minor += DMCONV_BROKEN_SHIFT;
	return MKDEV(MAJOR(dm.base), MINOR(dm.base) + minor);
}

static struct device *dmconv_parent(void)
{
	switch (dm.layout) {
	case LAYOUT_VIRTUAL:
		return NULL;
	case LAYOUT_NESTED:
		return dm.host;
	default:
		return &dm.pdev->dev;
	}
}

/* The slot of the device called name, or -1; under dm.lock. */
static int dmconv_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < DMCONV_MAX; i++)
		if (dm.devs[i] && sysfs_streq(dev_name(dm.devs[i]), name))
			return i;
	return -1;
}

static ssize_t add_store(struct class *cls, struct class_attribute *attr, const char *buf,
			 size_t count)
{
	unsigned int n, k;
	int r;

	r = kstrtouint(buf, 10, &n);
	if (r)
		return r;
	mutex_lock(&dm.lock);
	if (n > DMCONV_MAX - dm.next) {
		r = -ENOSPC;
		goto out;
	}
	for (k = 0; k < n; k++) {
		unsigned int i = dm.next;
		struct device *d = device_create(dm.cls, dmconv_parent(), dmconv_devt(i), NULL,
						 "dmconv%u", i);

		if (IS_ERR(d)) {
			r = PTR_ERR(d);
			goto out;
		}
		dm.devs[i] = d;
		dm.next++;
	}
	r = count;
out:
	mutex_unlock(&dm.lock);
	return r;
}
static CLASS_ATTR_WO(add);

static ssize_t remove_store(struct class *cls, struct class_attribute *attr, const char *buf,
			    size_t count)
{
	int i, r = count;

	mutex_lock(&dm.lock);
	i = dmconv_find(buf);
	if (i < 0) {
		r = -ENODEV;
		goto out;
	}
	device_destroy(dm.cls, dm.devs[i]->devt);
	dm.devs[i] = NULL;
out:
	mutex_unlock(&dm.lock);
	return r;
}
static CLASS_ATTR_WO(remove);

/* "OLD NEW": device_rename(), which sends a move event. */
static ssize_t rename_store(struct class *cls, struct class_attribute *attr, const char *buf,
			    size_t count)
{
	char *args, *old, *new;
	int i, r;

	args = kstrndup(buf, count, GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	new = strim(args);
	old = strsep(&new, " ");
	if (!new || !*new || strchr(new, '/')) {
		r = -EINVAL;
		goto free;
	}
	new = skip_spaces(new);
	mutex_lock(&dm.lock);
	i = dmconv_find(old);
	if (i < 0)
		r = -ENODEV;
	else if (dmconv_find(new) >= 0)
		r = -EEXIST;
	else
		r = device_rename(dm.devs[i], new);
	mutex_unlock(&dm.lock);
	if (r == 0)
		r = count;
free:
	kfree(args);
	return r;
}
static CLASS_ATTR_WO(rename);

static const struct class_attribute *const dmconv_attrs[] = {
	&class_attr_add, &class_attr_remove, &class_attr_rename,
};

static void dmconv_teardown(void)
{
	unsigned int i;

	for (i = 0; i < DMCONV_MAX; i++)
		if (dm.devs[i])
			device_destroy(dm.cls, dm.devs[i]->devt);
	if (dm.cls) {
		for (i = 0; i < ARRAY_SIZE(dmconv_attrs); i++)
			class_remove_file(dm.cls, dmconv_attrs[i]);
		class_destroy(dm.cls);
	}
	if (dm.host)
		device_unregister(dm.host);
	if (dm.host_cls)
		class_destroy(dm.host_cls);
	if (dm.pdev)
		platform_device_unregister(dm.pdev);
	if (dm.base)
		unregister_chrdev_region(dm.base, DMCONV_MINORS + DMCONV_BROKEN_SHIFT);
}

static int __init dmconv_init(void)
{
	static const char *const names[] = {
		[LAYOUT_PARENT] = "parent", [LAYOUT_NESTED] = "nested",
		[LAYOUT_VIRTUAL] = "virtual", [LAYOUT_BROKEN] = "broken",
	};
	int r, l;
	unsigned int i;

	l = match_string(names, ARRAY_SIZE(names), layout);
	if (l < 0)
		return -EINVAL;
	dm.layout = l;
	mutex_init(&dm.lock);

	r = alloc_chrdev_region(&dm.base, 0, DMCONV_MINORS + DMCONV_BROKEN_SHIFT, "dmconv");
	if (r) {
		dm.base = 0;
		return r;
	}
	dm.pdev = platform_device_register_simple("dmconv", PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(dm.pdev)) {
		r = PTR_ERR(dm.pdev);
		dm.pdev = NULL;
		goto fail;
	}
	/* In every layout, so that only where the dmconv devices hang differs between them. */
	dm.host_cls = class_create(THIS_MODULE, "dmconvhost");
	if (IS_ERR(dm.host_cls)) {
		r = PTR_ERR(dm.host_cls);
		dm.host_cls = NULL;
		goto fail;
	}
	dm.host = device_create(dm.host_cls, &dm.pdev->dev, 0, NULL, "dmconvhost0");
	if (IS_ERR(dm.host)) {
		r = PTR_ERR(dm.host);
		dm.host = NULL;
		goto fail;
	}
	dm.cls = class_create(THIS_MODULE, "dmconv");
	if (IS_ERR(dm.cls)) {
		r = PTR_ERR(dm.cls);
		dm.cls = NULL;
		goto fail;
	}
	for (i = 0; i < ARRAY_SIZE(dmconv_attrs); i++) {
		r = class_create_file(dm.cls, dmconv_attrs[i]);
		if (r)
			goto fail;
	}
	pr_info("dmconv: layout %s, major %u\n", names[dm.layout], MAJOR(dm.base));
	return 0;
fail:
	dmconv_teardown();
	return r;
}

static void __exit dmconv_exit(void)
{
	dmconv_teardown();
}

module_init(dmconv_init);
module_exit(dmconv_exit);
MODULE_DESCRIPTION("devman test class: device_create()/device_destroy() in four layouts");
MODULE_LICENSE("GPL");
