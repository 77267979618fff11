// SPDX-License-Identifier: GPL-2.0
/*
 * kstr_test.c - kstr reads only what BTF says is a kernel char pointer:
 * first fxtprobe_check_kstr() on a BTF made here, with the "user" type tag
 * of __user that gcc-built kernels lack, then fxtprobe_add() against the
 * running kernel's BTF: refused on integers, on pointers to other types,
 * on arguments the function does not have and on functions BTF does not
 * know; accepted on a kernel function's const char *.  The second part
 * needs /sys/kernel/btf/vmlinux (skipped without it), not root.
 * Prints TAP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "fxtprobe.h"
#include "kstr.h"
#include "probe_event.h"

static int n, failed;

static void result(bool ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, what);
	if (!ok)
		failed = 1;
}

/*
 * Add spec to a new set: want_ret its return, and its message must start
 * with want_prefix and end with want_suffix (NULL: any message).
 */
static void add(const char *spec, int want_ret, const char *want_prefix,
		const char *want_suffix)
{
	struct fxtprobe *set = fxtprobe_new();
	char err[512] = "", what[FXTPROBE_SPEC_MAX + 64];
	size_t len, suffix_len = want_suffix ? strlen(want_suffix) : 0;
	int ret;

	if (!set) {
		result(false, "out of memory");
		return;
	}
	ret = fxtprobe_add(set, spec, err, sizeof(err));
	len = strlen(err);
	snprintf(what, sizeof(what), "fxtprobe_add '%s': %d (%d)", spec,
		 want_ret, ret);
	result(ret == want_ret &&
	       (!want_prefix || !strncmp(err, want_prefix, strlen(want_prefix))) &&
	       (!want_suffix || (len >= suffix_len &&
				 !strcmp(err + len - suffix_len, want_suffix))),
	       what);
	if (*err)
		printf("# %s\n", err);
	fxtprobe_close(set);
}

/* Whether the kernel's BTF has the "user" type tag of __user. */
static bool has_user_tag(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found = false;
	__u32 id, count;

	if (!btf)
		return false;
	count = btf__type_cnt(btf);
	for (id = 1; id < count && !found; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		found = btf_is_type_tag(t) &&
			!strcmp(btf__name_by_offset(btf, t->name_off), "user");
	}
	btf__free(btf);
	return found;
}

/* fxtprobe_check_kstr() of function's source in btf: want its return. */
static void check(const struct btf *btf, const char *function, __u8 source,
		  int want_ret, const char *want_suffix)
{
	char err[512] = "", what[256];
	size_t len, suffix_len = want_suffix ? strlen(want_suffix) : 0;
	int ret = fxtprobe_check_kstr(btf, "SPEC", function, source, err,
				      sizeof(err));

	len = ret ? strlen(err) : 0;
	snprintf(what, sizeof(what), "made BTF: %s source %u: %d (%d)",
		 function, source, want_ret, ret);
	result(ret == want_ret &&
	       (!want_suffix || (len >= suffix_len &&
				 !strcmp(err + len - suffix_len, want_suffix))),
	       what);
	if (ret)
		printf("# %s\n", err);
}

/*
 * int f(const char __user *filename, const my_char *name) with typedef
 * char my_char; and two static g()s, g(const char *) and
 * g(const char __user *), as the kernel has same-named static functions.
 */
static void made_btf(void)
{
	struct btf *btf = btf__new_empty();
	int chr, cchr, my_char, user, kptr, uptr, tptr, intt, proto;

	if (!btf) {
		result(false, "made BTF: out of memory");
		return;
	}
	chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	cchr = btf__add_const(btf, chr);
	my_char = btf__add_typedef(btf, "my_char", chr);
	user = btf__add_type_tag(btf, "user", cchr);
	kptr = btf__add_ptr(btf, cchr);
	uptr = btf__add_ptr(btf, user);
	tptr = btf__add_ptr(btf, btf__add_const(btf, my_char));
	intt = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(btf, intt);
	btf__add_func_param(btf, "filename", uptr);
	btf__add_func_param(btf, "name", tptr);
	btf__add_func(btf, "f", BTF_FUNC_STATIC, proto);
	proto = btf__add_func_proto(btf, kptr);
	btf__add_func_param(btf, "s", kptr);
	btf__add_func(btf, "g", BTF_FUNC_STATIC, proto);
	proto = btf__add_func_proto(btf, kptr);
	btf__add_func_param(btf, "s", uptr);
	btf__add_func(btf, "g", BTF_FUNC_STATIC, proto);

	check(btf, "f", 0, -EINVAL, ", a user pointer: use ustr");
	check(btf, "f", 1, 0, NULL);
	check(btf, "f", FXTPROBE_SOURCE_RET, -EINVAL,
	      "ret of f is 'int', not a pointer");
	check(btf, "g", 0, -EINVAL, "arg0 of g is 'const char __attribute__((btf_type_tag(\"user\"))) *s', a user pointer: use ustr");
	check(btf, "g", FXTPROBE_SOURCE_RET, 0, NULL);
	btf__free(btf);
}

int main(void)
{
	made_btf();
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("ok %d # SKIP no kernel BTF (/sys/kernel/btf/vmlinux): fxtprobe_add() cannot be checked against it\n",
		       ++n);
		printf("1..%d\n", n);
		return failed;
	}
	add("kprobe:do_sys_openat2 p=arg0:kstr", -EINVAL,
	    "kprobe:do_sys_openat2 p=arg0:kstr: kstr needs a kernel char pointer: arg0 of do_sys_openat2 is 'int dfd', not a pointer",
	    NULL);
	add("kprobe:do_sys_openat2 p=arg2:kstr", -EINVAL,
	    "kprobe:do_sys_openat2 p=arg2:kstr: kstr needs a kernel char pointer: arg2 of do_sys_openat2 is 'struct open_how *how', not a pointer to char",
	    NULL);
	add("kprobe:kern_path p=arg5:kstr", -EINVAL,
	    "kprobe:kern_path p=arg5:kstr: kstr on arg5: kern_path has 3 parameters",
	    NULL);
	/* One parameter is one, not "1 parameters". */
	add("kprobe:putname p=arg1:kstr", -EINVAL,
	    "kprobe:putname p=arg1:kstr: kstr on arg1: putname has 1 parameter",
	    "has 1 parameter");
	add("kretprobe:do_sys_openat2 ret:kstr", -EINVAL,
	    "kretprobe:do_sys_openat2 ret:kstr: kstr needs a kernel char pointer: ret of do_sys_openat2 is '",
	    "', not a pointer");
	add("kprobe:fxtprobe_no_such_function p=arg0:kstr", -EINVAL,
	    "kprobe:fxtprobe_no_such_function p=arg0:kstr: kstr needs the argument's type, and fxtprobe_no_such_function is not in the kernel's BTF: use ptr",
	    NULL);
	/* Every kstr of the spec is checked, not only the first. */
	add("kprobe:kern_path name=arg0:kstr flags=arg1:kstr", -EINVAL, NULL,
	    ": arg1 of kern_path is 'unsigned int flags', not a pointer");
	/* Kernel strings: a kernel function's const char *, a char * result. */
	add("kprobe:kern_path name=arg0:kstr flags=arg1:u32", 0, NULL, NULL);
	add("kretprobe:kstrdup ret:kstr", 0, NULL, NULL);
	/* Without kstr, BTF is not asked: any function name parses. */
	add("kprobe:fxtprobe_no_such_function p=arg0:ptr", 0, NULL, NULL);
	/*
	 * do_sys_openat2's filename is const char __user *: BTF tells it
	 * from a kernel pointer only where the compiler emits type tags.
	 */
	if (has_user_tag()) {
		add("kprobe:do_sys_openat2 path=arg1:kstr", -EINVAL, NULL,
		    ", a user pointer: use ustr");
	} else {
		printf("# this kernel's BTF has no __user type tags (a gcc build): a __user char pointer passes as a kernel one\n");
		add("kprobe:do_sys_openat2 path=arg1:kstr", 0, NULL, NULL);
	}
	printf("1..%d\n", n);
	return failed;
}
