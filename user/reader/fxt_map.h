/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxt_map.h - a small open-addressing hash map for the FXT decoder and the
 * fxtrace tools.
 *
 * Keys are pairs of 64-bit integers (a string index, a (pid, tid) pair, a
 * CPU number, ...); values are fixed-size blobs owned by the map.  The map
 * grows by doubling at half load, so its memory is proportional to the number
 * of entries, and every entry comes from at least one record of the input:
 * memory stays proportional to the input.  The hash is keyed with a random
 * per-process seed so that crafted keys cannot force long probe chains.
 */
#ifndef FXT_MAP_H
#define FXT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct fxt_map {
	uint64_t *keys;		/* 2 per slot */
	unsigned char *used;	/* 1 per slot: slot holds an entry */
	unsigned char *vals;	/* val_size per slot */
	size_t val_size;
	size_t cap;		/* slots, a power of two or 0 */
	size_t count;		/* entries */
	/*
	 * 1 + the slot last found or inserted by fxt_map_put(), or 0: records
	 * come in runs of one thread, CPU or provider, so the next lookup is
	 * often for the same key.  Cleared when entries move.
	 */
	size_t last;
};

/* An empty map of values of val_size bytes; allocates nothing yet. */
void fxt_map_init(struct fxt_map *m, size_t val_size);

/* Free the map's memory (not what the values point to). */
void fxt_map_free(struct fxt_map *m);

/* The value stored under (k1, k2), or NULL. */
void *fxt_map_get_slow(const struct fxt_map *m, uint64_t k1, uint64_t k2);
void *fxt_map_put_slow(struct fxt_map *m, uint64_t k1, uint64_t k2,
		       int *created);

/* The value in the slot last found, if it holds (k1, k2); else NULL. */
static inline void *fxt_map_last(const struct fxt_map *m, uint64_t k1,
				 uint64_t k2)
{
	size_t i = m->last - 1;

	if (m->last && m->keys[2 * i] == k1 && m->keys[2 * i + 1] == k2)
		return m->vals + i * m->val_size;
	return NULL;
}

/*
 * Inline, the slot last found first: a lookup per record, in runs of one
 * key, is most of the reader's and stats' map work.
 */
static inline void *fxt_map_get(const struct fxt_map *m, uint64_t k1,
				uint64_t k2)
{
	void *v = fxt_map_last(m, k1, k2);

	return v ? v : fxt_map_get_slow(m, k1, k2);
}

/*
 * The value under (k1, k2), inserted zero-filled if absent (*created is then
 * set to 1, else 0; created may be NULL).  Returns NULL when memory runs out.
 * The pointer is valid until the next insertion.
 */
static inline void *fxt_map_put(struct fxt_map *m, uint64_t k1, uint64_t k2,
				int *created)
{
	void *v = fxt_map_last(m, k1, k2);

	if (!v)
		return fxt_map_put_slow(m, k1, k2, created);
	if (created)
		*created = 0;
	return v;
}

/* Remove (k1, k2) if present. */
void fxt_map_del(struct fxt_map *m, uint64_t k1, uint64_t k2);

/*
 * Iterate: start with *pos = 0; each call returns the next value and its keys
 * (k1, k2 may be NULL), or NULL at the end.  The order is unspecified.
 */
void *fxt_map_next(const struct fxt_map *m, size_t *pos, uint64_t *k1,
		   uint64_t *k2);

#endif /* FXT_MAP_H */
