/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxtrace.h - the ABI of /dev/fxtrace.
 *
 * Every ioctl takes a struct that starts with its own size, so that the
 * struct can grow: the kernel accepts any size from the first version's up
 * to a page, zero-fills what an older caller did not pass and refuses
 * non-zero bytes it does not know (-E2BIG).  Documentation/uapi.rst.
 *
 * Roles: the controller opens the device, initializes a session and reads
 * packets from its fd; producers attach a buffer per thread and write FXT
 * records into it through a shared mapping; the kernel writes per-CPU
 * buffers.  Producers only write, the controller only reads.
 */
#ifndef _UAPI_LINUX_FXTRACE_H
#define _UAPI_LINUX_FXTRACE_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * The ABI version; a new major is incompatible, a new minor adds to it.
 * 0.8: a task buffer's header names its owner's uid (owner_uid).
 * 0.9: with a pid filter, ATTACH only for its process and descendants.
 */
#define FXTRACE_ABI_MAJOR	0
#define FXTRACE_ABI_MINOR	9

#define FXTRACE_DEVICE		"/dev/fxtrace"

/* Output of FXTRACE_IOC_VERSION. */
struct fxtrace_version {
	__u32 size;		/* Input: sizeof(struct fxtrace_version) */
	__u32 abi_major;	/* Output: FXTRACE_ABI_MAJOR of the module */
	__u32 abi_minor;	/* Output: FXTRACE_ABI_MINOR of the module */
	__u32 __reserved;	/* Output: 0 */
	__u64 features;		/* Output: FXTRACE_FEATURE_* bits */
};

#define FXTRACE_VERSION_SIZE_V0	24	/* first published size */

#define FXTRACE_FEATURE_SESSIONS	_BITULL(0)
/*
 * ABI 0.7: a thread's buffers are per file it attaches through (each copy
 * of a producer library opens its own), up to FXTRACE_ATTACH_FILES_MAX
 * at once; before, one per thread whatever the file.
 */
#define FXTRACE_FEATURE_ATTACH_PER_FILE	_BITULL(1)
/*
 * ABI 0.9: with a pid filter, only the filter's process and its
 * descendants attach (EPERM for others); before, any process did.
 */
#define FXTRACE_FEATURE_ATTACH_PID_FILTER	_BITULL(2)

/* Buffering modes (Fuchsia tracing system design, Documentation/uapi.rst). */
enum fxtrace_mode {
	FXTRACE_MODE_ONESHOT = 0,	/* fill once, then drop and count */
	FXTRACE_MODE_CIRCULAR = 1,	/* rolling halves overwrite the oldest */
	FXTRACE_MODE_STREAMING = 2,	/* halves saved by the controller */
	__FXTRACE_MODE_COUNT		/* not ABI: grows with new modes */
};

/* Category lists: NUL-terminated names packed back to back. */
#define FXTRACE_CATEGORY_MAX_LEN	100	/* bytes, without the NUL */
#define FXTRACE_CATEGORIES_MAX		5000	/* per session */

/* Input of FXTRACE_IOC_INIT.  Sizes are in bytes and multiples of 4096. */
struct fxtrace_config {
	__u32 size;		/* sizeof(struct fxtrace_config) */
	__u32 mode;		/* enum fxtrace_mode */
	__u64 cpu_buffer_size;	/* data area of each per-CPU buffer */
	__u64 task_buffer_size;	/* data area of each per-task buffer */
	__u64 memory_limit;	/* all buffers of the session; 0: module max */
	__u64 categories;	/* pointer to the category list, or 0 */
	__u32 categories_size;	/* bytes at categories, NULs included */
	__u32 max_task_buffers;	/* per-task buffers at once; 0: 1024 */
	__u32 filter_pid;	/* a pid in the caller's namespace, or 0 */
	__u32 __reserved;
};

#define FXTRACE_CONFIG_SIZE_V0	56

#define FXTRACE_BUFFER_SIZE_MIN		(16ULL << 10)
#define FXTRACE_BUFFER_SIZE_MAX		(256ULL << 20)
#define FXTRACE_TASK_BUFFERS_MAX	65536

/* What FXTRACE_IOC_START does with data already in the buffers. */
enum fxtrace_disposition {
	FXTRACE_START_CLEAR_ALL = 0,
	FXTRACE_START_CLEAR_NONDURABLE = 1,
	FXTRACE_START_RETAIN = 2,
	__FXTRACE_START_COUNT		/* not ABI: grows with new dispositions */
};

/* Input of FXTRACE_IOC_START. */
struct fxtrace_start {
	__u32 size;		/* sizeof(struct fxtrace_start) */
	__u32 disposition;	/* enum fxtrace_disposition */
	__u64 categories;	/* categories to add, or 0 */
	__u32 categories_size;
	__u32 __reserved;
};

#define FXTRACE_START_SIZE_V0	24

/* Session states, in the session page and FXTRACE_IOC_SESSION_INFO. */
enum fxtrace_state {
	FXTRACE_STATE_NONE = 0,		/* no session */
	FXTRACE_STATE_INITIALIZED = 1,
	FXTRACE_STATE_STARTED = 2,
	FXTRACE_STATE_STOPPED = 3,
};

/* Session flags. */
#define FXTRACE_SESSION_ORPHANED	_BITUL(0)	/* no controller: adopt */

/* Output of FXTRACE_IOC_SESSION_INFO; anyone may ask. */
struct fxtrace_session_info {
	__u32 size;		/* Input: sizeof(struct fxtrace_session_info) */
	__u32 state;		/* enum fxtrace_state */
	__u32 flags;		/* FXTRACE_SESSION_* */
	__u32 mode;
	__u32 owner_uid;	/* who initialized it (caller's namespace) */
	__u32 nr_buffers;	/* buffers of the session, retired ones too */
	__u64 memory_used;	/* bytes charged to the session */
	__u64 memory_limit;
	__u64 dropped_records;	/* by the kernel's own writers */
	__u64 lost_packets;	/* packets the queue had no room for */
};

#define FXTRACE_SESSION_INFO_SIZE_V0	56

/* Buffer kinds. */
enum fxtrace_buffer_kind {
	FXTRACE_BUFFER_CPU = 1,		/* written by the kernel on one CPU */
	FXTRACE_BUFFER_TASK = 2,	/* written by one thread */
	FXTRACE_BUFFER_KERNEL = 3,	/* names of tasks at Start, durable */
};

/* Buffer states. */
#define FXTRACE_BUFFER_ACTIVE	0
#define FXTRACE_BUFFER_RETIRED	1	/* no more writes by its owner */

/*
 * mmap offsets.  Offset 0 maps the session page, read-only, for anyone.
 * A buffer's parts are at FXTRACE_MMAP_OFFSET(id, part).  Every mapping
 * is MAP_SHARED, exactly the size of the part, never split and never
 * executable.
 */
#define FXTRACE_MMAP_SESSION		0ULL
#define FXTRACE_MMAP_HEADER		1ULL	/* header page, read-only */
#define FXTRACE_MMAP_PRODUCER		2ULL	/* control page + data, rw */
#define FXTRACE_MMAP_READER		3ULL	/* header + control + data, ro */
#define FXTRACE_MMAP_ID_SHIFT		32
#define FXTRACE_MMAP_PART_SHIFT		28	/* parts are 256 MiB apart */
#define FXTRACE_MMAP_OFFSET(id, part)	\
	(((__u64)(id) << FXTRACE_MMAP_ID_SHIFT) | \
	 ((__u64)(part) << FXTRACE_MMAP_PART_SHIFT))

/*
 * Every buffer is one mapping-sized area:
 *
 *	page 0	struct fxtrace_buffer_header	kernel-written
 *	page 1	struct fxtrace_buffer_control	producer-written (task buffers)
 *	page 2	data: durable part, rolling half 0, rolling half 1
 *
 * The header and control pages are FXTRACE_BUFFER_PAGE_SIZE bytes whatever
 * the machine's page size; the durable part is fxtrace_durable_size() of
 * the data area, the rest two equal rolling halves.
 *
 * Offsets are bytes from the start of the data area, committed sizes are
 * bytes from the start of their part; all are multiples of 8.  Whatever
 * the control page says is untrusted: clamp it to the part sizes.
 */
#define FXTRACE_BUFFER_MAGIC	0x31425846U	/* "FXB1" */
#define FXTRACE_BUFFER_PAGE_SIZE	4096ULL

/*
 * Fuchsia's split (trace-engine's GET_DURABLE_BUFFER_SIZE and
 * kMaxDurableBufferSize): a sixteenth, at most 1 MiB, a multiple of 16 so
 * that the halves are multiples of 8.  Readers take the sizes from the
 * header (ABI 0.6; an eighth before).
 */
#define FXTRACE_DURABLE_SIZE_MAX	(1024ULL * 1024)

static inline __u64 fxtrace_durable_size(__u64 data_size)
{
	__u64 size = data_size / 16 / 16 * 16;

	return size < FXTRACE_DURABLE_SIZE_MAX ? size : FXTRACE_DURABLE_SIZE_MAX;
}

struct fxtrace_buffer_header {
	__u32 magic;		/* FXTRACE_BUFFER_MAGIC */
	__u32 header_size;	/* sizeof(struct fxtrace_buffer_header) */
	__u32 id;		/* buffer id, also its FXT provider id */
	__u32 kind;		/* enum fxtrace_buffer_kind */
	__u32 mode;		/* enum fxtrace_mode */
	__u32 cpu;		/* FXTRACE_BUFFER_CPU: the CPU, else ~0 */
	__u32 pid;		/* FXTRACE_BUFFER_TASK: owner, init namespace */
	__u32 tid;
	__u64 data_offset;	/* of the data area in a READER mapping */
	__u64 durable_size;
	__u64 rolling_size;	/* of each half */
	__u64 durable_reserved;	/* the kernel's records at the durable start */
	/*
	 * Written by the kernel with release stores.  CPU and KERNEL buffers:
	 * live.  TASK buffers: the producer's control page as the kernel saw
	 * it (clamped) at the last save request, Stop or retirement.
	 */
	__u64 durable_committed;
	__u64 rolling_committed[2];
	__u64 wrap_count;	/* switches from one half to the other */
	__u64 requested_wraps;	/* halves with wrap < this were requested */
	__u64 saved_wraps;	/* halves with wrap < this are saved */
	__u64 dropped_records;	/* kernel writers; producers count their own */
	__u64 start_seq;	/* session Start whose data this is */
	__u32 state;		/* FXTRACE_BUFFER_ACTIVE or _RETIRED */
	__u32 flags;		/* FXTRACE_BUFFER_* flags */
	/*
	 * FXTRACE_BUFFER_TASK: the kernel's name of the attached thread at
	 * ATTACH (get_task_comm), NUL-terminated, never changed after; else
	 * zero.  ABI 0.3.
	 */
	char comm[16];
	/*
	 * Streaming: the CLOCK_MONOTONIC time, in ns, at which the kernel
	 * queued the SAVE_BUFFER of half requested_wraps - 1; 0 before the
	 * first (and a Start's clear of a CPU buffer).  Stable until that
	 * half is saved.  ABI 0.5.
	 */
	__u64 save_requested_ns;
	/*
	 * FXTRACE_BUFFER_TASK: the user the attaching thread's work is
	 * charged to at ATTACH (its real uid, or the owner of the user
	 * namespace a user made), a uid of the init user namespace, never
	 * changed after; else ~0.  ABI 0.8.
	 */
	__u32 owner_uid;
	__u32 reserved;		/* zero */
};

#define FXTRACE_BUFFER_DURABLE_FULL	_BITUL(0)

/* Page 1 of a task buffer; written only by its producer. */
struct fxtrace_buffer_control {
	__u64 durable_committed;
	__u64 rolling_committed[2];
	__u64 wrap_count;	/* the half written now is wrap_count & 1 */
	__u64 dropped_records;
	__u64 start_seq;	/* the Start the producer last applied */
};

/* Input and output of FXTRACE_IOC_ATTACH (producers). */
struct fxtrace_attach {
	__u32 size;		/* Input: sizeof(struct fxtrace_attach) */
	__u32 buffer_id;	/* Output */
	__u32 pid;		/* Output: the caller's ids, init namespace */
	__u32 tid;
	__u64 header_offset;	/* Output: mmap offset, PROT_READ */
	__u64 header_size;
	__u64 producer_offset;	/* Output: mmap offset, PROT_READ|PROT_WRITE */
	__u64 producer_size;
	__s64 monotonic_offset;	/* Output: caller's time namespace offset, ns */
};

#define FXTRACE_ATTACH_SIZE_V0	56
/* Buffers one thread may hold at once, each through another file. */
#define FXTRACE_ATTACH_FILES_MAX	8

/* Input of FXTRACE_IOC_BUFFER_FULL (streaming producers). */
struct fxtrace_buffer_full {
	__u32 size;		/* sizeof(struct fxtrace_buffer_full) */
	__u32 buffer_id;
	__u64 wrap;		/* the wrap whose half is full */
};

#define FXTRACE_BUFFER_FULL_SIZE_V0	16

/* Input and output of FXTRACE_IOC_BUFFER_INFO (controller). */
struct fxtrace_buffer_info {
	__u32 size;		/* Input: sizeof(struct fxtrace_buffer_info) */
	__u32 id;		/* Input: first id to look at; Output: found */
	__u32 kind;		/* Output */
	__u32 state;
	__u64 reader_offset;	/* Output: mmap offset of the READER mapping */
	__u64 reader_size;
};

#define FXTRACE_BUFFER_INFO_SIZE_V0	32

/*
 * Input and output of FXTRACE_IOC_CATEGORY (anyone): register a category
 * name and learn its slot in the session page's enable table.  The byte
 * there is non-zero while a session is started with the category enabled.
 */
struct fxtrace_category {
	__u32 size;		/* Input: sizeof(struct fxtrace_category) */
	__u32 index;		/* Output: slot in the enable table */
	__u64 name;		/* Input: pointer to the name, no NUL needed */
	__u32 name_len;		/* Input: bytes, 1..FXTRACE_CATEGORY_MAX_LEN */
	__u32 __reserved;
};

#define FXTRACE_CATEGORY_SIZE_V0	24
#define FXTRACE_CATEGORY_SLOTS		4096

/*
 * Input and output of FXTRACE_IOC_CATEGORY_NAME (anyone, ABI 0.4): the
 * name registered in a slot.  Slots are given out from 0 up and never
 * freed while the module is loaded: the first slot that answers ENOENT
 * ends the table.
 */
struct fxtrace_category_name {
	__u32 size;		/* Input: sizeof(struct fxtrace_category_name) */
	__u32 index;		/* Input: slot, below FXTRACE_CATEGORY_SLOTS */
	__u32 name_len;		/* Output: bytes, without the NUL */
	__u32 flags;		/* Output: FXTRACE_CATEGORY_NAME_* */
	char name[104];		/* Output: the name, NUL-padded */
};

#define FXTRACE_CATEGORY_NAME_SIZE_V0	120
/* The slot's byte in the session page's enable table is set now. */
#define FXTRACE_CATEGORY_NAME_ENABLED	_BITUL(0)

/* Input of FXTRACE_IOC_RELEASE_BUFFER (controller, retired buffers). */
struct fxtrace_buffer_ref {
	__u32 size;
	__u32 id;
};

#define FXTRACE_BUFFER_REF_SIZE_V0	8

/*
 * The session page: offset 0, FXTRACE_SESSION_MAP_SIZE bytes, read-only,
 * mapped by producers to learn whether to write, which categories are on
 * and how to timestamp.  It exists for as long as the module is loaded;
 * state NONE means no session.  `generation` changes whenever anything
 * else here changes.  The mapping holds, at the offsets page 0 gives, the
 * enable table (a byte per FXTRACE_IOC_CATEGORY slot) and the session's
 * category list (globs such as "net.*"; empty: everything enabled).
 */
#define FXTRACE_SESSION_MAGIC	0x31535846U	/* "FXS1" */
#define FXTRACE_SESSION_MAP_SIZE	(512U << 10)

enum fxtrace_clock {
	FXTRACE_CLOCK_MONOTONIC = 1,	/* CLOCK_MONOTONIC ns */
	FXTRACE_CLOCK_TSC = 2,		/* rdtsc */
};

#define FXTRACE_CLOCK_TSC_UNSTABLE	_BITUL(0)	/* seen mid-session */

struct fxtrace_session_page {
	__u32 magic;		/* FXTRACE_SESSION_MAGIC */
	__u32 abi_major;
	__u32 abi_minor;
	__u32 state;		/* enum fxtrace_state */
	__u64 generation;
	__u64 start_seq;	/* Starts in this session so far */
	__u32 mode;
	__u32 disposition;	/* of the latest Start */
	__u32 clock;		/* enum fxtrace_clock */
	__u32 clock_flags;	/* FXTRACE_CLOCK_* flags */
	__u64 ticks_per_second;
	/* A (tsc, CLOCK_MONOTONIC ns) pair; odd ref_seq: being updated. */
	__u64 ref_seq;
	__u64 ref_tsc;
	__u64 ref_monotonic_ns;
	__u32 categories_count;	/* 0: every user category is enabled */
	__u32 categories_size;	/* bytes at categories_offset */
	__u32 categories_offset;	/* of the list in the session mapping */
	__u32 enabled_offset;	/* of the enable table (one byte per slot) */
	__u64 session_id;	/* changes with every Initialize */
	__u32 flags;		/* FXTRACE_SESSION_PAGE_* */
	__u32 __reserved;
};

/* Writers drop and count every record (a snapshot is being copied). */
#define FXTRACE_SESSION_PAGE_PAUSED	_BITUL(0)

/*
 * Packets: read() from the controller's fd returns whole 16-byte packets
 * (a short buffer gets -EINVAL); write() takes BUFFER_SAVED packets.
 */
struct fxtrace_packet {
	__u16 request;		/* FXTRACE_PKT_* */
	__u16 data16;
	__u32 data32;
	__u64 data64;
};

#define FXTRACE_PACKET_VERSION	1

enum fxtrace_packet_request {
	/* data32: FXTRACE_PACKET_VERSION, data64: start_seq */
	FXTRACE_PKT_STARTED = 1,
	/* data64: records the kernel's writers dropped so far */
	FXTRACE_PKT_STOPPED = 2,
	/* data16: part (rolling half), data32: buffer id, data64: wrap */
	FXTRACE_PKT_SAVE_BUFFER = 3,
	/* controller to kernel, echoes a SAVE_BUFFER */
	FXTRACE_PKT_BUFFER_SAVED = 4,
	/* data16: enum fxtrace_buffer_kind, data32: buffer id */
	FXTRACE_PKT_BUFFER_ADDED = 5,
	/* data32: buffer id */
	FXTRACE_PKT_BUFFER_RETIRED = 6,
};

#define FXTRACE_IOC_MAGIC	0xf8
#define FXTRACE_IOC_VERSION	_IOWR(FXTRACE_IOC_MAGIC, 0, struct fxtrace_version)
#define FXTRACE_IOC_INIT	_IOW(FXTRACE_IOC_MAGIC, 1, struct fxtrace_config)
#define FXTRACE_IOC_START	_IOW(FXTRACE_IOC_MAGIC, 2, struct fxtrace_start)
#define FXTRACE_IOC_STOP	_IO(FXTRACE_IOC_MAGIC, 3)
#define FXTRACE_IOC_TERMINATE	_IO(FXTRACE_IOC_MAGIC, 4)
#define FXTRACE_IOC_ADOPT	_IO(FXTRACE_IOC_MAGIC, 5)
#define FXTRACE_IOC_SESSION_INFO \
	_IOWR(FXTRACE_IOC_MAGIC, 6, struct fxtrace_session_info)
#define FXTRACE_IOC_BUFFER_INFO \
	_IOWR(FXTRACE_IOC_MAGIC, 7, struct fxtrace_buffer_info)
#define FXTRACE_IOC_RELEASE_BUFFER \
	_IOW(FXTRACE_IOC_MAGIC, 8, struct fxtrace_buffer_ref)
#define FXTRACE_IOC_CATEGORY \
	_IOWR(FXTRACE_IOC_MAGIC, 9, struct fxtrace_category)
#define FXTRACE_IOC_PAUSE	_IO(FXTRACE_IOC_MAGIC, 10)
#define FXTRACE_IOC_RESUME	_IO(FXTRACE_IOC_MAGIC, 11)
#define FXTRACE_IOC_CATEGORY_NAME \
	_IOWR(FXTRACE_IOC_MAGIC, 12, struct fxtrace_category_name)
#define FXTRACE_IOC_ATTACH	_IOWR(FXTRACE_IOC_MAGIC, 16, struct fxtrace_attach)
#define FXTRACE_IOC_BUFFER_FULL \
	_IOW(FXTRACE_IOC_MAGIC, 17, struct fxtrace_buffer_full)

#endif /* _UAPI_LINUX_FXTRACE_H */
