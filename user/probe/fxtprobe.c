// SPDX-License-Identifier: GPL-2.0
/*
 * fxtprobe.c - libfxtprobe: probe specs, attaching the BPF programs of
 * fxtprobe.bpf.c, and converting their ring buffer's events into FXT
 * (fxtprobe.h, Documentation/probes.rst).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/fxt.h>
#include <linux/types.h>

#include "fxt_reader.h"
#include "fxtprobe.h"
#include "kstr.h"
#include "probe_event.h"
#include "fxtprobe.skel.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define NS_PER_SEC		1000000000ULL
/* The kernel's longest symbol name, its NUL included (6.1). */
#define KSYM_NAME_LEN		512
/* Captured argument names: [A-Za-z_][A-Za-z0-9_]*. */
#define ARG_NAME_MAX		31
/* Register arguments of kprobes and uprobes (x86-64), operands of USDT. */
#define REGISTER_ARGS		6
#define USDT_ARGS		12
/* Words of the records a consume batch holds before it is written out. */
#define BATCH_WORDS		8192
/*
 * Largest record of one event: header, timestamp, thread koids, and per
 * argument a header and a string of FXTPROBE_STRING_MAX - 1 bytes.
 */
#define EVENT_WORDS_MAX \
	(4 + FXTPROBE_ARGS_MAX * (1 + fxt_stream_words(FXTPROBE_STRING_MAX)))
/*
 * Largest record of a tracepoint event: header, timestamp, thread koids,
 * the "cpu" argument, and per field a header and a value or a string of at
 * most the copied entry.
 */
#define TP_EVENT_WORDS_MAX \
	(4 + 2 + TP_FIELDS_MAX * (2 + fxt_stream_words(FXTPROBE_RAW_MAX)))
/* Fields a tracepoint record holds: FXT's 15 arguments, one is "cpu". */
#define TP_FIELDS_MAX		(FXT_ARGS_MAX - 1)
/* Tracepoint field and event names, NUL included. */
#define TP_NAME_MAX		64
/* The initial pid namespace's nsfs inode (include/linux/proc_ns.h). */
#define PROC_PID_INIT_INO	0xEFFFFFFCU
/* The string that replaces a captured string the BPF side could not read. */
#define UNREADABLE		"(unreadable)"

/* Fixed string indexes of the provider's table; names follow. */
enum {
	STRING_KPROBE = 1,	/* "probe:kprobe" */
	STRING_UPROBE,		/* "probe:uprobe" */
	STRING_USDT,		/* "probe:usdt" */
	STRING_TRACEPOINT,	/* "probe:tracepoint" */
	STRING_FIRST_NAME,
};

static const char *const category_names[] = {
	[STRING_KPROBE] = "probe:kprobe",
	[STRING_UPROBE] = "probe:uprobe",
	[STRING_USDT] = "probe:usdt",
	[STRING_TRACEPOINT] = "probe:tracepoint",
};

/* How a tracepoint field (tracefs format file) becomes an argument. */
enum field_kind {
	FIELD_UNSIGNED,		/* 1, 2, 4 or 8 bytes */
	FIELD_SIGNED,
	FIELD_POINTER,
	FIELD_STRING,		/* char NAME[N]: up to its NUL */
	FIELD_DYNAMIC_STRING,	/* __data_loc char[]: u32 length << 16 | offset */
	FIELD_OTHER,		/* other arrays: left out */
};

struct tp_field {
	char name[TP_NAME_MAX];
	__u16 name_ref;
	__u16 offset, size;
	enum field_kind kind;
	bool common;		/* common_*: filters only */
};

/* How a captured argument is shown. */
enum arg_type {
	ARG_U64,
	ARG_S64,
	ARG_U32,
	ARG_S32,
	ARG_PTR,
	ARG_USTR,
	ARG_KSTR,
};

static const char *const arg_type_names[] = {
	[ARG_U64] = "u64", [ARG_S64] = "s64", [ARG_U32] = "u32",
	[ARG_S32] = "s32", [ARG_PTR] = "ptr", [ARG_USTR] = "ustr",
	[ARG_KSTR] = "kstr",
};

struct probe_arg {
	char name[ARG_NAME_MAX + 1];
	__u16 name_ref;
	__u8 source;		/* argN, or FXTPROBE_SOURCE_RET */
	enum arg_type type;
};

struct probe {
	char *spec;		/* as given, for messages */
	char *parsed;		/* spec split in place: the names point here */
	enum fxtprobe_kind kind;
	char *path;		/* uprobes and USDT */
	/*
	 * PATH (with a '/') as opened by fxtprobe_add() (open_path()): -1 if
	 * not opened, path_err the open's -errno or -EINVAL for a file that
	 * is not a regular one.
	 */
	int path_fd, path_err;
	char *function;		/* kprobe function, uprobe symbol, USDT name */
	char *provider;		/* USDT */
	char *event_name;	/* function, symbol, or PROVIDER:NAME */
	__u16 name_ref;
	unsigned int nargs;
	struct probe_arg args[FXTPROBE_ARGS_MAX];
	struct bpf_link *link;
	unsigned int event_type;	/* FXT_EVENT_INSTANT or a duration end */
	unsigned int usdt_args;		/* USDT: the fewest its sites have */
	bool usdt_args_short;		/* attach refused an argument past them */
	/* Tracepoints: the fields recorded, in order, and the filter. */
	struct tp_field fields[TP_FIELDS_MAX];
	unsigned int nfields;
	__u16 cpu_name_ref;
	const char *cpu_name;		/* "cpu", or "hit_cpu" if a field is */
	__u32 raw_size;
	struct fxtprobe_filter filters[FXTPROBE_FILTERS_MAX];
	unsigned int nfilters;
};

struct fxtprobe {
	struct probe probes[FXTPROBE_PROBES_MAX];
	size_t count;
	struct btf *vmlinux_btf;	/* for kstr checks, until the open */
	struct fxtprobe_bpf *skel;
	struct ring_buffer *ring;
	__u32 provider_id;
	struct fxtprobe_clock clock;
	/* Strings of the provider's table from STRING_FIRST_NAME on. */
	const char *strings[FXTPROBE_PROBES_MAX * (2 + FXT_ARGS_MAX)];
	unsigned int nstrings;
	__u64 invalid;
	/* The consume in progress. */
	__u64 batch[BATCH_WORDS];
	size_t batch_words;
	fxtprobe_write_fn write;
	void *write_ctx;
	int write_error;
};

static void set_error(char *err, size_t err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

static void set_error(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !err_size)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
}

struct fxtprobe *fxtprobe_new(void)
{
	struct fxtprobe *set = calloc(1, sizeof(*set));

	if (set)
		fxtprobe_clock_monotonic(&set->clock);
	return set;
}

/* ---- specs -------------------------------------------------------------- */

static const char *const kind_names[] = {
	[FXTPROBE_KPROBE] = "kprobe", [FXTPROBE_KRETPROBE] = "kretprobe",
	[FXTPROBE_UPROBE] = "uprobe", [FXTPROBE_URETPROBE] = "uretprobe",
	[FXTPROBE_USDT] = "usdt", [FXTPROBE_TRACEPOINT] = "tracepoint",
};

static bool is_return(enum fxtprobe_kind kind)
{
	return kind == FXTPROBE_KRETPROBE || kind == FXTPROBE_URETPROBE;
}

static bool is_user(enum fxtprobe_kind kind)
{
	return kind == FXTPROBE_UPROBE || kind == FXTPROBE_URETPROBE ||
	       kind == FXTPROBE_USDT;
}

/* Kernel function and ELF symbol names: what kallsyms and libbpf accept. */
static bool valid_symbol(const char *s)
{
	if (!*s || strlen(s) >= KSYM_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' &&
		    *s != '@')
			return false;
	return true;
}

/* Where name stands in names[0..count): its index, or count if nowhere. */
static size_t name_index(const char *const *names, size_t count,
			 const char *name)
{
	size_t i = 0;

	while (i < count && strcmp(name, names[i]))
		i++;
	return i;
}

static bool valid_identifier(const char *s, size_t len, size_t max)
{
	size_t i;

	if (!len || len > max || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool valid_arg_name(const char *s, size_t len)
{
	return valid_identifier(s, len, ARG_NAME_MAX);
}

/* Split "KIND:TARGET" into the probe's kind, path and names. */
static int parse_target(struct probe *p, char *target, char *err,
			size_t err_size)
{
	char *colon = strchr(target, ':');
	char *last, *middle;
	size_t k;

	if (!colon) {
		set_error(err, err_size, "%s: expected KIND:TARGET", p->spec);
		return -EINVAL;
	}
	*colon = '\0';
	k = name_index(kind_names, ARRAY_SIZE(kind_names), target);
	if (k == ARRAY_SIZE(kind_names)) {
		set_error(err, err_size,
			  "%s: unknown probe kind '%s' (kprobe, kretprobe, uprobe, uretprobe, usdt, tracepoint)",
			  p->spec, target);
		return -EINVAL;
	}
	p->kind = k;
	target = colon + 1;
	if (p->kind == FXTPROBE_TRACEPOINT) {
		colon = strchr(target, ':');
		if (colon)
			*colon = '\0';
		if (!colon ||
		    !valid_identifier(target, strlen(target), TP_NAME_MAX - 1) ||
		    !valid_identifier(colon + 1, strlen(colon + 1),
				      TP_NAME_MAX - 1)) {
			set_error(err, err_size,
				  "%s: expected tracepoint:SUBSYSTEM:EVENT, both C identifiers of at most %d characters",
				  p->spec, TP_NAME_MAX - 1);
			return -EINVAL;
		}
		p->provider = target;
		p->function = colon + 1;
		return 0;
	}
	if (!is_user(p->kind)) {
		if (!valid_symbol(target)) {
			set_error(err, err_size,
				  "%s: '%s' is not a kernel function name",
				  p->spec, target);
			return -EINVAL;
		}
		p->function = target;
		return 0;
	}
	/* PATH may hold ':', names may not: split at the last colons. */
	last = strrchr(target, ':');
	if (!last) {
		set_error(err, err_size, "%s: expected %s", p->spec,
			  p->kind == FXTPROBE_USDT ? "usdt:PATH:PROVIDER:NAME" :
			  "PATH:SYMBOL");
		return -EINVAL;
	}
	*last = '\0';
	p->function = last + 1;
	if (p->kind == FXTPROBE_USDT) {
		middle = strrchr(target, ':');
		if (!middle) {
			set_error(err, err_size,
				  "%s: expected usdt:PATH:PROVIDER:NAME",
				  p->spec);
			return -EINVAL;
		}
		*middle = '\0';
		p->provider = middle + 1;
		if (!valid_arg_name(p->provider, strlen(p->provider)) ||
		    !valid_arg_name(p->function, strlen(p->function))) {
			set_error(err, err_size,
				  "%s: USDT provider and name are C identifiers",
				  p->spec);
			return -EINVAL;
		}
	} else if (!valid_symbol(p->function)) {
		set_error(err, err_size, "%s: '%s' is not a symbol name",
			  p->spec, p->function);
		return -EINVAL;
	}
	if (!*target) {
		set_error(err, err_size, "%s: empty PATH", p->spec);
		return -EINVAL;
	}
	p->path = target;
	return 0;
}

/* Parse "[NAME=]SOURCE:TYPE". */
static int parse_arg(struct probe *p, char *text, char *err, size_t err_size)
{
	struct probe_arg *a = &p->args[p->nargs];
	char *equals = strchr(text, '=');
	char *source = equals ? equals + 1 : text;
	char *type = strchr(source, ':');
	unsigned int limit = p->kind == FXTPROBE_USDT ? USDT_ARGS : REGISTER_ARGS;
	size_t t;

	if (p->nargs == FXTPROBE_ARGS_MAX) {
		set_error(err, err_size, "%s: at most %d arguments", p->spec,
			  FXTPROBE_ARGS_MAX);
		return -EINVAL;
	}
	if (!type) {
		set_error(err, err_size, "%s: '%s': expected [NAME=]SOURCE:TYPE",
			  p->spec, text);
		return -EINVAL;
	}
	*type++ = '\0';
	t = name_index(arg_type_names, ARRAY_SIZE(arg_type_names), type);
	if (t == ARRAY_SIZE(arg_type_names)) {
		set_error(err, err_size,
			  "%s: unknown type '%s' (u64, s64, u32, s32, ptr, ustr, kstr)",
			  p->spec, type);
		return -EINVAL;
	}
	a->type = t;
	if (a->type == ARG_KSTR && is_user(p->kind)) {
		set_error(err, err_size,
			  "%s: kstr reads kernel memory: a %s reads ustr",
			  p->spec, kind_names[p->kind]);
		return -EINVAL;
	}
	if (!strcmp(source, "ret")) {
		if (!is_return(p->kind)) {
			set_error(err, err_size,
				  "%s: ret exists only in kretprobe and uretprobe",
				  p->spec);
			return -EINVAL;
		}
		a->source = FXTPROBE_SOURCE_RET;
	} else {
		char *end;
		unsigned long n;

		if (strncmp(source, "arg", 3) || !isdigit((unsigned char)source[3])) {
			set_error(err, err_size,
				  "%s: unknown source '%s' (argN or ret)",
				  p->spec, source);
			return -EINVAL;
		}
		errno = 0;
		n = strtoul(source + 3, &end, 10);
		if (*end || errno || n >= limit) {
			set_error(err, err_size,
				  "%s: '%s': a %s has arg0..arg%u", p->spec,
				  source, kind_names[p->kind], limit - 1);
			return -EINVAL;
		}
		if (is_return(p->kind)) {
			set_error(err, err_size,
				  "%s: arguments are gone at return: use ret",
				  p->spec);
			return -EINVAL;
		}
		a->source = n;
	}
	if (equals) {
		if (!valid_arg_name(text, equals - text)) {
			set_error(err, err_size,
				  "%s: argument name '%.*s' is not an identifier of at most %d characters",
				  p->spec, (int)(equals - text), text,
				  ARG_NAME_MAX);
			return -EINVAL;
		}
		memcpy(a->name, text, equals - text);
		a->name[equals - text] = '\0';
	} else {
		snprintf(a->name, sizeof(a->name), "%s", source);
	}
	p->nargs++;
	return 0;
}

/* ---- kernel strings ----------------------------------------------------- */

/* Every kstr of kprobe or kretprobe p against the kernel's BTF (kstr.c). */
static int check_kstr_args(struct fxtprobe *set, const struct probe *p,
			   char *err, size_t err_size)
{
	char msg[512];
	unsigned int a;
	int ret;

	for (a = 0; a < p->nargs; a++) {
		if (p->args[a].type != ARG_KSTR)
			continue;
		if (!set->vmlinux_btf) {
			set->vmlinux_btf = btf__load_vmlinux_btf();
			if (!set->vmlinux_btf) {
				set_error(err, err_size,
					  "%s: kstr needs the kernel's BTF to check the argument's type, and it cannot be read: %s",
					  p->spec, strerror(errno));
				return -EINVAL;
			}
		}
		ret = fxtprobe_check_kstr(set->vmlinux_btf, p->spec,
					  p->function, p->args[a].source, msg,
					  sizeof(msg));
		if (ret) {
			set_error(err, err_size, "%s", msg);
			return ret;
		}
	}
	return 0;
}

/* ---- tracepoints ------------------------------------------------------- */

/* Where tracefs is: /sys/kernel/tracing, else the debugfs mount of old. */
static const char *tracefs_dir(void)
{
	return access("/sys/kernel/tracing/events", R_OK) &&
	       !access("/sys/kernel/debug/tracing/events", R_OK) ?
	       "/sys/kernel/debug/tracing" : "/sys/kernel/tracing";
}

/*
 * One "field:DECL; offset:N; size:N; signed:N;" line of a format file
 * into f; false if it is not one.
 */
static bool parse_field_line(const char *line, struct tp_field *f)
{
	char decl[256], *name, *bracket, *end;
	unsigned int offset, size, is_signed;
	const char *semi;
	bool dynamic;
	size_t len;

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, "field:", 6))
		return false;
	line += 6;
	semi = strchr(line, ';');
	if (!semi || (size_t)(semi - line) >= sizeof(decl) ||
	    sscanf(semi + 1, " offset:%u; size:%u; signed:%u;", &offset, &size,
		   &is_signed) != 3 || offset > UINT16_MAX || size > UINT16_MAX)
		return false;
	memcpy(decl, line, semi - line);
	decl[semi - line] = '\0';
	/*
	 * The name: the last identifier, before any [N], except in
	 * "__data_loc char[] name" (and 5.19's __rel_loc, left out).
	 */
	dynamic = !strncmp(decl, "__data_loc", 10) ||
		  !strncmp(decl, "__rel_loc", 9);
	bracket = strchr(decl, '[');
	end = bracket && !dynamic ? bracket : decl + strlen(decl);
	while (end > decl && end[-1] == ' ')
		end--;
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) ||
			       name[-1] == '_'))
		name--;
	len = end - name;
	if (!valid_identifier(name, len, TP_NAME_MAX - 1))
		return false;
	memcpy(f->name, name, len);
	f->name[len] = '\0';
	f->offset = offset;
	f->size = size;
	f->common = !strncmp(f->name, "common_", 7);
	if (dynamic)
		f->kind = !strncmp(decl, "__data_loc", 10) &&
			  strstr(decl, "char") && size == 4 ?
			  FIELD_DYNAMIC_STRING : FIELD_OTHER;
	else if (bracket)
		f->kind = strstr(decl, "char") ? FIELD_STRING : FIELD_OTHER;
	else if (strchr(decl, '*'))
		f->kind = size == 8 ? FIELD_POINTER : FIELD_OTHER;
	else if (size == 1 || size == 2 || size == 4 || size == 8)
		f->kind = is_signed ? FIELD_SIGNED : FIELD_UNSIGNED;
	else
		f->kind = FIELD_OTHER;
	return true;
}

/* The fields of SUBSYSTEM:EVENT from its tracefs format file. */
static int read_format(const struct probe *p, struct tp_field **fields,
		       unsigned int *count, char *err, size_t err_size)
{
	char path[512], *line = NULL;
	struct tp_field f, *grown;
	size_t cap = 0;
	FILE *file;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs_dir(),
		 p->provider, p->function);
	file = fopen(path, "re");
	if (!file) {
		set_error(err, err_size,
			  errno == ENOENT ?
			  "%s: no tracepoint %s:%s on this kernel (%s: %s; 'fxtrace list tracepoints' shows them)" :
			  "%s: cannot read the fields of %s:%s (%s: %s)",
			  p->spec, p->provider, p->function, path,
			  strerror(errno));
		return -EINVAL;
	}
	*fields = NULL;
	*count = 0;
	while (getline(&line, &cap, file) > 0) {
		if (!parse_field_line(line, &f))
			continue;
		grown = realloc(*fields, (*count + 1) * sizeof(**fields));
		if (!grown) {
			free(line);
			fclose(file);
			set_error(err, err_size, "%s: out of memory", p->spec);
			return -ENOMEM;
		}
		*fields = grown;
		(*fields)[(*count)++] = f;
	}
	free(line);
	fclose(file);
	return 0;
}

static const struct tp_field *find_field(const struct tp_field *fields,
					 unsigned int count, const char *name,
					 size_t len)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (strlen(fields[i].name) == len &&
		    !strncmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}

/* The two-character operators first: "<" is a prefix of "<=". */
static const struct {
	const char *name;
	enum fxtprobe_filter_op op;
} filter_ops[] = {
	{ "==", FXTPROBE_OP_EQ }, { "!=", FXTPROBE_OP_NE },
	{ "<=", FXTPROBE_OP_LE }, { ">=", FXTPROBE_OP_GE },
	{ "<", FXTPROBE_OP_LT }, { ">", FXTPROBE_OP_GT },
};

/*
 * Whether value (sign-extended for a signed field) is one the field can
 * hold: the BPF side compares the field's value, and a number out of its
 * range would make the condition always or never hold.
 */
static bool fits_field(__u64 value, const struct tp_field *f)
{
	unsigned int bits = 8 * f->size;

	if (bits >= 64)
		return true;
	if (f->kind == FIELD_SIGNED)
		return (__s64)value >= -(1LL << (bits - 1)) &&
		       (__s64)value < 1LL << (bits - 1);
	return value < 1ULL << bits;
}

/* "FIELD OP NUMBER" without blanks into the probe's filter. */
static int parse_filter(struct probe *p, const char *word,
			const struct tp_field *fields, unsigned int count,
			char *err, size_t err_size)
{
	struct fxtprobe_filter *flt = &p->filters[p->nfilters];
	const struct tp_field *f;
	const char *op = strpbrk(word, "=!<>"), *number;
	size_t o;
	char *end;

	for (o = 0; o < ARRAY_SIZE(filter_ops); o++)
		if (!strncmp(op, filter_ops[o].name, strlen(filter_ops[o].name)))
			break;
	if (o == ARRAY_SIZE(filter_ops)) {
		set_error(err, err_size,
			  "%s: '%s': expected FIELD OP NUMBER, OP one of == != < <= > >=",
			  p->spec, word);
		return -EINVAL;
	}
	f = find_field(fields, count, word, op - word);
	if (!f || (f->kind != FIELD_SIGNED && f->kind != FIELD_UNSIGNED &&
		   f->kind != FIELD_POINTER)) {
		set_error(err, err_size,
			  "%s: '%s': %.*s is not an integer field of %s:%s",
			  p->spec, word, (int)(op - word), word, p->provider,
			  p->function);
		return -EINVAL;
	}
	if (p->nfilters == FXTPROBE_FILTERS_MAX) {
		set_error(err, err_size, "%s: at most %d conditions", p->spec,
			  FXTPROBE_FILTERS_MAX);
		return -EINVAL;
	}
	if (f->offset > FXTPROBE_RAW_MAX - 8) {
		set_error(err, err_size,
			  "%s: %s lies beyond the %d bytes of the entry a filter reads",
			  p->spec, f->name, FXTPROBE_RAW_MAX - 8);
		return -EINVAL;
	}
	number = op + strlen(filter_ops[o].name);
	errno = 0;
	flt->value = f->kind == FIELD_SIGNED ?
		     (__u64)strtoll(number, &end, 0) : strtoull(number, &end, 0);
	if (errno || end == number || *end ||
	    (f->kind != FIELD_SIGNED && *number == '-')) {
		set_error(err, err_size, "%s: '%s': '%s' is not a%s number",
			  p->spec, word, number,
			  f->kind == FIELD_SIGNED ? "" : "n unsigned");
		return -EINVAL;
	}
	if (!fits_field(flt->value, f)) {
		set_error(err, err_size,
			  "%s: '%s': %s does not fit in %.*s, a%s field of %u bytes",
			  p->spec, word, number, (int)(op - word), word,
			  f->kind == FIELD_SIGNED ? " signed" : "n unsigned",
			  f->size);
		return -EINVAL;
	}
	flt->offset = f->offset;
	flt->size = f->size;
	flt->is_signed = f->kind == FIELD_SIGNED;
	flt->op = filter_ops[o].op;
	p->nfilters++;
	return 0;
}

/* One word after tracepoint:SUBSYSTEM:EVENT: a field to keep or a filter. */
static int parse_tp_word(struct probe *p, const char *word,
			 const struct tp_field *fields, unsigned int count,
			 char *err, size_t err_size)
{
	const struct tp_field *f;

	if (strpbrk(word, "=!<>"))
		return parse_filter(p, word, fields, count, err, err_size);
	f = find_field(fields, count, word, strlen(word));
	if (!f || f->common || f->kind == FIELD_OTHER) {
		set_error(err, err_size,
			  "%s: %s:%s has no field '%s' fxtrace can record",
			  p->spec, p->provider, p->function, word);
		return -EINVAL;
	}
	if (p->nfields == TP_FIELDS_MAX) {
		set_error(err, err_size, "%s: at most %d fields", p->spec,
			  TP_FIELDS_MAX);
		return -EINVAL;
	}
	p->fields[p->nfields++] = *f;
	return 0;
}

/*
 * Without fields named, every field but the common ones and arrays other
 * than strings; then the bytes of the entry to copy.
 */
static int finish_tracepoint(struct probe *p, const struct tp_field *fields,
			     unsigned int count, char *err, size_t err_size)
{
	unsigned int i, usable = 0;
	__u32 end = 0;

	if (!p->nfields) {
		for (i = 0; i < count; i++)
			usable += !fields[i].common && fields[i].kind != FIELD_OTHER;
		if (usable > TP_FIELDS_MAX) {
			set_error(err, err_size,
				  "%s: %s:%s has %u fields, a record holds %d: name the ones to keep (tracepoint:%s:%s FIELD...)",
				  p->spec, p->provider, p->function, usable,
				  TP_FIELDS_MAX, p->provider, p->function);
			return -EINVAL;
		}
		for (i = 0; i < count; i++)
			if (!fields[i].common && fields[i].kind != FIELD_OTHER)
				p->fields[p->nfields++] = fields[i];
	}
	p->cpu_name = "cpu";
	for (i = 0; i < p->nfields; i++) {
		if (p->fields[i].kind == FIELD_DYNAMIC_STRING)
			end = FXTPROBE_RAW_MAX;
		else if ((__u32)p->fields[i].offset + p->fields[i].size > end)
			end = p->fields[i].offset + p->fields[i].size;
		if (!strcmp(p->fields[i].name, "cpu"))
			p->cpu_name = "hit_cpu";
	}
	for (i = 0; i < p->nfilters; i++)
		if ((__u32)p->filters[i].offset + p->filters[i].size > end)
			end = p->filters[i].offset + p->filters[i].size;
	if (end > FXTPROBE_RAW_MAX) {
		set_error(err, err_size,
			  "%s: its fields end at byte %u of the entry; fxtrace copies %d",
			  p->spec, end, FXTPROBE_RAW_MAX);
		return -EINVAL;
	}
	p->raw_size = end ? end : 8;
	return 0;
}

static void free_probe(struct probe *p)
{
	bpf_link__destroy(p->link);
	if (p->path_fd >= 0)
		close(p->path_fd);
	free(p->spec);
	free(p->parsed);
	free(p->event_name);
	memset(p, 0, sizeof(*p));
}

/*
 * A uprobe's or USDT probe's PATH with a '/' is opened once, here, and
 * attached through /proc/self/fd/N: given the path, libbpf opens it to
 * find the symbol's offset and the kernel opens it again to attach, and
 * whoever may rename entries of PATH's directory could put another file
 * (a library every process maps) there in between.  The probe is on the
 * file PATH named when the probe was added.  A bare name is left to
 * libbpf, which looks it up in $PATH and the library directories.  An
 * error is kept for fxtprobe_open() to report like any probe that cannot
 * attach.
 */
static void open_path(struct probe *p)
{
	struct stat st;

	if (!p->path || !strchr(p->path, '/'))
		return;
	/* O_PATH: nothing is opened for reading (a device, a FIFO). */
	p->path_fd = open(p->path, O_PATH | O_CLOEXEC);
	if (p->path_fd < 0)
		p->path_err = -errno;
	else if (fstat(p->path_fd, &st))
		p->path_err = -errno;
	else if (!S_ISREG(st.st_mode))
		p->path_err = -EINVAL;
}

int fxtprobe_add(struct fxtprobe *set, const char *spec, char *err,
		 size_t err_size)
{
	struct tp_field *fields = NULL;
	unsigned int nfields = 0;
	struct probe *p;
	char *buf, *word, *save = NULL;
	int ret;

	if (set->count == FXTPROBE_PROBES_MAX) {
		set_error(err, err_size, "%s: at most %d probes", spec,
			  FXTPROBE_PROBES_MAX);
		return -ENOSPC;
	}
	if (set->skel) {
		set_error(err, err_size, "%s: the probes are already open", spec);
		return -EBUSY;
	}
	if (strnlen(spec, FXTPROBE_SPEC_MAX + 1) > FXTPROBE_SPEC_MAX) {
		set_error(err, err_size, "probe spec longer than %d bytes",
			  FXTPROBE_SPEC_MAX);
		return -EINVAL;
	}
	p = &set->probes[set->count];
	p->path_fd = -1;
	p->spec = strdup(spec);
	buf = strdup(spec);
	p->parsed = buf;
	if (!p->spec || !buf) {
		free_probe(p);
		set_error(err, err_size, "%s: out of memory", spec);
		return -ENOMEM;
	}
	word = strtok_r(buf, " \t", &save);
	if (!word) {
		set_error(err, err_size, "empty probe spec");
		ret = -EINVAL;
		goto fail;
	}
	ret = parse_target(p, word, err, err_size);
	if (!ret && p->kind == FXTPROBE_TRACEPOINT)
		ret = read_format(p, &fields, &nfields, err, err_size);
	while (!ret && (word = strtok_r(NULL, " \t", &save)))
		ret = p->kind == FXTPROBE_TRACEPOINT ?
		      parse_tp_word(p, word, fields, nfields, err, err_size) :
		      parse_arg(p, word, err, err_size);
	if (!ret && p->kind == FXTPROBE_TRACEPOINT)
		ret = finish_tracepoint(p, fields, nfields, err, err_size);
	if (!ret && (p->kind == FXTPROBE_KPROBE || p->kind == FXTPROBE_KRETPROBE))
		ret = check_kstr_args(set, p, err, err_size);
	free(fields);
	if (ret)
		goto fail;
	if (p->kind == FXTPROBE_USDT || p->kind == FXTPROBE_TRACEPOINT)
		ret = asprintf(&p->event_name, "%s:%s", p->provider,
			       p->function) < 0 ? -ENOMEM : 0;
	else
		p->event_name = strdup(p->function);
	if (ret || !p->event_name) {
		set_error(err, err_size, "%s: out of memory", spec);
		ret = -ENOMEM;
		goto fail;
	}
	open_path(p);
	set->count++;
	return 0;
fail:
	free_probe(p);
	return ret;
}

/* ---- attaching ---------------------------------------------------------- */

static int convert_event(void *ctx, void *data, size_t size);

static int libbpf_print_warnings(enum libbpf_print_level level,
				 const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int libbpf_print_nothing(enum libbpf_print_level level,
				const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The highest argN of p's arguments (0 without any). */
static unsigned int max_source(const struct probe *p)
{
	unsigned int a, max = 0;

	for (a = 0; a < p->nargs; a++)
		if (p->args[a].source > max)
			max = p->args[a].source;
	return max;
}

/*
 * Where member name of the struct type id is, in bytes, or -1: libbpf's
 * USDT spec, whose layout is libbpf's and may change, as our BTF has it.
 */
static long member_offset(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	unsigned int i;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

/*
 * The fewest arguments the sites of USDT probe i have, from libbpf's
 * spec map (usdt.bpf.h's __bpf_usdt_specs, one entry per distinct site
 * spec; probe i's have the cookie i + 1), or -errno.  bpf_usdt_arg() of
 * an argument a site does not have fails, and the value read would be 0.
 */
static int usdt_arg_count(const struct fxtprobe *set, size_t i)
{
	const struct bpf_map *specs = set->skel->maps.__bpf_usdt_specs;
	const struct btf *btf = bpf_object__btf(set->skel->obj);
	__u32 id = bpf_map__btf_value_type_id(specs);
	__u32 value_size = bpf_map__value_size(specs), key;
	long cookie_at = member_offset(btf, id, "usdt_cookie");
	long count_at = member_offset(btf, id, "arg_cnt");
	int fewest = -ENOENT;
	unsigned char *value;
	__u64 cookie;
	short count;

	if (cookie_at < 0 || count_at < 0 ||
	    (size_t)cookie_at + sizeof(cookie) > value_size ||
	    (size_t)count_at + sizeof(count) > value_size)
		return -EINVAL;
	value = malloc(value_size);
	if (!value)
		return -ENOMEM;
	for (key = 0; key < bpf_map__max_entries(specs); key++) {
		if (bpf_map__lookup_elem(specs, &key, sizeof(key), value,
					 value_size, 0))
			continue;
		memcpy(&cookie, value + cookie_at, sizeof(cookie));
		memcpy(&count, value + count_at, sizeof(count));
		if (cookie == i + 1 && (fewest < 0 || count < fewest))
			fewest = count;
	}
	free(value);
	return fewest;
}

/* Why attaching p failed with err (negative errno), as a sentence. */
static void attach_reason(const struct probe *p, int err, char *buf,
			  size_t size)
{
	switch (-err) {
	case ENOENT:
		if (p->kind == FXTPROBE_TRACEPOINT)
			snprintf(buf, size, "no tracepoint %s:%s on this kernel",
				 p->provider, p->function);
		else if (p->kind == FXTPROBE_USDT)
			snprintf(buf, size, "no USDT probe %s:%s in %s",
				 p->provider, p->function, p->path);
		else if (is_user(p->kind))
			snprintf(buf, size, "no function symbol %s in %s",
				 p->function, p->path);
		else
			snprintf(buf, size, "no kernel function %s",
				 p->function);
		break;
	case EINVAL:
		snprintf(buf, size,
			 "the kernel refuses to probe %s (not a function entry, notrace, or on the kprobe blacklist)",
			 p->function);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, size,
			 "permission denied: probes need CAP_BPF and CAP_PERFMON, or root");
		break;
	case EOPNOTSUPP:
		snprintf(buf, size, "this kernel does not support %s probes",
			 kind_names[p->kind]);
		break;
	case ERANGE:
		/* Ours (attach()); libbpf's or the kernel's is said as is. */
		if (p->usdt_args_short) {
			snprintf(buf, size,
				 "USDT probe %s:%s in %s has %u argument%s, not arg%u",
				 p->provider, p->function, p->path,
				 p->usdt_args, p->usdt_args == 1 ? "" : "s",
				 max_source(p));
			break;
		}
		/* fallthrough */
	default:
		snprintf(buf, size, "%s", strerror(-err));
	}
}

static int attach(struct fxtprobe *set, size_t i)
{
	struct probe *p = &set->probes[i];
	char fd_path[32];
	const char *path = p->path;

	if (p->path_fd >= 0) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d",
			 p->path_fd);
		path = fd_path;
	}

	if (p->kind == FXTPROBE_TRACEPOINT) {
		LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = i);

		p->link = bpf_program__attach_tracepoint_opts(
			set->skel->progs.fxtprobe_tracepoint, p->provider,
			p->function, &opts);
	} else if (p->kind == FXTPROBE_USDT) {
		LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = i + 1);
		int count;

		p->link = bpf_program__attach_usdt(set->skel->progs.fxtprobe_usdt,
						   -1, path, p->provider,
						   p->function, &opts);
		if (!p->link || !p->nargs)
			return p->link ? 0 : -errno;
		/*
		 * A missing argument would read as 0: refused, as bpftrace
		 * does.  Where libbpf's map does not say (its layout changed),
		 * the probe stays, as before this check.
		 */
		count = usdt_arg_count(set, i);
		if (count < 0 || max_source(p) < (unsigned int)count)
			return 0;
		bpf_link__destroy(p->link);
		p->link = NULL;
		p->usdt_args = count;
		p->usdt_args_short = true;
		return -ERANGE;
	} else if (is_user(p->kind)) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = i,
			    .retprobe = is_return(p->kind),
			    .func_name = p->function);

		p->link = bpf_program__attach_uprobe_opts(
			set->skel->progs.fxtprobe_regs, -1, path, 0, &opts);
	} else {
		LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = i,
			    .retprobe = is_return(p->kind));

		p->link = bpf_program__attach_kprobe_opts(
			set->skel->progs.fxtprobe_regs, p->function, &opts);
	}
	return p->link ? 0 : -errno;
}

/*
 * Why p's PATH cannot be attached to, in reason: a negative errno, or 0
 * (no PATH opened, or one that will do).
 */
static int path_problem(const struct probe *p, char *reason, size_t size)
{
	char fd_path[32];

	if (p->path_err) {
		snprintf(reason, size, "%s: %s", p->path,
			 p->path_err == -EINVAL ? "not a regular file" :
			 strerror(-p->path_err));
		return p->path_err;
	}
	if (p->path_fd < 0)
		return 0;
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", p->path_fd);
	if (!access(fd_path, F_OK))
		return 0;
	snprintf(reason, size,
		 "%s: %s (the probe attaches through /proc/self/fd: is /proc mounted?)",
		 fd_path, strerror(errno));
	return -errno;
}

static int configure(struct fxtprobe *set, __u32 i)
{
	const struct probe *p = &set->probes[i];
	struct fxtprobe_config config = {
		.nargs = p->nargs,
		.raw_size = p->raw_size,
		.nfilters = p->nfilters,
	};
	unsigned int a;

	memcpy(config.filters, p->filters, sizeof(config.filters));
	for (a = 0; a < p->nargs; a++) {
		config.args[a].source = p->args[a].source;
		config.args[a].read =
			p->args[a].type == ARG_USTR ? FXTPROBE_READ_USER_STRING :
			p->args[a].type == ARG_KSTR ? FXTPROBE_READ_KERNEL_STRING :
			FXTPROBE_READ_VALUE;
	}
	if (bpf_map__update_elem(set->skel->maps.configs, &i, sizeof(i),
				 &config, sizeof(config), BPF_ANY))
		return -errno;
	return 0;
}

/* The string index of s in the provider's table, added if new. */
static __u16 string_index(struct fxtprobe *set, const char *s)
{
	unsigned int i;

	for (i = 0; i < set->nstrings; i++)
		if (!strcmp(set->strings[i], s))
			return STRING_FIRST_NAME + i;
	set->strings[set->nstrings] = s;
	return STRING_FIRST_NAME + set->nstrings++;
}

static bool same_function(const struct probe *entry, const struct probe *ret)
{
	if (entry->kind != (ret->kind == FXTPROBE_KRETPROBE ? FXTPROBE_KPROBE :
			    FXTPROBE_UPROBE))
		return false;
	if (strcmp(entry->function, ret->function))
		return false;
	return !entry->path || !strcmp(entry->path, ret->path);
}

/*
 * An attached return probe whose function also has an attached entry probe
 * closes the duration the entry opens; every other probe is an instant.
 */
static void pair_probes(struct fxtprobe *set)
{
	size_t i, j;

	for (i = 0; i < set->count; i++)
		set->probes[i].event_type = FXT_EVENT_INSTANT;
	for (i = 0; i < set->count; i++) {
		struct probe *r = &set->probes[i];

		if (!r->link || !is_return(r->kind))
			continue;
		for (j = 0; j < set->count; j++) {
			struct probe *e = &set->probes[j];

			if (e->link && e->event_type == FXT_EVENT_INSTANT &&
			    same_function(e, r)) {
				e->event_type = FXT_EVENT_DURATION_BEGIN;
				r->event_type = FXT_EVENT_DURATION_END;
				break;
			}
		}
	}
}

int fxtprobe_open(struct fxtprobe *set, const struct fxtprobe_options *opts,
		  fxtprobe_error_fn on_error, void *ctx, char *err,
		  size_t err_size)
{
	__u32 ring_size = opts && opts->ring_size ? opts->ring_size :
			  FXTPROBE_RING_SIZE_DEFAULT;
	long page = sysconf(_SC_PAGESIZE);
	int attached = 0, ret;
	size_t i;

	if (set->skel) {
		set_error(err, err_size, "the probes are already open");
		return -EBUSY;
	}
	if (ring_size & (ring_size - 1) || ring_size < page) {
		set_error(err, err_size,
			  "ring buffer size %u is not a power of 2 of at least a page",
			  ring_size);
		return -EINVAL;
	}
	set->provider_id = opts && opts->provider_id ? opts->provider_id :
			   FXTPROBE_PROVIDER_ID_DEFAULT;
	/* The specs are checked: no more fxtprobe_add(), no more kstr. */
	btf__free(set->vmlinux_btf);
	set->vmlinux_btf = NULL;
	/* libbpf's printer is process wide; its info lines are noise here. */
	libbpf_set_print(opts && opts->libbpf_warnings ? libbpf_print_warnings :
			 libbpf_print_nothing);
	set->skel = fxtprobe_bpf__open();
	if (!set->skel) {
		ret = -errno;
		set_error(err, err_size, "cannot open the BPF object: %s",
			  strerror(-ret));
		return ret;
	}
	ret = bpf_map__set_max_entries(set->skel->maps.events, ring_size);
	if (!ret)
		ret = fxtprobe_bpf__load(set->skel);
	if (ret) {
		/*
		 * EACCES is the verifier's refusal: libbpf_warnings shows its
		 * log (-v of fxtrace-probe, fxtrace record and fxtrace-drain).
		 * ESRCH: the CO-RE relocations found no kernel BTF.
		 */
		set_error(err, err_size, "cannot load the BPF programs: %s%s",
			  strerror(-ret), ret == -EPERM ?
			  " (needs CAP_BPF and CAP_PERFMON, or root)" :
			  ret == -ESRCH && access("/sys/kernel/btf/vmlinux", R_OK) ?
			  " (the kernel has no BTF, /sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF is needed)" :
			  ret != -EACCES ? "" :
			  opts && opts->libbpf_warnings ?
			  " (the BPF verifier refused them: its log is above)" :
			  " (the BPF verifier refused them: -v shows its log)");
		goto fail;
	}
	/* Before the first link: no other process's event gets in. */
	ret = fxtprobe_set_filter_tgid(set, opts ? opts->filter_tgid : 0);
	if (ret) {
		set_error(err, err_size,
			  "the process filter needs our pid namespace: /proc/self/ns/pid: %s",
			  strerror(-ret));
		goto fail;
	}
	for (i = 0; i < set->count; i++) {
		char reason[512];

		ret = configure(set, i);
		if (ret) {
			set_error(err, err_size, "cannot configure %s: %s",
				  set->probes[i].spec, strerror(-ret));
			goto fail;
		}
		/* libbpf says ENOENT for a missing file and symbol alike. */
		ret = path_problem(&set->probes[i], reason, sizeof(reason));
		if (!ret) {
			ret = attach(set, i);
			if (!ret) {
				attached++;
				continue;
			}
			attach_reason(&set->probes[i], ret, reason,
				      sizeof(reason));
		}
		if (on_error)
			on_error(ctx, set->probes[i].spec, ret, reason);
	}
	set->ring = ring_buffer__new(bpf_map__fd(set->skel->maps.events),
				     convert_event, set, NULL);
	if (!set->ring) {
		ret = -errno;
		set_error(err, err_size, "cannot map the ring buffer: %s",
			  strerror(-ret));
		goto fail;
	}
	pair_probes(set);
	for (i = 0; i < set->count; i++) {
		struct probe *p = &set->probes[i];
		unsigned int a;

		if (!p->link)
			continue;
		p->name_ref = string_index(set, p->event_name);
		for (a = 0; a < p->nargs; a++)
			p->args[a].name_ref = string_index(set, p->args[a].name);
		for (a = 0; a < p->nfields; a++)
			p->fields[a].name_ref = string_index(set,
							     p->fields[a].name);
		if (p->kind == FXTPROBE_TRACEPOINT)
			p->cpu_name_ref = string_index(set, p->cpu_name);
	}
	return attached;
fail:
	for (i = 0; i < set->count; i++) {
		bpf_link__destroy(set->probes[i].link);
		set->probes[i].link = NULL;
	}
	fxtprobe_bpf__destroy(set->skel);
	set->skel = NULL;
	return ret;
}

/*
 * Our pid namespace, for the BPF filter: dev and ino left 0 in the initial one,
 * where the global tgid the BPF program sees is the pid we see; else the
 * namespace's nsfs inode and device, in the kernel's dev_t encoding
 * (MKDEV), which bpf_get_ns_current_pid_tgid() compares with the nsfs
 * superblock's s_dev, not in st_dev's.
 */
static int own_pid_namespace(__u64 *dev, __u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	if (st.st_ino != PROC_PID_INIT_INO) {
		*dev = (__u64)major(st.st_dev) << 20 | minor(st.st_dev);
		*ino = st.st_ino;
	}
	return 0;
}

int fxtprobe_set_filter_tgid(struct fxtprobe *set, uint32_t tgid)
{
	__u64 dev = 0, ino = 0;
	int ret;

	if (!set->skel)
		return -EBADF;
	/*
	 * The namespace before the tgid that turns the filter on; it is the
	 * same at every call, so a filter in force never sees a mixed pair.
	 */
	if (tgid) {
		ret = own_pid_namespace(&dev, &ino);
		if (ret)
			return ret;
		set->skel->bss->filter_pidns_dev = dev;
		set->skel->bss->filter_pidns_ino = ino;
	}
	__atomic_store_n(&set->skel->bss->filter_tgid, tgid, __ATOMIC_RELEASE);
	return 0;
}

int fxtprobe_epoll_fd(const struct fxtprobe *set)
{
	return set->ring ? ring_buffer__epoll_fd(set->ring) : -EBADF;
}

/* ---- the clock ---------------------------------------------------------- */

int fxtprobe_clock_from_session(const struct fxtrace_session_page *page,
				struct fxtprobe_clock *clock)
{
	__u64 seq;
	int tries;

	/* The kernel writes state with WRITE_ONCE: a plain, untorn read. */
	if (page->magic != FXTRACE_SESSION_MAGIC ||
	    __atomic_load_n(&page->state, __ATOMIC_RELAXED) ==
	    FXTRACE_STATE_NONE)
		return -ENODEV;
	clock->clock = page->clock;
	clock->ticks_per_second = page->ticks_per_second;
	/*
	 * The kernel rewrites the pair once a second: a few tries suffice.
	 * A seqcount read, paired with fxt_clock_refresh()'s two smp_wmb().
	 */
	for (tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&page->ref_seq, __ATOMIC_ACQUIRE);
		clock->ref_tsc = page->ref_tsc;
		clock->ref_monotonic_ns = page->ref_monotonic_ns;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) &&
		    seq == __atomic_load_n(&page->ref_seq, __ATOMIC_RELAXED))
			return 0;
	}
	return -EAGAIN;
}

void fxtprobe_clock_monotonic(struct fxtprobe_clock *clock)
{
	memset(clock, 0, sizeof(*clock));
	clock->clock = FXTRACE_CLOCK_MONOTONIC;
	clock->ticks_per_second = NS_PER_SEC;
}

int fxtprobe_set_clock(struct fxtprobe *set, const struct fxtprobe_clock *clock)
{
	if (clock->clock == FXTRACE_CLOCK_MONOTONIC) {
		if (clock->ticks_per_second != NS_PER_SEC)
			return -EINVAL;
	} else if (clock->clock != FXTRACE_CLOCK_TSC ||
		   !clock->ticks_per_second) {
		return -EINVAL;
	}
	set->clock = *clock;
	return 0;
}

uint64_t fxtprobe_ticks(const struct fxtprobe *set, uint64_t monotonic_ns)
{
	const struct fxtprobe_clock *c = &set->clock;
	__int128 delta;

	if (c->clock != FXTRACE_CLOCK_TSC)
		return monotonic_ns;
	/* Signed: events may predate the reference pair. */
	delta = (__int128)(int64_t)(monotonic_ns - c->ref_monotonic_ns) *
		c->ticks_per_second / (__int128)NS_PER_SEC;
	return c->ref_tsc + (uint64_t)(int64_t)delta;
}

/* ---- FXT ---------------------------------------------------------------- */

static const char *string_at(const struct fxtprobe *set, unsigned int index)
{
	return index < STRING_FIRST_NAME ? category_names[index] :
	       set->strings[index - STRING_FIRST_NAME];
}

static unsigned int strings_end(const struct fxtprobe *set)
{
	return STRING_FIRST_NAME + set->nstrings;
}

size_t fxtprobe_preamble_size(const struct fxtprobe *set)
{
	size_t words = 2 + 2;	/* provider info ("bpf"), initialization */
	unsigned int i;

	for (i = STRING_KPROBE; i < strings_end(set); i++)
		words += 1 + fxt_stream_words(strlen(string_at(set, i)));
	return words * 8;
}

size_t fxtprobe_write_preamble(const struct fxtprobe *set, void *buf,
			       size_t size)
{
	static const char provider_name[] = "bpf";
	__u64 *dst = buf;
	size_t n = 0;
	unsigned int i;

	if (size < fxtprobe_preamble_size(set))
		return 0;
	n += fxt_write_provider_info(dst, set->provider_id, provider_name,
				     sizeof(provider_name) - 1);
	n += fxt_write_init(dst + n, set->clock.ticks_per_second);
	for (i = STRING_KPROBE; i < strings_end(set); i++) {
		const char *s = string_at(set, i);

		n += fxt_write_string(dst + n, i, s, strlen(s));
	}
	return n * 8;
}

static __u16 category_of(enum fxtprobe_kind kind)
{
	switch (kind) {
	case FXTPROBE_KPROBE:
	case FXTPROBE_KRETPROBE:
		return STRING_KPROBE;
	case FXTPROBE_UPROBE:
	case FXTPROBE_URETPROBE:
		return STRING_UPROBE;
	case FXTPROBE_TRACEPOINT:
		return STRING_TRACEPOINT;
	default:
		return STRING_USDT;
	}
}

/*
 * Copy the string at s (up to its NUL, at most max bytes) as FXT wants it
 * (UTF-8): each byte that starts no valid sequence becomes '?'.  Returns
 * its length.
 */
static size_t utf8_copy(const char *s, size_t max, char *out)
{
	size_t len = strnlen(s, max), pos = 0;

	while (pos < len) {
		size_t n = fxt_utf8_sequence((const unsigned char *)s + pos,
					 len - pos);

		if (!n) {
			out[pos++] = '?';
			continue;
		}
		memcpy(out + pos, s + pos, n);
		pos += n;
	}
	return len;
}

/*
 * A captured string: value is what bpf_probe_read_*_str() returned; the
 * string is untrusted memory of the probed program.
 */
static size_t captured_string(const struct fxtprobe_event *ev, unsigned int i,
			      char *out)
{
	__s64 ret = (__s64)ev->values[i];

	if (ret <= 0 || ret > FXTPROBE_STRING_MAX) {
		memcpy(out, UNREADABLE, sizeof(UNREADABLE) - 1);
		return sizeof(UNREADABLE) - 1;
	}
	return utf8_copy(ev->strings[i], ret - 1, out);
}

static __u32 write_arg(__u64 *dst, const struct probe_arg *a,
		       const struct fxtprobe_event *ev, unsigned int i)
{
	__u64 value = ev->values[i];
	char string[FXTPROBE_STRING_MAX];
	size_t len;

	switch (a->type) {
	case ARG_U64:
		return fxt_write_arg64(dst, FXT_ARG_UINT64, a->name_ref, NULL,
				       value);
	case ARG_S64:
		return fxt_write_arg64(dst, FXT_ARG_INT64, a->name_ref, NULL,
				       value);
	case ARG_U32:
		return fxt_write_arg32(dst, FXT_ARG_UINT32, a->name_ref, NULL,
				       (__u32)value);
	case ARG_S32:
		return fxt_write_arg32(dst, FXT_ARG_INT32, a->name_ref, NULL,
				       (__u32)value);
	case ARG_PTR:
		return fxt_write_arg64(dst, FXT_ARG_POINTER, a->name_ref, NULL,
				       value);
	default:
		len = captured_string(ev, i, string);
		return fxt_write_arg_string(dst, a->name_ref, NULL,
					    len ? fxt_inline_string_ref(len) :
					    FXT_STRING_REF_EMPTY, string);
	}
}

static int flush_batch(struct fxtprobe *set)
{
	int ret;

	if (!set->batch_words)
		return 0;
	ret = set->write(set->write_ctx, set->batch, set->batch_words * 8);
	set->batch_words = 0;
	if (ret)
		set->write_error = ret > 0 ? -ret : ret;
	return set->write_error;
}

/*
 * Room for max_words more words in the batch (flushed first if they do not
 * fit), after the provider section header a fresh batch starts with: *dst
 * is where they go.  Returns 0 or flush_batch()'s error.
 */
static int batch_room(struct fxtprobe *set, __u32 max_words, __u64 **dst)
{
	int ret;

	if (set->batch_words + max_words > BATCH_WORDS) {
		ret = flush_batch(set);
		if (ret)
			return ret;
	}
	if (!set->batch_words)
		set->batch[set->batch_words++] =
			fxt_provider_section_hdr(set->provider_id);
	*dst = set->batch + set->batch_words;
	return 0;
}

/* A field of a copied tracepoint entry as an argument; 0 if not there. */
static __u32 write_field(__u64 *dst, const struct tp_field *f,
			 const struct fxtprobe_raw_event *ev)
{
	char string[FXTPROBE_RAW_MAX];
	__u64 value = 0;
	__u32 loc, start, len;
	unsigned int shift;

	if ((__u32)f->offset + f->size > ev->raw_size)
		return 0;
	switch (f->kind) {
	case FIELD_STRING:
		len = utf8_copy((const char *)ev->raw + f->offset, f->size,
				string);
		break;
	case FIELD_DYNAMIC_STRING:
		/* The kernel's __data_loc: length << 16 | offset in the entry. */
		memcpy(&loc, ev->raw + f->offset, 4);
		start = loc & 0xffff;
		if (start > ev->raw_size)
			return 0;
		len = utf8_copy((const char *)ev->raw + start,
				min_u32(loc >> 16, ev->raw_size - start),
				string);
		break;
	default:
		memcpy(&value, ev->raw + f->offset, f->size);
		shift = 64 - 8 * f->size;
		if (f->kind == FIELD_SIGNED)
			value = (__u64)((__s64)(value << shift) >> shift);
		if (f->kind == FIELD_POINTER)
			return fxt_write_arg64(dst, FXT_ARG_POINTER,
					       f->name_ref, NULL, value);
		if (f->size == 8)
			return fxt_write_arg64(dst, f->kind == FIELD_SIGNED ?
					       FXT_ARG_INT64 : FXT_ARG_UINT64,
					       f->name_ref, NULL, value);
		return fxt_write_arg32(dst, f->kind == FIELD_SIGNED ?
				       FXT_ARG_INT32 : FXT_ARG_UINT32,
				       f->name_ref, NULL, (__u32)value);
	}
	return fxt_write_arg_string(dst, f->name_ref, NULL,
				    len ? fxt_inline_string_ref(len) :
				    FXT_STRING_REF_EMPTY, string);
}

/* A tracepoint hit: its fields, then the CPU, as arguments. */
static int convert_raw_event(struct fxtprobe *set, const void *data,
			     size_t size)
{
	const struct fxtprobe_raw_event *ev = data;
	const struct probe *p;
	unsigned int i, nargs = 0;
	__u32 n, head, words, arg;
	__u64 *dst;
	int ret;

	if (size < sizeof(*ev) || ev->raw_size > FXTPROBE_RAW_MAX) {
		set->invalid++;
		return 0;
	}
	p = &set->probes[ev->probe];
	ret = batch_room(set, TP_EVENT_WORDS_MAX, &dst);
	if (ret)
		return ret;
	/*
	 * The arguments go after the event's head: its size without them
	 * (instants, begins and ends have no word after the arguments).
	 */
	head = fxt_event_words(FXT_EVENT_INSTANT, FXT_THREAD_REF_INLINE,
			       STRING_TRACEPOINT, p->name_ref, 0);
	n = head;
	for (i = 0; i < p->nfields; i++) {
		arg = write_field(dst + n, &p->fields[i], ev);
		n += arg;
		nargs += arg != 0;
	}
	n += fxt_write_arg32(dst + n, FXT_ARG_UINT32, p->cpu_name_ref, NULL,
			     ev->cpu);
	nargs++;
	words = fxt_event_words(FXT_EVENT_INSTANT, FXT_THREAD_REF_INLINE,
				STRING_TRACEPOINT, p->name_ref, n - head);
	fxt_write_event(dst, words, FXT_EVENT_INSTANT, nargs,
			fxtprobe_ticks(set, ev->timestamp_ns), ev->tgid,
			ev->tid, STRING_TRACEPOINT, NULL, p->name_ref, NULL);
	set->batch_words += words;
	return 0;
}

/* ring_buffer__consume()'s callback: one event, one record. */
static int convert_event(void *ctx, void *data, size_t size)
{
	struct fxtprobe *set = ctx;
	const struct fxtprobe_event *ev = data;
	const struct probe *p;
	__u64 *dst;
	__u32 n, head, words;
	unsigned int i;
	int ret;

	/* Both kinds of event start with the timestamp and the probe. */
	if (size >= sizeof(__u64) + sizeof(__u32) && ev->probe < set->count &&
	    set->probes[ev->probe].link &&
	    set->probes[ev->probe].kind == FXTPROBE_TRACEPOINT)
		return convert_raw_event(set, data, size);
	if (size < sizeof(*ev) || ev->probe >= set->count ||
	    !set->probes[ev->probe].link ||
	    ev->nargs != set->probes[ev->probe].nargs) {
		set->invalid++;
		return 0;
	}
	p = &set->probes[ev->probe];
	ret = batch_room(set, EVENT_WORDS_MAX, &dst);
	if (ret)
		return ret;
	/*
	 * The arguments go after the event's head: its size without them
	 * (instants, begins and ends have no word after the arguments).
	 */
	head = fxt_event_words(p->event_type, FXT_THREAD_REF_INLINE,
			       category_of(p->kind), p->name_ref, 0);
	n = head;
	for (i = 0; i < p->nargs; i++)
		n += write_arg(dst + n, &p->args[i], ev, i);
	words = fxt_event_words(p->event_type, FXT_THREAD_REF_INLINE,
				category_of(p->kind), p->name_ref, n - head);
	fxt_write_event(dst, words, p->event_type, p->nargs,
			fxtprobe_ticks(set, ev->timestamp_ns), ev->tgid, ev->tid,
			category_of(p->kind), NULL, p->name_ref, NULL);
	set->batch_words += words;
	return 0;
}

int fxtprobe_consume(struct fxtprobe *set, fxtprobe_write_fn write, void *ctx)
{
	int ret, flushed;

	if (!set->ring)
		return -EBADF;
	set->write = write;
	set->write_ctx = ctx;
	set->write_error = 0;
	set->batch_words = 0;
	ret = ring_buffer__consume(set->ring);
	flushed = set->write_error ? set->write_error : flush_batch(set);
	if (ret < 0)
		return ret;
	return flushed ? flushed : ret;
}

/* ---- drops and accessors ------------------------------------------------ */

/*
 * The hits for which trace_call_bpf() ran none of our programs because a
 * BPF program was running on that CPU already (bpf_prog_active): the
 * tracepoint program copies its entry with copy_from_kernel_nofault(),
 * which a kprobe of the set may probe.  The kernel counts them in the
 * programs' recursion_misses from 6.7 on.
 */
static __u64 recursion_misses(const struct fxtprobe *set)
{
	const struct bpf_program *progs[] = {
		set->skel->progs.fxtprobe_regs,
		set->skel->progs.fxtprobe_usdt,
		set->skel->progs.fxtprobe_tracepoint,
	};
	__u64 misses = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info,
					    &len))
			misses += info.recursion_misses;
	}
	return misses;
}

void fxtprobe_drops(const struct fxtprobe *set, struct fxtprobe_drops *drops)
{
	int cpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	__u64 *per_cpu;
	int cpu;

	drops->ring_full = 0;
	drops->invalid = set->invalid;
	drops->missed = 0;
	if (!set->skel || cpus <= 0)
		return;
	drops->missed = recursion_misses(set);
	per_cpu = calloc(cpus, sizeof(*per_cpu));
	if (!per_cpu)
		return;
	if (!bpf_map__lookup_elem(set->skel->maps.drops, &zero, sizeof(zero),
				  per_cpu, cpus * sizeof(*per_cpu), 0))
		for (cpu = 0; cpu < cpus; cpu++)
			drops->ring_full += per_cpu[cpu];
	free(per_cpu);
}

int fxtprobe_write_drops(struct fxtprobe *set, fxtprobe_write_fn write,
			 void *ctx)
{
	__u64 words[FXTPROBE_DROPS_WORDS];
	struct fxtprobe_drops drops;
	struct timespec now;
	__u32 n;
	int ret;

	fxtprobe_drops(set, &drops);
	if (!drops.ring_full && !drops.invalid && !drops.missed)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	n = fxtprobe_drops_record(words, set->provider_id,
				  fxtprobe_ticks(set, now.tv_sec * NS_PER_SEC +
						 now.tv_nsec),
				  getpid(), gettid(), &drops);
	ret = write(ctx, words, n * 8);
	return ret > 0 ? -ret : ret;
}

size_t fxtprobe_count(const struct fxtprobe *set)
{
	return set->count;
}

const char *fxtprobe_spec(const struct fxtprobe *set, size_t i)
{
	return i < set->count ? set->probes[i].spec : NULL;
}

enum fxtprobe_kind fxtprobe_kind(const struct fxtprobe *set, size_t i)
{
	return set->probes[i].kind;
}

bool fxtprobe_attached(const struct fxtprobe *set, size_t i)
{
	return i < set->count && set->probes[i].link;
}

void fxtprobe_close(struct fxtprobe *set)
{
	size_t i;

	if (!set)
		return;
	/* Links first: no program may fire into a ring being freed. */
	for (i = 0; i < set->count; i++)
		free_probe(&set->probes[i]);
	ring_buffer__free(set->ring);
	fxtprobe_bpf__destroy(set->skel);
	btf__free(set->vmlinux_btf);
	free(set);
}
