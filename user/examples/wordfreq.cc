// SPDX-License-Identifier: GPL-2.0
/*
 * wordfreq: the C++ example of libfxtrace.  Two std::threads count the
 * words of the lines they are given; <fxtrace/trace.h> is included as is.
 * The trace shows each thread's durations (RAII: TRACE_DURATION ends with
 * the scope, exceptions included), std::string arguments, a counter of the
 * words seen, and a flow from the reader to the worker of each batch.
 *
 * Usage: FXTRACE_OUTPUT=wordfreq.fxt wordfreq < FILE   (or under
 * `fxtrace record`), then `fxtrace dump wordfreq.fxt`.
 */
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fxtrace/trace.h>

enum class batch_kind { normal, last };

static std::mutex totals_lock;
static std::map<std::string, unsigned long> totals;

static void count(std::vector<std::string> lines, unsigned long id,
		  batch_kind kind)
{
	fxt_set_thread_name(("worker " + std::to_string(id)).c_str());
	TRACE_DURATION("wordfreq", "count", FXT_ARG("lines", lines.size()),
		       FXT_ARG("kind", kind));
	TRACE_FLOW_END("wordfreq", "batch", id);
	std::map<std::string, unsigned long> local;

	for (const std::string &line : lines) {
		std::istringstream in(line);
		std::string word;

		while (in >> word)
			local[word]++;
	}
	std::lock_guard<std::mutex> guard(totals_lock);
	TRACE_DURATION("wordfreq", "merge", FXT_ARG("distinct", local.size()));
	for (const auto &w : local)
		totals[w.first] += w.second;
	TRACE_COUNTER("wordfreq", "distinct words", 0,
		      FXT_ARG("words", totals.size()));
}

int main()
{
	std::vector<std::thread> workers;
	std::vector<std::string> batch;
	std::string line;
	unsigned long id = 0;

	fxt_set_thread_name("reader");
	while (std::getline(std::cin, line)) {
		batch.push_back(line);
		if (batch.size() < 64)
			continue;
		/* A flow begins inside a slice, or Perfetto drops it. */
		TRACE_DURATION_BEGIN("wordfreq", "dispatch");
		TRACE_FLOW_BEGIN("wordfreq", "batch", ++id);
		workers.emplace_back(count, std::move(batch), id,
				     batch_kind::normal);
		TRACE_DURATION_END("wordfreq", "dispatch");
		batch.clear();
	}
	TRACE_DURATION_BEGIN("wordfreq", "dispatch");
	TRACE_FLOW_BEGIN("wordfreq", "batch", ++id);
	workers.emplace_back(count, std::move(batch), id, batch_kind::last);
	TRACE_DURATION_END("wordfreq", "dispatch");
	for (std::thread &t : workers)
		t.join();

	TRACE_DURATION("wordfreq", "report");
	std::string top;
	unsigned long best = 0;

	for (const auto &w : totals)
		if (w.second > best) {
			best = w.second;
			top = w.first;
		}
	TRACE_INSTANT("wordfreq", "most frequent", FXT_SCOPE_PROCESS,
		      FXT_ARG("word", top), FXT_ARG("count", best));
	std::cout << totals.size() << " distinct words; most frequent: \""
		  << top << "\" (" << best << ")\n";
	return 0;
}
