/* SPDX-License-Identifier: GPL-2.0 */
/* fxt_internal.h - what the decoder's files share and nobody else needs. */
#ifndef FXT_INTERNAL_H
#define FXT_INTERNAL_H

#include "fxt_reader.h"

/* Report a problem at a byte offset: count it, format it if anyone listens. */
__attribute__((format(printf, 4, 5)))
void fxt_report(struct fxt_sink *sink, uint64_t offset, enum fxt_rule_id rule,
		const char *fmt, ...);

#endif /* FXT_INTERNAL_H */
