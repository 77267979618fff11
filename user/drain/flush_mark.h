/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flush_mark.h - the flush watermark of a file fxtrace-drain writes
 * (Documentation/drain.rst, "The flush watermark").
 *
 * Writes at explicit offsets complete out of order, so a drainer killed
 * mid-session can leave a file whose tail has holes.  The drainer keeps the
 * largest offset below which every write has completed and publishes it in
 * the file itself: the record right after the magic is a string record of
 * provider 0 whose text is "fxtrace:flushed 0x" and 16 hex digits, rewritten
 * in place as the watermark grows.  Readers ignore an unused string; `fxtrace
 * check` and `fxtrace recover` read it and cut the file there.
 */
#ifndef FLUSH_MARK_H
#define FLUSH_MARK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/fxt.h>

#define FLUSH_MARK_OFFSET	8		/* right after the magic */
#define FLUSH_MARK_INDEX	0x7fff		/* a string index nothing uses */
#define FLUSH_MARK_PREFIX	"fxtrace:flushed 0x"
#define FLUSH_MARK_PREFIX_LEN	(sizeof(FLUSH_MARK_PREFIX) - 1)
#define FLUSH_MARK_TEXT_LEN	(FLUSH_MARK_PREFIX_LEN + 16)
#define FLUSH_MARK_WORDS	(1 + (FLUSH_MARK_TEXT_LEN + 7) / 8)
#define FLUSH_MARK_BYTES	(FLUSH_MARK_WORDS * 8)

/* The record saying that every byte below `flushed` is in the file. */
static inline void flush_mark_write(__u64 words[FLUSH_MARK_WORDS],
				    uint64_t flushed)
{
	static const char hex[] = "0123456789abcdef";
	char text[FLUSH_MARK_TEXT_LEN];
	int i;

	memcpy(text, FLUSH_MARK_PREFIX, FLUSH_MARK_PREFIX_LEN);
	for (i = 0; i < 16; i++)
		text[FLUSH_MARK_PREFIX_LEN + i] = hex[(flushed >> (60 - 4 * i)) & 15];
	fxt_write_string(words, FLUSH_MARK_INDEX, text, FLUSH_MARK_TEXT_LEN);
}

/*
 * bytes holds the first FLUSH_MARK_BYTES bytes after the magic.  Returns
 * true and the watermark when they are a flush mark record, false when the
 * file has none (another writer) or it is not well formed.
 */
static inline bool flush_mark_read(const unsigned char *bytes,
				   uint64_t *flushed)
{
	__u64 expected[FLUSH_MARK_WORDS];
	uint64_t v = 0;
	const char *digits;
	int i, d;

	flush_mark_write(expected, 0);
	/* Header and prefix as written; only the digits may differ. */
	if (memcmp(bytes, expected, 8 + FLUSH_MARK_PREFIX_LEN))
		return false;
	digits = (const char *)bytes + 8 + FLUSH_MARK_PREFIX_LEN;
	for (i = 0; i < 16; i++) {
		if (digits[i] >= '0' && digits[i] <= '9')
			d = digits[i] - '0';
		else if (digits[i] >= 'a' && digits[i] <= 'f')
			d = digits[i] - 'a' + 10;
		else
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*flushed = v;
	return true;
}

#endif /* FLUSH_MARK_H */
