// SPDX-License-Identifier: GPL-2.0
/*
 * stop.c - `fxtrace stop`: end the session a killed drainer left behind
 * (an orphan, which blocks every new session), after saving what its
 * buffers still hold if asked.  A session whose drainer runs is that
 * drainer's to stop: stop says which signal to send.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "drain.h"
#include "fxtctl.h"
#include "fxtrace.h"
#include "output_file.h"

/*
 * Every buffer of the adopted session into out, as a trace of its own:
 * what each still holds (a streaming buffer's halves may repeat records
 * the killed drainer had already written), through the drainer's checks
 * (output_session()).  Its window: from the clock's start (the session's
 * is not known) to now.
 */
static int save_buffers(struct fxtctl *c, const char *out)
{
	struct fxtrace_output file;
	struct kind_totals t;
	uint64_t refused = 0;
	struct output o;
	unsigned int k;
	int ret, closed;

	/*
	 * Named by the user: a FIFO or a device will do.  Not a drainer's
	 * trace or a spool, which `fxtrace recover` saves.  A regular file
	 * is replaced only once written whole: a full disk or a kill
	 * leaves what it held.
	 */
	if (fxtrace_output_create(&file, "stop", out, FXTCTL_OUTPUT_STREAM))
		return 1;
	output_init(&o, c->page->ticks_per_second, fxtctl_now(c));
	o.window_lo = 0;
	ret = output_session(&o, c, NULL, false, fileno(file.file),
			     NULL);
	for (k = 0; k < KIND_COUNT; k++) {
		output_totals(&o, k, &t);
		refused += t.invalid;
	}
	output_free(&o);
	if (ret < 0)
		fprintf(stderr, "fxtrace stop: %s: %s%s\n", out, strerror(-ret),
			fxtrace_output_kept(&file));
	closed = fxtrace_output_close(&file, "stop", ret >= 0);
	if (closed || ret < 0)
		return closed ? closed : 1;
	printf("[ fxtrace stop: %d buffers written to %s, %llu records refused ]\n",
	       ret, out, (unsigned long long)refused);
	return 0;
}

int cmd_stop(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtrace_session_info info = { .size = sizeof(info) };
	const char *out = NULL;
	struct fxtctl c;
	int opt, ret, rc = 0;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			ret = fxtrace_trace_output_error("stop", optarg);
			if (ret)
				return ret;
			out = optarg;
			break;
		case 'h':
			return fxtrace_cmd_help("stop");
		default:
			return fxtrace_option_error("stop", opt, argv, options);
		}
	}
	if (optind < argc)
		return fxtrace_usage_error("stop", "unexpected '%s'", argv[optind]);
	ret = fxtctl_open(&c);
	if (ret) {
		fprintf(stderr, "fxtrace stop: %s: %s%s\n", FXTRACE_DEVICE,
			strerror(-ret), fxtctl_open_refusal(ret));
		return 1;
	}
	if (ioctl(c.fd, FXTRACE_IOC_SESSION_INFO, &info)) {
		fprintf(stderr, "fxtrace stop: session info: %s\n", strerror(errno));
		rc = 1;
	} else if (info.state == FXTRACE_STATE_NONE) {
		printf("[ fxtrace stop: no session ]\n");
	} else if (!(info.flags & FXTRACE_SESSION_ORPHANED)) {
		fprintf(stderr, "fxtrace stop: the session has a running drainer (uid %u): send its fxtrace record or fxtrace-drain SIGINT (Ctrl-C) to stop it\n",
			info.owner_uid);
		rc = 1;
	} else if ((ret = fxtctl_adopt(&c))) {
		fprintf(stderr, "fxtrace stop: adopting the orphaned session: %s%s%u%s\n",
			strerror(-ret), ret == -EPERM ? " (needs CAP_PERFMON and uid " : "",
			ret == -EPERM ? info.owner_uid : 0,
			ret == -EPERM ? ", its owner's, or CAP_SYS_ADMIN)" : "");
		rc = 1;
	} else if (out && (ret = save_buffers(&c, out))) {
		/*
		 * Asked to save them: not ended.  Closing the adopting file
		 * orphans the session again, for another try.
		 */
		if (ret == FXTRACE_OUTPUT_DIR_UNSYNCED)
			fprintf(stderr, "fxtrace stop: the session is left orphaned: %s holds its buffers, but a crash may undo that: 'fxtrace stop -o FILE' saves them again, 'fxtrace stop' ends it\n",
				out);
		else
			fprintf(stderr, "fxtrace stop: the session is left orphaned, its buffers unsaved: 'fxtrace stop -o FILE' saves them, 'fxtrace stop' discards them\n");
		rc = 1;
	} else {
		ret = fxtctl_terminate(&c);
		if (ret) {
			fprintf(stderr, "fxtrace stop: terminate: %s\n", strerror(-ret));
			rc = 1;
		} else {
			printf("[ fxtrace stop: the orphaned session (uid %u, %u buffers) is ended ]\n",
			       info.owner_uid, info.nr_buffers);
		}
	}
	fxtctl_close(&c);
	return rc;
}
