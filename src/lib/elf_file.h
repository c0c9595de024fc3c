/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ELF files: structural checks, file kind, facts for attach (elf.c). */
#ifndef BTFI_ELF_CHECK_H
#define BTFI_ELF_CHECK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "btfinline.h"
#include "elf_syms.h"

/*
 * ELF kind, header, section header table and every section's bytes inside
 * a file of fsize bytes. libelf returns no section header past EOF and says
 * nothing, so a cut file would otherwise look like one lacking a section.
 * Logs "PATH: problem" once; 0 or -EINVAL.
 */
int btfi_elf_check(Elf *elf, const char *path, uint64_t fsize, const struct btfi_log *log);

/* The same on a file by name (encode's first step); also -errno of open. */
int btfi_elf_check_file(const char *path, const struct btfi_log *log);

/* An ELF file opened for reading (libelf over mmap). */
struct btfi_elf_fd {
	int fd;
	Elf *elf;
	uint64_t size;
};
/* How much btfi_elf_open checks: only that it is an ELF, or everything
 * btfi_elf_check does. */
enum btfi_elf_open_check { BTFI_ELF_KIND, BTFI_ELF_FULL };
/*
 * Opens path read-only, the one way every reader of a whole file starts.
 * Logs "PATH: problem" once (strerror, "not an ELF file", or what
 * btfi_elf_check says); 0, -errno or -EINVAL. ef is closed on failure.
 */
int btfi_elf_open(const char *path, enum btfi_elf_open_check check, struct btfi_elf_fd *ef,
		  const struct btfi_log *log);
void btfi_elf_close(struct btfi_elf_fd *ef);

/* 1 if the ELF file at path has a section `name` (not NOBITS), 0 if not,
 * -errno if it is no readable ELF (nothing logged). */
int btfi_elf_file_has_section(const char *path, const char *name);

/* What a file is, by its first bytes: an ELF, a raw BTF blob (either byte
 * order: the reader names the big-endian one), compressed with gzip, bzip2
 * or xz (libdwfl undoes those: .ko.xz), with zstd (elfutils 0.188 in
 * Debian 12 cannot), or none of these (also when it cannot be read). */
enum btfi_file_kind { BTFI_FILE_OTHER, BTFI_FILE_ELF, BTFI_FILE_BTF, BTFI_FILE_PACKED,
		      BTFI_FILE_ZSTD };
enum btfi_file_kind btfi_file_kind_fd(int fd);
enum btfi_file_kind btfi_file_kind(const char *path);

/* A Linux kernel module: relocatable, with .gnu.linkonce.this_module. */
bool btfi_elf_is_kmod(Elf *elf);
/* The same for a file (false if it cannot be read). */
bool btfi_file_is_kmod(const char *path);
/* The module's name from .modinfo ("name=..."); false if none. */
bool btfi_elf_kmod_name(Elf *elf, char *buf, size_t len);
/* The GNU build-id as lower-case hex; returns its length in bytes, 0 when
 * there is none (or hex is too small). The file form: also 0 when it
 * cannot be read as an ELF. */
size_t btfi_elf_build_id(Elf *elf, char *hex, size_t len);
size_t btfi_elf_file_build_id(const char *path, char *hex, size_t len);
/* The first section named `name` and its header in *sh; NULL if none. */
Elf_Scn *btfi_elf_scn(Elf *elf, const char *name, GElf_Shdr *sh);
/* The bytes of section `name` (NULL if absent, empty or NOBITS). With
 * compressed non-NULL, an SHF_COMPRESSED section is not returned but sets
 * *compressed (its bytes are deflated; NULL: returned as stored). */
const void *btfi_elf_section(Elf *elf, const char *name, size_t *size, bool *compressed);

/* ELF facts attach needs: loadable segments, section addresses, function
 * symbols sorted by address. */
struct btfi_elf_info {
	struct { uint64_t vaddr, memsz, off; } *segs;	size_t nsegs;
	struct { const char *name; uint64_t addr; } *secs;	size_t nsecs;
	struct btfi_syms syms;
	char *strs;			/* owned copies of section names */
	bool pie;			/* ET_DYN */
	bool has_symtab;		/* .symtab (not only .dynsym) */
};
int btfi_elf_info_load(const char *path, struct btfi_elf_info *ei, const struct btfi_log *log);
void btfi_elf_info_free(struct btfi_elf_info *ei);
/* A stripped binary (no .symtab): function symbols from its debug file
 * instead (its .symtab has the static functions and the exported ones).
 * No-op when the binary has a .symtab; 0 or -errno logged. */
int btfi_elf_info_debug_syms(struct btfi_elf_info *ei, const char *debug_file,
			     const struct btfi_log *log);
int btfi_elf_vaddr_to_off(const struct btfi_elf_info *ei, uint64_t vaddr, uint64_t *off);
/* The inverse: the address of file offset off in a loadable segment. */
int btfi_elf_off_to_vaddr(const struct btfi_elf_info *ei, uint64_t off, uint64_t *vaddr);
int btfi_elf_sec_addr(const struct btfi_elf_info *ei, const char *name, uint64_t *addr);
/* "sym+0xoff" or "0xaddr". */
void btfi_elf_label(const struct btfi_elf_info *ei, uint64_t addr, char *buf, size_t len);

#endif
