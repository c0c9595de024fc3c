// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output files written whole or not at all (atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "atomic_file.h"
#include "log.h"

int btfi_atomic_open(struct btfi_atomic *a, const char *path, mode_t mode, bool need_regular,
		     const struct btfi_log *log)
{
	struct stat st;
	int err;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if (!realpath(path, a->path))	/* not there yet: as given */
		snprintf(a->path, sizeof(a->path), "%s", path);
	if (!stat(a->path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			btfi_err(log, "%s: %s", path, strerror(EISDIR));
			return -EISDIR;
		}
		if (need_regular) {
			btfi_err(log, "%s: not a regular file, refusing to replace it", path);
			return -EINVAL;
		}
		a->direct = true;
		a->fd = open(a->path, O_WRONLY | O_CLOEXEC);
		if (a->fd < 0) {
			err = -errno;
			btfi_err(log, "%s: %s", path, strerror(-err));
			return err;
		}
		return 0;
	}
	if (snprintf(a->tmp, sizeof(a->tmp), "%s.btfinline.XXXXXX", a->path) >= (int)sizeof(a->tmp)) {
		btfi_err(log, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	a->fd = mkstemp(a->tmp);
	if (a->fd < 0) {
		err = -errno;
		btfi_err(log, "%s: cannot create a temp file beside it: %s", path, strerror(-err));
		return err;
	}
	if (fchmod(a->fd, mode)) {
		err = -errno;
		btfi_err(log, "%s: chmod: %s", a->tmp, strerror(-err));
		btfi_atomic_abort(a);
		return err;
	}
	return 0;
}

void btfi_atomic_abort(struct btfi_atomic *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	if (!a->direct && a->tmp[0])
		unlink(a->tmp);
}

int btfi_atomic_commit(struct btfi_atomic *a, const struct btfi_log *log)
{
	int err = 0;

	if (a->direct) {
		if (close(a->fd))
			err = -errno;
		a->fd = -1;
		if (err)
			btfi_err(log, "%s: %s", a->path, strerror(-err));
		return err;
	}
	if (fsync(a->fd)) {
		err = -errno;
		btfi_err(log, "%s: fsync: %s", a->tmp, strerror(-err));
	} else if (close(a->fd)) {
		err = -errno;
		btfi_err(log, "%s: close: %s", a->tmp, strerror(-err));
	}
	a->fd = err ? a->fd : -1;
	if (!err && rename(a->tmp, a->path)) {
		err = -errno;
		btfi_err(log, "%s: rename: %s", a->path, strerror(-err));
	}
	if (err)
		btfi_atomic_abort(a);
	return err;
}

int btfi_atomic_write(const char *path, const void *data, size_t sz, mode_t mode,
		      const struct btfi_log *log)
{
	struct btfi_atomic a;
	const char *p = data;
	int err = btfi_atomic_open(&a, path, mode, false, log);

	if (err)
		return err;
	while (sz) {
		ssize_t n = write(a.fd, p, sz);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			btfi_err(log, "%s: write: %s", path, strerror(-err));
			btfi_atomic_abort(&a);
			return err;
		}
		p += n;
		sz -= n;
	}
	return btfi_atomic_commit(&a, log);
}
