// SPDX-License-Identifier: GPL-2.0
/* common.c - input and printing helpers shared by the fxtrace commands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flush_mark.h"
#include "fxtrace.h"

int fxtrace_open_trace(const char *cmd, const char *path)
{
	int fd;

	if (!strcmp(path, "-"))
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "fxtrace %s: cannot open %s: %s\n", cmd, path,
			strerror(errno));
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

int fxtrace_flush_read(int fd, struct fxtrace_flush *f)
{
	unsigned char bytes[FLUSH_MARK_BYTES + WINDOW_MARK_BYTES];
	struct stat st;
	ssize_t n;

	memset(f, 0, sizeof(*f));
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	f->size = (uint64_t)st.st_size;
	n = pread(fd, bytes, sizeof(bytes), FLUSH_MARK_OFFSET);
	if (n < 0)
		return -errno;
	/* A mark below its own end is not one the drainer wrote. */
	f->marked = n >= (ssize_t)FLUSH_MARK_BYTES && flush_mark_read(bytes, &f->flushed) &&
		    f->flushed >= FLUSH_MARK_OFFSET + FLUSH_MARK_BYTES;
	f->windowed = f->marked && n == (ssize_t)sizeof(bytes) &&
		      window_mark_read(bytes + FLUSH_MARK_BYTES, &f->window_lo,
				       &f->window_hi);
	return 0;
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
	fprintf(stderr, "fxtrace %s: cannot write the standard output: %s\n",
		cmd, strerror(errno ? errno : EIO));
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

int fxtrace_input_open(struct fxtrace_input *in, const char *cmd, int argc,
		       char **argv)
{
	if (argc - optind != 1)
		return fxtrace_usage_error(cmd, argc == optind ?
					   "no FILE given" : "one FILE only");
	in->cmd = cmd;
	in->path = argv[optind];
	in->src.fd = fxtrace_open_trace(cmd, in->path);
	if (in->src.fd < 0)
		return 1;
	in->reader = NULL;
	if (!fxtrace_trace_limit(cmd, in->path, in->src.fd, &in->src.left)) {
		in->reader = fxt_reader_new(print_errors, in);
		if (in->reader)
			return 0;
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

	if (in->src.fd != STDIN_FILENO)
		close(in->src.fd);
	fxt_reader_free(in->reader);
	if (walk_ret < 0) {
		fprintf(stderr, "fxtrace %s: cannot read %s: %s\n", in->cmd,
			in->path, strerror(-walk_ret));
		status = 1;
	} else if (errors) {
		fprintf(stderr,
			"fxtrace %s: %s has %" PRIu64 " error%s; 'fxtrace check %s' tells more\n",
			in->cmd, in->path, errors, errors == 1 ? "" : "s",
			in->path);
		status = 1;
	}
	return status;
}

/* Length of the well-formed UTF-8 sequence at s (0 if it is not one). */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	/* fxt_utf8_valid() knows overlongs, surrogates and the upper bound. */
	return fxt_utf8_valid(s, n) ? n : 0;
}

/* A byte that stands for itself in escaped output. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * Escape s into out (when out) or into buf; quotes around it if asked.
 * Valid UTF-8 stays as it is; quotes, backslashes, control bytes and bytes
 * that are not UTF-8 are escaped.
 */
static void escape(FILE *out, char *buf, size_t size,
		   const struct fxt_string *s, bool quotes)
{
	size_t n = 0, k, len, step;
	char tmp[8];
	uint32_t i;

	if (!s->ptr) {
		const char *why = s->undefined ? "undefined" : "unkept";

		if (out)
			fprintf(out, "<%s string %u>", why, s->ref);
		else
			snprintf(buf, size, "<%s string %u>", why, s->ref);
		return;
	}
	for (i = 0; i <= s->len + 1; i += step) {
		const unsigned char *p = (const unsigned char *)s->ptr + i - 1;

		step = 1;
		if (out && i && i <= s->len && plain_ascii(*p)) {
			/* A run that needs no escaping goes out in one write. */
			while (i + step <= s->len && plain_ascii(p[step]))
				step++;
			fwrite(p, 1, step, out);
			continue;
		}
		if (i == 0 || i == s->len + 1) {
			if (!quotes)
				continue;
			strcpy(tmp, "\"");
		} else if (*p == '"' || *p == '\\') {
			snprintf(tmp, sizeof(tmp), "\\%c", *p);
		} else if (*p >= 0x20 && *p != 0x7f &&
			   (step = utf8_sequence(p, s->len + 1 - i))) {
			/* Printable ASCII, or a whole UTF-8 character. */
			memcpy(tmp, p, step);
			tmp[step] = '\0';
		} else {
			step = 1;
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
		}
		if (out) {
			fputs(tmp, out);
			continue;
		}
		len = strlen(tmp);
		if (n + len >= size)
			break;
		for (k = 0; k < len; k++)
			buf[n++] = tmp[k];
	}
	if (!out && size)
		buf[n < size ? n : size - 1] = '\0';
}

void fxtrace_print_quoted(FILE *out, const struct fxt_string *s)
{
	escape(out, NULL, 0, s, true);
}

void fxtrace_print_escaped(FILE *out, const struct fxt_string *s)
{
	escape(out, NULL, 0, s, false);
}

void fxtrace_format_quoted(char *buf, size_t size, const struct fxt_string *s)
{
	escape(NULL, buf, size, s, true);
}

void fxtrace_print_arg(FILE *out, const struct fxt_arg *a)
{
	fxtrace_print_escaped(out, &a->name);
	fputc('=', out);
	switch (a->type) {
	case FXT_ARG_NULL:
		fputs("null", out);
		break;
	case FXT_ARG_INT32:
	case FXT_ARG_INT64:
		fprintf(out, "%" PRId64, a->value.i64);
		break;
	case FXT_ARG_UINT32:
	case FXT_ARG_UINT64:
	case FXT_ARG_KOID:
		fprintf(out, "%" PRIu64, a->value.u64);
		break;
	case FXT_ARG_DOUBLE:
		fprintf(out, "%.17g", a->value.f64);
		break;
	case FXT_ARG_STRING:
		fxtrace_print_quoted(out, &a->value.str);
		break;
	case FXT_ARG_POINTER:
		fprintf(out, "0x%" PRIx64, a->value.u64);
		break;
	case FXT_ARG_BOOL:
		fputs(a->value.b ? "true" : "false", out);
		break;
	case FXT_ARG_BLOB:
		fprintf(out, "<blob %u bytes>", a->value.blob.len);
		break;
	default:
		fprintf(out, "<type %u>", a->type);
		break;
	}
}

void fxtrace_print_seconds(FILE *out, int64_t ns)
{
	fprintf(out, "%" PRId64 ".%09" PRId64, ns / 1000000000,
		ns % 1000000000);
}

void fxtrace_print_json_string(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	fputc('"', out);
	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			/* A run of ASCII that needs no escaping: one write. */
			for (n = 1; i + n < len && s[i + n] >= 0x20 &&
			     s[i + n] < 0x80 && s[i + n] != '"' &&
			     s[i + n] != '\\'; n++)
				;
			fwrite(s + i, 1, n, out);
			i += n;
		} else if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
			i++;
		} else if (c < 0x20) {
			/* JSON's short escapes where there is one. */
			const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" :
					  c == '\r' ? "\\r" : c == '\b' ? "\\b" :
					  c == '\f' ? "\\f" : NULL;

			if (esc)
				fputs(esc, out);
			else
				fprintf(out, "\\u%04x", c);
			i++;
		} else if ((n = utf8_sequence(s + i, len - i))) {
			fwrite(s + i, 1, n, out);
			i += n;
		} else {
			fputs("\\ufffd", out);
			i++;
		}
	}
	fputc('"', out);
}
