// SPDX-License-Identifier: GPL-2.0
/*
 * kstr.c - a kstr makes the BPF program read kernel memory at whatever the
 * argument holds, so it is only allowed where the kernel's BTF says the
 * argument is a pointer to char: on a user pointer or an integer, whoever
 * makes the call would choose the kernel address read into the trace.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "kstr.h"
#include "probe_event.h"

struct decl_buf {
	char *text;
	size_t size, len;
};

static void decl_printf(void *ctx, const char *fmt, va_list ap)
{
	struct decl_buf *b = ctx;
	int n;

	if (b->len >= b->size)
		return;
	n = vsnprintf(b->text + b->len, b->size - b->len, fmt, ap);
	if (n > 0)
		b->len += n;
}

/* Type id's C declaration of name ("": none) into text, for messages. */
static void type_decl(const struct btf *btf, __u32 id, const char *name,
		      char *text, size_t size)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name);
	struct decl_buf b = { .text = text, .size = size };
	struct btf_dump *d = btf_dump__new(btf, decl_printf, &b, NULL);

	text[0] = '\0';
	if (!d || btf_dump__emit_type_decl(d, id, &opts))
		snprintf(text, size, "type %u", id);
	btf_dump__free(d);
}

/*
 * Type id through typedefs and qualifiers; *user is set if one of them is
 * the "user" type tag that __user becomes where the compiler emits tags.
 */
static const struct btf_type *strip_type(const struct btf *btf, __u32 id,
					 bool *user)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) ||
		     btf_is_volatile(t) || btf_is_restrict(t) ||
		     btf_is_type_tag(t))) {
		if (btf_is_type_tag(t) &&
		    !strcmp(btf__name_by_offset(btf, t->name_off), "user"))
			*user = true;
		t = btf__type_by_id(btf, t->type);
	}
	return t;
}

/* Why type id is not a kernel string pointer, or NULL if it is one. */
static const char *not_kernel_string(const struct btf *btf, __u32 id)
{
	bool user = false;
	const struct btf_type *t = strip_type(btf, id, &user);

	if (!t || !btf_is_ptr(t))
		return "not a pointer";
	t = strip_type(btf, t->type, &user);
	if (user)
		return "a user pointer: use ustr";
	if (!t || !btf_is_int(t) || t->size != 1)
		return "not a pointer to char";
	return NULL;
}

/* The check against one function prototype. */
static int check_proto(const struct btf *btf, const struct btf_type *proto,
		       const char *spec, const char *function, __u8 source,
		       char *err, size_t err_size)
{
	const char *why, *name = "";
	char decl[256], arg[8] = "ret";
	__u32 id = proto->type;

	if (source != FXTPROBE_SOURCE_RET) {
		if (source >= btf_vlen(proto)) {
			snprintf(err, err_size,
				 "%s: kstr on arg%u: %s has %u parameter%s",
				 spec, source, function, btf_vlen(proto),
				 btf_vlen(proto) == 1 ? "" : "s");
			return -EINVAL;
		}
		id = btf_params(proto)[source].type;
		name = btf__name_by_offset(btf, btf_params(proto)[source].name_off);
		snprintf(arg, sizeof(arg), "arg%u", source);
	}
	why = not_kernel_string(btf, id);
	if (!why)
		return 0;
	type_decl(btf, id, name, decl, sizeof(decl));
	snprintf(err, err_size,
		 "%s: kstr needs a kernel char pointer: %s of %s is '%s', %s",
		 spec, arg, function, decl, why);
	return -EINVAL;
}

/* Static functions of different files may share a name: all must pass. */
int fxtprobe_check_kstr(const struct btf *btf, const char *spec,
			const char *function, __u8 source, char *err,
			size_t err_size)
{
	__u32 id, count = btf__type_cnt(btf);
	bool found = false;
	int ret;

	for (id = 1; id < count; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off), function))
			continue;
		found = true;
		ret = check_proto(btf, btf__type_by_id(btf, t->type), spec,
				  function, source, err, err_size);
		if (ret)
			return ret;
	}
	if (!found) {
		snprintf(err, err_size,
			 "%s: kstr needs the argument's type, and %s is not in the kernel's BTF: use ptr",
			 spec, function);
		return -EINVAL;
	}
	return 0;
}
