// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which file a uprobe target names (attach.h): a path as given, else a
 * library or program name the way people write them ("libc",
 * "libc.so.6", "python3"): among the files a process maps, else through
 * the ld.so cache (`ldconfig -p`), else PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "procmaps.h"
#include "attach/attach.h"
#include "elf_file.h"
#include "log.h"

extern char **environ;

/* "libc" names libc.so.6 and libc-2.31.so; "libc.so.6" only itself. */
static bool name_matches(const char *name, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n = strlen(name);

	b = b ? b + 1 : path;
	if (!strcmp(b, name))
		return true;
	if (strncmp(b, name, n))
		return false;
	if (!strncmp(b + n, ".so", 3) && (!b[n + 3] || b[n + 3] == '.'))
		return true;
	return b[n] == '-' && strstr(b + n, ".so");
}

struct cands {
	char *real[8];
	char *shown[8];
	int n;
	bool more;
};

static void cands_free(struct cands *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->real[i]);
		free(c->shown[i]);
	}
	c->n = 0;
}

/* Another ELF file (by real path) that matches. */
static void cands_add(struct cands *c, const char *name, const char *path)
{
	char *real;

	if (!name_matches(name, path) || btfi_file_kind(path) != BTFI_FILE_ELF ||
	    !(real = realpath(path, NULL)))
		return;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->real[i], real)) {
			free(real);
			return;
		}
	if (c->n == 8) {
		c->more = true;
		free(real);
		return;
	}
	c->real[c->n] = real;
	c->shown[c->n++] = strdup(path);
}

/* One candidate: its path; several: an error naming them. */
static int cands_pick(struct cands *c, const char *name, const char *where, char *out, size_t len,
		      const struct btfi_log *log)
{
	char list[1024] = "";
	size_t p = 0;

	if (c->n == 1) {
		snprintf(out, len, "%s", c->shown[0] ? c->shown[0] : c->real[0]);
		return 0;
	}
	for (int i = 0; i < c->n && p < sizeof(list); i++)
		p += snprintf(list + p, sizeof(list) - p, "%s%s", i ? ", " : "", c->real[i]);
	btfi_err(log, "%s: ambiguous in %s: %s%s; give the path", name, where, list, c->more ? ", ..." : "");
	return -EINVAL;
}

struct maps_ctx {
	const char *name;
	struct cands *c;
};

static int maps_cand(const struct btfi_procmap *m, void *ctx)
{
	struct maps_ctx *mc = ctx;

	cands_add(mc->c, mc->name, m->path);
	return 0;
}

static void from_maps(int pid, const char *name, struct cands *c)
{
	struct maps_ctx mc = { name, c };

	btfi_procmaps(pid, maps_cand, &mc);
}

/* `ldconfig -p`: "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6" */
static void from_ldcache(const char *name, struct cands *c)
{
	static const char *const tools[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	posix_spawn_file_actions_t fa;
	char line[4096 + 256];
	int pfd[2], st;
	pid_t pid = -1;
	FILE *f;

	if (pipe2(pfd, O_CLOEXEC))
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (size_t i = 0; i < 2 && pid < 0; i++)
		if (posix_spawn(&pid, tools[i], &fa, NULL, (char *[]){ "ldconfig", "-p", NULL }, environ))
			pid = -1;
	if (pid < 0 && posix_spawnp(&pid, "ldconfig", &fa, NULL, (char *[]){ "ldconfig", "-p", NULL },
				    environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	f = pid > 0 ? fdopen(pfd[0], "r") : NULL;
	if (!f) {
		close(pfd[0]);
	} else {
		while (fgets(line, sizeof(line), f)) {
			char *arrow = strstr(line, " => "), *flags = strchr(line, '(');

			if (!arrow || !flags || flags > arrow)
				continue;
#ifdef __x86_64__
			/* this machine's libraries, not /lib32's */
			if (!memmem(flags, arrow - flags, "x86-64", 6))
				continue;
#endif
			arrow[4 + strcspn(arrow + 4, "\n")] = 0;
			cands_add(c, name, arrow + 4);
		}
		fclose(f);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static void from_path(const char *name, struct cands *c)
{
	const char *p = getenv("PATH");
	char *dirs = strdup(p ? p : "/usr/local/bin:/usr/bin:/bin"), *save = NULL;

	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !c->n;
	     d = strtok_r(NULL, ":", &save)) {
		char full[4096];

		snprintf(full, sizeof(full), "%s/%s", d, name);
		if (!access(full, X_OK))
			cands_add(c, name, full);
	}
	free(dirs);
}

int btfi_resolve_binary(const char *name, int pid, char *out, size_t len, const char **how,
			const struct btfi_log *log)
{
	struct cands c = {};
	int err = -ENOENT;

	*how = "path";
	if (strchr(name, '/') || !access(name, F_OK) || !*name) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (pid > 0) {
		char where[64];

		snprintf(where, sizeof(where), "the files pid %d maps", pid);
		*how = "mapped by the process";
		from_maps(pid, name, &c);
		if (c.n)
			err = cands_pick(&c, name, where, out, len, log);
		else
			btfi_err(log, "%s: %s (and pid %d maps no file of that name)", name, strerror(ENOENT), pid);
		cands_free(&c);
		return err;
	}
	*how = "ld.so cache";
	from_ldcache(name, &c);
	if (!c.n) {
		*how = "PATH";
		from_path(name, &c);
	}
	if (c.n)
		err = cands_pick(&c, name, *how, out, len, log);
	else
		btfi_err(log, "%s: %s (and no library or program of that name in the ld.so cache or PATH)",
			 name, strerror(ENOENT));
	cands_free(&c);
	return err;
}
