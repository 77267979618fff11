/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_file.h - the one way trace files are created: by fxtrace-drain,
 * `fxtrace stop -o`, `fxtrace recover` and libfxtrace.  output_file.c is
 * compiled into libfxtctl.a and into libfxtrace.
 *
 * These commands often run as root in directories other users can write
 * to, and traces hold every traced process's names and arguments: a trace
 * is created private (0600), and never written through a symbolic link, a
 * hard link, into another user's file or FIFO, or into a file that is not
 * regular unless asked for.
 */
#ifndef FXTRACE_OUTPUT_FILE_H
#define FXTRACE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Flags of fxtctl_create_output(). */
#define FXTCTL_OUTPUT_EXCL	0x1	/* a new file only (snapshots) */
#define FXTCTL_OUTPUT_STREAM	0x2	/* an existing FIFO or character device will do */
#define FXTCTL_OUTPUT_KEEP	0x4	/* no truncation: the caller truncates later */

/*
 * Open path write-only (O_CLOEXEC), creating it with mode 0600; returns the
 * fd or a negative errno.  Refused: a symbolic link as the last component
 * (-ELOOP), a regular file with other hard links (-EMLINK), an existing
 * regular file or FIFO owned by anyone but the caller (the effective uid)
 * or, for root, the sudo user (SUDO_UID) (-EPERM), any other file that is
 * not regular (-EEXIST), except a FIFO or character device with
 * FXTCTL_OUTPUT_STREAM; and a name that another process keeps making and
 * removing between our opens, after 100 tries (-EAGAIN).  A regular file is
 * truncated after these checks, and, when root made it for a user through
 * sudo (SUDO_UID, SUDO_GID), given to that user.
 */
int fxtctl_create_output(const char *path, int flags);

/*
 * Whether fxtctl_create_output(path, 0) writes over the existing file that
 * st (of lstat()) describes: a regular file with no other hard link, the
 * caller's or, for root, the sudo user's.
 */
bool fxtctl_output_replaceable(const struct stat *st);

/*
 * A new file for an output that replaces path only once it is written
 * whole, in path's directory, mode 0600, O_CLOEXEC and, like a new
 * output, given to the sudo user.  Where the file system takes O_TMPFILE
 * (and /proc/self/fd names it), a file with no name, which vanishes with
 * the process however it ends (tmp ""): fxtctl_name_temp_output() names
 * it once written.  Where it does not (EOPNOTSUPP; EISDIR, a kernel
 * without O_TMPFILE), ".NAME.XXXXXX" made by mkostemp() (O_EXCL), its
 * name in tmp (size bytes).  Then rename(tmp, path).  Returns the fd or a
 * negative errno (tmp ""; -ENAMETOOLONG when the name does not fit).
 */
int fxtctl_create_temp_output(const char *path, char *tmp, size_t size);

/*
 * Give fd, an unnamed file of fxtctl_create_temp_output(), a fresh name
 * ".NAME.XXXXXX" next to path (linkat() through /proc/self/fd), in tmp.
 * Returns 0 or a negative errno (tmp "").
 */
int fxtctl_name_temp_output(int fd, const char *path, char *tmp, size_t size);

/*
 * For a message after strerror(-err): what a refusal above means, or ""
 * for any other error (-EPERM: only when the last fxtctl_create_output()
 * of this thread refused an owner).
 */
const char *fxtctl_output_refusal(int err);

#endif /* FXTRACE_OUTPUT_FILE_H */
