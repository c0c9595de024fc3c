// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF packages (dwp.h). A package is the .dwo files of a program with
 * each section concatenated; .debug_cu_index says, per unit (by dwo_id),
 * where its part ("contribution") of each section starts and how long it
 * is. Offsets inside a unit are relative to its contributions (DWARF 5
 * 7.3.5; GNU's version 2 for DWARF 4 the same), so the contributions
 * copied out, plus the shared .debug_str.dwo, are the unit's .dwo again.
 *
 * Index layout (both versions): header (version, columns, units, slots:
 * 4 x u32; DWARF 5's version is a u16 then padding), slots x u64
 * signature, slots x u32 row (1-based, 0: empty), columns x u32 section
 * id, then units x columns u32 offsets and as many sizes. A lookup is an
 * open-addressing hash on the signature (slots: a power of two).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <byteswap.h>
#include <endian.h>
#include <sys/stat.h>
#include <gelf.h>
#include "dwarf/dwp.h"
#include "elf_file.h"
#include "format/elf_write.h"
#include "log.h"

#define NIDS 9		/* section ids 1..8 in both versions */

struct btfi_dwp {
	char *path;
	struct btfi_elf_fd ef;
	uint32_t version, ncols, nunits, nslots;
	const uint8_t *ix;		/* .debug_cu_index */
	bool swap;			/* the package's byte order is not ours */
	uint32_t col_id[NIDS - 1];	/* section id of each column */
	const uint8_t *sec[NIDS];	/* section bytes by id */
	uint64_t secsz[NIDS];
	const uint8_t *str;		/* .debug_str.dwo, shared by all units */
	uint64_t strsz;
	char tmp[PATH_MAX];		/* private directory, "" until made */
	char copy[PATH_MAX + 32];
};

static const char *sec_name(uint32_t version, uint32_t id)
{
	static const char *const v2[NIDS] = {
		NULL, ".debug_info.dwo", ".debug_types.dwo", ".debug_abbrev.dwo",
		".debug_line.dwo", ".debug_loc.dwo", ".debug_str_offsets.dwo",
		".debug_macinfo.dwo", ".debug_macro.dwo" };
	static const char *const v5[NIDS] = {
		NULL, ".debug_info.dwo", NULL, ".debug_abbrev.dwo", ".debug_line.dwo",
		".debug_loclists.dwo", ".debug_str_offsets.dwo", ".debug_macro.dwo",
		".debug_rnglists.dwo" };

	return id < NIDS ? (version == 2 ? v2 : v5)[id] : NULL;
}

static uint32_t rd32(const struct btfi_dwp *d, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return d->swap ? bswap_32(v) : v;
}

static uint16_t rd16(const struct btfi_dwp *d, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return d->swap ? bswap_16(v) : v;
}

static uint64_t rd64(const struct btfi_dwp *d, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return d->swap ? bswap_64(v) : v;
}

/* Contribution of unit row (1-based) in column col. */
static void contrib(const struct btfi_dwp *d, uint32_t row, uint32_t col, uint64_t *off,
		    uint64_t *size)
{
	const uint8_t *offs = d->ix + 16 + 12ull * d->nslots + 4ull * d->ncols;
	uint64_t i = (uint64_t)(row - 1) * d->ncols + col;

	*off = rd32(d, offs + 4 * i);
	*size = rd32(d, offs + 4ull * d->nunits * d->ncols + 4 * i);
}

/* The index's numbers against its own size and the sections it names. */
static int check_index(struct btfi_dwp *d, uint64_t ixsz, const struct btfi_log *log)
{
	const char *why = NULL;
	char buf[128];
	uint64_t need;

	if (ixsz < 16) {
		why = "shorter than its header";
		goto bad;
	}
	d->version = rd32(d, d->ix);
	if (d->version != 2)	/* DWARF 5: a u16, then padding */
		d->version = rd16(d, d->ix) == 5 && !rd16(d, d->ix + 2) ? 5 : d->version;
	if (d->version != 2 && d->version != 5) {
		snprintf(buf, sizeof(buf), "version %u (2 and 5 are known)", d->version);
		why = buf;
		goto bad;
	}
	d->ncols = rd32(d, d->ix + 4);
	d->nunits = rd32(d, d->ix + 8);
	d->nslots = rd32(d, d->ix + 12);
	if (d->ncols < 2 || d->ncols > NIDS - 1 || d->nunits > d->nslots ||
	    (d->nslots & (d->nslots - 1))) {
		snprintf(buf, sizeof(buf), "%u columns, %u units, %u slots", d->ncols, d->nunits,
			 d->nslots);
		why = buf;
		goto bad;
	}
	need = 16 + 12ull * d->nslots + 4ull * d->ncols + 8ull * d->nunits * d->ncols;
	if (need > ixsz) {
		snprintf(buf, sizeof(buf), "%llu bytes for %u units in %u slots, the section has %llu",
			 (unsigned long long)need, d->nunits, d->nslots, (unsigned long long)ixsz);
		why = buf;
		goto bad;
	}
	for (uint32_t c = 0; c < d->ncols; c++) {
		uint32_t id = rd32(d, d->ix + 16 + 12ull * d->nslots + 4 * c);

		if (!sec_name(d->version, id)) {
			snprintf(buf, sizeof(buf), "column %u: unknown section id %u", c, id);
			why = buf;
			goto bad;
		}
		for (uint32_t k = 0; k < c; k++)
			if (d->col_id[k] == id) {
				snprintf(buf, sizeof(buf), "section id %u twice", id);
				why = buf;
				goto bad;
			}
		d->col_id[c] = id;
	}
	for (uint32_t i = 0; i < d->nslots; i++) {
		uint32_t row = rd32(d, d->ix + 16 + 8ull * d->nslots + 4 * i);

		if (row > d->nunits) {
			snprintf(buf, sizeof(buf), "slot %u names row %u of %u", i, row, d->nunits);
			why = buf;
			goto bad;
		}
	}
	for (uint32_t r = 1; r <= d->nunits; r++)
		for (uint32_t c = 0; c < d->ncols; c++) {
			uint32_t id = d->col_id[c];
			uint64_t off, size;

			contrib(d, r, c, &off, &size);
			if (off + size > d->secsz[id] || (id == 1 && !size)) {
				snprintf(buf, sizeof(buf), "unit %u: %s at 0x%llx+0x%llx, the section has 0x%llx",
					 r, sec_name(d->version, id), (unsigned long long)off,
					 (unsigned long long)size, (unsigned long long)d->secsz[id]);
				why = buf;
				goto bad;
			}
		}
	return 0;
bad:
	btfi_err(log, "%s: corrupt .debug_cu_index: %s", d->path, why);
	return -EINVAL;
}

int btfi_dwp_open(const char *path, const struct btfi_log *log, struct btfi_dwp **out)
{
	struct btfi_dwp *d = calloc(1, sizeof(*d));
	bool compressed = false;
	const char *what = NULL;
	size_t ixsz = 0, sz;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		btfi_err(log, "%s: out of memory", path);
		return -ENOMEM;
	}
	d->ef.fd = -1;
	err = btfi_elf_open(path, BTFI_ELF_FULL, &d->ef, log);
	if (err)
		goto fail;
	err = -EINVAL;
	if (!gelf_getehdr(d->ef.elf, &eh)) {
		btfi_err(log, "%s: cannot read ELF headers: %s", path, elf_errmsg(-1));
		goto fail;
	}
	d->swap = (eh.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER == __BIG_ENDIAN);
	d->ix = btfi_elf_section(d->ef.elf, ".debug_cu_index", &ixsz, &compressed);
	if (!d->ix)
		what = ".debug_cu_index";
	/* the names of ids 2, 5, 7 and 8 depend on the version */
	d->version = d->ix && ixsz >= 4 && rd32(d, d->ix) == 2 ? 2 : 5;
	for (uint32_t id = 1; id < NIDS && !compressed; id++) {
		const char *n = sec_name(d->version, id);

		d->sec[id] = n ? btfi_elf_section(d->ef.elf, n, &sz, &compressed) : NULL;
		d->secsz[id] = d->sec[id] ? sz : 0;
		if (compressed)
			what = n;
	}
	d->str = compressed ? NULL : btfi_elf_section(d->ef.elf, ".debug_str.dwo", &sz, &compressed);
	d->strsz = d->str ? sz : 0;
	if (compressed) {
		btfi_err(log, "%s: section %s is compressed; decompress the package first (objcopy --decompress-debug-sections)",
			 path, what ? what : ".debug_str.dwo");
		goto fail;
	}
	if (!d->ix) {
		btfi_err(log, "%s: not a DWARF package: no %s", path, what);
		goto fail;
	}
	err = check_index(d, ixsz, log);
	if (err)
		goto fail;
	*out = d;
	return 0;
fail:
	btfi_dwp_close(d);
	return err;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

void btfi_dwp_close(struct btfi_dwp *d)
{
	if (!d)
		return;
	if (d->tmp[0])
		nftw(d->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	btfi_elf_close(&d->ef);
	free(d->path);
	free(d);
}

static int make_tmp(struct btfi_dwp *d, const struct btfi_log *log)
{
	const char *t = getenv("TMPDIR");

	if (d->tmp[0])
		return 0;
	snprintf(d->tmp, sizeof(d->tmp), "%s/btfinline-dwp-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(d->tmp)) {
		int err = -errno;

		btfi_err(log, "%s: cannot make a temp directory %s: %s", d->path, d->tmp, strerror(-err));
		d->tmp[0] = 0;
		return err;
	}
	return 0;
}

/* A new file at TMPDIR/name (0600, not there before): its fd or -errno. */
static int create_in_tmp(struct btfi_dwp *d, const char *name, char *path, size_t len,
			 const struct btfi_log *log)
{
	int fd, err = make_tmp(d, log);
	char *s;

	if (err)
		return err;
	if (snprintf(path, len, "%s/%s", d->tmp, name) >= (int)len) {
		btfi_err(log, "%s: unit name too long: %s", d->path, name);
		return -ENAMETOOLONG;
	}
	for (s = strchr(path + strlen(d->tmp) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		err = mkdir(path, 0700) && errno != EEXIST ? -errno : 0;
		*s = '/';
		if (err) {
			btfi_err(log, "%s: cannot make %s: %s", d->path, path, strerror(-err));
			return err;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: cannot create %s: %s", d->path, path, strerror(-err));
		return err;
	}
	return fd;
}

/* secs[0..n) as a new ELF like `like` at TMPDIR/name (*path its path). */
static int write_in_tmp(struct btfi_dwp *d, const char *name, char *path, size_t len, Elf *like,
			const struct btfi_elf_sec *secs, size_t n, const struct btfi_log *log)
{
	int fd = create_in_tmp(d, name, path, len, log), err;

	if (fd < 0)
		return fd;
	err = btfi_elf_write_new_fd(fd, like, secs, n, path, log);
	if (close(fd) && !err) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
	}
	return err;
}

static uint32_t find_row(const struct btfi_dwp *d, uint64_t id)
{
	uint32_t mask = d->nslots - 1, h = id & mask, step = ((id >> 32) & mask) | 1;

	for (uint32_t n = 0; n < d->nslots; n++, h = (h + step) & mask) {
		uint32_t row = rd32(d, d->ix + 16 + 8ull * d->nslots + 4ull * h);

		if (!row)
			return 0;
		if (rd64(d, d->ix + 16 + 8ull * h) == id)
			return row;
	}
	return 0;
}

/* A relative name that stays below its directory (no ".." part). */
static bool inside(const char *name)
{
	if (name[0] == '/')
		return false;
	for (const char *c = name; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
			return false;
	return true;
}

int btfi_dwp_write_unit(struct btfi_dwp *d, uint64_t dwo_id, const char *name,
			const struct btfi_log *log)
{
	struct btfi_elf_sec secs[NIDS];
	char path[PATH_MAX];
	uint32_t row = d->nslots ? find_row(d, dwo_id) : 0;
	size_t n = 0;

	if (!row)
		return -ENOENT;
	/* libdw looks for a relative name next to the skeleton's file only */
	if (!name || !inside(name)) {
		btfi_err(log, "%s: unit 0x%016llx: cannot stand in for .dwo file %s (only a relative name can)",
			 d->path, (unsigned long long)dwo_id, name ? name : "(no name)");
		return -EINVAL;
	}
	for (uint32_t c = 0; c < d->ncols; c++) {
		uint64_t off, size;

		contrib(d, row, c, &off, &size);
		if (!size)
			continue;
		secs[n].name = sec_name(d->version, d->col_id[c]);
		secs[n].data = d->sec[d->col_id[c]] + off;
		secs[n++].size = size;
	}
	if (d->str) {
		secs[n].name = ".debug_str.dwo";
		secs[n].data = d->str;
		secs[n++].size = d->strsz;
	}
	return write_in_tmp(d, name, path, sizeof(path), d->ef.elf, secs, n, log);
}

int btfi_dwp_skeleton_copy(struct btfi_dwp *d, Elf *elf, const char *path, const char **copy,
			   const struct btfi_log *log)
{
	struct btfi_elf_sec *secs = NULL;
	char *names = NULL;
	size_t shnum, shstrndx, n = 0, npos = 0;
	Elf_Scn *scn = NULL;
	int err = -ENOMEM;

	*copy = NULL;
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx)) {
		btfi_err(log, "%s: cannot read ELF headers: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	secs = calloc(shnum, sizeof(*secs));
	names = malloc(shnum * 64);
	if (!secs || !names) {
		btfi_err(log, "%s: out of memory", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		Elf_Data *data;

		/* still compressed: a section libdw does not read */
		if (!nm || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
		    (strncmp(nm, ".debug_", 7) && strncmp(nm, ".zdebug_", 8)) ||
		    strlen(nm) >= 63 || !(data = elf_getdata(scn, NULL)) || !data->d_size ||
		    (nm[1] == 'z' && data->d_size >= 4 && !memcmp(data->d_buf, "ZLIB", 4)))
			continue;
		/* .zdebug_X inflated by libdw: .debug_X */
		snprintf(names + npos, 64, ".%s", nm[1] == 'z' ? nm + 2 : nm + 1);
		secs[n].name = names + npos;
		secs[n].data = data->d_buf;
		secs[n++].size = data->d_size;
		npos += strlen(names + npos) + 1;
	}
	err = write_in_tmp(d, "skeleton.debug", d->copy, sizeof(d->copy), elf, secs, n, log);
	if (!err)
		*copy = d->copy;
out:
	free(secs);
	free(names);
	return err;
}
