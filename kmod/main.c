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
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/uaccess.h>

#include "fxtrace.h"

/*
 * Each ioctl struct's first published size (the smallest fxt_get_sized()
 * accepts) ends at the last field of that version.  user/tests/layout_test.c
 * checks the same in user space.
 */
static_assert(FXTRACE_VERSION_SIZE_V0 ==
	      offsetofend(struct fxtrace_version, features));
static_assert(FXTRACE_CONFIG_SIZE_V0 ==
	      offsetofend(struct fxtrace_config, __reserved));
static_assert(FXTRACE_START_SIZE_V0 ==
	      offsetofend(struct fxtrace_start, __reserved));
static_assert(FXTRACE_SESSION_INFO_SIZE_V0 ==
	      offsetofend(struct fxtrace_session_info, lost_packets));
static_assert(FXTRACE_ATTACH_SIZE_V0 ==
	      offsetofend(struct fxtrace_attach, monotonic_offset));
static_assert(FXTRACE_BUFFER_FULL_SIZE_V0 ==
	      offsetofend(struct fxtrace_buffer_full, wrap));
static_assert(FXTRACE_BUFFER_INFO_SIZE_V0 ==
	      offsetofend(struct fxtrace_buffer_info, reader_size));
static_assert(FXTRACE_CATEGORY_SIZE_V0 ==
	      offsetofend(struct fxtrace_category, __reserved));
static_assert(FXTRACE_BUFFER_REF_SIZE_V0 ==
	      offsetofend(struct fxtrace_buffer_ref, id));

/*
 * Read a size-prefixed struct from user space: the size must cover the first
 * version of the struct and stay within a page; copy_struct_from_user()
 * zero-fills a shorter struct and refuses unknown non-zero tail bytes.
 */
int fxt_get_sized(void *dst, size_t dst_size, size_t min_size,
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
	v.features = FXTRACE_FEATURE_SESSIONS | FXTRACE_FEATURE_ATTACH_PER_FILE |
		     FXTRACE_FEATURE_ATTACH_PID_FILTER;
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
	case FXTRACE_IOC_INIT:
		return fxt_ioctl_init(file, argp);
	case FXTRACE_IOC_START:
		return fxt_ioctl_start(file, argp);
	case FXTRACE_IOC_STOP:
		return fxt_ioctl_stop(file);
	case FXTRACE_IOC_PAUSE:
		return fxt_ioctl_pause(file, true);
	case FXTRACE_IOC_RESUME:
		return fxt_ioctl_pause(file, false);
	case FXTRACE_IOC_TERMINATE:
		return fxt_ioctl_terminate(file);
	case FXTRACE_IOC_ADOPT:
		return fxt_ioctl_adopt(file);
	case FXTRACE_IOC_SESSION_INFO:
		return fxt_ioctl_session_info(argp);
	case FXTRACE_IOC_BUFFER_INFO:
		return fxt_ioctl_buffer_info(file, argp);
	case FXTRACE_IOC_RELEASE_BUFFER:
		return fxt_ioctl_release_buffer(file, argp);
	case FXTRACE_IOC_CATEGORY:
		return fxt_ioctl_category(argp);
	case FXTRACE_IOC_CATEGORY_NAME:
		return fxt_ioctl_category_name(argp);
	case FXTRACE_IOC_ATTACH:
		return fxt_ioctl_attach(file, argp);
	case FXTRACE_IOC_BUFFER_FULL:
		return fxt_ioctl_buffer_full(argp);
	default:
		return -ENOTTY;
	}
}

/*
 * Each open file gets an address_space of its own, an inode of a private
 * pseudo filesystem (as DRM gives each device one), instead of sharing the
 * device inode's: unmap_mapping_range() on it then reaches the mappings
 * made through that file only (fxt_revoke_former_readers(), session.c),
 * not another file's of a buffer of an earlier session with the same id.
 */
#define FXT_FS_MAGIC	0x66787472	/* "fxtr" */

static struct vfsmount *fxt_mnt;

static int fxt_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, FXT_FS_MAGIC) ? 0 : -ENOMEM;
}

/* No .owner: the module's own mount would pin it. */
static struct file_system_type fxt_fs_type = {
	.name = "fxtrace",
	.init_fs_context = fxt_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

/* Reads honour IOCB_NOWAIT, so io_uring needs no io-wq thread for them. */
static int fxt_open(struct inode *inode, struct file *file)
{
	struct inode *mapping_inode;

	mapping_inode = alloc_anon_inode(fxt_mnt->mnt_sb);
	if (IS_ERR(mapping_inode))
		return PTR_ERR(mapping_inode);
	file->f_mapping = mapping_inode->i_mapping;
	file->private_data = NULL;
	file->f_mode |= FMODE_NOWAIT;
	return stream_open(inode, file);
}

static int fxt_flush(struct file *file, fl_owner_t id)
{
	fxt_controller_flush(file);
	return 0;
}

/* No mapping of the file is left: its address_space goes. */
static int fxt_release(struct inode *inode, struct file *file)
{
	fxt_controller_release(file);
	iput(file->f_mapping->host);
	return 0;
}

static const struct file_operations fxt_fops = {
	.owner = THIS_MODULE,
	.open = fxt_open,
	.flush = fxt_flush,
	.release = fxt_release,
	.unlocked_ioctl = fxt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = fxt_mmap,
	.read_iter = fxt_read_iter,
	.write_iter = fxt_write_iter,
	.poll = fxt_poll,
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
	int ret;

	ret = fxt_page_init();
	if (ret)
		return ret;
	ret = fxt_events_init();
	if (ret)
		goto out_page;
	fxt_mnt = kern_mount(&fxt_fs_type);
	if (IS_ERR(fxt_mnt)) {
		ret = PTR_ERR(fxt_mnt);
		goto out_page;
	}
	ret = misc_register(&fxt_miscdev);
	if (!ret)
		return 0;
	kern_unmount(fxt_mnt);
out_page:
	fxt_page_exit();
	return ret;
}

/* Nothing is open or mapped now; an orphaned session may remain. */
static void __exit fxt_exit(void)
{
	misc_deregister(&fxt_miscdev);
	kern_unmount(fxt_mnt);
	fxt_session_destroy_orphan();
	fxt_users_free();
	fxt_page_exit();
}

module_init(fxt_init);
module_exit(fxt_exit);
MODULE_DESCRIPTION("fxtrace: Fuchsia Trace Format tracing for Linux");
MODULE_LICENSE("GPL");
