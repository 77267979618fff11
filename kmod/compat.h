/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels fxtrace builds for (6.1 and later).
 * Kbuild tests the headers for features rather than comparing versions,
 * because stable kernels backport.
 */
#ifndef _FXTRACE_COMPAT_H
#define _FXTRACE_COMPAT_H

#include <linux/mm.h>

/* vm_flags became read-only, with vm_flags_set/clear(), in 6.3. */
#ifdef FXT_HAVE_VM_FLAGS_SET
static inline void fxt_vma_set_flags(struct vm_area_struct *vma,
				     unsigned long flags)
{
	vm_flags_set(vma, flags);
}

static inline void fxt_vma_clear_flags(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void fxt_vma_set_flags(struct vm_area_struct *vma,
				     unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void fxt_vma_clear_flags(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#endif /* _FXTRACE_COMPAT_H */
