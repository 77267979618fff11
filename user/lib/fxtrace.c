// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtrace runtime, user-only mode: every thread writes FXT records into
 * a buffer of its own in process memory; the buffers become one .fxt file
 * at exit or on fxtrace_flush().
 *
 * A thread's buffer has the layout of a module per-task buffer (Documentation/
 * design.rst): a durable part for the string and thread records that events
 * refer to, and two rolling halves for the events.  Each buffer is one FXT
 * provider with its own string and thread tables.
 *
 * Who touches what:
 * - the thread itself writes its buffer (fxt_emit) and publishes each half's
 *   length with a release store after the record's words;
 * - fxtrace_flush() (any thread, or exit) reads every buffer up to the
 *   published lengths, with acquire loads;
 * - call sites are resolved once under resolve_lock: a category's enable
 *   byte, process-wide string indexes for the category, name and argument
 *   names.  A thread defines an index in its own string table the first
 *   time it uses it (the "defined" bitmap), so events carry 16-bit refs.
 * A signal handler that emits while its thread is inside fxt_emit() finds
 * the buffer busy and drops its record (counted), so no record is torn.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <linux/fxt.h>

#include <fxtrace/trace.h>

#define MAX_CATEGORIES		1024
#define MAX_PATTERNS		64
#define DEFAULT_BUFFER_SIZE	(1 << 20)
#define MIN_BUFFER_SIZE		(16 << 10)
#define THREAD_INDEX		1	/* each buffer's own thread */

const unsigned char fxt_unresolved = 1;
static const unsigned char category_off;

enum mode { MODE_ONESHOT, MODE_CIRCULAR };

struct tbuf {
	struct tbuf *next;		/* every buffer, for flush */
	pid_t pid, tid;
	char name[64];
	__u64 *durable;
	__u32 durable_cap, durable_len;
	__u64 *half[2];
	__u32 half_cap;
	__u32 len[2];			/* published with release stores */
	unsigned int cur;		/* the half being written */
	__u32 wraps;
	__u64 dropped;
	volatile int busy;		/* inside fxt_emit(): signals drop */
	__u64 defined[(FXT_STRING_INDEX_MAX + 1) / 64];
};

static __thread struct tbuf *self __attribute__((tls_model("initial-exec")));

static struct {
	pthread_mutex_t lock;		/* resolution, thread list, flush */
	bool initialized, on;
	enum mode mode;
	size_t buffer_size;
	char output[4096];
	bool tsc;
	__u64 ticks_per_second;
	char *patterns[MAX_PATTERNS];
	unsigned int npatterns;
	/* Process-wide strings: index i in 1..nstrings. */
	const char *strings[FXT_STRING_INDEX_MAX + 1];
	__u16 string_len[FXT_STRING_INDEX_MAX + 1];
	unsigned int nstrings;
	__u16 category_string[MAX_CATEGORIES];
	unsigned char category_enabled[MAX_CATEGORIES];
	unsigned int ncategories;
	struct tbuf *threads;
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- clock --------------------------------------------------------------- */

static __u64 monotonic_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

uint64_t fxt_now(void)
{
	return rt.tsc ? __rdtsc() : monotonic_ns(CLOCK_MONOTONIC);
}

/* The TSC, when the CPU says it is invariant, calibrated over 20 ms. */
static void choose_clock(void)
{
	char line[4096];
	bool constant = false, nonstop = false;
	FILE *f = fopen("/proc/cpuinfo", "r");
	__u64 t0, n0, t1, n1;

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	rt.tsc = constant && nonstop;
	rt.ticks_per_second = 1000000000ULL;
	if (!rt.tsc)
		return;
	n0 = monotonic_ns(CLOCK_MONOTONIC_RAW);
	t0 = __rdtsc();
	do
		n1 = monotonic_ns(CLOCK_MONOTONIC_RAW);
	while (n1 - n0 < 20000000);
	t1 = __rdtsc();
	rt.ticks_per_second = (t1 - t0) * 1000000000ULL / (n1 - n0);
}

/* ---- configuration ------------------------------------------------------- */

static void parse_categories(const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok && rt.npatterns < MAX_PATTERNS;
	     tok = strtok_r(NULL, ",", &save))
		if (*tok)
			rt.patterns[rt.npatterns++] = strdup(tok);
	free(copy);
}

static void child_after_fork(void);

/* From the environment; called once, under rt.lock. */
static void initialize(void)
{
	const char *out = getenv("FXTRACE_OUTPUT");
	const char *cats = getenv("FXTRACE_CATEGORIES");
	const char *mode = getenv("FXTRACE_MODE");
	const char *size = getenv("FXTRACE_BUFFER_SIZE");
	char *end;

	rt.initialized = true;
	if (!out || !*out)
		return;
	if (strlen(out) >= sizeof(rt.output) - 16) {
		fprintf(stderr, "libfxtrace: FXTRACE_OUTPUT is too long; not tracing\n");
		return;
	}
	strcpy(rt.output, out);
	rt.mode = MODE_ONESHOT;
	if (mode && !strcmp(mode, "circular")) {
		rt.mode = MODE_CIRCULAR;
	} else if (mode && strcmp(mode, "oneshot")) {
		fprintf(stderr, "libfxtrace: FXTRACE_MODE=%s: oneshot or circular "
			"without the module; not tracing\n", mode);
		return;
	}
	rt.buffer_size = DEFAULT_BUFFER_SIZE;
	if (size) {
		unsigned long v = strtoul(size, &end, 0);

		if (*end == 'k' || *end == 'K')
			v <<= 10, end++;
		else if (*end == 'm' || *end == 'M')
			v <<= 20, end++;
		if (*end || v < MIN_BUFFER_SIZE || v > (1UL << 30)) {
			fprintf(stderr, "libfxtrace: FXTRACE_BUFFER_SIZE=%s: "
				"16K to 1G; not tracing\n", size);
			return;
		}
		rt.buffer_size = v;
	}
	parse_categories(cats && *cats ? cats : "*");
	choose_clock();
	pthread_atfork(NULL, NULL, child_after_fork);
	rt.on = true;
}

/* ---- strings and categories (under rt.lock) ------------------------------ */

/* The process-wide index of s, 0 when the table is full (then: inline). */
static __u16 intern(const char *s)
{
	size_t len = strlen(s);
	unsigned int i;

	if (len > FXT_STRING_LEN_MAX)
		len = FXT_STRING_LEN_MAX;
	for (i = 1; i <= rt.nstrings; i++)
		if (rt.strings[i] == s || (rt.string_len[i] == len &&
					   !memcmp(rt.strings[i], s, len)))
			return (__u16)i;
	if (rt.nstrings == FXT_STRING_INDEX_MAX)
		return 0;
	rt.nstrings++;
	rt.strings[rt.nstrings] = s;
	rt.string_len[rt.nstrings] = (__u16)len;
	return (__u16)rt.nstrings;
}

static bool category_matches(const char *category)
{
	unsigned int i;

	for (i = 0; i < rt.npatterns; i++)
		if (!fnmatch(rt.patterns[i], category, 0))
			return true;
	return false;
}

static const volatile unsigned char *category_enable(const char *category,
						     __u16 index)
{
	unsigned int i;

	for (i = 0; i < rt.ncategories; i++)
		if (rt.category_string[i] == index)
			return &rt.category_enabled[i];
	if (!index || rt.ncategories == MAX_CATEGORIES)
		return &category_off;
	rt.category_string[i] = index;
	rt.category_enabled[i] = category_matches(category);
	rt.ncategories++;
	return &rt.category_enabled[i];
}

static void resolve(struct fxtrace_site *site, unsigned int nargs,
		    const struct fxtrace_arg *args)
{
	unsigned int i;

	pthread_mutex_lock(&rt.lock);
	if (!rt.initialized)
		initialize();
	if (site->enabled == &fxt_unresolved) {
		if (rt.on) {
			site->category_index = intern(site->category);
			site->name_index = intern(site->name);
			for (i = 0; i < nargs; i++)
				site->arg_index[i] = intern(args[i].name);
			__atomic_store_n(&site->enabled,
					 category_enable(site->category,
							 site->category_index),
					 __ATOMIC_RELEASE);
		} else {
			site->enabled = &category_off;
		}
	}
	pthread_mutex_unlock(&rt.lock);
}

bool fxt_category_enabled(const char *category)
{
	bool on;

	pthread_mutex_lock(&rt.lock);
	if (!rt.initialized)
		initialize();
	on = rt.on && category_matches(category);
	pthread_mutex_unlock(&rt.lock);
	return on;
}

/* ---- per-thread buffers -------------------------------------------------- */

static struct tbuf *attach(void)
{
	size_t size = rt.buffer_size, durable = size / 8;
	struct tbuf *t;
	char path[64];
	FILE *f;

	t = mmap(NULL, sizeof(*t) + size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->pid = getpid();
	t->tid = (pid_t)syscall(SYS_gettid);
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t->tid);
	f = fopen(path, "r");
	if (!f || !fgets(t->name, sizeof(t->name), f))
		snprintf(t->name, sizeof(t->name), "%d", t->tid);
	if (f)
		fclose(f);
	t->name[strcspn(t->name, "\n")] = 0;
	t->durable = (__u64 *)(t + 1);
	t->durable_cap = (__u32)(durable / 8);
	t->half_cap = (__u32)((size - durable) / 16);
	t->half[0] = t->durable + t->durable_cap;
	t->half[1] = t->half[0] + t->half_cap;
	t->durable_len = fxt_write_thread(t->durable, THREAD_INDEX,
					  (__u64)t->pid, (__u64)t->tid);
	pthread_mutex_lock(&rt.lock);
	t->next = rt.threads;
	rt.threads = t;
	pthread_mutex_unlock(&rt.lock);
	self = t;
	return t;
}

/* After fork: the child traces into OUTPUT.PID with buffers of its own. */
static void child_after_fork(void)
{
	size_t len = strlen(rt.output);

	pthread_mutex_init(&rt.lock, NULL);
	snprintf(rt.output + len, sizeof(rt.output) - len, ".%d", getpid());
	rt.threads = NULL;
	self = NULL;
}

/* The string ref for process-wide index i in t's provider, defining it. */
static __u16 string_ref(struct tbuf *t, __u16 i)
{
	__u32 words;

	if (!i)
		return 0;
	if (t->defined[i / 64] & (1ULL << (i % 64)))
		return i;
	words = 1 + fxt_stream_words(rt.string_len[i]);
	if (t->durable_len + words > t->durable_cap)
		return 0;	/* durable part full: the caller writes inline */
	t->durable_len += fxt_write_string(t->durable + t->durable_len, i,
					   rt.strings[i], rt.string_len[i]);
	t->defined[i / 64] |= 1ULL << (i % 64);
	return i;
}

/* A ref to s: index i when it is in the table, else s inline. */
static __u16 ref_or_inline(struct tbuf *t, __u16 i, const char *s)
{
	__u16 ref = string_ref(t, i);

	return ref ? ref : fxt_inline_string_ref((__u32)strnlen(s, FXT_STRING_LEN_MAX));
}

static __u32 arg_words(__u16 name_ref, const struct fxtrace_arg *a)
{
	switch (a->kind) {
	case FXT_KIND_INT64:
	case FXT_KIND_UINT64:
	case FXT_KIND_DOUBLE:
	case FXT_KIND_POINTER:
	case FXT_KIND_KOID:
		return fxt_arg_words(name_ref, 1);
	case FXT_KIND_STRING:
		return fxt_arg_words(name_ref, fxt_stream_words(a->len));
	default:
		return fxt_arg_words(name_ref, 0);
	}
}

static __u32 write_arg(__u64 *p, __u16 name_ref, const struct fxtrace_arg *a)
{
	static const unsigned int type[] = {
		[FXT_KIND_NULL] = FXT_ARG_NULL, [FXT_KIND_INT32] = FXT_ARG_INT32,
		[FXT_KIND_UINT32] = FXT_ARG_UINT32, [FXT_KIND_INT64] = FXT_ARG_INT64,
		[FXT_KIND_UINT64] = FXT_ARG_UINT64, [FXT_KIND_DOUBLE] = FXT_ARG_DOUBLE,
		[FXT_KIND_POINTER] = FXT_ARG_POINTER, [FXT_KIND_KOID] = FXT_ARG_KOID,
		[FXT_KIND_BOOL] = FXT_ARG_BOOL,
	};

	switch (a->kind) {
	case FXT_KIND_NULL:
		return fxt_write_arg_null(p, name_ref, a->name);
	case FXT_KIND_INT32:
	case FXT_KIND_UINT32:
	case FXT_KIND_BOOL:
		return fxt_write_arg32(p, type[a->kind], name_ref, a->name,
				       (__u32)a->value.u64);
	case FXT_KIND_STRING:
		return fxt_write_arg_string(p, name_ref, a->name,
					    fxt_inline_string_ref(a->len),
					    a->value.str);
	default:
		return fxt_write_arg64(p, type[a->kind], name_ref, a->name,
				       a->value.u64);
	}
}

/* Room for words in the current half, moving to the other one if needed. */
static __u64 *reserve(struct tbuf *t, __u32 words)
{
	if (t->len[t->cur] + words <= t->half_cap)
		return t->half[t->cur] + t->len[t->cur];
	if (words > t->half_cap)
		return NULL;
	if (rt.mode == MODE_ONESHOT) {
		if (t->cur == 1)
			return NULL;
	} else {
		/* Circular: the other half's records are overwritten. */
		__atomic_store_n(&t->len[t->cur ^ 1], 0, __ATOMIC_RELEASE);
	}
	t->cur ^= 1;
	t->wraps++;
	return t->half[t->cur];
}

void fxt_emit(struct fxtrace_site *site, unsigned int event_type,
	      uint64_t trailing, uint64_t end_time, unsigned int nargs,
	      const struct fxtrace_arg *args)
{
	__u16 cat, name, arg_ref[FXT_ARGS_MAX];
	struct tbuf *t = self;
	__u32 words, i, n;
	__u64 *p, now;

	if (__builtin_expect(site->enabled == &fxt_unresolved, 0)) {
		resolve(site, nargs, args);
		if (!*site->enabled)
			return;
	}
	now = fxt_now();
	if (__builtin_expect(!t, 0)) {
		t = attach();
		if (!t)
			return;
	}
	if (t->busy) {
		t->dropped++;
		return;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);

	cat = ref_or_inline(t, site->category_index, site->category);
	name = ref_or_inline(t, site->name_index, site->name);
	words = 0;
	for (i = 0; i < nargs; i++) {
		arg_ref[i] = ref_or_inline(t, site->arg_index[i], args[i].name);
		words += arg_words(arg_ref[i], &args[i]);
	}
	words = fxt_event_words(event_type, THREAD_INDEX, cat, name, words);
	p = words <= FXT_RECORD_WORDS_MAX ? reserve(t, words) : NULL;
	if (!p) {
		t->dropped++;
		goto out;
	}
	n = 0;
	p[n++] = fxt_event_hdr(words, event_type, nargs, THREAD_INDEX, cat,
			       name);
	p[n++] = event_type == FXT_EVENT_DURATION_COMPLETE ? end_time : now;
	n += fxt_write_string_ref(p + n, cat, site->category);
	n += fxt_write_string_ref(p + n, name, site->name);
	for (i = 0; i < nargs; i++)
		n += write_arg(p + n, arg_ref[i], &args[i]);
	if (fxt_event_trailing_words(event_type))
		p[n++] = event_type == FXT_EVENT_DURATION_COMPLETE ? now : trailing;
	__atomic_store_n(&t->len[t->cur], t->len[t->cur] + n, __ATOMIC_RELEASE);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

uint64_t fxt_thread_dropped(void)
{
	return self ? self->dropped : 0;
}

void fxt_set_thread_name(const char *name)
{
	struct tbuf *t = self;

	if (!t) {
		static struct fxtrace_site site = FXT_SITE_INIT("fxtrace", "thread");

		if (!fxt_site_enabled(&site))
			return;
		resolve(&site, 0, NULL);
		t = rt.on ? attach() : NULL;
		if (!t)
			return;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
}

/* ---- output -------------------------------------------------------------- */

static int write_words(int fd, const __u64 *w, size_t n)
{
	const char *p = (const char *)w;
	size_t left = n * 8;
	ssize_t r;

	while (left) {
		r = write(fd, p, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		left -= (size_t)r;
	}
	return 0;
}

static int write_thread(int fd, const struct tbuf *t, __u32 provider,
			bool name_process)
{
	__u64 hdr[64], comm_words[16];
	char comm[64] = "";
	__u32 n = 0, len, half;
	unsigned int order[2];
	int ret;
	FILE *f;

	len = (__u32)strlen(t->name);
	n += fxt_write_provider_info(hdr, provider, t->name, len);
	n += fxt_write_init(hdr + n, rt.ticks_per_second);
	ret = write_words(fd, hdr, n);
	if (!ret)
		ret = write_words(fd, t->durable,
				  __atomic_load_n(&t->durable_len, __ATOMIC_ACQUIRE));
	if (ret)
		return ret;
	n = 0;
	if (name_process) {
		f = fopen("/proc/self/comm", "r");
		if (f && fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		if (f)
			fclose(f);
		n += fxt_write_kobj_name(comm_words, FXT_KOBJ_PROCESS,
					 (__u64)t->pid, comm,
					 (__u32)strlen(comm), 0);
	}
	ret = write_words(fd, comm_words, n);
	n = fxt_write_kobj_name(hdr, FXT_KOBJ_THREAD, (__u64)t->tid, t->name,
				len, (__u64)t->pid);
	if (!ret)
		ret = write_words(fd, hdr, n);
	/* Oldest half first: in circular mode the one not being written. */
	order[0] = rt.mode == MODE_CIRCULAR ? t->cur ^ 1 : 0;
	order[1] = order[0] ^ 1;
	for (half = 0; half < 2 && !ret; half++)
		ret = write_words(fd, t->half[order[half]],
				  __atomic_load_n(&t->len[order[half]],
						  __ATOMIC_ACQUIRE));
	return ret;
}

int fxtrace_flush(void)
{
	const __u64 magic = FXT_MAGIC_WORD;
	struct tbuf *t;
	__u32 provider = 1;
	int fd, ret;

	pthread_mutex_lock(&rt.lock);
	if (!rt.on) {
		pthread_mutex_unlock(&rt.lock);
		return 0;
	}
	fd = open(rt.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : write_words(fd, &magic, 1);
	for (t = rt.threads; t && !ret; t = t->next, provider++)
		ret = write_thread(fd, t, provider, provider == 1);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "libfxtrace: cannot write %s: %s\n", rt.output,
			strerror(-ret));
	pthread_mutex_unlock(&rt.lock);
	return ret;
}

__attribute__((destructor)) static void flush_at_exit(void)
{
	fxtrace_flush();
}
