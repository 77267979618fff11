// SPDX-License-Identifier: GPL-2.0
/*
 * recover.c - `fxtrace recover`: cut a file fxtrace-drain did not finish
 * at its flush watermark (user/drain/flush_mark.h), below which every byte
 * was written; what lies after it may have holes.  Or turn the spool a
 * crashed program left (libfxtrace without the module) into a trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fxt.h>

#include "fxtctl.h"
#include "fxtrace.h"
#include "output_file.h"

/* The first len bytes of fd into out. */
static int copy_prefix(int fd, uint64_t len, int out)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n, w;

	while ((uint64_t)off < len) {
		n = pread(fd, buf, len - (uint64_t)off < sizeof(buf) ?
				   (size_t)(len - (uint64_t)off) : sizeof(buf), off);
		if (n <= 0)
			return n ? -errno : -EIO;
		for (w = 0; w < n;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0)
				return -errno;
			w += k;
		}
		off += n;
	}
	return 0;
}

/*
 * A spool's regions, each one thread's buffer, written one after the other
 * behind a magic record into o; a region whose records do not decode
 * cleanly (the program may have scribbled over it before dying) is left
 * out.  Closes sp and o.
 */
static int recover_spool(struct fxtctl_spool *sp, const char *path,
			 struct fxtrace_output *o)
{
	const __u64 magic = FXT_MAGIC_WORD;
	struct fxtctl_buffer b;
	int k, ret = 0, kept = 0, left_out = 0, out = fileno(o->file);
	size_t offset = 0;

	if (write(out, &magic, sizeof(magic)) != sizeof(magic))
		ret = -EIO;
	while (!ret && (k = fxtctl_spool_next(sp, &offset, &b)) == 1) {
		uint64_t errors;

		ret = fxtctl_write_buffer(out, &b, &errors);
		if (ret == 0) {
			fprintf(stderr, "fxtrace recover: %s: thread %u's buffer has %" PRIu64 " errors; left out\n",
				path, b.hdr->tid, errors);
			left_out++;
		} else if (ret == -ENOBUFS) {
			fprintf(stderr, "fxtrace recover: %s: thread %u's buffer takes more memory to check than a real one could; left out\n",
				path, b.hdr->tid);
			left_out++;
			ret = 0;
		} else if (ret == 1) {
			kept++;
			ret = 0;
		}
	}
	if (!ret && k < 0)
		fprintf(stderr, "fxtrace recover: %s: %s at offset %zu; the rest is left out\n",
			path, k == -EINVAL ? "no buffer" : strerror(-k),
			offset);
	fxtctl_spool_close(sp);
	if (ret)
		fprintf(stderr, "fxtrace recover: %s: %s%s\n", o->path,
			strerror(-ret), fxtrace_output_kept(o));
	if (fxtrace_output_close(o, "recover", !ret) || ret)
		return 1;
	printf("%s: %d thread buffers written to %s, %d left out\n", path, kept,
	       o->path, left_out);
	return 0;
}

/* A spool starts with a buffer header, a trace with the FXT magic. */
static bool is_spool(int fd)
{
	__u32 magic;

	return pread(fd, &magic, sizeof(magic), 0) == sizeof(magic) &&
	       magic == FXTRACE_BUFFER_MAGIC;
}

int cmd_recover(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path, *output = NULL;
	struct fxtrace_flush f;
	struct fxtrace_output o;
	struct stat st;
	int opt, fd, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			ret = fxtrace_trace_output_error("recover", optarg);
			if (ret)
				return ret;
			output = optarg;
			break;
		case 'h':
			return fxtrace_cmd_help("recover");
		default:
			return fxtrace_option_error("recover", opt, argv, options);
		}
	}
	if (argc - optind != 1)
		return fxtrace_usage_error("recover", argc == optind ?
					   "no FILE given" : "one FILE only");
	path = argv[optind];
	/*
	 * Opened once, and only a regular file (a spool's owner may put a
	 * device or FIFO at its name, whose open alone may act): what is
	 * read below is the file checked here.
	 */
	fd = fxtctl_open_regular(path, O_RDONLY, &st);
	if (fd == -EINVAL) {
		fprintf(stderr, "fxtrace recover: %s: not a regular file\n", path);
		return 1;
	}
	if (fd < 0) {
		fprintf(stderr, "fxtrace recover: cannot open %s: %s\n", path,
			strerror(-fd));
		return 1;
	}
	/* Cut FILE in place is what leaving -o out is for. */
	if (output && fxtrace_output_is_input("recover", output, fd, path)) {
		close(fd);
		return 1;
	}
	if (is_spool(fd)) {
		char spool_output[4096];
		size_t n = strlen(path);
		/* -o names a file; a derived name must be a regular file. */
		int flags = output ? FXTCTL_OUTPUT_STREAM : 0;
		struct fxtctl_spool sp;

		if (!output) {
			if (n < 7 || strcmp(path + n - 6, ".spool") ||
			    n - 6 >= sizeof(spool_output)) {
				close(fd);
				return fxtrace_usage_error("recover",
							   "a spool not named TRACE.spool needs -o OUT");
			}
			memcpy(spool_output, path, n - 6);
			spool_output[n - 6] = '\0';
			output = spool_output;
		}
		if (fxtrace_output_create(&o, "recover", output, flags)) {
			close(fd);
			return 1;
		}
		fxtctl_spool_init(&sp, fd, (size_t)st.st_size);
		return recover_spool(&sp, path, &o);
	}
	/*
	 * Cut in place: the file looked at above, not written through a
	 * symbolic link or with other hard links (as no output is) nor
	 * another file put at the name since.
	 */
	if (!output) {
		struct stat now;
		int rw = fxtctl_open_regular(path, O_RDWR | O_NOFOLLOW, &now);

		if (rw == -ELOOP || (rw < 0 && rw != -EINVAL)) {
			fprintf(stderr, "fxtrace recover: cannot open %s: %s%s\n",
				path, strerror(-rw),
				rw == -ELOOP ? fxtctl_output_refusal(rw) : "");
			close(fd);
			return 1;
		}
		if (rw >= 0 && now.st_nlink > 1) {
			fprintf(stderr, "fxtrace recover: %s: %s%s\n", path,
				strerror(EMLINK), fxtctl_output_refusal(-EMLINK));
			close(rw);
			close(fd);
			return 1;
		}
		if (rw < 0 || now.st_dev != st.st_dev ||
		    now.st_ino != st.st_ino) {
			fprintf(stderr, "fxtrace recover: %s was replaced while it was opened; not cut\n",
				path);
			if (rw >= 0)
				close(rw);
			close(fd);
			return 1;
		}
		close(fd);
		fd = rw;
	}
	ret = fxtrace_flush_read(fd, &f);
	if (ret) {
		fprintf(stderr, "fxtrace recover: cannot read %s: %s\n", path,
			strerror(-ret));
	} else if (!f.marked) {
		fprintf(stderr, "fxtrace recover: %s has no flush mark: fxtrace-drain did not write it\n",
			path);
		ret = -EINVAL;
	} else if (f.flushed > f.size) {
		fprintf(stderr, "fxtrace recover: %s: the drainer flushed 0x%06" PRIx64
			" bytes but the file has 0x%06" PRIx64 ": bytes it wrote are lost\n",
			path, f.flushed, f.size);
		ret = -EINVAL;
	} else if (output && fxtrace_output_create(&o, "recover", output,
						   FXTCTL_OUTPUT_STREAM)) {
		/* -o: a stream will do. */
		ret = -EEXIST;
	} else {
		if (output)
			ret = copy_prefix(fd, f.flushed, fileno(o.file));
		else if (f.flushed < f.size && ftruncate(fd, (off_t)f.flushed))
			ret = -errno;
		if (ret)
			fprintf(stderr, "fxtrace recover: %s: %s%s\n",
				output ? output : path, strerror(-ret),
				output ? fxtrace_output_kept(&o) : "");
		if (output && fxtrace_output_close(&o, "recover", !ret) && !ret)
			ret = -EIO;
		if (!ret)
			printf("%s: %" PRIu64 " bytes up to the flush watermark kept, %" PRIu64 " after it cut%s%s\n",
			       path, f.flushed, f.size - f.flushed,
			       output ? ", written to " : "",
			       output ? output : "");
	}
	close(fd);
	return ret ? 1 : 0;
}
