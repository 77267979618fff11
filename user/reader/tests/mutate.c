// SPDX-License-Identifier: GPL-2.0
/*
 * mutate - write seeded mutants of FXT traces, for the differential test of
 * `fxtrace check --strict` against Perfetto's trace processor
 * (tools/perfetto/differential.sh, Documentation/perfetto.rst).
 *
 *   mutate [-s SEED] [-n COUNT] -o DIR TRACE...
 *
 * Writes DIR/m00000.fxt ... and prints one line per mutant on stdout:
 * "FILE OPERATION TRACE".  The same seed and inputs give the same mutants.
 * Operations: bit flips (anywhere, or in a record header), truncations,
 * splices of two traces at record boundaries, record size fields (0, off by
 * one, random), record types, random header fields (subtypes, string and
 * thread refs, argument counts, blob types), duplicated and deleted records,
 * and whole words overwritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct trace {
	const char *path;
	unsigned char *bytes;
	size_t len;
	size_t *records;	/* byte offsets of the records framed */
	size_t nrecords;
};

static uint64_t rng_state;

/* xorshift64*: small, seeded, the same everywhere. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t below(size_t n)
{
	return n ? rnd() % n : 0;
}

static uint64_t get_word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

static void put_word(unsigned char *p, uint64_t w)
{
	memcpy(p, &w, 8);
}

/* Record size in words from its header: bits 4..15, 4..35 for large ones. */
static uint64_t record_words(uint64_t h)
{
	return (h & 15) == 15 ? (h >> 4) & 0xffffffffULL : (h >> 4) & 0xfff;
}

static void frame(struct trace *t)
{
	size_t off = 0, cap = 64;

	t->records = malloc(cap * sizeof(*t->records));
	t->nrecords = 0;
	while (t->records && off + 8 <= t->len) {
		uint64_t words = record_words(get_word(t->bytes + off));

		if (!words || words > (t->len - off) / 8)
			break;
		if (t->nrecords == cap) {
			size_t *bigger = realloc(t->records,
						 2 * cap * sizeof(*bigger));

			if (!bigger)
				break;
			t->records = bigger;
			cap *= 2;
		}
		t->records[t->nrecords++] = off;
		off += words * 8;
	}
}

static int load(struct trace *t, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) || !(t->bytes = malloc(st.st_size + 1))) {
		fprintf(stderr, "mutate: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = read(fd, t->bytes, st.st_size);
	close(fd);
	if (n != st.st_size) {
		fprintf(stderr, "mutate: %s: short read\n", path);
		return -1;
	}
	t->path = path;
	t->len = n;
	frame(t);
	if (!t->records || !t->nrecords) {
		fprintf(stderr, "mutate: %s: no FXT record\n", path);
		return -1;
	}
	return 0;
}

/* A record of t other than the magic (the first) when there is one. */
static size_t pick_record(const struct trace *t)
{
	return t->nrecords > 1 ? 1 + below(t->nrecords - 1) : 0;
}

/* Set bits [lo, lo + width) of the header of record r to v. */
static void set_field(unsigned char *buf, size_t off, int lo, int width,
		      uint64_t v)
{
	uint64_t h = get_word(buf + off);
	uint64_t mask = (width == 64 ? ~0ULL : ((1ULL << width) - 1)) << lo;

	put_word(buf + off, (h & ~mask) | ((v << lo) & mask));
}

/* Mutate a copy of a (buf, *len; room for 2 * a->len bytes); returns its name. */
static const char *mutate(const struct trace *a, const struct trace *b,
			  unsigned char *buf, size_t *len)
{
	size_t r = pick_record(a), off = a->records[r], cut, n, i;
	uint64_t h = get_word(a->bytes + off);

	memcpy(buf, a->bytes, a->len);
	*len = a->len;
	switch (below(9)) {
	case 0:		/* 1 to 3 bits anywhere */
		for (i = below(3) + 1; i > 0; i--) {
			n = below(a->len * 8);
			buf[n / 8] ^= 1u << (n % 8);
		}
		return "bit-flip";
	case 1:		/* one bit of a record header */
		n = below(64);
		buf[off + n / 8] ^= 1u << (n % 8);
		return "header-bit-flip";
	case 2:
		*len = below(2) ? below(a->len / 8) * 8 : below(a->len);
		return "truncate";
	case 3:		/* a's records up to r, then b's from one of its own */
		cut = b->records[pick_record(b)];
		memcpy(buf + off, b->bytes + cut, b->len - cut);
		*len = off + b->len - cut;
		return "splice";
	case 4: {
		static const int64_t deltas[] = { -1, 1, 2, -2 };
		uint64_t words = record_words(h);

		switch (below(4)) {
		case 0:
			words = 0;
			break;
		case 1:
			words += deltas[below(4)];
			break;
		case 2:
			words = rnd();
			break;
		default:
			words = 0xfff;
			break;
		}
		set_field(buf, off, 4, (h & 15) == 15 ? 32 : 12, words);
		return "size-field";
	}
	case 5:
		set_field(buf, off, 0, 4, below(16));
		return "record-type";
	case 6: {	/* a random field of the header past the size */
		static const int widths[] = { 1, 4, 8, 16 };
		int width = widths[below(4)];

		set_field(buf, off, 16 + below(48 - width + 1), width, rnd());
		return "header-field";
	}
	case 7:
		n = record_words(h) * 8;
		if (below(2)) {	/* duplicate */
			memmove(buf + off + n, buf + off, a->len - off);
			*len = a->len + n;
			return "duplicate-record";
		}
		memmove(buf + off, buf + off + n, a->len - off - n);
		*len = a->len - n;
		return "delete-record";
	default: {
		static const uint64_t values[] = { 0, ~0ULL, 0x8000000000000000ULL };

		n = below(a->len / 8) * 8;
		put_word(buf + n, below(2) ? rnd() : values[below(3)]);
		return "word";
	}
	}
}

int main(int argc, char **argv)
{
	unsigned long count = 10000, i;
	const char *dir = NULL;
	struct trace *traces;
	unsigned char *buf;
	size_t ntraces, max = 0, len, k;
	char path[4096];
	int opt, fd;

	rng_state = 0x9e3779b97f4a7c15ULL;
	while ((opt = getopt(argc, argv, "s:n:o:")) != -1) {
		switch (opt) {
		case 's':
			rng_state ^= strtoull(optarg, NULL, 0) * 0xbf58476d1ce4e5b9ULL;
			if (!rng_state)
				rng_state = 1;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!dir || optind == argc)
		goto usage;
	ntraces = argc - optind;
	traces = calloc(ntraces, sizeof(*traces));
	if (!traces)
		return 1;
	for (k = 0; k < ntraces; k++) {
		if (load(&traces[k], argv[optind + k]))
			return 1;
		if (traces[k].len > max)
			max = traces[k].len;
	}
	buf = malloc(2 * max + 8);
	if (!buf)
		return 1;
	for (i = 0; i < count; i++) {
		const struct trace *a = &traces[below(ntraces)];
		const struct trace *b = &traces[below(ntraces)];
		const char *op = mutate(a, b, buf, &len);

		snprintf(path, sizeof(path), "%s/m%05lu.fxt", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
			fprintf(stderr, "mutate: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
		printf("m%05lu.fxt %s %s\n", i, op, a->path);
	}
	return 0;
usage:
	fprintf(stderr, "usage: mutate [-s SEED] [-n COUNT] -o DIR TRACE...\n");
	return 2;
}
