// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline: a small multi-threaded program instrumented with libfxtrace,
 * the example `make demo` records.
 *
 * A producer thread reads "requests" (blocks of /dev/urandom), hands each
 * to a worker through a pipe and moves on; the worker checksums it and
 * reports back through a second pipe.  The trace shows nested durations on
 * both threads, a queue-depth counter, each request as an async slice from
 * hand-off to reply, a flow arrow from the producer's hand-off to the
 * worker's processing, and the blocking reads inside their durations.
 *
 * For dynamic probes (Documentation/probes.rst) it has a function that
 * stays a function, checksum(), and a USDT probe pipeline:handoff with the
 * request's id and size.
 *
 * Usage: pipeline [REQUESTS]   (default 50)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

#include <fxtrace/trace.h>

#define BLOCK 4096

struct request {
	uint64_t id;
	unsigned char data[BLOCK];
};

static int to_worker[2], to_producer[2];

/* Global and never inlined: uprobe:pipeline:checksum finds it by name. */
__attribute__((noinline)) uint64_t checksum(const unsigned char *p, size_t len)
{
	TRACE_DURATION("pipeline", "checksum", FXT_ARG("bytes", len));
	uint64_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = sum * 31 + p[i];
	return sum;
}

static int read_full(int fd, void *buf, size_t len)
{
	TRACE_DURATION("pipeline", "read", FXT_ARG("fd", fd), FXT_ARG("len", len));
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct request req;
	uint64_t reply[2];

	(void)arg;
	fxt_set_thread_name("worker");
	while (read_full(to_worker[0], &req, sizeof(req)) == 0) {
		TRACE_DURATION("pipeline", "process", FXT_ARG("request", req.id));
		TRACE_FLOW_END("pipeline", "handoff", req.id);
		reply[0] = req.id;
		reply[1] = checksum(req.data, sizeof(req.data));
		if (write(to_producer[1], reply, sizeof(reply)) != sizeof(reply))
			break;
	}
	return NULL;
}

/* The producer is a thread of its own: the main thread keeps the process's
 * name (renaming it would rename the process). */
static void *producer(void *arg)
{
	unsigned long requests = *(unsigned long *)arg;
	struct request req;
	uint64_t reply[2];
	int urandom;

	fxt_set_thread_name("producer");
	urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (urandom < 0)
		return arg;
	for (req.id = 1; req.id <= requests; req.id++) {
		TRACE_DURATION("pipeline", "request", FXT_ARG("id", req.id));
		{
			TRACE_DURATION("pipeline", "prepare");
			if (read_full(urandom, req.data, sizeof(req.data)))
				return arg;
		}
		TRACE_ASYNC_BEGIN("pipeline", "in flight", req.id);
		TRACE_FLOW_BEGIN("pipeline", "handoff", req.id);
		DTRACE_PROBE2(pipeline, handoff, req.id, sizeof(req.data));
		if (write(to_worker[1], &req, sizeof(req)) != sizeof(req))
			return arg;
		TRACE_COUNTER("pipeline", "queue", 0, FXT_ARG("depth", 1));
		if (read_full(to_producer[0], reply, sizeof(reply)))
			return arg;
		TRACE_COUNTER("pipeline", "queue", 0, FXT_ARG("depth", 0));
		TRACE_ASYNC_END("pipeline", "in flight", reply[0],
				FXT_ARG("checksum", reply[1]));
	}
	close(urandom);
	close(to_worker[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long requests = argc > 1 ? strtoul(argv[1], NULL, 0) : 50;
	pthread_t producer_thread, worker_thread;
	void *failed;

	if (pipe(to_worker) || pipe(to_producer))
		return 1;
	if (pthread_create(&worker_thread, NULL, worker, NULL) ||
	    pthread_create(&producer_thread, NULL, producer, &requests))
		return 1;
	pthread_join(producer_thread, &failed);
	pthread_join(worker_thread, NULL);
	if (failed)
		return 1;
	TRACE_INSTANT("pipeline", "done", FXT_SCOPE_PROCESS,
		      FXT_ARG("requests", requests));
	printf("pipeline: %lu requests\n", requests);
	return 0;
}
