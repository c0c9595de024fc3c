// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The base BTF of a file that has none, from pahole: the same encoder as
 * `pahole -J` (so a one-step trace sees exactly the types of the 3-step
 * path), but with --btf_encode_detached, which only reads the DWARF file
 * and writes raw BTF to a temp file of ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/btf.h>
#include "encode/encode.h"
#include "log.h"

extern char **environ;

/* First line of what pahole said, for the error message. */
static void first_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;

	while (n + 1 < len && (got = read(fd, buf + n, len - 1 - n)) > 0)
		n += got;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	/* drain the rest: pahole must not block on a full pipe */
	while (read(fd, (char[256]){ 0 }, 256) > 0)
		;
}

int btfi_base_from_pahole(const char *dwarf_path, const struct btfi_log *log, struct btf **out)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmp[4096], arg[4200], said[256] = "";
	posix_spawn_file_actions_t fa;
	int fd, pfd[2] = { -1, -1 }, status, err;
	pid_t pid;

	*out = NULL;
	snprintf(tmp, sizeof(tmp), "%s/btfinline-base.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: base BTF: cannot create a temp file in %s: %s", dwarf_path,
			 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(-err));
		return err;
	}
	close(fd);
	snprintf(arg, sizeof(arg), "--btf_encode_detached=%s", tmp);
	if (pipe2(pfd, O_CLOEXEC)) {
		err = -errno;
		btfi_err(log, "%s: base BTF: pipe: %s", dwarf_path, strerror(-err));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	err = -posix_spawnp(&pid, "pahole",  &fa, NULL,
			    (char *[]){ "pahole", arg, (char *)dwarf_path, NULL }, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		btfi_err(log, "%s: base BTF: cannot run pahole: %s", dwarf_path, strerror(-err));
		goto out;
	}
	first_line(pfd[0], said, sizeof(said));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		btfi_err(log, "%s: base BTF: pahole --btf_encode_detached failed (%s %d)%s%s", dwarf_path,
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 *said ? ": " : "", said);
		err = -EIO;
		goto out;
	}
	*out = btf__parse_raw(tmp);
	if (!*out) {
		/* pahole 1.24 on split DWARF: exit 0, an empty file */
		btfi_err(log, "%s: base BTF: pahole wrote no readable BTF (%s; split DWARF?)", dwarf_path,
			 strerror(errno));
		err = -ENODATA;
		goto out;
	}
	if (btf__type_cnt(*out) <= 1) {
		btfi_err(log, "%s: base BTF: pahole found no types (split DWARF?)", dwarf_path);
		btf__free(*out);
		*out = NULL;
		err = -ENODATA;
	}
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	unlink(tmp);
	return err;
}
