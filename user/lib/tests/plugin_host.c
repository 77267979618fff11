// SPDX-License-Identifier: GPL-2.0
/*
 * Loads the plugin argv[1] (static_plugin.so, module_dlclose_test.sh) and
 * has a thread write its event there; closes the plugin while the thread
 * lives, then lets the thread exit.  Does not link libfxtrace itself.
 * Exits 0 when all of it returned, 1 on a failure it saw; a crash at the
 * thread's exit is the kernel's signal.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static void (*work)(int);
static sem_t worked, closed;

static void *thread(void *arg)
{
	work(7);
	sem_post(&worked);
	sem_wait(&closed);
	return arg;		/* its exit runs the thread-exit destructors */
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	pthread_t t;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&work = dlsym(h, "plugin_work");
	if (!work)
		return 1;
	sem_init(&worked, 0, 0);
	sem_init(&closed, 0, 0);
	if (pthread_create(&t, NULL, thread, NULL))
		return 1;
	sem_wait(&worked);
	if (dlclose(h))
		return 1;
	sem_post(&closed);
	if (pthread_join(t, NULL))
		return 1;
	printf("thread exited after dlclose\n");
	return 0;
}
