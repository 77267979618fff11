/* SPDX-License-Identifier: GPL-2.0 */
/* fxt_internal.h - what the decoder's files share and nobody else needs. */
#ifndef FXT_INTERNAL_H
#define FXT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fxt_reader.h"

/*
 * memcmp(a, b, n) == 0, for a constant n: 4 to 16 bytes as two overlapping
 * loads each (memcmp is a call, on argument names of every record).
 */
static inline bool fxt_same_bytes(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	uint64_t x0, y0, x1, y1;
	uint32_t u0, v0, u1, v1;

	if (n >= 8 && n <= 16) {
		memcpy(&x0, x, 8);
		memcpy(&y0, y, 8);
		memcpy(&x1, x + n - 8, 8);
		memcpy(&y1, y + n - 8, 8);
		return x0 == y0 && x1 == y1;
	}
	if (n >= 4 && n < 8) {
		memcpy(&u0, x, 4);
		memcpy(&v0, y, 4);
		memcpy(&u1, x + n - 4, 4);
		memcpy(&v1, y + n - 4, 4);
		return u0 == v0 && u1 == v1;
	}
	return !memcmp(a, b, n);
}

/*
 * What a reader's tables and names hold, against its memory budget
 * (fxt_reader_set_memory_budget()): every provider's tables share one.
 */
struct fxt_memory {
	size_t used;
	size_t budget;		/* 0: no bound */
};

/* Count bytes more against m (NULL: none); -ENOBUFS, counting none, past it. */
static inline int fxt_memory_charge(struct fxt_memory *m, size_t bytes)
{
	if (!m)
		return 0;
	if (m->budget && (m->used > m->budget || bytes > m->budget - m->used))
		return -ENOBUFS;
	m->used += bytes;
	return 0;
}

static inline void fxt_memory_release(struct fxt_memory *m, size_t bytes)
{
	if (m)
		m->used -= bytes;
}

/*
 * fxt_tables_new() for a reader: the tables, their blocks, string bytes and
 * thread table count against memory, and fxt_tables_apply() returns
 * -ENOBUFS for a definition that would go past its budget.  Sets *err to
 * -ENOMEM or -ENOBUFS when it returns NULL.
 */
struct fxt_tables *fxt_tables_new_counted(uint32_t provider_id,
					  struct fxt_memory *memory, int *err);

/* Report a problem at a byte offset: count it, format it if anyone listens. */
__attribute__((format(printf, 4, 5)))
void fxt_report(struct fxt_sink *sink, uint64_t offset, enum fxt_rule_id rule,
		const char *fmt, ...);

#endif /* FXT_INTERNAL_H */
