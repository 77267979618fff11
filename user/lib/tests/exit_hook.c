// SPDX-License-Identifier: GPL-2.0
/*
 * A shared object whose destructor calls back into the program that
 * loaded it (module_plugins_test).  At exit(), glibc runs the program's
 * destructors first, libfxtrace.a's among them, then the shared objects':
 * the callback runs after the program's copy of the library has run its.
 */
void (*exit_hook)(void);

__attribute__((destructor)) static void run_exit_hook(void)
{
	if (exit_hook)
		exit_hook();
}
