// SPDX-License-Identifier: GPL-2.0
/*
 * dataplane - the drainer's data path on the host, without the module.
 *
 * Task buffers (one per traced thread) and CPU buffers are laid out in
 * memory as the kernel maps them; each pass fills one rolling half of each
 * with records written by the FXT encoder (uapi/linux/fxt.h): duration
 * begins with interned names and two arguments, ends, instants with inline
 * names and a string argument, counters; on the CPU buffers context
 * switches with their weights, wakeups and thread names.  Each half then
 * goes through output_half() (user/drain/output.c), the code fxtrace-drain
 * runs per saved half: copy out of the mapping, validate every record
 * (the fast pass, user/drain/fastpass.c, and the full decoder for the
 * records it leaves), keep the valid ones in a chunk, and the chunk is
 * written to a file (give it a tmpfs path).  Single-threaded.
 *
 * In the same run, for the same producer bytes: output_half() alone and
 * the write alone (the two parts of the first row; MB/s of producer data),
 * memcpy() into a second buffer, and md5sum(1) of a file holding them.
 * The output file is a complete trace, left in place for `fxtrace check`
 * & co (run.sh).
 *
 * Usage: dataplane [--mib N] [--json FILE] OUT.fxt   (N MiB of producer data)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "flush_mark.h"

#define SECOND		1000000000ULL
#define START		(1000 * SECOND)
#define HALF_BYTES	(1u << 20)
#define TASKS		4
#define CPUS		2
#define BUFFERS		(TASKS + CPUS)
#define DURABLE_BYTES	(1u << 16)
#define RUNS		3

struct fake {
	unsigned char *mem;
	struct fxtctl_buffer b;
	struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	unsigned char *data;
	size_t durable;
	__u64 pid, tid;
	unsigned int cpu;
};

static void put_durable(struct fake *f, const __u64 *w, size_t n)
{
	memcpy(f->data + f->durable, w, 8 * n);
	f->durable += 8 * n;
	if (f->b.kind == FXTRACE_BUFFER_TASK)
		f->ctl->durable_committed = f->durable;
	else
		f->hdr->durable_committed = f->durable;
}

/* A buffer with the kernel's announcement and the strings its records use. */
static void fake_new(struct fake *f, __u32 id, __u32 kind, __u64 pid,
		     __u64 tid, unsigned int cpu)
{
	size_t size = 8192 + DURABLE_BYTES + 2 * HALF_BYTES;
	__u64 w[64];
	__u32 n;

	memset(f, 0, sizeof(*f));
	f->mem = calloc(1, size);
	if (!f->mem)
		exit(1);
	f->hdr = (void *)f->mem;
	f->ctl = (void *)(f->mem + 4096);
	f->data = f->mem + 8192;
	f->hdr->magic = FXTRACE_BUFFER_MAGIC;
	/* As fxtrace.ko (ABI 0.8) writes it: a task buffer names its user. */
	f->hdr->header_size = sizeof(*f->hdr);
	f->hdr->owner_uid = kind == FXTRACE_BUFFER_TASK ? 1000 : ~0U;
	f->hdr->id = id;
	f->hdr->kind = kind;
	f->hdr->cpu = kind == FXTRACE_BUFFER_CPU ? cpu : ~0U;
	f->hdr->pid = pid;
	f->hdr->tid = tid;
	f->hdr->data_offset = 8192;
	f->hdr->durable_size = DURABLE_BYTES;
	f->hdr->rolling_size = HALF_BYTES;
	f->b = (struct fxtctl_buffer){ .id = id, .kind = kind, .hdr = f->hdr,
				       .ctl = f->ctl, .data = f->data,
				       .map_size = size };
	f->pid = pid;
	f->tid = tid;
	f->cpu = cpu;
	n = fxt_write_provider_info(w, id, "bench", 5);
	n += fxt_write_init(w + n, SECOND);
	put_durable(f, w, n);
	f->hdr->durable_reserved = f->durable;
	if (kind == FXTRACE_BUFFER_TASK) {
		n = fxt_write_thread(w, 1, pid, tid);
		n += fxt_write_string(w + n, 1, "app", 3);
		n += fxt_write_string(w + n, 2, "frame", 5);
		n += fxt_write_string(w + n, 3, "size", 4);
		n += fxt_write_string(w + n, 4, "count", 5);
		n += fxt_write_string(w + n, 5, "label", 5);
		n += fxt_write_string(w + n, 6, "bytes_queued", 12);
	} else {
		n = fxt_write_string(w, 1, "incoming_weight", 15);
		n += fxt_write_string(w + n, 2, "outgoing_weight", 15);
		n += fxt_write_string(w + n, 3, "weight", 6);
	}
	put_durable(f, w, n);
}

/*
 * A task's half: begin (2 args, 40 bytes), end (16), instant with an inline
 * name and an inline string value (48), counter (40).  Returns its records.
 */
static uint64_t fill_task(struct fake *f, __u64 wrap, __u64 *ts, size_t *len)
{
	__u64 *w = (__u64 *)(f->data + DURABLE_BYTES +
			     (wrap & 1) * HALF_BYTES);
	size_t n = 0, max = HALF_BYTES / 8 - 8;
	uint64_t records = 0;
	__u16 tick = fxt_inline_string_ref(4), hello = fxt_inline_string_ref(11);

	/* Whole begin-end cycles: every begin ends in its half. */
	while (n + 4 * 6 <= max || (records & 3)) {
		switch (records & 3) {
		case 0:
			w[n++] = fxt_event_hdr(5, FXT_EVENT_DURATION_BEGIN, 2,
					       1, 1, 2);
			w[n++] = (*ts)++;
			w[n++] = fxt_arg_hdr(FXT_ARG_INT64, 2, 3, 0);
			w[n++] = records;
			w[n++] = fxt_arg_hdr(FXT_ARG_INT32, 1, 4,
					     (__u32)records);
			break;
		case 1:
			w[n++] = fxt_event_hdr(2, FXT_EVENT_DURATION_END, 0, 1,
					       1, 2);
			w[n++] = (*ts)++;
			break;
		case 2:
			w[n++] = fxt_event_hdr(6, FXT_EVENT_INSTANT, 1, 1, 1,
					       tick);
			w[n++] = (*ts)++;
			n += fxt_write_stream(w + n, "tick", 4);
			n += fxt_write_arg_string(w + n, 5, "label", hello,
						  "hello world");
			break;
		default:
			w[n++] = fxt_event_hdr(5, FXT_EVENT_COUNTER, 1, 1, 1,
					       6);
			w[n++] = (*ts)++;
			n += fxt_write_arg64(w + n, FXT_ARG_INT64, 6,
					     "bytes_queued", records * 64);
			w[n++] = 1;
			break;
		}
		records++;
	}
	*len = 8 * n;
	return records;
}

/*
 * A CPU's half: context switches with their weights (48 bytes), wakeups
 * (32) and, every 64th record, a thread's name (48).
 */
static uint64_t fill_cpu(struct fake *f, __u64 wrap, __u64 *ts, size_t *len)
{
	__u64 *w = (__u64 *)(f->data + DURABLE_BYTES +
			     (wrap & 1) * HALF_BYTES);
	size_t n = 0, max = HALF_BYTES / 8 - 8;
	uint64_t records = 0, tid;

	while (n + 8 <= max) {
		tid = 2000 + (records & 31);
		if (records % 64 == 63) {
			n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, tid,
						 "worker", 6, 1999);
		} else if (records & 1) {
			w[n++] = fxt_context_switch_hdr(6, 2, f->cpu,
							FXT_THREAD_STATE_BLOCKED);
			w[n++] = (*ts)++;
			w[n++] = tid;
			w[n++] = tid + 1;
			w[n++] = fxt_arg_hdr(FXT_ARG_INT32, 1, 1, 1024);
			w[n++] = fxt_arg_hdr(FXT_ARG_INT32, 1, 2, 1024);
		} else {
			w[n++] = fxt_wakeup_hdr(4, 1, f->cpu);
			w[n++] = (*ts)++;
			w[n++] = tid;
			w[n++] = fxt_arg_hdr(FXT_ARG_INT32, 1, 3, 1024);
		}
		records++;
	}
	*len = 8 * n;
	return records;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void write_all(int fd, const void *p, size_t len)
{
	const unsigned char *b = p;
	ssize_t n;

	while (len) {
		n = write(fd, b, len);
		if (n < 0) {
			perror("dataplane: write");
			exit(1);
		}
		b += n;
		len -= (size_t)n;
	}
}

struct run {
	double drain_s, half_s, memcpy_s;	/* half_s: output_half() alone */
	uint64_t records, bytes, out_bytes;
};

/*
 * One run: passes of a half per buffer through output_half() into out_fd;
 * the same halves memcpy()d, and appended to in_fd when it is >= 0.
 */
static int one_run(struct fake *fakes, unsigned int passes, int out_fd,
		   int in_fd, struct run *r)
{
	static unsigned char *copy;
	__u64 marks[FLUSH_MARK_WORDS + WINDOW_MARK_WORDS];
	uint64_t lo_ns, hi_ns;
	struct output o;
	struct chunk c;
	__u64 ts = START + SECOND;
	uint64_t refused = 0;
	unsigned int p, i;
	double t0, t1;

	if (!copy && !(copy = malloc(HALF_BYTES)))
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	if (ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET))
		return -errno;
	output_init(&o, SECOND, START);
	if (output_magic(&o, &c))
		return -ENOMEM;
	write_all(out_fd, c.data, c.len);
	chunk_free(&c);
	for (p = 0; p < passes; p++) {
		for (i = 0; i < BUFFERS; i++) {
			struct fake *f = &fakes[i];
			struct fxtctl_span half = { .wrap = p };

			r->records += f->b.kind == FXTRACE_BUFFER_TASK ?
				      fill_task(f, p, &ts, &half.len) :
				      fill_cpu(f, p, &ts, &half.len);
			half.ptr = f->data + DURABLE_BYTES +
				   (p & 1) * HALF_BYTES;
			r->bytes += half.len;
			output_set_now(&o, ts);
			t0 = now_s();
			if (output_half(&o, &f->b, &half, &c))
				return -ENOMEM;
			t1 = now_s();
			write_all(out_fd, c.data, c.len);
			r->drain_s += now_s() - t0;
			r->half_s += t1 - t0;
			r->out_bytes += c.len;
			chunk_free(&c);
			t0 = now_s();
			memcpy(copy, half.ptr, half.len);
			__asm__ volatile("" : : "r"(copy) : "memory");
			r->memcpy_s += now_s() - t0;
			if (in_fd >= 0)
				write_all(in_fd, half.ptr, half.len);
		}
	}
	/* As the drainer leaves it at Stop: all flushed, the window known. */
	flush_mark_write(marks, o.offset);
	output_window_ns(&o, &lo_ns, &hi_ns);
	window_mark_write(marks + FLUSH_MARK_WORDS, lo_ns, hi_ns);
	if (pwrite(out_fd, marks, sizeof(marks), 8) != sizeof(marks))
		return -EIO;
	for (i = 0; i < BUFFERS; i++)
		refused += output_find(&o, fakes[i].b.id)->invalid;
	output_free(&o);
	if (refused) {
		fprintf(stderr, "dataplane: %llu records refused\n",
			(unsigned long long)refused);
		return -EINVAL;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_double);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	double drain[RUNS], half[RUNS], written[RUNS], copy[RUNS], md5[RUNS];
	double t0, mb;
	const char *json = NULL, *out_path = NULL;
	unsigned long mib = 256;
	struct fake fakes[BUFFERS];
	char in_path[4096], cmd[4200];
	unsigned int passes, i;
	struct run r;
	int out_fd, in_fd;
	FILE *j;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--mib") && i + 1 < (unsigned int)argc)
			mib = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--json") && i + 1 < (unsigned int)argc)
			json = argv[++i];
		else if (argv[i][0] != '-' && !out_path)
			out_path = argv[i];
		else
			out_path = NULL, i = (unsigned int)argc;
	}
	if (!out_path || !mib) {
		fprintf(stderr, "usage: dataplane [--mib N] [--json FILE] OUT.fxt\n");
		return 2;
	}
	for (i = 0; i < TASKS; i++)
		fake_new(&fakes[i], 10 + i, FXTRACE_BUFFER_TASK, 1999, 2000 + i,
			 0);
	for (i = 0; i < CPUS; i++)
		fake_new(&fakes[TASKS + i], 1 + i, FXTRACE_BUFFER_CPU, 0, 0, i);
	passes = (unsigned int)((mib << 20) / ((size_t)BUFFERS * HALF_BYTES));
	passes = passes ? passes : 1;
	snprintf(in_path, sizeof(in_path), "%s.input", out_path);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	in_fd = open(in_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (out_fd < 0 || in_fd < 0) {
		perror("dataplane: open");
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "md5sum '%s' >/dev/null", in_path);
	for (i = 0; i < RUNS; i++) {
		if (one_run(fakes, passes, out_fd, i ? -1 : in_fd, &r))
			return 1;
		drain[i] = r.drain_s;
		half[i] = r.half_s;
		written[i] = r.drain_s - r.half_s;
		copy[i] = r.memcpy_s;
		t0 = now_s();
		if (system(cmd)) {
			fprintf(stderr, "dataplane: md5sum failed\n");
			return 1;
		}
		md5[i] = now_s() - t0;
	}
	close(in_fd);
	unlink(in_path);
	close(out_fd);
	mb = (double)r.bytes / 1e6;
	printf("drainer data path: %.1f MB of producer data, %llu records (%.1f bytes each), %u buffers, median of %d runs\n",
	       mb, (unsigned long long)r.records, (double)r.bytes / r.records,
	       BUFFERS, RUNS);
	printf("  %-22s %9s %10s %9s %9s\n", "", "MB/s", "ns/record",
	       "x memcpy", "x md5sum");
	printf("  %-22s %9.0f %10.2f %9.3f %9.3f\n", "output_half + write",
	       mb / median(drain), median(drain) * 1e9 / r.records,
	       median(copy) / median(drain), median(md5) / median(drain));
	printf("  %-22s %9.0f %10.2f %9.3f %9.3f\n", "output_half alone",
	       mb / median(half), median(half) * 1e9 / r.records,
	       median(copy) / median(half), median(md5) / median(half));
	printf("  %-22s %9.0f %10.2f %9.3f %9.3f\n", "write of the chunks",
	       mb / median(written), median(written) * 1e9 / r.records,
	       median(copy) / median(written), median(md5) / median(written));
	printf("  %-22s %9.0f %10.2f %9.3f %9.3f\n", "memcpy",
	       mb / median(copy), median(copy) * 1e9 / r.records, 1.0,
	       median(md5) / median(copy));
	printf("  %-22s %9.0f %10.2f %9.3f %9.3f\n", "md5sum", mb / median(md5),
	       median(md5) * 1e9 / r.records, median(copy) / median(md5), 1.0);
	if (!json)
		return 0;
	j = fopen(json, "w");
	if (!j)
		return 1;
	fprintf(j, "[\n");
	fprintf(j, "  {\"name\": \"drainer output_half\", \"mb_per_s\": %.1f, \"ns_per_record\": %.2f, \"ratio_to_memcpy\": %.4f, \"ratio_to_md5sum\": %.4f, \"bytes\": %llu, \"records\": %llu},\n",
		mb / median(drain), median(drain) * 1e9 / r.records,
		median(copy) / median(drain), median(md5) / median(drain),
		(unsigned long long)r.bytes, (unsigned long long)r.records);
	fprintf(j, "  {\"name\": \"drainer output_half alone\", \"mb_per_s\": %.1f, \"ns_per_record\": %.2f, \"ratio_to_memcpy\": %.4f, \"ratio_to_md5sum\": %.4f},\n",
		mb / median(half), median(half) * 1e9 / r.records,
		median(copy) / median(half), median(md5) / median(half));
	fprintf(j, "  {\"name\": \"drainer write of the chunks\", \"mb_per_s\": %.1f, \"ns_per_record\": %.2f, \"ratio_to_memcpy\": %.4f, \"ratio_to_md5sum\": %.4f},\n",
		mb / median(written), median(written) * 1e9 / r.records,
		median(copy) / median(written), median(md5) / median(written));
	fprintf(j, "  {\"name\": \"memcpy\", \"mb_per_s\": %.1f, \"ns_per_record\": %.2f, \"ratio_to_memcpy\": 1.0},\n",
		mb / median(copy), median(copy) * 1e9 / r.records);
	fprintf(j, "  {\"name\": \"md5sum\", \"mb_per_s\": %.1f, \"ns_per_record\": %.2f, \"ratio_to_memcpy\": %.4f}\n",
		mb / median(md5), median(md5) * 1e9 / r.records,
		median(copy) / median(md5));
	fprintf(j, "]\n");
	return fclose(j) ? 1 : 0;
}
