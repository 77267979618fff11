/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_keep.h - whether a file about to be overwritten holds what
 * `fxtrace recover` could still save: a libfxtrace spool, or a trace
 * fxtrace-drain wrote (its flush mark, user/drain/flush_mark.h).  The one
 * check of the fxtrace commands' outputs and of fxtrace-drain's -o.
 */
#ifndef TRACE_KEEP_H
#define TRACE_KEEP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The flush mark of a file fxtrace-drain wrote (user/drain/flush_mark.h):
 * the offset below which every byte was written.
 */
struct fxtrace_flush {
	bool marked;		/* the file has a flush mark */
	uint64_t flushed;	/* what it says */
	uint64_t size;		/* of the file */
	bool windowed;		/* and a session window after it */
	uint64_t window_lo, window_hi;	/* ns */
};

/*
 * Read the flush mark of fd when it is a regular file.  Returns 0 (with
 * f->marked false for other files and other writers) or -errno.
 */
int fxtrace_flush_read(int fd, struct fxtrace_flush *f);

/*
 * What trace_keep_recoverable() keeps besides a libfxtrace spool: any
 * trace fxtrace-drain wrote (it has a flush mark: stop -o, recover -o,
 * export -o, report --html), or only one a killed drainer left unfinished
 * (its mark is not at its end: record -o and fxtrace-drain -o, which
 * replace a finished trace as drainers do).
 */
enum fxtrace_keep {
	FXTRACE_KEEP_MARKED,
	FXTRACE_KEEP_UNFINISHED,
};

/*
 * Whether path, which who ("fxtrace record", "fxtrace-drain") is about to
 * overwrite, must be left as it is, said on stderr ("who: ..."; option
 * names the output in the advice): what `fxtrace recover` would save of a
 * spool (a buffer header at 0) or of a drainer's trace (up to its flush
 * mark) would be gone.  fd: path opened for writing and not yet truncated,
 * read through a second descriptor that must be the same file (an error
 * also keeps it); or -1: path itself, if a regular file who may read.
 */
bool trace_keep_recoverable(const char *who, const char *option,
			    const char *path, int fd, enum fxtrace_keep keep);

#endif /* TRACE_KEEP_H */
