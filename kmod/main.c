// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace.ko: the /dev/fxtrace character device.
 *
 * Documentation/design.rst describes the data path, Documentation/uapi.rst
 * the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include <linux/fxtrace.h>

/*
 * Read a size-prefixed struct from user space: the size must cover the first
 * version of the struct and stay within a page; copy_struct_from_user()
 * zero-fills a shorter struct and refuses unknown non-zero tail bytes.
 */
static int fxt_get_sized(void *dst, size_t dst_size, size_t min_size,
			 const void __user *src, u32 *user_size)
{
	u32 size;

	if (get_user(size, (const u32 __user *)src))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < min_size)
		return -EINVAL;
	*user_size = size;
	return copy_struct_from_user(dst, dst_size, src, size);
}

static long fxt_ioctl_version(void __user *argp)
{
	struct fxtrace_version v;
	u32 size;
	int ret;

	ret = fxt_get_sized(&v, sizeof(v), FXTRACE_VERSION_SIZE_V0, argp, &size);
	if (ret)
		return ret;
	/* Everything but the size is output: input bits there are an error. */
	if (v.abi_major || v.abi_minor || v.__reserved || v.features)
		return -EINVAL;
	v.abi_major = FXTRACE_ABI_MAJOR;
	v.abi_minor = FXTRACE_ABI_MINOR;
	v.features = 0;
	if (copy_to_user(argp, &v, min_t(size_t, size, sizeof(v))))
		return -EFAULT;
	return 0;
}

static long fxt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case FXTRACE_IOC_VERSION:
		return fxt_ioctl_version(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations fxt_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = fxt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice fxt_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "fxtrace",
	.fops = &fxt_fops,
	.mode = 0666,
};

static int __init fxt_init(void)
{
	return misc_register(&fxt_miscdev);
}

static void __exit fxt_exit(void)
{
	misc_deregister(&fxt_miscdev);
}

module_init(fxt_init);
module_exit(fxt_exit);
MODULE_DESCRIPTION("fxtrace: Fuchsia Trace Format tracing for Linux");
MODULE_LICENSE("GPL");
