// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Cache of inline info built on demand (source/cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include "elf_file.h"
#include "format/elf_write.h"
#include "log.h"
#include "opts.h"
#include "source/cache.h"

#ifndef BTFI_VERSION
#define BTFI_VERSION "unknown"
#endif
/* Bump when the entry layout or what the encoder writes changes within
 * one version (an entry of another format or version is rebuilt). */
#define CACHE_FORMAT 12	/* 2: per-call probe addresses, no split-part sites; 3: modules
			 * per-call too, a kernel's mov $addr an ADDR; 4: a kernel's
			 * probes off what kprobes refuse (jump labels, ...); 5: copies
			 * on a loop's way out after hoisted code, lone calls; 6: no
			 * way in from another call's cross-jumped argument code; 7:
			 * a loop step copied after the body, a test into its own
			 * copy of the body; 8: a kernel's jumps through
			 * .altinstr_aux followed; 9: no way in that goes
			 * straight on into the marker's next pass; 10: into any
			 * way in's, over the caller's code too; 11: a fault's
			 * way is none; 12: GCC's entry-row copies no way
			 * in meets */
#define KEY_SEC ".btfinline.key"
#define SUBDIR "btfinline/encoded"

static void hex(const unsigned char *b, size_t n, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < n && i * 2 + 3 <= len; i++)
		snprintf(buf + i * 2, 3, "%02x", b[i]);
}

void btfi_cache_key_build_id(const void *id, size_t n, const char *kind, struct btfi_cache_key *k)
{
	char h[2 * 64 + 1];

	hex(id, n > 64 ? 64 : n, h, sizeof(h));
	snprintf(k->name, sizeof(k->name), "%s%s%s", kind ? kind : "", kind ? "-" : "", h);
	snprintf(k->id, sizeof(k->id), "%s%sbuild-id %s", kind ? kind : "", kind ? " " : "", h);
}

int btfi_cache_key_file(const char *path, struct btfi_cache_key *k, const struct btfi_log *log)
{
	char *real = NULL;
	const void *id;
	struct stat st;
	uint64_t h = 1469598103934665603ull;
	ssize_t n = 0;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (n = dwelf_elf_gnu_build_id(elf, &id)) > 0)
		btfi_cache_key_build_id(id, n, NULL, k);
	if (elf)
		elf_end(elf);
	close(fd);
	if (n > 0)
		return 0;
	/* No build-id: the file as it is now (a rebuilt binary gets a new
	 * mtime and usually a new size). */
	real = realpath(path, NULL);
	if (!real) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
		return err;
	}
	snprintf(k->id, sizeof(k->id), "file %s size %lld mtime %lld.%09ld", real,
		 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	free(real);
	for (const char *s = k->id; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	snprintf(k->name, sizeof(k->name), "file-%016llx", (unsigned long long)h);
	return 0;
}

static int cache_dir(const struct btfi_cache_opts *o, char *buf, size_t len)
{
	const char *dir = OPTS_GET(o, dir, NULL), *xdg = getenv("XDG_CACHE_HOME"), *home;
	int n;

	if (dir)
		n = snprintf(buf, len, "%s", dir);
	else if (xdg && xdg[0] == '/')	/* relative: ignored, as the spec says */
		n = snprintf(buf, len, "%s/%s", xdg, SUBDIR);
	else if ((home = getenv("HOME")) && *home)
		n = snprintf(buf, len, "%s/.cache/%s", home, SUBDIR);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int btfi_cache_path(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		    char *buf, size_t len)
{
	int err = cache_dir(o, buf, len);
	size_t n = strlen(buf);

	if (err)
		return err;
	if (snprintf(buf + n, len - n, "/%s.elf", k->name) >= (int)(len - n))
		return -ENAMETOOLONG;
	return 0;
}

static void key_text(const struct btfi_cache_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "btfinline-cache %d %s\n%s\n", CACHE_FORMAT, BTFI_VERSION, k->id);
}

/* The entry's key section must be exactly ours. */
static int check_key(const char *path, const struct btfi_cache_key *k, const struct btfi_log *log)
{
	char want[sizeof(k->id) + 64];
	struct btfi_elf_fd ef;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int err = -EBADMSG;
	bool found = false;

	key_text(k, want, sizeof(want));
	if (btfi_elf_open(path, BTFI_ELF_FULL, &ef, log))
		return -EBADMSG;
	elf = ef.elf;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn)) && !found) {
		const char *nm;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(nm, KEY_SEC))
			continue;
		found = true;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size == strlen(want) && !memcmp(d->d_buf, want, d->d_size)) {
			err = 0;
		} else {
			/* the line that differs: the format/version, else the key */
			const char *b = d ? d->d_buf : "", *nl = memchr(b, '\n', d ? d->d_size : 0);
			size_t l1 = strcspn(want, "\n") + 1, rest;
			bool same_ver = nl && (size_t)(nl - b) + 1 == l1 && !memcmp(b, want, l1);

			if (same_ver)
				b = nl + 1;
			rest = d ? d->d_size - (size_t)(b - (const char *)d->d_buf) : 0;
			nl = memchr(b, '\n', rest);
			btfi_err(log, "%s: made for %s (%.*s)", path,
				 same_ver ? "another file" : "another btfinline version or cache format",
				 (int)(nl ? (size_t)(nl - b) : rest < 80 ? rest : 80), b);
		}
	}
	if (!found)
		btfi_err(log, "%s: no %s section", path, KEY_SEC);
out:
	btfi_elf_close(&ef);
	return err;
}

int btfi_cache_open(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		    const char *base_path, struct btfinline **bi)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(o, log) ? &o->log : &no_log;
	BTFI_OPTS(btfinline_open_opts, oo, .log = *log, .base_path = base_path,
		  .base_base_path = OPTS_GET(o, base_base, NULL));
	char path[PATH_MAX];
	int err;

	*bi = NULL;
	if (!OPTS_VALID(o, btfi_cache_opts, log))
		return -EINVAL;
	err = btfi_cache_path(o, k, path, sizeof(path));
	if (err)
		return err;
	if (access(path, F_OK))
		return -ENOENT;
	err = check_key(path, k, log);
	if (err)
		return err;
	err = btfinline__open(path, &oo, bi);
	return err == -ENOENT ? -EBADMSG : err;	/* ENOENT means "no entry" */
}

/* mkdir -p, 0700 as the XDG base directory spec asks. */
static int mkdirs(char *dir, const struct btfi_log *log)
{
	for (char *s = dir + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = 0;
		if (mkdir(dir, 0700) && errno != EEXIST) {
			int err = -errno;

			btfi_err(log, "%s: cannot create: %s", dir, strerror(-err));
			*s = c;
			return err;
		}
		*s = c;
		if (!c)
			return 0;
	}
}

int btfi_cache_store(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		     const struct btfi_cache_entry *e)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(o, log) ? &o->log : &no_log;
	char path[PATH_MAX], key[sizeof(k->id) + 64], *slash;
	struct btfi_elf_sec secs[3];
	size_t n = 0;
	int err;

	if (!OPTS_VALID(o, btfi_cache_opts, log))
		return -EINVAL;
	err = btfi_cache_path(o, k, path, sizeof(path));
	if (err) {
		btfi_err(log, "inline info cache: %s", err == -ENOENT ? "neither XDG_CACHE_HOME nor HOME is set"
								     : strerror(-err));
		return err;
	}
	slash = strrchr(path, '/');
	*slash = 0;
	err = mkdirs(path, log);
	*slash = '/';
	if (err)
		return err;
	key_text(k, key, sizeof(key));
	secs[n++] = (struct btfi_elf_sec){ KEY_SEC, key, strlen(key) };
	if (e->base)
		secs[n++] = (struct btfi_elf_sec){ ".BTF", e->base, e->base_sz };
	secs[n++] = (struct btfi_elf_sec){ ".BTF.inline", e->blob, e->blob_sz };
	return btfi_elf_write_new(path, e->like, secs, n, log);
}
