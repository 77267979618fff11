// SPDX-License-Identifier: GPL-2.0
/* common.c - input and printing helpers shared by the fxtrace commands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include <linux/fxtrace.h>

#include "flush_mark.h"
#include "fxt_map.h"
#include "fxtrace.h"
#include "output_file.h"
#include "size.h"

const char *fxtrace_trace_path(const char *cmd, int argc, char **argv,
			       const char *input)
{
	if (argc - optind > !input) {
		fxtrace_usage_error(cmd, input ? "-i and FILE name two traces" :
					  "one FILE only");
		return NULL;
	}
	if (input)
		return input;
	return argc > optind ? argv[optind] : FXTRACE_DEFAULT_TRACE;
}

int fxtrace_open_trace(const char *cmd, const char *path)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-"))
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Refused before anything is written: export's output, for one. */
	if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0)
		fprintf(stderr, "fxtrace %s: cannot open %s: %s%s\n", cmd, path,
			strerror(errno), errno == ENOENT &&
			!strcmp(path, FXTRACE_DEFAULT_TRACE) ?
			" (try 'fxtrace record' first)" : "");
	return fd;
}

ssize_t fxtrace_read_source(void *ctx, void *buf, size_t len)
{
	struct fxtrace_source *src = ctx;
	ssize_t n;

	if (len > src->left)
		len = (size_t)src->left;
	if (!len)
		return 0;
	do {
		n = read(src->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	src->left -= (uint64_t)n;
	return n;
}

int fxtrace_walk(struct fxt_reader *r, fxt_read_fn *read, void *read_ctx,
		 fxt_record_fn *fn, void *ctx)
{
	struct fxtrace_source *src = read_ctx;
	int ret;

	if (read == fxtrace_read_source && src->fd != STDIN_FILENO) {
		ret = fxt_reader_read_map(r, src->fd, src->left, fn, ctx);
		if (ret != -ENODEV)
			return ret;
	}
	return fxt_reader_read(r, read, read_ctx, fn, ctx);
}

void fxtrace_read_failed(const char *cmd, const char *path, int fd,
			 const struct fxt_reader *r, int err)
{
	struct stat st;

	if (err == -ENODATA && !fstat(fd, &st)) {
		fprintf(stderr, "fxtrace %s: %s was cut to 0x%06llx bytes while being read: the record at 0x%06" PRIx64
			" and the rest are gone\n",
			cmd, path, (unsigned long long)st.st_size,
			fxt_reader_offset(r));
		return;
	}
	if (err == -ENOBUFS) {
		fprintf(stderr, "fxtrace %s: %s: the record at 0x%06" PRIx64
			" would take the reader's string and thread tables and names past its memory limit of %zu bytes; the file is not read past it ('fxtrace %s --memory-limit=SIZE %s' raises the limit, 0 lifts it)\n",
			cmd, path, fxt_reader_offset(r),
			fxt_reader_memory_budget(r), cmd, path);
		return;
	}
	if (err == -EFBIG) {
		fprintf(stderr, "fxtrace %s: %s: the lines up to the record at 0x%06" PRIx64
			" take more than the memory limit of %zu bytes to sort; the file is not read past it ('fxtrace %s --file-order %s' does not sort them, --memory-limit=SIZE raises the limit, 0 lifts it)\n",
			cmd, path, fxt_reader_offset(r),
			fxt_reader_memory_budget(r), cmd, path);
		return;
	}
	fprintf(stderr, "fxtrace %s: cannot read %s: %s\n", cmd, path,
		strerror(-err));
}

int fxtrace_memory_limit_option(const char *cmd, const char *arg,
				uint64_t *limit)
{
	/* Below SIZE_MAX: on 64 bits, UINT64_MAX is FXTRACE_MEMORY_LIMIT_AUTO. */
	if (fxtctl_parse_size(arg, SIZE_MAX - 1, limit))
		return fxtrace_usage_error(cmd, "--memory-limit=%s: a size in bytes, K or M (0: no limit)",
					   arg);
	return 0;
}

void fxtrace_set_memory_limit(struct fxt_reader *r, int fd, uint64_t limit)
{
	uint64_t size = 0;
	struct stat st;

	/*
	 * The file's size, but not past the blocks it has: a hole holds no
	 * records, and a terabyte of it after a few megabytes of crafted
	 * ones would lift the limit.
	 */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
		if ((uint64_t)st.st_blocks * 512 < size)
			size = (uint64_t)st.st_blocks * 512;
	}
	if (limit == FXTRACE_MEMORY_LIMIT_AUTO)
		limit = fxt_memory_budget_for(size);
	fxt_reader_set_memory_budget(r, (size_t)limit);
}

int fxtrace_trace_limit(const char *cmd, const char *path, int fd,
			uint64_t *limit)
{
	struct fxtrace_flush f;
	int ret = fxtrace_flush_read(fd, &f);

	*limit = UINT64_MAX;
	if (ret) {
		fprintf(stderr, "fxtrace %s: cannot read %s: %s\n", cmd, path,
			strerror(-ret));
		return 1;
	}
	if (!f.marked || f.flushed == f.size)
		return 0;
	if (f.flushed > f.size) {
		fprintf(stderr, "fxtrace %s: %s: the drainer flushed 0x%06" PRIx64
			" bytes but the file has 0x%06" PRIx64 ": it was cut short\n",
			cmd, path, f.flushed, f.size);
		return 1;
	}
	fprintf(stderr, "fxtrace %s: %s: reading up to the flush watermark 0x%06" PRIx64
		"; the %" PRIu64 " bytes after it were being written when the drainer stopped ('fxtrace recover %s' cuts them)\n",
		cmd, path, f.flushed, f.size - f.flushed, path);
	*limit = f.flushed;
	return 0;
}

int fxtrace_output_status(const char *cmd, int status)
{
	if (!fflush(stdout) && !ferror(stdout))
		return status;
	fprintf(stderr, "fxtrace%s%s: cannot write the standard output: %s\n",
		cmd ? " " : "", cmd ? cmd : "", strerror(errno ? errno : EIO));
	return status ? status : 1;
}

static void print_errors(void *ctx, const struct fxt_diag *diag)
{
	const struct fxtrace_input *in = ctx;

	if (diag->severity != FXT_ERROR)
		return;
	fprintf(stderr, "fxtrace %s: %s+0x%06" PRIx64 ": error: %s: %s\n",
		in->cmd, in->path, diag->offset, diag->rule_name, diag->message);
}

bool fxtrace_output_is_input(const char *cmd, const char *output,
			     int input_fd, const char *input)
{
	struct stat in, out;

	if (fstat(input_fd, &in) || stat(output, &out) ||
	    in.st_dev != out.st_dev || in.st_ino != out.st_ino)
		return false;
	fprintf(stderr, "fxtrace %s: %s is the input %s: writing it would destroy it\n",
		cmd, output, input);
	return true;
}

/* The option that names cmd's output, for a message. */
static const char *output_option(const char *cmd)
{
	return strcmp(cmd, "report") ? "-o" : "--html";
}

bool fxtrace_keep_recoverable(const char *cmd, const char *path, int fd,
			      enum fxtrace_keep keep)
{
	char who[64];

	snprintf(who, sizeof(who), "fxtrace %s", cmd);
	return trace_keep_recoverable(who, output_option(cmd), path, fd, keep);
}

/*
 * The pending file (fxtrace.h), removed when a signal ends the command,
 * and the child that gets the signal too; set and cleared with those
 * signals blocked.
 */
static char pending_tmp[sizeof(((struct fxtrace_output *)0)->tmp)];
static volatile sig_atomic_t pending_child;
static const int pending_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define PENDING_SIGNALS (sizeof(pending_signals) / sizeof(pending_signals[0]))
static struct sigaction pending_old[PENDING_SIGNALS];

static void pending_signal(int sig)
{
	if (pending_tmp[0])
		unlink(pending_tmp);
	if (pending_child > 0)
		kill(pending_child, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

void fxtrace_pending_mask(int how, sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < PENDING_SIGNALS; i++)
		sigaddset(&set, pending_signals[i]);
	sigprocmask(how, how == SIG_BLOCK ? &set : old,
		    how == SIG_BLOCK ? old : NULL);
}

void fxtrace_pending_start(const char *name)
{
	struct sigaction sa = { .sa_handler = pending_signal };
	size_t i;

	snprintf(pending_tmp, sizeof(pending_tmp), "%s", name);
	for (i = 0; i < PENDING_SIGNALS; i++) {
		sigaction(pending_signals[i], NULL, &pending_old[i]);
		if (pending_old[i].sa_handler != SIG_IGN)
			sigaction(pending_signals[i], &sa, NULL);
	}
}

/* Forget the pending file (removed first if remove): handlers put back. */
static void pending_stop(bool remove)
{
	size_t i;

	if (remove && pending_tmp[0])
		unlink(pending_tmp);
	pending_tmp[0] = '\0';
	for (i = 0; i < PENDING_SIGNALS; i++)
		sigaction(pending_signals[i], &pending_old[i], NULL);
}

void fxtrace_pending_end(void)
{
	sigset_t mask;

	fxtrace_pending_mask(SIG_BLOCK, &mask);
	pending_stop(true);
	fxtrace_pending_mask(SIG_SETMASK, &mask);
}

pid_t fxtrace_pending_fork(void)
{
	sigset_t mask;
	pid_t pid;

	fxtrace_pending_mask(SIG_BLOCK, &mask);
	pid = fork();
	if (pid > 0)
		pending_child = pid;
	fxtrace_pending_mask(SIG_SETMASK, &mask);
	return pid;
}

void fxtrace_pending_reaping(void)
{
	pending_child = 0;
}

/*
 * The new file next to out->path, with the handlers on (but for a signal
 * ignored: a background job's SIGINT).  old: what is at the name, or NULL.
 */
static int pending_create(struct fxtrace_output *out, const struct stat *old)
{
	sigset_t mask;
	int fd;

	fxtrace_pending_mask(SIG_BLOCK, &mask);
	fd = fxtctl_create_temp_output(out->path, out->tmp, sizeof(out->tmp));
	if (fd >= 0) {
		out->unnamed = !out->tmp[0];
		fxtrace_pending_start(out->tmp);
	}
	fxtrace_pending_mask(SIG_SETMASK, &mask);
	/*
	 * An overwritten file used to keep its mode and owner.  Best effort,
	 * but a permission goes only to whom it was given: where the owner or
	 * group cannot be kept (a group the caller is not in), its bits are
	 * left out, or the caller's group could read what only the old group
	 * could.
	 */
	if (fd >= 0 && old) {
		mode_t mode = old->st_mode & 07777;
		struct stat st;

		if (fchown(fd, old->st_uid, old->st_gid))
			errno = 0;
		if (fstat(fd, &st))
			mode = 0600;
		else if (st.st_uid != old->st_uid)
			mode &= 0700;
		else if (st.st_gid != old->st_gid)
			mode &= ~(mode_t)(S_ISGID | 0070);
		if (fchmod(fd, mode))
			errno = 0;
	}
	return fd;
}

/* A name for the unnamed new file, for pending_finish() to rename. */
static int pending_name(struct fxtrace_output *out)
{
	sigset_t mask;
	int ret;

	fxtrace_pending_mask(SIG_BLOCK, &mask);
	ret = fxtctl_name_temp_output(fileno(out->file), out->path, out->tmp,
				      sizeof(out->tmp));
	if (!ret)
		memcpy(pending_tmp, out->tmp, sizeof(pending_tmp));
	fxtrace_pending_mask(SIG_SETMASK, &mask);
	return ret;
}

/*
 * Rename the new file over out->path (whole: it has a name) or remove it
 * (an unnamed one is gone once closed); the handlers off.
 */
static int pending_finish(struct fxtrace_output *out, bool whole)
{
	sigset_t mask;
	int ret = 0;

	fxtrace_pending_mask(SIG_BLOCK, &mask);
	if (whole && rename(out->tmp, out->path))
		ret = -errno;
	pending_stop(!whole || ret);
	fxtrace_pending_mask(SIG_SETMASK, &mask);
	return ret;
}

/* fd as out->file; 0, or 1 after a message (fd closed). */
static int output_fdopen(struct fxtrace_output *out, const char *cmd, int fd)
{
	out->file = fdopen(fd, "w");
	if (out->file)
		return 0;
	fprintf(stderr, "fxtrace %s: %s: %s\n", cmd,
		out->tmp[0] ? out->tmp : out->path, strerror(errno));
	close(fd);
	return 1;
}

int fxtrace_output_open(struct fxtrace_output *out,
			const struct fxtrace_input *in, const char *path)
{
	/* Written in place, the input would be truncated before it is read. */
	if (fxtrace_output_is_input(in->cmd, path, in->src.fd, in->path))
		return 1;
	return fxtrace_output_create(out, in->cmd, path, FXTCTL_OUTPUT_STREAM);
}

int fxtrace_output_create(struct fxtrace_output *out, const char *cmd,
			  const char *path, int flags)
{
	struct stat st;
	int fd, tmp_fd;
	bool exists;

	out->file = NULL;
	out->path = path;
	out->tmp[0] = '\0';
	out->unnamed = false;
	exists = !lstat(path, &st);
	out->existed = exists;
	fd = -1;
	if (exists) {
		/*
		 * What is there is checked as any output's name is, and
		 * not truncated; a FIFO or device is what is written.
		 */
		fd = fxtctl_create_output(path, flags | FXTCTL_OUTPUT_KEEP);
		if (fd >= 0 && fstat(fd, &st)) {
			int err = errno;

			close(fd);
			fd = -err;
		}
		if (fd < 0) {
			fprintf(stderr, "fxtrace %s: cannot create %s: %s%s\n",
				cmd, path, strerror(-fd),
				fxtctl_output_refusal(fd));
			return 1;
		}
		if (!S_ISREG(st.st_mode))
			return output_fdopen(out, cmd, fd);
		if (fxtrace_keep_recoverable(cmd, path, fd,
					     FXTRACE_KEEP_MARKED)) {
			close(fd);
			return 1;
		}
	}
	tmp_fd = pending_create(out, exists ? &st : NULL);
	if (tmp_fd >= 0) {
		if (fd >= 0)
			close(fd);
		if (!output_fdopen(out, cmd, tmp_fd))
			return 0;
		pending_finish(out, false);
		return 1;
	}
	/*
	 * A file we may write in a directory we may not add to: written in
	 * place, as before, so a failure leaves it cut short.
	 */
	if (fd >= 0 && (tmp_fd == -EACCES || tmp_fd == -EPERM)) {
		if (!ftruncate(fd, 0))
			return output_fdopen(out, cmd, fd);
		tmp_fd = -errno;
	}
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "fxtrace %s: cannot create %s: %s\n", cmd, path,
		strerror(-tmp_fd));
	return 1;
}

const char *fxtrace_output_kept(const struct fxtrace_output *out)
{
	if (!out->tmp[0] && !out->unnamed)
		return "";
	return out->existed ? " (the file is left as it was)" :
	       " (no file is made)";
}

/*
 * fsync() fd: 0, or -errno.  EINVAL is a file that cannot be synced (a
 * FIFO, a character device, a file system without fsync): nothing to
 * wait for.
 */
static int output_sync(int fd)
{
	return fsync(fd) && errno != EINVAL ? -errno : 0;
}

/*
 * fsync() the directory path is named in: 0, or -errno.  A directory we
 * may write but not read (mode -wx, a drop box) cannot be opened to be
 * synced: nothing to wait for either, as the rename was allowed.
 */
static int output_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[sizeof(((struct fxtrace_output *)0)->tmp)];
	int fd, ret;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
			 (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? 0 : -errno;
	ret = output_sync(fd);
	close(fd);
	return ret;
}

/*
 * The file is synced before the rename and its directory after, as git
 * and dpkg do: the rename may reach the disk before the file's data,
 * which a crash (power loss) then leaves OUT empty or cut short where a
 * whole older file was; and, unsynced, the rename itself may be undone.
 * For stop -o, which ends the session next, the data exists nowhere
 * else.
 */
int fxtrace_output_close(struct fxtrace_output *out, const char *cmd,
			 bool whole)
{
	bool write_failed = fflush(out->file) || ferror(out->file);
	int err = errno;

	if (!write_failed && whole) {
		int ret = output_sync(fileno(out->file));

		if (ret) {
			write_failed = true;
			err = -ret;
		}
	}
	/* Named while still open: closed, it would be gone. */
	if (!write_failed && whole && out->unnamed) {
		int ret = pending_name(out);

		if (ret) {
			write_failed = true;
			err = -ret;
		}
	}
	if (fclose(out->file) && !write_failed) {
		write_failed = true;
		err = errno;
	}
	if (write_failed)
		whole = false;
	if (out->tmp[0] || out->unnamed) {
		int ret = pending_finish(out, whole);

		if (ret && !write_failed) {
			write_failed = true;
			err = -ret;
		}
		if (!write_failed) {
			ret = output_sync_dir(out->path);
			if (ret) {
				fprintf(stderr, "fxtrace %s: cannot sync the directory of %s: %s (the file is written whole, but a crash may undo its replacement)\n",
					cmd, out->path, strerror(-ret));
				return FXTRACE_OUTPUT_DIR_UNSYNCED;
			}
		}
	}
	if (!write_failed)
		return 0;
	fprintf(stderr, "fxtrace %s: cannot write %s: %s%s\n", cmd, out->path,
		strerror(err ? err : EIO), fxtrace_output_kept(out));
	return 1;
}

int fxtrace_input_open(struct fxtrace_input *in, const char *cmd,
		       const char *path, uint64_t memory_limit)
{
	in->path = path;
	in->cmd = cmd;
	in->src.fd = fxtrace_open_trace(cmd, in->path);
	if (in->src.fd < 0)
		return 1;
	in->reader = NULL;
	if (!fxtrace_trace_limit(cmd, in->path, in->src.fd, &in->src.left)) {
		in->reader = fxt_reader_new(print_errors, in);
		if (in->reader) {
			fxtrace_set_memory_limit(in->reader, in->src.fd,
						 memory_limit);
			return 0;
		}
		fprintf(stderr, "fxtrace %s: out of memory\n", cmd);
	}
	if (in->src.fd != STDIN_FILENO)
		close(in->src.fd);
	return 1;
}

int fxtrace_input_close(struct fxtrace_input *in, int walk_ret)
{
	uint64_t errors = fxt_reader_count(in->reader, FXT_ERROR);
	int status = 0;

	if (walk_ret < 0) {
		fxtrace_read_failed(in->cmd, in->path, in->src.fd, in->reader,
				    walk_ret);
		status = 1;
	} else if (errors) {
		fprintf(stderr,
			"fxtrace %s: %s has %" PRIu64 " error%s; 'fxtrace check %s' tells more\n",
			in->cmd, in->path, errors, errors == 1 ? "" : "s",
			in->path);
		status = 1;
	}
	if (in->src.fd != STDIN_FILENO)
		close(in->src.fd);
	fxt_reader_free(in->reader);
	return status;
}

/* ---- threads ------------------------------------------------------------- */

bool fxtrace_record_thread(const struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_REC_EVENT:
	case FXT_REC_LOG:
	case FXT_REC_LARGE:
	case FXT_REC_THREAD:
		return !rec->thread.undefined;
	}
	return false;
}

uint64_t fxtrace_thread_process(const struct fxt_record *rec)
{
	uint64_t pid = 0;
	uint32_t i;

	if (rec->type != FXT_REC_KOBJ || rec->subtype != FXT_KOBJ_THREAD)
		return 0;
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_KOID &&
		    fxt_string_is(&rec->args[i].name, "process"))
			pid = rec->args[i].value.u64;
	return pid;
}

int fxtrace_learn_pid(struct fxt_map *pids, uint64_t pid, uint64_t tid)
{
	uint64_t *p = fxt_map_put(pids, tid, 0, NULL);

	if (!p)
		return -ENOMEM;
	*p = pid;
	return 0;
}

/* ---- the output buffer --------------------------------------------------- */

void fxtrace_out_init(struct fxtrace_out *o, FILE *file)
{
	memset(o, 0, sizeof(*o));
	o->file = file;
}

void fxtrace_out_flush(struct fxtrace_out *o)
{
	if (o->file && o->len && fwrite(o->buf, 1, o->len, o->file) != o->len)
		o->write_failed = true;
	if (o->file)
		o->len = 0;
}

void fxtrace_out_free(struct fxtrace_out *o)
{
	fxtrace_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

char *fxtrace_out_room(struct fxtrace_out *o, size_t n)
{
	size_t cap;
	char *bigger;

	if (o->len + n <= o->cap)
		return o->buf + o->len;
	if (o->file && o->len) {
		fxtrace_out_flush(o);
		if (n <= o->cap)
			return o->buf;
	}
	if (o->failed)
		return NULL;
	/* In memory, start small: the FILE versions below format one string. */
	cap = o->cap ? 2 * o->cap : o->file ? FXTRACE_OUT_FLUSH : 256;
	while (cap < o->len + n)
		cap *= 2;
	bigger = realloc(o->buf, cap);
	if (!bigger) {
		o->failed = true;
		return NULL;
	}
	o->buf = bigger;
	o->cap = cap;
	return o->buf + o->len;
}

void fxtrace_out_bytes_slow(struct fxtrace_out *o, const void *p, size_t n)
{
	char *dst = fxtrace_out_room(o, n);

	if (!dst)
		return;
	memcpy(dst, p, n);
	o->len += n;
}

void fxtrace_out_spaces(struct fxtrace_out *o, size_t n)
{
	char *dst = fxtrace_out_room(o, n);

	if (dst) {
		memset(dst, ' ', n);
		o->len += n;
	}
}

/* v in decimal at the end of a 20-byte tmp; returns where it starts. */
static char *decimal(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char *p = end;

	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

void fxtrace_out_u64(struct fxtrace_out *o, uint64_t v)
{
	char tmp[20], *p = decimal(tmp + sizeof(tmp), v);

	fxtrace_out_bytes(o, p, tmp + sizeof(tmp) - p);
}

void fxtrace_out_i64(struct fxtrace_out *o, int64_t v)
{
	char tmp[21], *p;

	p = decimal(tmp + sizeof(tmp), v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	fxtrace_out_bytes(o, p, tmp + sizeof(tmp) - p);
}

void fxtrace_out_hex0(struct fxtrace_out *o, uint64_t v, unsigned int width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16], *p = tmp + sizeof(tmp);

	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	while (p > tmp + sizeof(tmp) - width)
		*--p = '0';
	fxtrace_out_bytes(o, p, tmp + sizeof(tmp) - p);
}

void fxtrace_out_hex(struct fxtrace_out *o, uint64_t v)
{
	fxtrace_out_hex0(o, v, 0);
}

void fxtrace_out_double(struct fxtrace_out *o, double v)
{
	char *dst = fxtrace_out_room(o, 32);

	/* Shortest round-trip printing is printf's job; doubles are rare. */
	if (dst)
		o->len += snprintf(dst, 32, "%.17g", v);
}

void fxtrace_out_seconds(struct fxtrace_out *o, int64_t ns)
{
	char tmp[20], *p;

	if (ns < 0) {
		/* Never a converted timestamp; printf's signs, whatever they are. */
		p = fxtrace_out_room(o, 48);
		if (p)
			o->len += snprintf(p, 48, "%" PRId64 ".%09" PRId64,
					   ns / 1000000000, ns % 1000000000);
		return;
	}
	fxtrace_out_u64(o, (uint64_t)ns / 1000000000);
	fxtrace_out_char(o, '.');
	p = decimal(tmp + sizeof(tmp), (uint64_t)ns % 1000000000);
	while (p > tmp + sizeof(tmp) - 9)
		*--p = '0';
	fxtrace_out_bytes(o, p, 9);
}

/* ---- strings ---------------------------------------------------------------- */

/*
 * Bytes that stand for themselves: bit 0 in escaped text (printable ASCII
 * but quote and backslash), bit 1 in JSON (the same and DEL).  A table:
 * escaping is most of dump's and export's work.
 */
#define PLAIN_TEXT 1
#define PLAIN_JSON 2

static unsigned char plain_bytes[256];

static void init_plain_bytes(void)
{
	unsigned int c;

	if (plain_bytes['a'])
		return;
	for (c = 0x20; c < 0x80; c++)
		plain_bytes[c] = c == '"' || c == '\\' ? 0 :
				 c == 0x7f ? PLAIN_JSON : PLAIN_TEXT | PLAIN_JSON;
}

static bool plain_ascii(unsigned char c)
{
	return plain_bytes[c] & PLAIN_TEXT;
}

/*
 * A C1 control (U+0080..U+009F) at p: valid UTF-8, but a terminal may act
 * on it as on ESC and the C0 controls (U+009B is CSI).
 */
static bool c1_control(const unsigned char *p, size_t len)
{
	return len >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

/*
 * Escape the bytes of s (s->ptr set) into o, in double quotes if asked.
 * Valid UTF-8 stays as it is; quotes, backslashes, control bytes and bytes
 * that are not UTF-8 are escaped.  At most limit - 1 bytes are written,
 * and only whole escapes (fxtrace_format_quoted()'s cut).
 */
static void escape(struct fxtrace_out *o, const struct fxt_string *s,
		   bool quotes, size_t limit)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s->ptr;
	size_t i = 0, n = 0, step, left;
	char unit[4];

	init_plain_bytes();
	if (quotes) {
		if (n + 1 >= limit)
			return;
		fxtrace_out_char(o, '"');
		n++;
	}
	while (i < s->len) {
		left = limit - n - 1;
		if (plain_ascii(p[i])) {
			/* A run that needs no escaping goes out in one copy. */
			for (step = 1; i + step < s->len &&
			     plain_ascii(p[i + step]); step++)
				;
			if (step > left) {
				fxtrace_out_bytes(o, p + i, left);
				return;
			}
			fxtrace_out_bytes(o, p + i, step);
			i += step;
			n += step;
			continue;
		}
		if (p[i] == '"' || p[i] == '\\') {
			unit[0] = '\\';
			unit[1] = (char)p[i];
			step = 1;
			if (n + 2 >= limit)
				return;
			fxtrace_out_bytes(o, unit, 2);
			n += 2;
		} else if (p[i] >= 0x20 && p[i] != 0x7f &&
			   !c1_control(p + i, s->len - i) &&
			   (step = fxt_utf8_sequence(p + i, s->len - i))) {
			/* A whole UTF-8 character. */
			if (n + step >= limit)
				return;
			fxtrace_out_bytes(o, p + i, step);
			n += step;
		} else {
			step = 1;
			unit[0] = '\\';
			unit[1] = 'x';
			unit[2] = hex[p[i] >> 4];
			unit[3] = hex[p[i] & 15];
			if (n + 4 >= limit)
				return;
			fxtrace_out_bytes(o, unit, 4);
			n += 4;
		}
		i += step;
	}
	if (quotes && n + 1 < limit)
		fxtrace_out_char(o, '"');
}

/* "<undefined string N>" or "<unkept string N>": s->ptr NULL. */
static void missing_string(struct fxtrace_out *o, const struct fxt_string *s)
{
	fxtrace_out_str(o, s->undefined ? "<undefined string " :
					  "<unkept string ");
	fxtrace_out_u64(o, s->ref);
	fxtrace_out_char(o, '>');
}

void fxtrace_out_quoted(struct fxtrace_out *o, const struct fxt_string *s)
{
	if (s->ptr)
		escape(o, s, true, SIZE_MAX);
	else
		missing_string(o, s);
}

void fxtrace_out_escaped(struct fxtrace_out *o, const struct fxt_string *s)
{
	if (s->ptr)
		escape(o, s, false, SIZE_MAX);
	else
		missing_string(o, s);
}

void fxtrace_format_quoted(char *buf, size_t size, const struct fxt_string *s)
{
	struct fxtrace_out o;
	size_t n;

	if (!size)
		return;
	fxtrace_out_init(&o, NULL);
	if (s->ptr)
		escape(&o, s, true, size);
	else
		missing_string(&o, s);
	n = o.failed ? 0 : o.len < size ? o.len : size - 1;
	memcpy(buf, o.buf ? o.buf : "", n);
	buf[n] = '\0';
	fxtrace_out_free(&o);
}

/* C.UTF-8, once: (locale_t)0 where it is missing. */
static locale_t utf8_locale(void)
{
	static locale_t loc;
	static bool tried;

	if (!tried) {
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
		tried = true;
	}
	return loc;
}

size_t fxtrace_text_width(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	locale_t loc = utf8_locale(), old = (locale_t)0;
	size_t i = 0, width = 0, n, k;

	/* fxtrace sets no locale: wcwidth() of C is -1 past ASCII. */
	if (loc)
		old = uselocale(loc);
	while (i < len) {
		wchar_t wc;
		int w;

		n = p[i] < 0x80 ? 1 : fxt_utf8_sequence(p + i, len - i);
		if (n < 2) {
			width++;
			i++;
			continue;
		}
		wc = p[i] & (0x7f >> n);
		for (k = 1; k < n; k++)
			wc = wc << 6 | (p[i + k] & 0x3f);
		w = wcwidth(wc);
		width += w < 0 ? 1 : (size_t)w;
		i += n;
	}
	if (loc)
		uselocale(old);
	return width;
}

void fxtrace_print_padded(FILE *out, const char *text, size_t len,
			  size_t width)
{
	size_t used = fxtrace_text_width(text, len);

	fwrite(text, 1, len, out);
	if (used < width)
		fprintf(out, "%*s", (int)(width - used), "");
}

void fxtrace_out_json_string(struct fxtrace_out *o, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;
	char esc[6];

	init_plain_bytes();
	fxtrace_out_char(o, '"');
	while (i < len) {
		unsigned char c = s[i];

		if (plain_bytes[c] & PLAIN_JSON) {
			/* A run of ASCII that needs no escaping: one copy. */
			for (n = 1; i + n < len && plain_bytes[s[i + n]] & PLAIN_JSON;
			     n++)
				;
			fxtrace_out_bytes(o, s + i, n);
			i += n;
		} else if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			fxtrace_out_bytes(o, esc, 2);
			i++;
		} else if (c < 0x20) {
			/* JSON's short escapes where there is one. */
			const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" :
					c == '\r' ? "\\r" : c == '\b' ? "\\b" :
					c == '\f' ? "\\f" : NULL;

			if (e) {
				fxtrace_out_str(o, e);
			} else {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				fxtrace_out_bytes(o, esc, 6);
			}
			i++;
		} else if (c1_control(s + i, len - i)) {
			/* The same character, escaped for a terminal's sake. */
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[s[i + 1] >> 4];
			esc[5] = hex[s[i + 1] & 15];
			fxtrace_out_bytes(o, esc, 6);
			i += 2;
		} else if ((n = fxt_utf8_sequence(s + i, len - i))) {
			fxtrace_out_bytes(o, s + i, n);
			i += n;
		} else {
			fxtrace_out_str(o, "\\ufffd");
			i++;
		}
	}
	fxtrace_out_char(o, '"');
}

/* ---- arguments ---------------------------------------------------------------- */

void fxtrace_out_json_fxt_string(struct fxtrace_out *o,
				 const struct fxt_string *s)
{
	struct fxtrace_out tmp;

	if (s->ptr) {
		fxtrace_out_json_string(o, s->ptr, s->len);
		return;
	}
	fxtrace_out_init(&tmp, NULL);
	missing_string(&tmp, s);
	fxtrace_out_json_string(o, tmp.buf, tmp.failed ? 0 : tmp.len);
	fxtrace_out_free(&tmp);
}

void fxtrace_out_arg_value(struct fxtrace_out *o, const struct fxt_arg *a,
			   enum fxtrace_arg_style style)
{
	bool json = style == FXTRACE_ARG_JSON;
	double v;

	switch (a->type) {
	case FXT_ARG_NULL:
		fxtrace_out_str(o, "null");
		break;
	case FXT_ARG_INT32:
	case FXT_ARG_INT64:
		fxtrace_out_i64(o, a->value.i64);
		break;
	case FXT_ARG_UINT32:
	case FXT_ARG_UINT64:
	case FXT_ARG_KOID:
		fxtrace_out_u64(o, a->value.u64);
		break;
	case FXT_ARG_DOUBLE:
		v = a->value.f64;
		/* JSON has no NaN or infinities: they go as strings. */
		if (json && isnan(v))
			fxtrace_out_str(o, "\"NaN\"");
		else if (json && isinf(v))
			fxtrace_out_str(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		else
			fxtrace_out_double(o, v);
		break;
	case FXT_ARG_STRING:
		if (json)
			fxtrace_out_json_fxt_string(o, &a->value.str);
		else
			fxtrace_out_quoted(o, &a->value.str);
		break;
	case FXT_ARG_POINTER:
		fxtrace_out_str(o, json ? "\"0x" : "0x");
		fxtrace_out_hex(o, a->value.u64);
		if (json)
			fxtrace_out_char(o, '"');
		break;
	case FXT_ARG_BOOL:
		fxtrace_out_str(o, a->value.b ? "true" : "false");
		break;
	default:
		if (json) {
			fxtrace_out_str(o, "\"<");
			fxtrace_out_str(o, fxt_arg_type_name(a->type));
			fxtrace_out_str(o, ">\"");
		} else if (a->type == FXT_ARG_BLOB) {
			fxtrace_out_str(o, "<blob ");
			fxtrace_out_u64(o, a->value.blob.len);
			fxtrace_out_str(o, " bytes>");
		} else {
			fxtrace_out_str(o, "<type ");
			fxtrace_out_u64(o, a->type);
			fxtrace_out_char(o, '>');
		}
		break;
	}
}

void fxtrace_out_arg(struct fxtrace_out *o, const struct fxt_arg *a)
{
	fxtrace_out_escaped(o, &a->name);
	fxtrace_out_char(o, '=');
	fxtrace_out_arg_value(o, a, FXTRACE_ARG_TEXT);
}

/* ---- the FILE versions --------------------------------------------------------- */

/* Format with call into a small buffer o_ in memory, then write it to out. */
#define PRINT_VIA_OUT(out, call)                                               \
	do {                                                                   \
		struct fxtrace_out o_;                                         \
		fxtrace_out_init(&o_, NULL);                                   \
		call;                                                          \
		if (!o_.failed && o_.len)                                      \
			fwrite(o_.buf, 1, o_.len, (out));                      \
		fxtrace_out_free(&o_);                                         \
	} while (0)

void fxtrace_print_quoted(FILE *out, const struct fxt_string *s)
{
	PRINT_VIA_OUT(out, fxtrace_out_quoted(&o_, s));
}

void fxtrace_print_escaped(FILE *out, const struct fxt_string *s)
{
	PRINT_VIA_OUT(out, fxtrace_out_escaped(&o_, s));
}

void fxtrace_print_seconds(FILE *out, int64_t ns)
{
	PRINT_VIA_OUT(out, fxtrace_out_seconds(&o_, ns));
}

void fxtrace_print_json_string(FILE *out, const char *s, size_t len)
{
	PRINT_VIA_OUT(out, fxtrace_out_json_string(&o_, s, len));
}
