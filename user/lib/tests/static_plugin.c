// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin with libfxtrace.a linked into it, not libfxtrace.so
 * (module_dlclose_test.sh): its library goes when the plugin is closed.
 */
#include <fxtrace/trace.h>

void plugin_work(int n);
void plugin_signal_event(int sig);

void plugin_work(int n)
{
	TRACE_INSTANT("app", "plugin", FXT_SCOPE_THREAD, FXT_ARG("n", n));
}

/* module_exit_lock_test's handler: a call site of its own, first run there. */
void plugin_signal_event(int sig)
{
	TRACE_INSTANT("app", "plugin handler", FXT_SCOPE_THREAD,
		      FXT_ARG("sig", sig));
}
