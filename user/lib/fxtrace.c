// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtrace runtime.  Every thread writes FXT records into a buffer of its
 * own, with the layout of a module per-task buffer (Documentation/uapi.rst):
 * a durable part for the string and thread records that events refer to,
 * two rolling halves for the events, and a control block where the thread
 * publishes how much of each part holds whole records.  Each buffer is one
 * FXT provider with its own string and thread tables.
 *
 * Two backends share that code:
 * - with /dev/fxtrace (the default), the buffer is the thread's per-task
 *   buffer, mapped from the module; the session page's enable table says
 *   which categories are on, and the controller reads the buffers;
 * - without it, or when FXTRACE_OUTPUT is set ("user-only"), buffers live
 *   in process memory and become one .fxt file at exit or fxtrace_flush().
 *
 * Who touches what:
 * - the thread itself writes its buffer (fxt_emit) and publishes each
 *   part's length with a release store after the record's words;
 * - readers (the controller, or fxtrace_flush()) read up to the published
 *   lengths with acquire loads;
 * - call sites are resolved once under rt.lock: a category's enable byte,
 *   process-wide string indexes for the category, name and argument names.
 *   A thread defines an index in its own string table the first time it
 *   uses it (the "defined" bitmap), so events carry 16-bit refs.
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <linux/fxt.h>
#include <linux/fxtrace.h>

#include <fxtrace/trace.h>

#define MAX_CATEGORIES		1024
#define MAX_PATTERNS		64
#define DEFAULT_BUFFER_SIZE	(1 << 20)
#define MIN_BUFFER_SIZE		(16 << 10)
#define THREAD_INDEX		1	/* each buffer's own thread */
#define FXT_PAGE_SIZE		4096	/* header and control pages */

const unsigned char fxt_unresolved = 1;
static const unsigned char category_off;

struct tbuf {
	struct tbuf *next;		/* user-only: every buffer, for flush */
	pid_t pid, tid;
	char name[64];
	__u64 *durable;
	__u32 durable_cap, durable_len;
	__u32 durable_reserved;		/* the module's records come first */
	__u64 *half[2];
	__u32 half_cap;
	__u32 len[2];			/* words; published in ctl */
	unsigned int cur;		/* the half being written */
	__u64 wraps;
	volatile int busy;		/* inside fxt_emit(): signals drop */
	struct fxtrace_buffer_control *ctl;	/* published lengths, bytes */
	/* With the module: */
	const struct fxtrace_buffer_header *hdr;
	void *map;
	size_t map_size;
	__u32 buffer_id;
	__u64 session_id, start_seq, generation;
	struct fxtrace_buffer_control own_ctl;	/* user-only */
	__u64 defined[(FXT_STRING_INDEX_MAX + 1) / 64];
};

static __thread struct tbuf *self __attribute__((tls_model("initial-exec")));

static struct {
	pthread_mutex_t lock;		/* resolution, thread list, flush */
	bool initialized, on;
	bool module;			/* buffers come from /dev/fxtrace */
	unsigned int mode;		/* enum fxtrace_mode */
	size_t buffer_size;
	char output[4096];
	bool tsc;
	__u64 ticks_per_second;
	__s64 monotonic_offset;		/* of our time namespace */
	int fd;				/* /dev/fxtrace */
	int spool_fd;			/* user-only: OUTPUT.spool */
	off_t spool_size;
	__u32 next_provider;
	const struct fxtrace_session_page *page;
	const volatile unsigned char *enable_table;
	pthread_key_t exit_key;
	char *patterns[MAX_PATTERNS];
	unsigned int npatterns;
	/* Process-wide strings: index i in 1..nstrings. */
	const char *strings[FXT_STRING_INDEX_MAX + 1];
	__u16 string_len[FXT_STRING_INDEX_MAX + 1];
	unsigned int nstrings;
	__u16 category_string[MAX_CATEGORIES];
	unsigned char category_enabled[MAX_CATEGORIES];
	const volatile unsigned char *category_byte[MAX_CATEGORIES];
	unsigned int ncategories;
	struct tbuf *threads;
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .spool_fd = -1 };

/* ---- clock --------------------------------------------------------------- */

static __u64 monotonic_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

uint64_t fxt_now(void)
{
	if (rt.tsc)
		return __rdtsc();
	return monotonic_ns(CLOCK_MONOTONIC) - (__u64)rt.monotonic_offset;
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
static void thread_exit(void *arg);

/* Map the module's session page, when /dev/fxtrace is there. */
static bool open_module(void)
{
	const struct fxtrace_session_page *page;
	int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd,
		    FXTRACE_MMAP_SESSION);
	if (page == MAP_FAILED) {
		fprintf(stderr, "libfxtrace: cannot map the session page of %s: %s;"
			" not tracing\n", FXTRACE_DEVICE, strerror(errno));
		close(fd);
		return false;
	}
	if (page->magic != FXTRACE_SESSION_MAGIC ||
	    page->abi_major != FXTRACE_ABI_MAJOR) {
		fprintf(stderr, "libfxtrace: %s speaks ABI %u, this library %u;"
			" not tracing\n", FXTRACE_DEVICE, page->abi_major,
			FXTRACE_ABI_MAJOR);
		munmap((void *)page, FXTRACE_SESSION_MAP_SIZE);
		close(fd);
		return false;
	}
	rt.fd = fd;
	rt.page = page;
	rt.enable_table = (const unsigned char *)page + page->enabled_offset;
	pthread_key_create(&rt.exit_key, thread_exit);
	return true;
}

/*
 * User-only buffers live in OUTPUT.spool, a file mapped shared, so that
 * what a thread wrote survives a crash of the process: `fxtrace recover`
 * turns a spool into a trace.  A clean exit writes OUTPUT and removes it.
 */
static int open_spool(void)
{
	char path[sizeof(rt.output) + 8];

	snprintf(path, sizeof(path), "%s.spool", rt.output);
	rt.spool_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (rt.spool_fd < 0) {
		fprintf(stderr, "libfxtrace: %s: %s; not tracing\n", path,
			strerror(errno));
		return -1;
	}
	rt.spool_size = 0;
	rt.next_provider = 1;
	return 0;
}

/* Called once, under rt.lock. */
static void initialize(void)
{
	const char *out = getenv("FXTRACE_OUTPUT");
	const char *cats = getenv("FXTRACE_CATEGORIES");
	const char *mode = getenv("FXTRACE_MODE");
	const char *size = getenv("FXTRACE_BUFFER_SIZE");
	char *end;

	rt.initialized = true;
	if (!out || !*out) {
		/* The controller decides modes, sizes and categories. */
		rt.module = open_module();
		if (rt.module) {
			pthread_atfork(NULL, NULL, child_after_fork);
			rt.on = true;
		}
		return;
	}
	if (strlen(out) >= sizeof(rt.output) - 16) {
		fprintf(stderr, "libfxtrace: FXTRACE_OUTPUT is too long; not tracing\n");
		return;
	}
	strcpy(rt.output, out);
	rt.mode = FXTRACE_MODE_ONESHOT;
	if (mode && !strcmp(mode, "circular")) {
		rt.mode = FXTRACE_MODE_CIRCULAR;
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
		/* Whole pages: a spool region's parts then fill it exactly. */
		rt.buffer_size = (v + FXT_PAGE_SIZE - 1) / FXT_PAGE_SIZE *
				 FXT_PAGE_SIZE;
	}
	parse_categories(cats && *cats ? cats : "*");
	choose_clock();
	if (open_spool())
		return;
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

/* The module's enable byte for a category name, or category_off. */
static const volatile unsigned char *module_enable_byte(const char *category)
{
	struct fxtrace_category cat = {
		.size = sizeof(cat),
		.name = (__u64)(uintptr_t)category,
		.name_len = (__u32)strlen(category),
	};

	if (ioctl(rt.fd, FXTRACE_IOC_CATEGORY, &cat)) {
		fprintf(stderr, "libfxtrace: category \"%s\": %s; not traced\n",
			category, strerror(errno));
		return &category_off;
	}
	return &rt.enable_table[cat.index];
}

static const volatile unsigned char *category_enable(const char *category,
						     __u16 index)
{
	unsigned int i;

	for (i = 0; i < rt.ncategories; i++)
		if (rt.category_string[i] == index)
			return rt.category_byte[i];
	if (!index || rt.ncategories == MAX_CATEGORIES)
		return &category_off;
	rt.category_string[i] = index;
	if (rt.module) {
		rt.category_byte[i] = module_enable_byte(category);
	} else {
		rt.category_enabled[i] = category_matches(category);
		rt.category_byte[i] = &rt.category_enabled[i];
	}
	rt.ncategories++;
	return rt.category_byte[i];
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
	on = rt.on && *category_enable(category, intern(category));
	pthread_mutex_unlock(&rt.lock);
	return on;
}

/* ---- per-thread buffers -------------------------------------------------- */

static void publish_durable(struct tbuf *t)
{
	__atomic_store_n(&t->ctl->durable_committed, (__u64)t->durable_len * 8,
			 __ATOMIC_RELEASE);
}

static void publish_half(struct tbuf *t, unsigned int half)
{
	__atomic_store_n(&t->ctl->rolling_committed[half],
			 (__u64)t->len[half] * 8, __ATOMIC_RELEASE);
}

/*
 * Count a dropped record.  A signal handler can drop while the thread is
 * dropping too: the one counter is updated with a single atomic add (drops
 * are off the fast path).
 */
static void drop(struct tbuf *t)
{
	__atomic_fetch_add(&t->ctl->dropped_records, 1, __ATOMIC_RELAXED);
}

/* A name set before the thread's first event (fxt_set_thread_name). */
static __thread char pending_name[64] __attribute__((tls_model("initial-exec")));

static void read_thread_name(struct tbuf *t)
{
	char path[64];
	FILE *f;

	if (pending_name[0]) {
		snprintf(t->name, sizeof(t->name), "%s", pending_name);
		return;
	}

	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm",
		 (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f || !fgets(t->name, sizeof(t->name), f))
		snprintf(t->name, sizeof(t->name), "%d", t->tid);
	if (f)
		fclose(f);
	t->name[strcspn(t->name, "\n")] = 0;
}

/* A kernel-object record naming the thread, in its durable part. */
static void write_thread_name(struct tbuf *t)
{
	__u32 len = (__u32)strlen(t->name);
	__u32 words = fxt_kobj_name_words(len, (__u64)t->pid);

	if (t->durable_len + words > t->durable_cap)
		return;
	t->durable_len += fxt_write_kobj_name(t->durable + t->durable_len,
					      FXT_KOBJ_THREAD, (__u64)t->tid,
					      t->name, len, (__u64)t->pid);
	publish_durable(t);
}

/* The thread record every event refers to, and the thread's name. */
static void write_thread_records(struct tbuf *t)
{
	if (t->durable_len + 3 > t->durable_cap)
		return;
	t->durable_len += fxt_write_thread(t->durable + t->durable_len,
					   THREAD_INDEX, (__u64)t->pid,
					   (__u64)t->tid);
	publish_durable(t);
	write_thread_name(t);
}

/* Point t at a buffer's parts: header page, control page, data. */
static void map_parts(struct tbuf *t, void *map)
{
	const struct fxtrace_buffer_header *hdr = map;

	t->hdr = hdr;
	t->ctl = (struct fxtrace_buffer_control *)((char *)map + FXT_PAGE_SIZE);
	t->durable = (__u64 *)((char *)map + hdr->data_offset);
	t->durable_cap = (__u32)(hdr->durable_size / 8);
	t->half_cap = (__u32)(hdr->rolling_size / 8);
	t->half[0] = t->durable + t->durable_cap;
	t->half[1] = t->half[0] + t->half_cap;
}

/*
 * A region of the spool with the layout of a module per-task buffer; its
 * durable part starts as the module's do, with the provider's
 * announcement, so a spool is read like a set of buffers.
 */
static struct tbuf *attach_user(void)
{
	size_t size = 2 * FXT_PAGE_SIZE + rt.buffer_size;
	struct fxtrace_buffer_header *hdr;
	char name[64 + 16];
	struct tbuf *t;
	void *map;
	off_t off;
	__u32 n;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = getpid();
	t->tid = (pid_t)syscall(SYS_gettid);
	read_thread_name(t);

	pthread_mutex_lock(&rt.lock);
	off = rt.spool_size;
	map = ftruncate(rt.spool_fd, off + (off_t)size) ? MAP_FAILED :
	      mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   rt.spool_fd, off);
	if (map == MAP_FAILED) {
		pthread_mutex_unlock(&rt.lock);
		free(t);
		return NULL;
	}
	rt.spool_size += (off_t)size;
	hdr = map;
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->id = rt.next_provider++;
	hdr->kind = FXTRACE_BUFFER_TASK;
	hdr->mode = rt.mode;
	hdr->cpu = ~0U;
	hdr->pid = (__u32)t->pid;
	hdr->tid = (__u32)t->tid;
	hdr->data_offset = 2 * FXT_PAGE_SIZE;
	hdr->durable_size = rt.buffer_size / 8 / 8 * 8;
	hdr->rolling_size = (rt.buffer_size - hdr->durable_size) / 16 * 8;
	map_parts(t, map);
	t->map = map;
	t->map_size = size;

	snprintf(name, sizeof(name), "%s %d", t->name, t->tid);
	n = fxt_write_provider_info(t->durable, hdr->id, name,
				    (__u32)strlen(name));
	n += fxt_write_init(t->durable + n, rt.ticks_per_second);
	hdr->durable_reserved = n * 8;
	t->durable_reserved = n;
	t->durable_len = n;
	publish_durable(t);
	write_thread_records(t);

	t->next = rt.threads;
	rt.threads = t;
	pthread_mutex_unlock(&rt.lock);
	return t;
}

static void detach_module(struct tbuf *t)
{
	/* Unmapping the producer part retires the buffer. */
	munmap(t->map, t->map_size);
	munmap((void *)t->hdr, FXT_PAGE_SIZE);
	free(t);
}

/* A per-task buffer from the module, or NULL (the thread then drops). */
static struct tbuf *attach_module(void)
{
	struct fxtrace_attach at = { .size = sizeof(at) };
	const struct fxtrace_buffer_header *hdr;
	struct tbuf *t;
	void *map;

	if (ioctl(rt.fd, FXTRACE_IOC_ATTACH, &at))
		return NULL;
	t = calloc(1, sizeof(*t));
	hdr = mmap(NULL, at.header_size, PROT_READ, MAP_SHARED, rt.fd,
		   (off_t)at.header_offset);
	map = mmap(NULL, at.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   rt.fd, (off_t)at.producer_offset);
	if (!t || hdr == MAP_FAILED || map == MAP_FAILED) {
		if (map != MAP_FAILED)
			munmap(map, at.producer_size);
		if (hdr != MAP_FAILED)
			munmap((void *)hdr, at.header_size);
		free(t);
		return NULL;
	}
	/* The header and the producer part are two mappings here. */
	t->hdr = hdr;
	t->map = map;
	t->map_size = at.producer_size;
	t->ctl = map;
	t->durable = (__u64 *)((char *)map + FXT_PAGE_SIZE);
	t->durable_cap = (__u32)(hdr->durable_size / 8);
	t->half_cap = (__u32)(hdr->rolling_size / 8);
	t->half[0] = t->durable + t->durable_cap;
	t->half[1] = t->half[0] + t->half_cap;
	t->durable_reserved = (__u32)(t->ctl->durable_committed / 8);
	t->durable_len = t->durable_reserved;
	t->pid = (pid_t)at.pid;
	t->tid = (pid_t)at.tid;
	t->buffer_id = at.buffer_id;
	t->session_id = rt.page->session_id;
	t->start_seq = t->ctl->start_seq;
	rt.monotonic_offset = at.monotonic_offset;
	read_thread_name(t);
	write_thread_records(t);
	pthread_setspecific(rt.exit_key, t);
	return t;
}

static void thread_exit(void *arg)
{
	if (self == arg)
		self = NULL;
	detach_module(arg);
}

static struct tbuf *attach(void)
{
	static __thread bool failed __attribute__((tls_model("initial-exec")));

	if (failed)
		return NULL;
	self = rt.module ? attach_module() : attach_user();
	failed = !self;
	return self;
}

/* A Start with a clearing disposition empties the buffer (producers only
 * write: the thread clears its own). */
static void apply_disposition(struct tbuf *t, unsigned int disposition)
{
	if (disposition == FXTRACE_START_RETAIN)
		return;
	t->len[0] = 0;
	t->len[1] = 0;
	publish_half(t, 0);
	publish_half(t, 1);
	/* Streaming keeps counting wraps: the kernel checks them. */
	if (rt.mode != FXTRACE_MODE_STREAMING) {
		t->cur = 0;
		t->wraps = 0;
		__atomic_store_n(&t->ctl->wrap_count, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&t->ctl->dropped_records, 0, __ATOMIC_RELAXED);
	if (disposition == FXTRACE_START_CLEAR_ALL) {
		t->durable_len = t->durable_reserved;
		memset(t->defined, 0, sizeof(t->defined));
		write_thread_records(t);
	}
}

/*
 * The session page changed: follow its clock and mode, re-attach in a new
 * session, apply a new Start's disposition.
 */
static struct tbuf *sync_session(struct tbuf *t)
{
	const struct fxtrace_session_page *page = rt.page;
	__u64 generation = __atomic_load_n(&page->generation, __ATOMIC_ACQUIRE);

	rt.tsc = page->clock == FXTRACE_CLOCK_TSC;
	rt.mode = page->mode;
	if (t->session_id != page->session_id) {
		pthread_setspecific(rt.exit_key, NULL);
		detach_module(t);
		t = self = attach_module();
		if (!t)
			return NULL;
	}
	if (t->start_seq != page->start_seq) {
		apply_disposition(t, page->disposition);
		t->start_seq = page->start_seq;
		__atomic_store_n(&t->ctl->start_seq, t->start_seq,
				 __ATOMIC_RELEASE);
	}
	if (page->flags & FXTRACE_SESSION_PAGE_PAUSED) {
		/* A snapshot is being copied; every event comes back here. */
		drop(t);
		return NULL;
	}
	t->generation = generation;
	return t;
}

/* After fork: forget the parent's threads; user-only writes OUTPUT.PID. */
static void child_after_fork(void)
{
	size_t len = strlen(rt.output);

	pthread_mutex_init(&rt.lock, NULL);
	if (!rt.module) {
		snprintf(rt.output + len, sizeof(rt.output) - len, ".%d",
			 getpid());
		close(rt.spool_fd);
		if (open_spool())
			rt.on = false;
	}
	/* The module did not copy our mappings into the child. */
	if (rt.module)
		pthread_setspecific(rt.exit_key, NULL);
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
	publish_durable(t);
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

/* Ask the controller to save the half just filled (streaming). */
static void request_save(struct tbuf *t, __u64 wrap)
{
	struct fxtrace_buffer_full full = {
		.size = sizeof(full),
		.buffer_id = t->buffer_id,
		.wrap = wrap,
	};

	ioctl(rt.fd, FXTRACE_IOC_BUFFER_FULL, &full);
}

/* Room for words in the current half, moving to the other one if needed. */
static __u64 *reserve(struct tbuf *t, __u32 words)
{
	if (t->len[t->cur] + words <= t->half_cap)
		return t->half[t->cur] + t->len[t->cur];
	if (words > t->half_cap)
		return NULL;
	switch (rt.mode) {
	case FXTRACE_MODE_ONESHOT:
		if (t->cur == 1)
			return NULL;
		break;
	case FXTRACE_MODE_STREAMING:
		/* The other half holds wrap - 1 until the controller saved it. */
		if (__atomic_load_n(&t->hdr->saved_wraps, __ATOMIC_ACQUIRE) <
		    t->wraps)
			return NULL;
		break;
	}
	/* Circular overwrites the other half; streaming has it saved. */
	t->len[t->cur ^ 1] = 0;
	publish_half(t, t->cur ^ 1);
	t->cur ^= 1;
	t->wraps++;
	__atomic_store_n(&t->ctl->wrap_count, t->wraps, __ATOMIC_RELEASE);
	if (rt.mode == FXTRACE_MODE_STREAMING)
		request_save(t, t->wraps - 1);
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
	if (__builtin_expect(!t, 0)) {
		t = attach();
		if (!t)
			return;
	}
	if (rt.module && __builtin_expect(t->generation !=
					  __atomic_load_n(&rt.page->generation,
							  __ATOMIC_ACQUIRE), 0)) {
		t = sync_session(t);
		if (!t)
			return;
	}
	now = fxt_now();
	if (t->busy) {
		drop(t);
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
		drop(t);
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
	t->len[t->cur] += n;
	publish_half(t, t->cur);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

uint64_t fxt_thread_dropped(void)
{
	return self ? __atomic_load_n(&self->ctl->dropped_records,
				      __ATOMIC_RELAXED) : 0;
}

/*
 * The thread's comm becomes the name too, so that the kernel's records
 * (kernel:task renames, the names at Start) agree with this thread's.
 */
void fxt_set_thread_name(const char *name)
{
	struct tbuf *t = self;

	prctl(PR_SET_NAME, name);
	if (!t) {
		/* comm keeps 15 bytes: attach takes the whole name from here. */
		snprintf(pending_name, sizeof(pending_name), "%s", name);
		return;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (!t->busy) {
		t->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		write_thread_name(t);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->busy = 0;
	}
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

/*
 * One thread's buffer: its durable part (the announcement, thread and
 * string records), the process's name once, then the halves oldest first.
 */
static int write_thread(int fd, const struct tbuf *t, bool name_process)
{
	__u64 words[2 + 8 + 4];
	char comm[64] = "";
	unsigned int order[2], half;
	__u32 n = 0;
	int ret;
	FILE *f;

	ret = write_words(fd, t->durable,
			  __atomic_load_n(&t->ctl->durable_committed,
					  __ATOMIC_ACQUIRE) / 8);
	if (!ret && name_process) {
		f = fopen("/proc/self/comm", "r");
		if (f && fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		if (f)
			fclose(f);
		n = fxt_write_kobj_name(words, FXT_KOBJ_PROCESS, (__u64)t->pid,
					comm, (__u32)strlen(comm), 0);
		ret = write_words(fd, words, n);
	}
	order[0] = t->wraps ? t->cur ^ 1 : 0;
	order[1] = order[0] ^ 1;
	for (half = 0; half < 2 && !ret; half++)
		ret = write_words(fd, t->half[order[half]],
				  __atomic_load_n(&t->ctl->rolling_committed[order[half]],
						  __ATOMIC_ACQUIRE) / 8);
	return ret;
}

int fxtrace_flush(void)
{
	const __u64 magic = FXT_MAGIC_WORD;
	struct tbuf *t;
	int fd, ret;

	pthread_mutex_lock(&rt.lock);
	/* With the module the controller reads the buffers. */
	if (!rt.on || rt.module) {
		pthread_mutex_unlock(&rt.lock);
		return 0;
	}
	fd = open(rt.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : write_words(fd, &magic, 1);
	for (t = rt.threads; t && !ret; t = t->next)
		ret = write_thread(fd, t, !t->next);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "libfxtrace: cannot write %s: %s\n", rt.output,
			strerror(-ret));
	pthread_mutex_unlock(&rt.lock);
	return ret;
}

/* A clean exit writes the trace; the spool is only needed after a crash. */
__attribute__((destructor)) static void flush_at_exit(void)
{
	char path[sizeof(rt.output) + 8];

	if (fxtrace_flush() || !rt.on || rt.module)
		return;
	snprintf(path, sizeof(path), "%s.spool", rt.output);
	unlink(path);
}
