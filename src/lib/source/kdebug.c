// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The running kernel's DWARF, or a loaded module's, on this machine. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "attach/kmodule.h"
#include "elf_file.h"
#include "log.h"
#include "opts.h"
#include "source/kdebug.h"

#define DEFAULT_ROOT "/usr/lib/debug"

struct look {
	const char *want;		/* build-id hex */
	const struct btfi_log *log;
	char *found;
	char *tried;			/* where we looked, for the caller's message */
	size_t tried_len;
	char mismatch[4096];		/* first candidate with another build-id */
	char mismatch_id[130];
};

static void note_tried(struct look *lk, const char *what)
{
	size_t n = strlen(lk->tried);

	if (lk->tried_len && n + 3 < lk->tried_len)
		snprintf(lk->tried + n, lk->tried_len - n, "%s%s", n ? ", " : "", what);
}

/* Has path a .debug_info with bytes? (section headers only) */
static bool has_debug_info(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool yes = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !elf_getshdrstrndx(elf, &shstrndx) && !yes && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		yes = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
		      (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		      (!strcmp(n, ".debug_info") || !strcmp(n, ".zdebug_info"));
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return yes;
}

/* A debug file with DWARF and the wanted build-id: keep it. */
static bool try_file(struct look *lk, const char *path)
{
	char id[130];

	if (lk->found || access(path, R_OK))
		return lk->found;
	if (!btfi_elf_file_build_id(path, id, sizeof(id)) || strcmp(id, lk->want)) {
		if (!lk->mismatch[0]) {
			snprintf(lk->mismatch, sizeof(lk->mismatch), "%s", path);
			snprintf(lk->mismatch_id, sizeof(lk->mismatch_id), "%s", id[0] ? id : "none");
		}
		return false;
	}
	if (!has_debug_info(path))
		return false;	/* a stripped copy: not the DWARF */
	lk->found = strdup(path);
	return lk->found;
}

/* ---- modules: ROOT/lib/modules/R/ walked for M.ko ---- */

/* "snd-hda-intel.ko.debug" is module snd_hda_intel */
static bool is_module_file(const char *base, const char *mod)
{
	size_t n = strlen(mod), i;

	for (i = 0; i < n && base[i]; i++)
		if (base[i] != mod[i] && !(base[i] == '-' && mod[i] == '_'))
			return false;
	return i == n && (!strcmp(base + n, ".ko") || !strcmp(base + n, ".ko.debug"));
}

/* dir and below (a module tree is a few levels deep), stopping at a hit */
static bool walk(struct look *lk, const char *dir, const char *mod, int depth)
{
	DIR *d = depth < 12 ? opendir(dir) : NULL;
	struct dirent *e;
	char path[4096];

	while (d && !lk->found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			walk(lk, path, mod, depth + 1);
		else if ((e->d_type == DT_REG || e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) &&
			 is_module_file(e->d_name, mod))
			try_file(lk, path);
	}
	if (d)
		closedir(d);
	return lk->found;
}

static void find_module(struct look *lk, const char *root, const char *release, const char *mod)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", root, release);
	note_tried(lk, dir);
	walk(lk, dir, mod, 0);
}

int btfi_kdebug_find(const char *module, const struct btfi_kdebug_opts *opts, char **path,
		     char *tried, size_t tried_len)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(opts, log) ? &opts->log : &no_log;
	const char *release = OPTS_GET(opts, release, NULL), *id = OPTS_GET(opts, build_id, NULL);
	const char *roots = OPTS_GET(opts, debug_dirs, NULL);
	char want[130], cand[4096], *rs, *save, *r;
	struct look lk = { .want = want, .log = log, .tried = tried, .tried_len = tried_len };
	struct utsname u;

	*path = NULL;
	if (tried_len)
		tried[0] = 0;
	if (!OPTS_VALID(opts, btfi_kdebug_opts, log))
		return -EINVAL;
	if (!release) {
		uname(&u);
		release = u.release;
	}
	if (id)
		snprintf(want, sizeof(want), "%s", id);
	else if (!btfi_kmod_build_id(module, want, sizeof(want))) {
		btfi_err(log, "kernel: %s%s: no build-id in %s", module ? "module " : "",
			 module ? module : "vmlinux", module ? "/sys/module/<m>/notes" : BTFI_KERNEL_NOTES);
		return -ENOENT;
	}
	if (!roots || !*roots)
		roots = DEFAULT_ROOT;
	rs = strdup(roots);
	for (r = rs ? strtok_r(rs, ":", &save) : NULL; r && !lk.found; r = strtok_r(NULL, ":", &save)) {
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", r, want, want + 2);
		note_tried(&lk, cand);
		if (try_file(&lk, cand))
			break;
		if (module) {
			find_module(&lk, r, release, module);
			continue;
		}
		snprintf(cand, sizeof(cand), "%s/boot/vmlinux-%s", r, release);
		note_tried(&lk, cand);
		if (try_file(&lk, cand))
			break;
		snprintf(cand, sizeof(cand), "%s/lib/modules/%s/vmlinux", r, release);
		note_tried(&lk, cand);
		try_file(&lk, cand);
	}
	free(rs);
	/* an unstripped vmlinux of one's own build */
	for (int i = 0; !module && !lk.found && i < 2; i++) {
		snprintf(cand, sizeof(cand), i ? "/lib/modules/%s/build/vmlinux" : "/boot/vmlinux-%s",
			 release);
		note_tried(&lk, cand);
		try_file(&lk, cand);
	}
	if (lk.found) {
		*path = lk.found;
		return 0;
	}
	if (lk.mismatch[0]) {
		btfi_err(log, "kernel: %s%s: %s has build-id %s, want %s%s: debug info of another "
			 "build", module ? "module " : "", module ? module : "vmlinux", lk.mismatch,
			 lk.mismatch_id, want, id ? "" : module ? " (the loaded module's)" : " (the running kernel's)");
		return -ESTALE;
	}
	return -ENOENT;
}

/* /etc/os-release's ID and ID_LIKE */
static bool os_is(const char *id)
{
	FILE *f = fopen("/etc/os-release", "re");
	char line[256];
	bool yes = false;

	while (f && !yes && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "ID=", 3) && strncmp(line, "ID_LIKE=", 8))
			continue;
		yes = strstr(line, id) != NULL;
	}
	if (f)
		fclose(f);
	return yes;
}

void btfi_kdebug_hint(const char *release, char *buf, size_t len)
{
	struct utsname u;

	if (!release) {
		uname(&u);
		release = u.release;
	}
	if (os_is("ubuntu"))
		snprintf(buf, len, "install linux-image-%s-dbgsym (ddebs.ubuntu.com), or set DEBUGINFOD_URLS",
			 release);
	else if (os_is("debian"))
		snprintf(buf, len, "install linux-image-%s-dbg, or set DEBUGINFOD_URLS", release);
	else if (os_is("fedora") || os_is("rhel"))
		snprintf(buf, len, "install kernel-debuginfo-%s (dnf debuginfo-install kernel), or set "
			 "DEBUGINFOD_URLS", release);
	else
		snprintf(buf, len, "install the debug info of kernel %s (a vmlinux with DWARF under "
			 "/usr/lib/debug), or set DEBUGINFOD_URLS", release);
}
