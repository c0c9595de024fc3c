// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where the DWARF of an ELF is, and opening it.
 *
 * In the file: our own private mapping, so the scan can drop pages of a
 * large .debug_info it has walked. The mapping is writable (copy on
 * write, the file is never written): libelf undoes section compression
 * (gcc -gz, Debian's -dbg files) by updating the section header in the
 * image it was given, which faulted on a read-only mapping.
 *
 * Detached: libdwfl's standard search (build-id under each debug root,
 * then the .gnu_debuglink name next to the file, in .debug/, and under
 * each root; build-id or CRC checked) with its Dwarf kept open: it opens
 * split .dwo units relative to the debug file. A file named with --debug-file is opened like an ELF with
 * DWARF inside, after its build-id is compared with the ELF's.
 *
 * Relocatable objects (.o, kernel modules .ko) and compressed files
 * (.ko.xz, .ko.gz) always go through libdwfl: it decompresses the file,
 * lays the allocated sections out at addresses of its own (written into
 * the section headers of its Elf) and applies the relocations of the
 * debug sections against that layout, so DWARF addresses and the section
 * headers agree; a site's section offset is the same whatever the layout.
 * A module's detached DWARF is also looked for where Debian's -dbg
 * packages put it: ROOT/lib/modules/<release>/... .
 *
 * dwz: a DWARF file whose DIEs and strings point into an alternate file
 * (.gnu_debugaltlink: name + build-id; Debian's -dbg packages) gets it
 * set with dwarf_setalt() after we found it and checked its build-id:
 * libdw 0.188's own search (absolute name, /usr/lib/debug/.build-id) takes
 * whatever file is there, and knows no --debug-dir.
 *
 * Split DWARF in a package: libdw 0.188 opens a skeleton's split unit
 * from a .dwo file only. When some are missing and BIN.dwp is there,
 * dwp.c writes the package's units back as .dwo files next to a copy of
 * the skeletons' debug sections, and di->dw becomes the Dwarf of that
 * copy: libdw looks for a .dwo next to the file first.
 *
 * debuginfod: when nothing local is found and DEBUGINFOD_URLS is set,
 * libdwfl's search asks libdebuginfod (which libdwfl dlopens: Debian ships
 * it only as a shared library, with libcurl behind it) by build-id. It
 * keeps neither the file's name nor the error, and takes a file whose
 * build-id differs: we ask the same client again (a cache hit, or the
 * cached 404) for the name or the error, and check the build-id.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <elfutils/debuginfod.h>
#include "dwarf/debuginfo.h"
#include "unpack.h"
#include "dwarf/dwp.h"
#include "elf_file.h"
#include "log.h"
#include "opts.h"

#define DEFAULT_ROOT "/usr/lib/debug"

struct mapped {
	int fd;
	void *map;
	size_t size;
	Elf *elf;
};

struct di_priv {
	const struct btfi_log *log;
	struct mapped main, dbg;	/* dbg: --debug-file */
	struct mapped alt;		/* dwz alternate file */
	Dwarf *alt_dw;
	char *alt_path;
	struct btfi_dwp *dwp;		/* a .dwp's units as .dwo files */
	char *dwp_path;
	Dwarf *orig_dw;			/* di->dw before: its skeletons found no .dwo */
	int dwp_fd;
	Dwfl *dwfl;			/* detached search: owns the Dwarf */
	Dwfl_Callbacks cb;		/* must outlive dwfl */
	char *search_path;		/* libdwfl debuginfo_path: ":.debug:ROOTS" */
	char *found;			/* debug file libdwfl picked */
	const char *roots;		/* debug roots, ':'-separated */
	const char *debug_file;		/* --debug-file of a compressed file */
	void *unpacked;			/* a compressed file's bytes: di->stored's */
	bool rel;			/* ET_REL: libdwfl relocates */
};

const char *btfi_debuginfo_src_str(int src)
{
	switch (src) {
	case BTFI_DI_DEBUG_FILE: return "--debug-file";
	case BTFI_DI_BUILD_ID: return "build-id";
	case BTFI_DI_DEBUGLINK: return ".gnu_debuglink";
	case BTFI_DI_DEBUGINFOD: return "debuginfod";
	case BTFI_DI_MODULE_PATH: return "module path";
	default: return "in the file";
	}
}

/* ---- one ELF file, mapped by us ---- */

static void unmap(struct mapped *m)
{
	if (m->elf)
		elf_end(m->elf);
	if (m->map)
		munmap(m->map, m->size);
	if (m->fd >= 0)
		close(m->fd);
	m->elf = NULL;
	m->map = NULL;
	m->fd = -1;
}

static int map_elf(const char *path, struct mapped *m, const struct btfi_log *log)
{
	struct stat st;
	int err;

	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(m->fd, &st) || S_ISDIR(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
		return err;
	}
	elf_version(EV_CURRENT);
	if (st.st_size > 0) {
		m->map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, m->fd, 0);
		if (m->map == MAP_FAILED)
			m->map = NULL;
		else
			m->size = st.st_size;
	}
	m->elf = m->map ? elf_memory(m->map, m->size) : elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf) {
		btfi_err(log, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		return -EINVAL;
	}
	return btfi_elf_check(m->elf, path, st.st_size, log);
}

/* Section by name (NULL if none); .zdebug_X also matches .debug_X. */
static Elf_Scn *find_scn(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || !(n = elf_strptr(elf, shstrndx, sh->sh_name)))
			continue;
		if (!strcmp(n, name) ||
		    (!strncmp(name, ".debug_", 7) && !strncmp(n, ".zdebug_", 8) && !strcmp(n + 8, name + 7)))
			return scn;
	}
	return NULL;
}

static bool has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return find_scn(elf, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

/* .debug_info stored as is in the mapping: where, for trimming. */
static void raw_info(struct btfi_debuginfo *di, const struct mapped *m)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(m->elf, ".debug_info", &sh);
	size_t shstrndx;
	const char *n;

	if (!m->map || !scn || sh.sh_type != SHT_PROGBITS || (sh.sh_flags & SHF_COMPRESSED) ||
	    elf_getshdrstrndx(m->elf, &shstrndx) || !(n = elf_strptr(m->elf, shstrndx, sh.sh_name)) ||
	    strcmp(n, ".debug_info"))
		return;
	di->map = m->map;
	di->map_size = m->size;
	di->info_off = sh.sh_offset;
	di->info_size = sh.sh_size;
}

/*
 * After libdw has opened the DWARF: a debug section still compressed is
 * one libelf could not undo (zstd before elfutils 0.189, corrupt data).
 * libdw then silently skips it; refuse instead of reading partial DWARF.
 */
static int check_compressed(Elf *elf, const char *path, const struct btfi_log *log)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		Elf_Data *d;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && !strncmp(n, ".debug_", 7)) {
			const char *what = "unknown compression";
			char buf[32];

			if (!gelf_getchdr(scn, &ch)) {
				btfi_err(log, "%s: section %s: corrupt compression header (%s)",
					 path, n, elf_errmsg(-1));
				return -EINVAL;
			}
			if (ch.ch_type == ELFCOMPRESS_ZLIB) {
				if (elf_compress(scn, 0, 0) >= 0)
					continue;	/* libdw skipped it: not a DWARF section it reads */
				btfi_err(log, "%s: section %s: cannot decompress zlib data (%s)",
					 path, n, elf_errmsg(-1));
				return -EINVAL;
			}
			if (ch.ch_type == 2 /* ELFCOMPRESS_ZSTD */)
				what = "zstd";
			else
				snprintf(buf, sizeof(buf), "compression type %u", ch.ch_type), what = buf;
			btfi_err(log, "%s: section %s is compressed with %s, which this libelf (elfutils %s) cannot decompress",
				 path, n, what, dwfl_version(NULL));
			return -EOPNOTSUPP;
		}
		if (!strncmp(n, ".zdebug_", 8) && (d = elf_getdata(scn, NULL)) &&
		    d->d_size >= 12 && !memcmp(d->d_buf, "ZLIB", 4)) {
			if (elf_compress_gnu(scn, 0, 0) >= 0)
				continue;
			btfi_err(log, "%s: section %s: cannot decompress zlib-gnu data (%s)",
				 path, n, elf_errmsg(-1));
			return -EINVAL;
		}
	}
	return 0;
}

/* DWARF inside an ELF we mapped (the file itself or --debug-file). */
static int open_inside(struct btfi_debuginfo *di, struct mapped *m, const char *path,
		       const struct btfi_log *log)
{
	int err;

	raw_info(di, m);
	di->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	err = check_compressed(m->elf, path, log);
	if (err)
		return err;
	if (!di->dw) {
		btfi_err(log, "%s: no DWARF debug info (%s)", path, dwarf_errmsg(-1));
		return -ENOENT;
	}
	di->dwarf_elf = m->elf;
	return 0;
}

/* ---- build-ids ---- */

static void hex(const void *p, ssize_t n, char *buf, size_t len)
{
	const unsigned char *b = p;

	buf[0] = 0;
	for (ssize_t i = 0; i < n && (size_t)i * 2 + 3 <= len; i++)
		snprintf(buf + i * 2, 3, "%02x", b[i]);
}

/* 0 if both ids are equal; logs the mismatch (a debug file without an id
 * cannot be checked against an ELF that has one: refused too). */
static int same_build_id(Elf *elf, const char *path, Elf *dbg, const char *dpath,
			 const struct btfi_log *log)
{
	const void *a, *b;
	ssize_t na = dwelf_elf_gnu_build_id(elf, &a), nb = dwelf_elf_gnu_build_id(dbg, &b);
	char ha[130], hb[130];

	if (na <= 0)
		return 0;	/* nothing to check against */
	hex(a, na, ha, sizeof(ha));
	if (nb <= 0) {
		btfi_err(log, "%s: debug file %s has no build-id (want %s)", path, dpath, ha);
		return -EINVAL;
	}
	hex(b, nb, hb, sizeof(hb));
	if (na != nb || memcmp(a, b, na)) {
		btfi_err(log, "%s: debug file %s does not match: build-id %s, want %s", path, dpath, hb, ha);
		return -EINVAL;
	}
	return 0;
}

/* ---- detached: libdwfl's search ---- */

/* Build-id of a file at path; 0 if none or unreadable. */
static ssize_t file_build_id(const char *path, char *buf, size_t len);

/*
 * A kernel module's detached DWARF where Debian's -dbg packages (and
 * Fedora's, under the same root) put it: ROOT + the module's path from
 * "/lib/modules/" on (a /usr/lib/modules or unpacked copy maps to the same
 * name), checked by build-id. libdwfl looks for FILE.debug only.
 */
static int find_module_debug(struct di_priv *p, Dwfl_Module *mod, const char *file_name,
			     char **name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int nbits = dwfl_module_build_id(mod, &bits, &vaddr);
	char want[130], got[130], cand[4096], *real, *rs, *save, *r;
	const char *tail;
	int fd = -1;

	if (nbits <= 0 || !file_name)
		return -1;
	hex(bits, nbits, want, sizeof(want));
	real = realpath(file_name, NULL);
	tail = strstr(real ? real : file_name, "/lib/modules/");
	rs = tail ? strdup(p->roots) : NULL;
	for (r = rs ? strtok_r(rs, ":", &save) : NULL; r && fd < 0; r = strtok_r(NULL, ":", &save)) {
		if (r[0] != '/')
			continue;
		snprintf(cand, sizeof(cand), "%s%s", r, tail);
		if (!file_build_id(cand, got, sizeof(got)) || strcmp(got, want))
			continue;
		fd = open(cand, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !(*name = strdup(cand))) {
			close(fd);
			fd = -1;
		}
	}
	free(rs);
	free(real);
	return fd;
}

/* libdwfl's standard search (or --debug-file, for a file we could not
 * map ourselves), remembering which file it picked. */
static int find_cb(Dwfl_Module *mod, void **ud, const char *modname, Dwarf_Addr base,
		   const char *file_name, const char *debuglink, GElf_Word crc, char **name)
{
	struct di_priv *p = *ud;
	int fd;

	/* p->found already: libdwfl asks for the dwz alternate file */
	if (p && p->debug_file && !p->found) {
		fd = open(p->debug_file, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !(*name = strdup(p->debug_file))) {
			close(fd);
			fd = -1;
		}
	} else {
		fd = dwfl_standard_find_debuginfo(mod, ud, modname, base, file_name, debuglink, crc, name);
		if (fd < 0 && p && p->rel)
			fd = find_module_debug(p, mod, file_name, name);
	}
	if (fd >= 0 && *name && p && !p->found)
		p->found = strdup(*name);
	return fd;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return strdup(".");
	return strndup(path, s == path ? 1 : (size_t)(s - path));
}

/* Build-id of a file at path; 0 if none or unreadable. */
static ssize_t file_build_id(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	const void *id;
	ssize_t n = 0;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (n = dwelf_elf_gnu_build_id(elf, &id)) > 0)
		hex(id, n, buf, len);
	if (elf)
		elf_end(elf);
	close(fd);
	return n > 0 ? n : 0;
}

/* ---- debuginfod ---- */

static const char *debuginfod_urls(void)
{
	const char *u = getenv(DEBUGINFOD_URLS_ENV_VAR);

	return u && *u ? u : NULL;
}

/*
 * Ask libdwfl's debuginfod client for path's debug file: 0 and *found (the
 * file in libdebuginfod's cache), or -errno with the reason in why. The
 * path comes from the descriptor: a name malloc'd by libdebuginfod could
 * belong to another libc (the static CLI's dlopen) and is not taken.
 */
static int query_id(Dwfl *dwfl, const void *id, size_t nid, char **found, char *why, size_t len);

static int debuginfod_query(struct di_priv *p, Elf *elf, char **found, char *why, size_t len)
{
	const void *id;
	ssize_t nid = dwelf_elf_gnu_build_id(elf, &id);

	*found = NULL;
	if (nid <= 0) {
		snprintf(why, len, "the file has no build-id to ask by");
		return -ENOENT;
	}
	return query_id(p->dwfl, id, nid, found, why, len);
}

int btfi_debuginfod_fetch(const void *id, size_t nid, char **found, char *why, size_t len)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *dwfl;
	int err;

	*found = NULL;
	if (!debuginfod_urls()) {
		snprintf(why, len, "DEBUGINFOD_URLS is not set");
		return -ENOENT;
	}
	dwfl = dwfl_begin(&cb);
	if (!dwfl) {
		snprintf(why, len, "libdwfl: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	err = query_id(dwfl, id, nid, found, why, len);
	dwfl_end(dwfl);
	return err;
}

/* The query itself, on dwfl's client (its cache state). */
static int query_id(Dwfl *dwfl, const void *id, size_t nid, char **found, char *why, size_t len)
{
	__typeof__(debuginfod_find_debuginfo) *find;
	debuginfod_client *c = dwfl_get_debuginfod_client(dwfl);
	char link[64], target[4096];
	ssize_t n;
	void *so;
	int fd;

	*found = NULL;
	so = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY);
	find = so ? dlsym(so, "debuginfod_find_debuginfo") : NULL;
	if (!c || !find) {
		snprintf(why, len, "cannot load %s (%s)", DEBUGINFOD_SONAME,
			 so ? "no debuginfod_find_debuginfo" : dlerror());
		if (so)
			dlclose(so);
		return -ENOPKG;
	}
	fd = find(c, id, nid, NULL);
	dlclose(so);
	if (fd < 0) {
		switch (fd) {
		case -ENOENT: snprintf(why, len, "no debug file for this build-id there"); break;
		case -ECONNREFUSED: snprintf(why, len, "cannot connect (connection refused)"); break;
		case -EHOSTUNREACH: snprintf(why, len, "cannot resolve the host"); break;
		case -ETIME: snprintf(why, len, "timed out"); break;
		default: snprintf(why, len, "%s", strerror(-fd)); break;
		}
		return fd;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	close(fd);
	if (n <= 0) {
		snprintf(why, len, "fetched, but %s: %s", link, strerror(errno));
		return -EIO;
	}
	target[n] = 0;
	*found = strdup(target);
	return *found ? 0 : -ENOMEM;
}

/*
 * Nothing usable found: one line saying why. libdwfl skips a candidate
 * whose build-id or CRC does not match without a word; look at the same
 * places again only to name such a file.
 */
static void explain_miss(struct di_priv *p, const char *path, Elf *elf, const char *roots,
			 const char *dfod)
{
	const void *id;
	ssize_t nid = dwelf_elf_gnu_build_id(elf, &id);
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	char want[130] = "", got[130], cand[4096], *dir = dir_of(path), *rs = strdup(roots), *save, *r;
	char *real = realpath(path, NULL), *adir = real ? dir_of(real) : NULL;

	if (nid > 0)
		hex(id, nid, want, sizeof(want));
	for (r = rs ? strtok_r(rs, ":", &save) : NULL; r; r = strtok_r(NULL, ":", &save)) {
		const char *cands[5];
		char c1[4096], c2[4096], c3[4096];
		int n = 0;

		if (r[0] != '/')
			continue;
		if (nid > 1) {
			snprintf(c1, sizeof(c1), "%s/.build-id/%.2s/%s.debug", r, want, want + 2);
			cands[n++] = c1;
		}
		if (link) {
			snprintf(c2, sizeof(c2), "%s/%s", dir, link);
			snprintf(c3, sizeof(c3), "%s/.debug/%s", dir, link);
			cands[n++] = c2;
			cands[n++] = c3;
			snprintf(cand, sizeof(cand), "%s%s/%s", r, adir ? adir : dir, link);
			cands[n++] = cand;
		}
		for (int i = 0; i < n; i++) {
			struct stat a, b;

			if (stat(cands[i], &a) || (!stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev))
				continue;
			if (nid > 0 && file_build_id(cands[i], got, sizeof(got)) && strcmp(got, want)) {
				btfi_err(p->log, "%s: debug file %s does not match: build-id %s, want %s",
					 path, cands[i], got, want);
				goto out;
			}
			if (nid <= 0 && link) {
				btfi_err(p->log, "%s: debug file %s does not match its .gnu_debuglink CRC 0x%08x",
					 path, cands[i], crc);
				goto out;
			}
		}
	}
	{
		char *rp = realpath(path, NULL);
		const char *tail = p->rel ? strstr(rp ? rp : path, "/lib/modules/") : NULL;

		btfi_err(p->log, "%s: no DWARF debug info: none in the file, no debug file %s%s%s%s%s%s (searched %s)%s%s",
			 path, nid > 0 ? "for build-id " : "", want, link ? " or .gnu_debuglink " : "",
			 link ? link : "", tail ? " or ROOT" : "", tail ? tail : "", p->search_path,
			 dfod ? "; " : "", dfod ? dfod : "");
		free(rp);
	}
out:
	free(dir);
	free(adir);
	free(real);
	free(rs);
}

/* Nothing local: what libdwfl's debuginfod query gave (di->dw, or none). */
static int open_debuginfod(struct btfi_debuginfo *di, struct di_priv *p, const char *roots,
			   bool optional)
{
	const char *urls = debuginfod_urls();
	char why[256], what[4200];
	int err;

	err = debuginfod_query(p, di->elf, &p->found, why, sizeof(why));
	if (err) {
		char msg[512];

		di->dw = NULL;	/* libdwfl's, if any: not one we can name */
		if (err == -ENOENT && optional)
			return -ENOENT;
		snprintf(msg, sizeof(msg), "debuginfod %s: %s", urls ? urls : "", why);
		explain_miss(p, di->path, di->elf, roots, msg);
		return err == -ENOENT ? -ENOENT : -EIO;
	}
	snprintf(what, sizeof(what), "%s (from debuginfod)", p->found);
	if (di->dw) {	/* libdwfl opened the same file */
		Elf *delf = dwarf_getelf(di->dw);

		if (!delf || same_build_id(di->elf, di->path, delf, what, p->log) ||
		    btfi_elf_check_file(p->found, p->log) || check_compressed(delf, p->found, p->log)) {
			di->dw = NULL;
			return -EINVAL;
		}
		di->dwarf_elf = delf;
	} else if (p->rel) {	/* unrelocated DWARF would give wrong names */
		btfi_err(p->log, "%s: debug file %s from debuginfod: libdwfl cannot relocate it",
			 di->path, p->found);
		return -EINVAL;
	} else {	/* libdwfl did not take it: open it as --debug-file */
		err = map_elf(p->found, &p->dbg, p->log);
		if (!err)
			err = same_build_id(di->elf, di->path, p->dbg.elf, what, p->log);
		if (!err)
			err = open_inside(di, &p->dbg, p->found, p->log);
		if (err)
			return err;
		dwfl_end(p->dwfl);	/* di->dw is ours now */
		p->dwfl = NULL;
	}
	di->dwarf_path = p->found;
	di->src = BTFI_DI_DEBUGINFOD;
	return 0;
}

/*
 * libdwfl: the detached search for a linked ELF without DWARF; everything
 * for a relocatable or compressed file (report: the file libdwfl opens as
 * the module, di->path or, for --debug-file, that file).
 */
static int open_dwfl(struct btfi_debuginfo *di, struct di_priv *p, const char *report,
		     bool packed, bool optional)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	void **ud;
	int err;

	/* ":.debug:ROOTS": next to the file, its .debug/, then each root
	 * (by build-id, then ROOT/<the file's dir>/<debuglink>). */
	if (asprintf(&p->search_path, ":.debug:%s", p->roots) < 0) {
		p->search_path = NULL;
		btfi_err(p->log, "%s: out of memory", di->path);
		return -ENOMEM;
	}
	p->cb.find_elf = dwfl_build_id_find_elf;
	p->cb.find_debuginfo = find_cb;
	p->cb.section_address = dwfl_offline_section_address;
	p->cb.debuginfo_path = &p->search_path;
	p->dwfl = dwfl_begin(&p->cb);
	if (!p->dwfl) {
		btfi_err(p->log, "%s: libdwfl: %s", di->path, dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(p->dwfl);
	mod = dwfl_report_offline(p->dwfl, di->path, report, -1);
	if (!mod || dwfl_report_end(p->dwfl, NULL, NULL)) {
		if (packed)
			btfi_err(p->log, "%s: cannot decompress it to an ELF file (%s)", report,
				 dwfl_errmsg(-1));
		else
			btfi_err(p->log, "%s: libdwfl: %s", report, dwfl_errmsg(-1));
		return -EINVAL;
	}
	if (p->rel || packed) {
		/* libdwfl's image: decompressed, sections laid out */
		di->elf = dwfl_module_getelf(mod, &bias);
		if (!di->elf) {
			btfi_err(p->log, "%s: libdwfl: %s", report, dwfl_errmsg(-1));
			return -EINVAL;
		}
	}
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = p;
	di->dw = dwfl_module_getdwarf(mod, &bias);
	*ud = NULL;
	if (p->found && !di->dw) {	/* found but unusable: say why */
		struct mapped tmp = { .fd = -1 };

		err = map_elf(p->found, &tmp, p->log);
		if (!err)
			err = check_compressed(tmp.elf, p->found, p->log);
		if (!err) {
			btfi_err(p->log, "%s: debug file %s: no DWARF debug info (%s)",
				 di->path, p->found, dwfl_errmsg(-1));
			err = -ENOENT;
		}
		unmap(&tmp);
		return err;
	}
	if (p->found) {
		Elf *delf = dwarf_getelf(di->dw);

		/* libdw has decompressed sections in place: check the file as
		 * stored, on a handle of its own */
		if (!delf || btfi_elf_check_file(p->found, p->log) ||
		    check_compressed(delf, p->found, p->log))
			return -EINVAL;
		di->dwarf_elf = delf;
		di->dwarf_path = p->found;
		di->src = p->debug_file ? BTFI_DI_DEBUG_FILE :
			  strstr(p->found, "/.build-id/") ? BTFI_DI_BUILD_ID : BTFI_DI_DEBUGLINK;
		if (di->src == BTFI_DI_DEBUGLINK && p->rel && !dwelf_elf_gnu_debuglink(di->elf, &(GElf_Word){ 0 }))
			di->src = BTFI_DI_MODULE_PATH;
		return 0;
	}
	if (di->dw && (p->rel || packed)) {	/* in the file, relocated by libdwfl */
		di->dwarf_elf = dwarf_getelf(di->dw);
		di->dwarf_path = report;
		if (!di->dwarf_elf || check_compressed(di->dwarf_elf, report, p->log))
			return -EINVAL;
		return 0;
	}
	if (debuginfod_urls())
		return open_debuginfod(di, p, p->roots, optional);
	if (di->dw) {	/* cannot happen: the file has no DWARF of its own */
		di->dw = NULL;
		btfi_err(p->log, "%s: libdwfl found DWARF but no file", di->path);
		return -EINVAL;
	}
	if (!optional)
		explain_miss(p, di->path, di->elf, p->roots, NULL);
	return -ENOENT;
}

/* ---- dwz alternate file ---- */

/* alt's build-id is want (hex): else logs the mismatch (as what). */
static int alt_matches(Elf *elf, const char *want, const char *dwarf_path, const char *what,
		       const struct btfi_log *log)
{
	char got[130];

	if (btfi_elf_build_id(elf, got, sizeof(got)) && !strcmp(got, want))
		return 0;
	btfi_err(log, "%s: dwz alternate file %s does not match: build-id %s, want %s", dwarf_path,
		 what, got[0] ? got : "none", want);
	return -EINVAL;
}

/*
 * The file .gnu_debugaltlink names: as named, relative to the DWARF file,
 * ROOT/.dwz/<what follows .dwz/ in the name> and ROOT/.build-id/xx/rest.debug
 * for each debug root; the first one there decides (a wrong build-id is
 * refused, not skipped: it names a stale package). libdwfl may have found
 * it elsewhere (debuginfod): taken if its build-id matches.
 */
static int open_alt(struct btfi_debuginfo *di, struct di_priv *p)
{
	const char *name, *dwz;
	const void *id;
	ssize_t nid = dwelf_dwarf_gnu_debugaltlink(di->dw, &name, &id);
	char want[130], *cands[64], *rs = NULL, *save, *r, *dir;
	int n = 0, err = -ENOENT;
	struct stat st;
	Dwarf *alt;

	if (nid == 0)
		return 0;
	if (nid < 0 || nid > 64) {
		btfi_err(p->log, "%s: corrupt .gnu_debugaltlink", di->dwarf_path);
		return -EINVAL;
	}
	hex(id, nid, want, sizeof(want));
	dir = dir_of(di->dwarf_path);
	if (name[0] == '/')
		cands[n++] = strdup(name);
	else if (dir && asprintf(&cands[n], "%s/%s", dir, name) >= 0)
		n++;
	dwz = strstr(name, "/.dwz/");
	rs = strdup(p->roots);
	for (r = rs ? strtok_r(rs, ":", &save) : NULL; r && n < 62; r = strtok_r(NULL, ":", &save)) {
		if (r[0] != '/')
			continue;
		if (dwz && asprintf(&cands[n], "%s%s", r, dwz) >= 0)
			n++;
		if (nid > 1 && asprintf(&cands[n], "%s/.build-id/%.2s/%s.debug", r, want, want + 2) >= 0)
			n++;
	}
	for (int i = 0; i < n && err == -ENOENT; i++) {
		if (!cands[i] || stat(cands[i], &st) || !S_ISREG(st.st_mode))
			continue;
		err = map_elf(cands[i], &p->alt, p->log);
		if (!err)
			err = alt_matches(p->alt.elf, want, di->dwarf_path, cands[i], p->log);
		if (!err && !(p->alt_dw = dwarf_begin_elf(p->alt.elf, DWARF_C_READ, NULL))) {
			btfi_err(p->log, "%s: dwz alternate file %s: no DWARF (%s)", di->dwarf_path,
				 cands[i], dwarf_errmsg(-1));
			err = -EINVAL;
		}
		if (!err)
			err = check_compressed(p->alt.elf, cands[i], p->log);
		if (!err) {
			dwarf_setalt(di->dw, p->alt_dw);
			p->alt_path = cands[i];
			cands[i] = NULL;
		}
	}
	if (!err) {
		di->alt = p->alt_dw;
		di->alt_path = p->alt_path;
	}
	if (err == -ENOENT && p->dwfl && (alt = dwarf_getalt(di->dw))) {
		err = dwarf_getelf(alt) ? alt_matches(dwarf_getelf(alt), want, di->dwarf_path,
						      "found by libdwfl", p->log) : -EINVAL;
		di->alt = err ? NULL : alt;
		di->alt_path = "(found by libdwfl)";
	} else if (err == -ENOENT) {
		btfi_err(p->log, "%s: dwz alternate file %s (build-id %s) not found (looked for it as named, next to the file, under ROOT/.dwz and ROOT/.build-id of %s)",
			 di->dwarf_path, name, want, p->roots);
	}
	for (int i = 0; i < n; i++)
		free(cands[i]);
	free(rs);
	free(dir);
	return err;
}

/* ---- split units from a .dwp ---- */

/* BIN.dwp, as gdb looks for it: next to the debug file, next to BIN. */
static bool find_dwp(struct btfi_debuginfo *di, char *dwp, size_t len)
{
	snprintf(dwp, len, "%s.dwp", di->dwarf_path);
	if (!access(dwp, F_OK))
		return true;
	snprintf(dwp, len, "%s.dwp", di->path);
	return strcmp(di->path, di->dwarf_path) && !access(dwp, F_OK);
}

static const char *attr_str(Dwarf_Die *die, int name, int gnu)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr(die, name, &a));

	return s ? s : dwarf_formstring(dwarf_attr(die, gnu, &a));
}

/* Skeletons whose .dwo libdw did not find, and a package: its units as
 * .dwo files, di->dw a Dwarf that finds them (libdw keeps the .dwo files
 * it opened while asking, for whoever walks the units later). */
static int open_dwp(struct btfi_debuginfo *di, struct di_priv *p)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	char dwp[4096];
	const char *copy;
	uint32_t missing = 0;
	Dwarf *dw;
	int err;

	if (p->rel || !find_dwp(di, dwp, sizeof(dwp)))
		return 0;
	while (!dwarf_get_units(di->dw, cu, &cu, NULL, &unit_type, &cudie, &subdie))
		missing += unit_type == DW_UT_skeleton && dwarf_tag(&subdie) != DW_TAG_compile_unit;
	if (!missing)
		return 0;
	if (!(p->dwp_path = strdup(dwp))) {
		btfi_err(p->log, "%s: out of memory", di->path);
		return -ENOMEM;
	}
	err = btfi_dwp_open(dwp, p->log, &p->dwp);
	if (err)
		return err;
	for (cu = NULL; !dwarf_get_units(di->dw, cu, &cu, NULL, &unit_type, &cudie, &subdie);) {
		uint64_t id;

		if (unit_type != DW_UT_skeleton || dwarf_tag(&subdie) == DW_TAG_compile_unit ||
		    dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &id, NULL, NULL))
			continue;
		err = btfi_dwp_write_unit(p->dwp, id, attr_str(&cudie, DW_AT_dwo_name, DW_AT_GNU_dwo_name),
					  p->log);
		if (err && err != -ENOENT)	/* not in it: the scan names the unit */
			return err;
	}
	err = btfi_dwp_skeleton_copy(p->dwp, dwarf_getelf(di->dw), di->dwarf_path, &copy, p->log);
	if (err)
		return err;
	p->dwp_fd = open(copy, O_RDONLY | O_CLOEXEC);
	dw = p->dwp_fd >= 0 ? dwarf_begin(p->dwp_fd, DWARF_C_READ) : NULL;
	if (!dw) {
		btfi_err(p->log, "%s: cannot open %s: %s", di->path, copy,
			 p->dwp_fd < 0 ? strerror(errno) : dwarf_errmsg(-1));
		return -EIO;
	}
	if (di->alt)
		dwarf_setalt(dw, di->alt);
	p->orig_dw = di->dw;
	di->dw = dw;
	di->dwp_path = p->dwp_path;
	return 0;
}

/* What every DWARF needs once found: its dwz alternate file, its .dwp. */
static int open_extras(struct btfi_debuginfo *di, struct di_priv *p)
{
	return open_alt(di, p) ?: open_dwp(di, p);
}

int btfi_debuginfo_open(const char *path, const struct btfi_debuginfo_opts *opts,
			struct btfi_debuginfo **out)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(opts, log) ? &opts->log : &no_log;
	const char *debug_file = OPTS_GET(opts, debug_file, NULL);
	const char *roots = OPTS_GET(opts, debug_dirs, NULL);
	bool optional = OPTS_GET(opts, optional, false);
	struct btfi_debuginfo *di;
	struct di_priv *p;
	enum btfi_file_kind kind;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	if (!OPTS_VALID(opts, btfi_debuginfo_opts, log))
		return -EINVAL;
	if (!roots || !*roots)
		roots = DEFAULT_ROOT;
	di = calloc(1, sizeof(*di));
	p = calloc(1, sizeof(*p));
	if (!di || !p) {
		free(di);
		free(p);
		btfi_err(log, "%s: out of memory", path);
		return -ENOMEM;
	}
	di->priv = p;
	di->path = path;
	di->dwarf_path = path;
	p->log = log;
	p->roots = roots;
	p->main.fd = p->dbg.fd = p->alt.fd = p->dwp_fd = -1;
	kind = btfi_file_kind(path);
	if (kind == BTFI_FILE_ZSTD) {
		btfi_err(log, "%s: compressed with zstd, which this elfutils (%s) cannot decompress; "
			 "decompress it first (zstd -d)", path, dwfl_version(NULL));
		err = -EOPNOTSUPP;
		goto fail;
	}
	if (kind == BTFI_FILE_PACKED) {	/* .ko.xz, .gz, .bz2: libdwfl unpacks */
		size_t n;

		err = btfi_unpack_file(path, &p->unpacked, &n);
		if (!err && !(di->stored = elf_memory(p->unpacked, n)))
			err = -EINVAL;
		if (err) {
			btfi_err(log, "%s: %s", path,
				 err == -EFBIG ? "decompresses to more than 1 GiB: no module" :
				 err == -EINVAL ? "corrupt or truncated compressed data (gzip, bzip2 or xz)" :
				 strerror(-err));
			goto fail;
		}
		p->rel = true;		/* (what a packed file is: modules) */
		p->debug_file = debug_file;
		err = open_dwfl(di, p, path, true, optional);
		if (err)
			goto fail;
		if (gelf_getehdr(di->elf, &eh) && eh.e_type != ET_REL)
			p->rel = false;
		if (debug_file)
			di->src = BTFI_DI_DEBUG_FILE;
		err = open_extras(di, p);
		if (err)
			goto fail;
		di->relocatable = p->rel;
		*out = di;
		return 0;
	}
	err = map_elf(path, &p->main, log);
	if (err)
		goto fail;
	di->elf = p->main.elf;
	p->rel = gelf_getehdr(di->elf, &eh) && eh.e_type == ET_REL;
	if (p->rel) {
		/* libdwfl lays it out and relocates; a --debug-file is
		 * checked, then opened as the module itself */
		if (debug_file) {
			err = map_elf(debug_file, &p->dbg, log);
			if (!err)
				err = same_build_id(di->elf, path, p->dbg.elf, debug_file, log);
			unmap(&p->dbg);
			if (err)
				goto fail;
		}
		err = open_dwfl(di, p, debug_file ? debug_file : path, false, optional);
		if (err)
			goto fail;
		if (debug_file)
			di->src = BTFI_DI_DEBUG_FILE;
		di->stored = p->main.elf;	/* libdwfl has a handle of its own */
	} else if (debug_file) {
		err = map_elf(debug_file, &p->dbg, log);
		if (!err)
			err = same_build_id(di->elf, path, p->dbg.elf, debug_file, log);
		if (!err)
			err = open_inside(di, &p->dbg, debug_file, log);
		if (err)
			goto fail;
		di->dwarf_path = debug_file;
		di->src = BTFI_DI_DEBUG_FILE;
	} else if (has_dwarf(di->elf)) {
		err = open_inside(di, &p->main, path, log);
		if (err)
			goto fail;
	} else {
		err = open_dwfl(di, p, path, false, optional);
		if (err)
			goto fail;
	}
	err = open_extras(di, p);
	if (err)
		goto fail;
	di->relocatable = p->rel;
	*out = di;
	return 0;
fail:
	btfi_debuginfo_close(di);
	return err;
}

void btfi_debuginfo_close(struct btfi_debuginfo *di)
{
	struct di_priv *p;

	if (!di)
		return;
	p = di->priv;
	if (p && p->orig_dw) {	/* di->dw is the .dwp's: ours */
		dwarf_end(di->dw);
		di->dw = p->orig_dw;
	}
	if (p && p->dwfl)
		dwfl_end(p->dwfl);	/* owns di->dw when detached */
	else if (di->dw)
		dwarf_end(di->dw);
	if (p && p->alt_dw)
		dwarf_end(p->alt_dw);	/* not the main Dwarf's to end (dwarf_setalt) */
	if (p) {
		unmap(&p->alt);
		unmap(&p->dbg);
		if (p->unpacked) {
			elf_end(di->stored);
			free(p->unpacked);
		}
		unmap(&p->main);
		free(p->search_path);
		free(p->found);
		free(p->alt_path);
		if (p->dwp_fd >= 0)
			close(p->dwp_fd);
		btfi_dwp_close(p->dwp);	/* and its temp directory */
		free(p->dwp_path);
	}
	free(p);
	free(di);
}

int btfi_debuginfo_find(const char *path, const struct btfi_debuginfo_opts *opts,
			char **debug_path)
{
	struct btfi_debuginfo_opts o = { .sz = sizeof(o), .optional = true };
	struct btfi_debuginfo *di;
	int err;

	*debug_path = NULL;
	if (OPTS_HAS(opts, log))
		o.log = opts->log;
	o.debug_file = OPTS_GET(opts, debug_file, NULL);
	o.debug_dirs = OPTS_GET(opts, debug_dirs, NULL);
	err = btfi_debuginfo_open(path, &o, &di);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (di->src != BTFI_DI_IN_FILE && !(*debug_path = strdup(di->dwarf_path)))
		err = -ENOMEM;
	btfi_debuginfo_close(di);
	return err;
}
