// SPDX-License-Identifier: GPL-2.0
/*
 * drops_record.c - the probes' drop counter as FXT, through the encoder
 * (fxtprobe.h): apart from libbpf, so that a host test checks its words.
 */
#include <linux/fxt.h>

#include "fxtprobe.h"

__u32 fxtprobe_drops_record(__u64 *dst, __u32 provider_id, __u64 ticks,
			    __u64 pid, __u64 tid,
			    const struct fxtprobe_drops *drops)
{
	static const char category[] = "fxtrace", name[] = "dropped";
	static const char records[] = "records", invalid[] = "invalid";
	const __u16 category_ref = fxt_inline_string_ref(sizeof(category) - 1);
	const __u16 name_ref = fxt_inline_string_ref(sizeof(name) - 1);
	const __u16 records_ref = fxt_inline_string_ref(sizeof(records) - 1);
	const __u16 invalid_ref = fxt_inline_string_ref(sizeof(invalid) - 1);
	__u32 words = fxt_event_words(FXT_EVENT_COUNTER, FXT_THREAD_REF_INLINE,
				      category_ref, name_ref,
				      fxt_arg_words(records_ref, 1) +
				      fxt_arg_words(invalid_ref, 1));
	__u32 n = 0;

	dst[n++] = fxt_provider_section_hdr(provider_id);
	n += fxt_write_event(dst + n, words, FXT_EVENT_COUNTER, 2, ticks, pid,
			     tid, category_ref, category, name_ref, name);
	n += fxt_write_arg64(dst + n, FXT_ARG_INT64, records_ref, records,
			     drops->ring_full + drops->missed);
	n += fxt_write_arg64(dst + n, FXT_ARG_INT64, invalid_ref, invalid,
			     drops->invalid);
	/* The trailing counter id: one track for the provider. */
	dst[n++] = provider_id;
	return n;
}
