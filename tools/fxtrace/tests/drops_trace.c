// SPDX-License-Identifier: GPL-2.0
/*
 * drops_trace - a trace whose fxtrace:dropped counters have series that
 * collide in `fxtrace stats`'s map key, (pid, counter id ^ FNV-1a of the
 * argument's name), and must still be counted apart (drops_test.sh):
 *
 *   id 1, "323a830bbc7e3a52" = 5 and "005fc1b9fb9780e7" = 7: two names
 *         with the same FNV-1a 64-bit hash;
 *   id 1, "a" = 3, and id 1 ^ FNV("a") ^ FNV("b"), "b" = 9: an id
 *         crafted against another counter's name.
 *
 * Usage: drops_trace OUT.fxt
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/fxt.h>

#define PID	100
#define TID	101

static __u64 fnv1a(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* A counter event of counter id at ts: n integer arguments. */
static size_t counter(__u64 *w, __u64 ts, __u64 id, unsigned int n,
		      const char *const *names, const __u64 *values)
{
	__u16 cref = fxt_inline_string_ref(7), nref = fxt_inline_string_ref(7);
	__u64 args[32];
	__u32 words = 0, k = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		words += fxt_write_arg64(args + words, FXT_ARG_INT64,
					 fxt_inline_string_ref(strlen(names[i])),
					 names[i], values[i]);
	w[k++] = fxt_event_hdr(fxt_event_words(FXT_EVENT_COUNTER, 0, cref,
					       nref, words),
			       FXT_EVENT_COUNTER, n, 0, cref, nref);
	w[k++] = ts;
	w[k++] = PID;
	w[k++] = TID;
	k += fxt_write_stream(w + k, "fxtrace", 7);
	k += fxt_write_stream(w + k, "dropped", 7);
	memcpy(w + k, args, words * sizeof(*w));
	k += words;
	w[k++] = id;
	return k;
}

static int put(FILE *f, const __u64 *w, size_t n)
{
	return fwrite(w, sizeof(*w), n, f) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const same_hash[] = { "323a830bbc7e3a52",
						 "005fc1b9fb9780e7" };
	static const char *const a[] = { "a" }, *const b[] = { "b" };
	static const __u64 same_hash_values[] = { 5, 7 }, three = 3, nine = 9;
	__u64 w[64];
	FILE *f;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: drops_trace OUT.fxt\n");
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		fprintf(stderr, "drops_trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err |= put(f, w, fxt_write_magic(w));
	err |= put(f, w, fxt_write_init(w, 1000000000));
	err |= put(f, w, counter(w, 10, 1, 2, same_hash, same_hash_values));
	err |= put(f, w, counter(w, 20, 1, 1, a, &three));
	err |= put(f, w, counter(w, 30, 1 ^ fnv1a("a") ^ fnv1a("b"), 1, b,
				 &nine));
	if (err | fclose(f)) {
		fprintf(stderr, "drops_trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
