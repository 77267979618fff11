// SPDX-License-Identifier: GPL-2.0
/*
 * fxt_map.c - open addressing with linear probing and backward-shift
 * deletion (no tombstones, so lookups stay short after many deletions).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "fxt_map.h"

#define MAP_MIN_CAP 16

static uint64_t map_seed(void)
{
	static uint64_t seed;
	const unsigned char *random;

	if (!seed) {
		/* 16 random bytes the kernel gives every process. */
		random = (const unsigned char *)getauxval(AT_RANDOM);
		if (random)
			memcpy(&seed, random, sizeof(seed));
		seed |= 1;
	}
	return seed;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static size_t slot_of(const struct fxt_map *m, uint64_t k1, uint64_t k2)
{
	return mix(mix(k1 ^ map_seed()) + k2) & (m->cap - 1);
}

void fxt_map_init(struct fxt_map *m, size_t val_size)
{
	memset(m, 0, sizeof(*m));
	m->val_size = val_size;
}

void fxt_map_free(struct fxt_map *m)
{
	free(m->keys);
	free(m->used);
	free(m->vals);
	fxt_map_init(m, m->val_size);
}

static int key_eq(const struct fxt_map *m, size_t i, uint64_t k1, uint64_t k2)
{
	return m->keys[2 * i] == k1 && m->keys[2 * i + 1] == k2;
}

/* The slot holding (k1, k2), or m->cap when there is none. */
static size_t find_slot(const struct fxt_map *m, uint64_t k1, uint64_t k2)
{
	size_t i;

	if (!m->count)
		return m->cap;
	if (m->last && key_eq(m, m->last - 1, k1, k2))
		return m->last - 1;
	for (i = slot_of(m, k1, k2); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (key_eq(m, i, k1, k2))
			return i;
	return m->cap;
}

void *fxt_map_get_slow(const struct fxt_map *m, uint64_t k1, uint64_t k2)
{
	size_t i = find_slot(m, k1, k2);

	return i < m->cap ? m->vals + i * m->val_size : NULL;
}

static int map_grow(struct fxt_map *m)
{
	struct fxt_map bigger = *m;
	size_t i, j;

	bigger.cap = m->cap ? 2 * m->cap : MAP_MIN_CAP;
	bigger.last = 0;
	bigger.keys = calloc(bigger.cap, 2 * sizeof(uint64_t));
	bigger.used = calloc(bigger.cap, 1);
	bigger.vals = calloc(bigger.cap, m->val_size ? m->val_size : 1);
	if (!bigger.keys || !bigger.used || !bigger.vals) {
		free(bigger.keys);
		free(bigger.used);
		free(bigger.vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		j = slot_of(&bigger, m->keys[2 * i], m->keys[2 * i + 1]);
		while (bigger.used[j])
			j = (j + 1) & (bigger.cap - 1);
		bigger.used[j] = 1;
		bigger.keys[2 * j] = m->keys[2 * i];
		bigger.keys[2 * j + 1] = m->keys[2 * i + 1];
		memcpy(bigger.vals + j * m->val_size, m->vals + i * m->val_size,
		       m->val_size);
	}
	free(m->keys);
	free(m->used);
	free(m->vals);
	*m = bigger;
	return 0;
}

void *fxt_map_put_slow(struct fxt_map *m, uint64_t k1, uint64_t k2,
		       int *created)
{
	size_t i = find_slot(m, k1, k2);
	void *val;

	if (created)
		*created = i == m->cap;
	if (i < m->cap) {
		m->last = i + 1;
		return m->vals + i * m->val_size;
	}
	if (2 * (m->count + 1) > m->cap && map_grow(m))
		return NULL;
	for (i = slot_of(m, k1, k2); m->used[i]; i = (i + 1) & (m->cap - 1))
		;
	m->used[i] = 1;
	m->keys[2 * i] = k1;
	m->keys[2 * i + 1] = k2;
	m->count++;
	m->last = i + 1;
	val = m->vals + i * m->val_size;
	memset(val, 0, m->val_size);
	return val;
}

void fxt_map_del(struct fxt_map *m, uint64_t k1, uint64_t k2)
{
	size_t mask = m->cap - 1, i, j, home;

	if (!m->count)
		return;
	for (i = slot_of(m, k1, k2); m->used[i]; i = (i + 1) & mask)
		if (key_eq(m, i, k1, k2))
			break;
	if (!m->used[i])
		return;
	m->last = 0;
	/*
	 * Backward shift: move later entries of the probe run into the hole
	 * when their home slot does not lie cyclically in (hole, entry].
	 */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		home = slot_of(m, m->keys[2 * j], m->keys[2 * j + 1]);
		if (((j - home) & mask) < ((j - i) & mask))
			continue;
		m->keys[2 * i] = m->keys[2 * j];
		m->keys[2 * i + 1] = m->keys[2 * j + 1];
		memcpy(m->vals + i * m->val_size, m->vals + j * m->val_size,
		       m->val_size);
		i = j;
	}
	m->used[i] = 0;
	m->count--;
}

void *fxt_map_next(const struct fxt_map *m, size_t *pos, uint64_t *k1,
		   uint64_t *k2)
{
	size_t i;

	for (i = *pos; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		*pos = i + 1;
		if (k1)
			*k1 = m->keys[2 * i];
		if (k2)
			*k2 = m->keys[2 * i + 1];
		return m->vals + i * m->val_size;
	}
	*pos = m->cap;
	return NULL;
}
