/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flush_mark.h - the flush watermark of a file fxtrace-drain writes
 * (Documentation/drain.rst, "The flush watermark"), and the session's time
 * window published with it.
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

/*
 * Right after the flush mark, written with it: the session's time window,
 * "fxtrace:window 0x" LO " 0x" HI in ns (16 hex digits each).  Every
 * timestamp below the watermark lies inside it; `fxtrace check` checks them
 * against it (rule timestamp-window).
 */
#define WINDOW_MARK_OFFSET	(FLUSH_MARK_OFFSET + FLUSH_MARK_BYTES)
#define WINDOW_MARK_INDEX	0x7ffe
#define WINDOW_MARK_PREFIX	"fxtrace:window 0x"
#define WINDOW_MARK_PREFIX_LEN	(sizeof(WINDOW_MARK_PREFIX) - 1)
#define WINDOW_MARK_TEXT_LEN	(WINDOW_MARK_PREFIX_LEN + 16 + 3 + 16)
#define WINDOW_MARK_WORDS	(1 + (WINDOW_MARK_TEXT_LEN + 7) / 8)
#define WINDOW_MARK_BYTES	(WINDOW_MARK_WORDS * 8)

static inline void mark_hex(char *text, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++)
		text[i] = hex[(v >> (60 - 4 * i)) & 15];
}

static inline bool mark_parse_hex(const char *digits, uint64_t *out)
{
	uint64_t v = 0;
	int i, d;

	for (i = 0; i < 16; i++) {
		if (digits[i] >= '0' && digits[i] <= '9')
			d = digits[i] - '0';
		else if (digits[i] >= 'a' && digits[i] <= 'f')
			d = digits[i] - 'a' + 10;
		else
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* The record saying that every byte below `flushed` is in the file. */
static inline void flush_mark_write(__u64 words[FLUSH_MARK_WORDS],
				    uint64_t flushed)
{
	char text[FLUSH_MARK_TEXT_LEN];

	memcpy(text, FLUSH_MARK_PREFIX, FLUSH_MARK_PREFIX_LEN);
	mark_hex(text + FLUSH_MARK_PREFIX_LEN, flushed);
	fxt_write_string(words, FLUSH_MARK_INDEX, text, FLUSH_MARK_TEXT_LEN);
}

/* The record saying that every timestamp is in [lo_ns, hi_ns]. */
static inline void window_mark_write(__u64 words[WINDOW_MARK_WORDS],
				     uint64_t lo_ns, uint64_t hi_ns)
{
	char text[WINDOW_MARK_TEXT_LEN];

	memcpy(text, WINDOW_MARK_PREFIX, WINDOW_MARK_PREFIX_LEN);
	mark_hex(text + WINDOW_MARK_PREFIX_LEN, lo_ns);
	memcpy(text + WINDOW_MARK_PREFIX_LEN + 16, " 0x", 3);
	mark_hex(text + WINDOW_MARK_PREFIX_LEN + 19, hi_ns);
	fxt_write_string(words, WINDOW_MARK_INDEX, text, WINDOW_MARK_TEXT_LEN);
}

/*
 * bytes holds the WINDOW_MARK_BYTES bytes after the flush mark: true and
 * the window when they are a window mark record.
 */
static inline bool window_mark_read(const unsigned char *bytes,
				    uint64_t *lo_ns, uint64_t *hi_ns)
{
	__u64 expected[WINDOW_MARK_WORDS];
	const char *text = (const char *)bytes + 8;

	window_mark_write(expected, 0, 0);
	if (memcmp(bytes, expected, 8 + WINDOW_MARK_PREFIX_LEN) ||
	    memcmp(text + WINDOW_MARK_PREFIX_LEN + 16, " 0x", 3))
		return false;
	return mark_parse_hex(text + WINDOW_MARK_PREFIX_LEN, lo_ns) &&
	       mark_parse_hex(text + WINDOW_MARK_PREFIX_LEN + 19, hi_ns) &&
	       *lo_ns <= *hi_ns;
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

	flush_mark_write(expected, 0);
	/* Header and prefix as written; only the digits may differ. */
	if (memcmp(bytes, expected, 8 + FLUSH_MARK_PREFIX_LEN))
		return false;
	return mark_parse_hex((const char *)bytes + 8 + FLUSH_MARK_PREFIX_LEN,
			      flushed);
}

#endif /* FLUSH_MARK_H */
