// SPDX-License-Identifier: GPL-2.0
/*
 * select.c - the record selection dump and report share: --pid, --tid,
 * --category, --name and a time window (--since, --until, --time).
 *
 * Lists are comma separated; categories and names are fnmatch(3) globs.
 * Times are on the trace's clock, as dump prints them: seconds ("1.5",
 * "0.000001000"), or a number with a unit suffix ns, us, ms or s ("1500us",
 * "2.5ms"); a time finer than a nanosecond is refused, not rounded.  Both
 * ends of the window are included.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fxtrace.h"

/* Split a comma-separated list into *items (NULL-terminated copies). */
static int add_list(char ***items, size_t *n, const char *arg)
{
	const char *p = arg, *comma;
	char **grown;

	do {
		comma = strchr(p, ',');
		grown = realloc(*items, (*n + 2) * sizeof(**items));
		if (!grown)
			return -ENOMEM;
		*items = grown;
		grown[*n] = comma ? strndup(p, comma - p) : strdup(p);
		if (!grown[*n])
			return -ENOMEM;
		if (!grown[*n][0])
			return -EINVAL;
		grown[++*n] = NULL;
		p = comma + 1;
	} while (comma);
	return 0;
}

static int add_ids(uint64_t **ids, size_t *n, const char *arg)
{
	const char *p = arg;
	uint64_t *grown;
	char *end;

	for (;;) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		grown = realloc(*ids, (*n + 1) * sizeof(**ids));
		if (!grown)
			return -ENOMEM;
		*ids = grown;
		grown[*n] = strtoull(p, &end, 10);
		if (errno || (*end && *end != ','))
			return -EINVAL;
		++*n;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int fxtrace_parse_time(const char *arg, int64_t *ns)
{
	static const struct {
		const char *suffix;
		int64_t ns;
	} units[] = { { "", 1000000000 }, { "ns", 1 }, { "us", 1000 },
		      { "ms", 1000000 }, { "s", 1000000000 } };
	int64_t whole = 0, frac = 0, tenths = 1, unit = 0;
	const char *p = arg;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (INT64_MAX - (*p - '0')) / 10)
			return -ERANGE;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (tenths == 1000000000)
				return -EINVAL;	/* finer than 1 ns anyway */
			frac = frac * 10 + (*p - '0');
			tenths *= 10;
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].suffix))
			unit = units[i].ns;
	/* No unit, or a fraction of a nanosecond. */
	if (!unit || (frac * unit) % tenths)
		return -EINVAL;
	/* Up to INT64_MAX ns exactly. */
	if (whole > (INT64_MAX - frac * unit / tenths) / unit)
		return -ERANGE;
	*ns = whole * unit + frac * unit / tenths;
	return 0;
}

static int parse_window(struct fxtrace_select *s, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char first[64];
	int ret;

	if (!comma || (size_t)(comma - arg) >= sizeof(first))
		return -EINVAL;
	memcpy(first, arg, comma - arg);
	first[comma - arg] = '\0';
	if (first[0]) {
		ret = fxtrace_parse_time(first, &s->since_ns);
		if (ret)
			return ret;
		s->since_set = true;
	}
	if (comma[1]) {
		ret = fxtrace_parse_time(comma + 1, &s->until_ns);
		if (ret)
			return ret;
		s->until_set = true;
	}
	return 0;
}

int fxtrace_select_option(struct fxtrace_select *s, const char *cmd, int opt,
			  const char *arg)
{
	const char *what;
	int ret;

	switch (opt) {
	case SELECT_PID:
		what = "--pid wants process ids, e.g. 42 or 42,43";
		ret = add_ids(&s->pids, &s->npids, arg);
		break;
	case SELECT_TID:
		what = "--tid wants thread ids, e.g. 42 or 42,43";
		ret = add_ids(&s->tids, &s->ntids, arg);
		break;
	case SELECT_CATEGORY:
		what = "--category wants category globs, e.g. app,kernel:*";
		ret = add_list(&s->categories, &s->ncategories, arg);
		break;
	case SELECT_NAME:
		what = "--name wants name globs, e.g. read,write*";
		ret = add_list(&s->names, &s->nnames, arg);
		break;
	case SELECT_SINCE:
		what = "--since wants a time: SECONDS[.NANOS] or N(ns|us|ms|s)";
		ret = fxtrace_parse_time(arg, &s->since_ns);
		s->since_set = !ret;
		break;
	case SELECT_UNTIL:
		what = "--until wants a time: SECONDS[.NANOS] or N(ns|us|ms|s)";
		ret = fxtrace_parse_time(arg, &s->until_ns);
		s->until_set = !ret;
		break;
	case SELECT_TIME:
		what = "--time wants START,END (either may be empty), e.g. 1.5,2";
		ret = parse_window(s, arg);
		break;
	default:
		return fxtrace_usage_error(cmd, "option %d is not a selection",
					   opt);
	}
	if (ret == -ENOMEM) {
		fprintf(stderr, "fxtrace %s: out of memory\n", cmd);
		return 1;
	}
	/* A time, but past what a trace's times can be (int64 ns). */
	if (ret == -ERANGE)
		return fxtrace_usage_error(cmd, "'%s': a time up to 9223372036.854775807 s (INT64_MAX ns)",
					   arg);
	if (ret)
		return fxtrace_usage_error(cmd, "'%s': %s", arg, what);
	if (s->since_set && s->until_set && s->since_ns > s->until_ns)
		return fxtrace_usage_error(cmd, "the time window ends before it starts");
	return 0;
}

static void free_list(char **items)
{
	size_t i;

	for (i = 0; items && items[i]; i++)
		free(items[i]);
	free(items);
}

void fxtrace_select_free(struct fxtrace_select *s)
{
	free(s->pids);
	free(s->tids);
	free_list(s->categories);
	free_list(s->names);
	memset(s, 0, sizeof(*s));
}

bool fxtrace_select_by_thread(const struct fxtrace_select *s)
{
	return s->npids || s->ntids;
}

bool fxtrace_select_by_event(const struct fxtrace_select *s)
{
	return s->ncategories || s->nnames;
}

bool fxtrace_select_by_time(const struct fxtrace_select *s)
{
	return s->since_set || s->until_set;
}

static bool has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool fxtrace_select_pid(const struct fxtrace_select *s, uint64_t pid)
{
	return !s->npids || has_id(s->pids, s->npids, pid);
}

bool fxtrace_select_tid(const struct fxtrace_select *s, uint64_t tid)
{
	return !s->ntids || has_id(s->tids, s->ntids, tid);
}

bool fxtrace_select_thread(const struct fxtrace_select *s, uint64_t pid,
			   uint64_t tid)
{
	return fxtrace_select_pid(s, pid) && fxtrace_select_tid(s, tid);
}

/*
 * A glob against the string's bytes (cut at the first NUL, like fnmatch),
 * all of them: an FXT string's length has 15 bits, so any fits.
 */
static bool glob_any(char **globs, const struct fxt_string *str)
{
	static char text[1 << 15];
	size_t i;

	if (!globs)
		return true;
	snprintf(text, sizeof(text), "%.*s", str->ptr ? (int)str->len : 0,
		 str->ptr ? str->ptr : "");
	for (i = 0; globs[i]; i++)
		if (!fnmatch(globs[i], text, 0))
			return true;
	return false;
}

bool fxtrace_select_event(const struct fxtrace_select *s,
			  const struct fxt_string *category,
			  const struct fxt_string *name)
{
	return glob_any(s->categories, category) && glob_any(s->names, name);
}

bool fxtrace_select_time(const struct fxtrace_select *s, int64_t ns)
{
	return (!s->since_set || ns >= s->since_ns) &&
	       (!s->until_set || ns <= s->until_ns);
}

bool fxtrace_select_record(const struct fxtrace_select *s,
			   const struct fxt_record *rec)
{
	if (fxtrace_select_by_time(s) &&
	    !(rec->has_ts && rec->ts_ns_valid &&
	      fxtrace_select_time(s, rec->ts_ns)))
		return false;
	if (fxtrace_select_by_event(s) &&
	    !((rec->type == FXT_REC_EVENT || (rec->type == FXT_REC_LARGE &&
					      rec->subtype == FXT_LARGE_BLOB)) &&
	      fxtrace_select_event(s, &rec->category, &rec->name)))
		return false;
	return true;
}
