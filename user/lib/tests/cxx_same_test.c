// SPDX-License-Identifier: GPL-2.0
/*
 * Description: <fxtrace/trace.h> from C++ writes the same records as from
 * C.  Runs c_events and cxx_events (the same instrumented code, built as
 * C, as ISO C11 and as C++ with g++ and clang++), then compares their
 * string and event records word for word, timestamps aside, and checks
 * what only C++ has: bool, scoped enums, std::string(_view), nullptr, RAII
 * across an exception and an early return.  Prints TAP.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxt.h>

#include "fxt_reader.h"
#include "../../tests/tap.h"
#include "trace_decode.h"

struct recs {
	uint64_t *words[512];
	unsigned int nwords[512];
	int n;
};

/*
 * The string records (type FXT_REC_STRING) or the event records of path,
 * timestamps zeroed.  A flush writes every string before the events, so
 * each kind is compared on its own.
 */
static int records(const char *path, unsigned int type, struct recs *out)
{
	static char buf[1 << 20];
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	FILE *f = fopen(path, "rb");
	struct fxt_record rec;
	size_t len, off = 0;
	uint64_t need, *w;
	ssize_t n;

	out->n = 0;
	if (!r || !f)
		return -1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off < len && out->n < 512 &&
	       (n = fxt_reader_next(r, buf + off, len - off, &rec, &need)) > 0) {
		off += (size_t)n;
		if (rec.type != type)
			continue;
		w = malloc(rec.words * 8);
		memcpy(w, rec.bytes, rec.words * 8);
		if (rec.type == FXT_REC_EVENT) {
			w[1] = 0;
			if (rec.subtype == FXT_EVENT_DURATION_COMPLETE)
				w[rec.words - 1] = 0;
		}
		out->words[out->n] = w;
		out->nwords[out->n++] = (unsigned int)rec.words;
	}
	fxt_reader_free(r);
	return 0;
}

static int run(const char *prog, const char *out)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		unsetenv("FXTRACE_OUTPUT_ROOT");
		execl(prog, prog, out, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs prog (named what) and compares its records with the C program's c. */
static void same_records(const char *prog, const char *what, const char *out,
			 const struct recs c[2])
{
	static const unsigned int types[] = { FXT_REC_STRING, FXT_REC_EVENT };
	static struct recs x[2];
	unsigned int t;
	int i, same;

	EXPECT_EQ(0, run(prog, out));
	EXPECT_EQ(0, records(out, FXT_REC_STRING, &x[0]));
	EXPECT_EQ(0, records(out, FXT_REC_EVENT, &x[1]));
	tap_result("%s writes a trace", what);
	for (t = 0; t < 2; t++) {
		for (i = 0, same = 0; i < c[t].n && i < x[t].n; i++, same++)
			if (c[t].nwords[i] != x[t].nwords[i] ||
			    memcmp(c[t].words[i], x[t].words[i],
				   c[t].nwords[i] * 8))
				break;
		EXPECT_EQ(c[t].n, same);
		tap_result("%s: the C program's %d %s records, word "
			   "for word (first difference at %d)", what, c[t].n,
			   types[t] == FXT_REC_STRING ? "string" : "event", same);
		for (i = 0; same < c[t].n && same < x[t].n &&
		     i < (int)c[t].nwords[same]; i++)
			printf("#  C %016llx  %s %016llx\n",
			       (unsigned long long)c[t].words[same][i], what,
			       i < (int)x[t].nwords[same] ?
			       (unsigned long long)x[t].words[same][i] : 0ULL);
	}
}

static const struct ev *find(const struct trace *tr, const char *name)
{
	int i;

	for (i = 0; i < tr->n; i++)
		if (!strcmp(tr->ev[i].name, name))
			return &tr->ev[i];
	return NULL;
}

/* Disabled events, each run twice, evaluated none of their arguments. */
static void disabled_not_evaluated(const char *path, const char *what)
{
	struct trace tr = trace_read(path);
	const struct ev *e = find(&tr, "evaluations");

	if (EXPECT_TRUE(e)) {
		EXPECT_EQ(2, e->nargs);
		EXPECT_EQ(0, e->arg_u64[1]);
	}
	tap_result("%s: a disabled TRACE_DURATION and TRACE_INSTANT evaluate "
		   "no argument (evaluations: %d)", what,
		   e ? (int)e->arg_u64[1] : -1);
	trace_free(&tr);
}

int main(int argc, char **argv)
{
	static const char *const cxx[] = { "cxx_events_gcc", "cxx_events_clang" };
	char self[4096], dir[4096], prog[4200], c_out[] = "/tmp/fxt-c-XXXXXX",
	     x_out[] = "/tmp/fxt-cxx-XXXXXX";
	static struct recs c[2];
	struct trace tr;
	const struct ev *e;
	unsigned int k;
	int i;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	(void)argv;
	if (n <= 0 || mkstemp(c_out) < 0 || mkstemp(x_out) < 0)
		return 1;
	self[n] = 0;
	snprintf(dir, sizeof(dir), "%s", dirname(self));
	snprintf(prog, sizeof(prog), "%s/c_events", dir);
	EXPECT_EQ(0, run(prog, c_out));
	EXPECT_EQ(0, records(c_out, FXT_REC_STRING, &c[0]));
	EXPECT_EQ(0, records(c_out, FXT_REC_EVENT, &c[1]));
	EXPECT_EQ(26, c[1].n);
	tap_result("the C program writes %d strings and %d events", c[0].n, c[1].n);
	disabled_not_evaluated(c_out, "the C program");
	snprintf(prog, sizeof(prog), "%s/c_events_c11", dir);
	same_records(prog, "c_events_c11", x_out, c);
	for (k = 0; k < 2; k++) {
		snprintf(prog, sizeof(prog), "%s/%s", dir, cxx[k]);
		same_records(prog, cxx[k], x_out, c);

		tr = trace_read(x_out);
		EXPECT_TRUE(tr.ok);
		EXPECT_EQ(0, tr.errors);
		EXPECT_EQ(0, tr.warnings);
		tap_result("%s: the trace decodes cleanly", cxx[k]);
		e = find(&tr, "c++ types");
		if (EXPECT_TRUE(e)) {
			EXPECT_EQ(7, e->nargs);
			EXPECT_STR("true", e->arg_name[1]);
			EXPECT_EQ(1, e->arg_u64[1]);
			EXPECT_STR("level", e->arg_name[2]);
			EXPECT_EQ(1, e->arg_u64[2]);
		}
		tap_result("%s: bool true, enum class level::high",
			   cxx[k]);
		if (EXPECT_TRUE(e)) {
			EXPECT_STR("string", e->arg_str[3]);
		}
		tap_result("%s: std::string", cxx[k]);
		if (EXPECT_TRUE(e)) {
			EXPECT_EQ(7, e->nargs);
		}
		tap_result("%s: 7 arguments (scope, bool, enum, string, "
			   "temporary, view, nullptr)", cxx[k]);
		disabled_not_evaluated(x_out, cxx[k]);
		for (i = 0; i < tr.n && strcmp(tr.ev[i].name, "throws"); i++)
			;
		if (EXPECT_CMP(i + 2, <, tr.n)) {
			EXPECT_EQ(FXT_EVENT_DURATION_BEGIN, tr.ev[i].type);
			EXPECT_EQ(FXT_EVENT_DURATION_END, tr.ev[i + 1].type);
			EXPECT_STR("throws", tr.ev[i + 1].name);
			EXPECT_STR("caught", tr.ev[i + 2].name);
		}
		tap_result("%s: TRACE_DURATION ends when an exception leaves its scope",
			   cxx[k]);
		for (i = 0; i < tr.n && strcmp(tr.ev[i].name, "returns early"); i++)
			;
		if (EXPECT_CMP(i + 2, <, tr.n)) {
			EXPECT_EQ(FXT_EVENT_DURATION_BEGIN, tr.ev[i].type);
			EXPECT_EQ(FXT_EVENT_DURATION_END, tr.ev[i + 1].type);
			EXPECT_STR("returns early", tr.ev[i + 1].name);
			EXPECT_STR("returned", tr.ev[i + 2].name);
		}
		tap_result("%s: TRACE_DURATION ends at a return before its scope's end",
			   cxx[k]);
		trace_free(&tr);
	}
	unlink(c_out);
	unlink(x_out);
	return tap_plan();
}
