// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF files: structural checks before any section is read (scan, reader,
 * encode), what kind of file a path is, and the facts attach needs
 * (loadable segments, section addresses, function symbols).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include "elf_file.h"
#include "elf_syms.h"
#include "log.h"

int btfi_elf_check(Elf *elf, const char *path, uint64_t fsize, const struct btfi_log *log)
{
	size_t shnum, shstrndx;
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		btfi_err(log, "%s: not an ELF file", path);
		return -EINVAL;
	}
	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		btfi_err(log, "%s: corrupt ELF header: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	if (eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > fsize) {
		btfi_err(log, "%s: truncated ELF file (section headers past end of file)", path);
		return -EINVAL;
	}
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			btfi_err(log, "%s: corrupt section header %zu", path, i);
			return -EINVAL;
		}
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > fsize) {
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);

			btfi_err(log, "%s: truncated ELF file (section %s ends past end of file)",
				 path, name ? name : "?");
			return -EINVAL;
		}
	}
	return 0;
}

int btfi_elf_open(const char *path, enum btfi_elf_open_check check, struct btfi_elf_fd *ef,
		  const struct btfi_log *log)
{
	struct stat st;
	int err;

	ef->elf = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0 || fstat(ef->fd, &st)) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		btfi_err(log, "%s: %s", path, err == -EISDIR ? strerror(EISDIR) : "not a regular file");
		goto fail;
	}
	ef->size = st.st_size;
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (check == BTFI_ELF_FULL) {
		err = btfi_elf_check(ef->elf, path, ef->size, log);
	} else if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		btfi_err(log, "%s: not an ELF file", path);
		err = -EINVAL;
	} else {
		err = 0;
	}
	if (!err)
		return 0;
fail:
	btfi_elf_close(ef);
	return err;
}

void btfi_elf_close(struct btfi_elf_fd *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	ef->elf = NULL;
	ef->fd = -1;
}

int btfi_elf_check_file(const char *path, const struct btfi_log *log)
{
	struct btfi_elf_fd ef;
	int err = btfi_elf_open(path, BTFI_ELF_FULL, &ef, log);

	btfi_elf_close(&ef);
	return err;
}

int btfi_elf_file_has_section(const char *path, const char *name)
{
	const struct btfi_log none = BTFI_LOG_NONE;
	struct btfi_elf_fd ef;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret;

	ret = btfi_elf_open(path, BTFI_ELF_FULL, &ef, &none);
	if (!ret && elf_getshdrstrndx(ef.elf, &shstrndx))
		ret = -EINVAL;
	while (!ret && (scn = elf_nextscn(ef.elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (nm = elf_strptr(ef.elf, shstrndx, sh.sh_name)) && !strcmp(nm, name))
			ret = 1;
	}
	btfi_elf_close(&ef);
	return ret;
}

enum btfi_file_kind btfi_file_kind_fd(int fd)
{
	unsigned char m[6] = { 0 };
	ssize_t n = pread(fd, m, sizeof(m), 0);

	if (n >= 4 && !memcmp(m, ELFMAG, SELFMAG))
		return BTFI_FILE_ELF;
	if (n >= 2 && ((m[0] == 0x9f && m[1] == 0xeb) || (m[0] == 0xeb && m[1] == 0x9f)))
		return BTFI_FILE_BTF;
	if ((n >= 2 && m[0] == 0x1f && m[1] == 0x8b) || (n >= 3 && !memcmp(m, "BZh", 3)) ||
	    (n == 6 && !memcmp(m, "\xfd" "7zXZ\0", 6)))
		return BTFI_FILE_PACKED;
	if (n >= 4 && !memcmp(m, "\x28\xb5\x2f\xfd", 4))
		return BTFI_FILE_ZSTD;
	return BTFI_FILE_OTHER;
}

enum btfi_file_kind btfi_file_kind(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum btfi_file_kind k;

	if (fd < 0)
		return BTFI_FILE_OTHER;
	k = btfi_file_kind_fd(fd);
	close(fd);
	return k;
}

/* ---- kernel modules ---- */

Elf_Scn *btfi_elf_scn(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

const void *btfi_elf_section(Elf *elf, const char *name, size_t *size, bool *compressed)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;

	*size = 0;
	if (!(scn = btfi_elf_scn(elf, name, &sh)))
		return NULL;
	if (compressed && (sh.sh_flags & SHF_COMPRESSED)) {
		*compressed = true;
		return NULL;
	}
	if (sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) || !d->d_size)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}

size_t btfi_elf_build_id(Elf *elf, char *hex, size_t len)
{
	const unsigned char *id;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : 0;

	if (len)
		hex[0] = 0;
	if (n <= 0 || (size_t)n * 2 + 1 > len)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return n;
}

size_t btfi_elf_file_build_id(const char *path, char *hex, size_t len)
{
	const struct btfi_log none = BTFI_LOG_NONE;
	struct btfi_elf_fd ef;
	size_t n = 0;

	if (len)
		hex[0] = 0;
	if (!btfi_elf_open(path, BTFI_ELF_KIND, &ef, &none))
		n = btfi_elf_build_id(ef.elf, hex, len);
	btfi_elf_close(&ef);
	return n;
}

bool btfi_elf_is_kmod(Elf *elf)
{
	GElf_Ehdr eh;
	size_t sz;

	return gelf_getehdr(elf, &eh) && eh.e_type == ET_REL &&
	       btfi_elf_section(elf, ".gnu.linkonce.this_module", &sz, NULL);
}

bool btfi_file_is_kmod(const char *path)
{
	const struct btfi_log none = BTFI_LOG_NONE;
	struct btfi_elf_fd ef;
	bool yes;

	yes = !btfi_elf_open(path, BTFI_ELF_KIND, &ef, &none) && btfi_elf_is_kmod(ef.elf);
	btfi_elf_close(&ef);
	return yes;
}

bool btfi_elf_kmod_name(Elf *elf, char *buf, size_t len)
{
	size_t sz;
	const char *mi = btfi_elf_section(elf, ".modinfo", &sz, NULL), *end = mi + sz;

	for (const char *p = mi; p && p < end; p += strnlen(p, end - p) + 1) {
		size_t n = strnlen(p, end - p);

		if (n > 5 && n - 5 < len && !strncmp(p, "name=", 5)) {
			memcpy(buf, p + 5, n - 5);
			buf[n - 5] = 0;
			return true;
		}
	}
	return false;
}

/* ---- facts for attach ---- */

void btfi_elf_info_free(struct btfi_elf_info *ei)
{
	free(ei->segs);
	free(ei->secs);
	btfi_syms_free(&ei->syms);
	free(ei->strs);
	memset(ei, 0, sizeof(*ei));
}

int btfi_elf_info_load(const char *path, struct btfi_elf_info *ei, const struct btfi_log *log)
{
	size_t shstrndx, nphdr, strsz = 0, strcap = 0, i;
	Elf_Scn *scn = NULL;
	struct btfi_elf_fd ef;
	GElf_Ehdr eh;
	Elf *elf;
	int err;

	memset(ei, 0, sizeof(*ei));
	err = btfi_elf_open(path, BTFI_ELF_KIND, &ef, log);
	if (err)
		return err;
	elf = ef.elf;
	if (!gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &nphdr)) {
		btfi_err(log, "%s: not an ELF file", path);
		err = -EINVAL;
		goto out;
	}
	ei->pie = eh.e_type == ET_DYN;
	ei->segs = calloc(nphdr ? nphdr : 1, sizeof(*ei->segs));
	if (!ei->segs)
		goto nomem;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ei->segs[ei->nsegs].vaddr = ph.p_vaddr;
		ei->segs[ei->nsegs].memsz = ph.p_filesz;
		ei->segs[ei->nsegs].off = ph.p_offset;
		ei->nsegs++;
	}
	/* Two passes: count and size section names, then copy. */
	for (int pass = 0; pass < 2; pass++) {
		size_t nsecs = 0;

		strsz = 0;
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && (sh.sh_flags & SHF_ALLOC)) {
				if (pass) {
					ei->secs[nsecs].addr = sh.sh_addr;
					ei->secs[nsecs].name = (char *)(uintptr_t)strsz;
					memcpy(ei->strs + strsz, name, strlen(name) + 1);
				}
				strsz += strlen(name) + 1;
				nsecs++;
			}
		}
		if (!pass) {
			strcap = strsz;
			ei->strs = malloc(strcap + 1);
			ei->secs = calloc(nsecs + 1, sizeof(*ei->secs));
			if (!ei->strs || !ei->secs)
				goto nomem;
		} else {
			ei->nsecs = nsecs;
		}
	}
	for (i = 0; i < ei->nsecs; i++)
		ei->secs[i].name = ei->strs + (uintptr_t)ei->secs[i].name;
	while ((scn = elf_nextscn(elf, scn)) && !ei->has_symtab) {
		GElf_Shdr sh;

		ei->has_symtab = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB;
	}
	if (btfi_syms_load(elf, &ei->syms))
		goto nomem;
	goto out;
nomem:
	btfi_err(log, "%s: out of memory", path);
	err = -ENOMEM;
out:
	if (err)
		btfi_elf_info_free(ei);
	btfi_elf_close(&ef);
	return err;
}

int btfi_elf_info_debug_syms(struct btfi_elf_info *ei, const char *debug_file,
			     const struct btfi_log *log)
{
	struct btfi_syms syms;
	struct btfi_elf_fd ef;
	int err;

	if (ei->has_symtab)
		return 0;
	err = btfi_elf_open(debug_file, BTFI_ELF_FULL, &ef, log);
	if (!err && btfi_syms_load(ef.elf, &syms)) {
		btfi_err(log, "%s: out of memory", debug_file);
		err = -ENOMEM;
	}
	if (!err && syms.n) {
		btfi_syms_free(&ei->syms);
		ei->syms = syms;
		ei->has_symtab = true;
	} else if (!err) {
		btfi_syms_free(&syms);
	}
	btfi_elf_close(&ef);
	return err;
}

int btfi_elf_vaddr_to_off(const struct btfi_elf_info *ei, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < ei->nsegs; i++) {
		if (vaddr >= ei->segs[i].vaddr && vaddr < ei->segs[i].vaddr + ei->segs[i].memsz) {
			*off = vaddr - ei->segs[i].vaddr + ei->segs[i].off;
			return 0;
		}
	}
	return -ENOENT;
}

int btfi_elf_off_to_vaddr(const struct btfi_elf_info *ei, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < ei->nsegs; i++) {
		if (off >= ei->segs[i].off && off < ei->segs[i].off + ei->segs[i].memsz) {
			*vaddr = off - ei->segs[i].off + ei->segs[i].vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int btfi_elf_sec_addr(const struct btfi_elf_info *ei, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < ei->nsecs; i++) {
		if (!strcmp(ei->secs[i].name, name)) {
			*addr = ei->secs[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

void btfi_elf_label(const struct btfi_elf_info *ei, uint64_t addr, char *buf, size_t len)
{
	const struct btfi_sym *s = btfi_syms_at(&ei->syms, addr);

	if (s)
		snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}
