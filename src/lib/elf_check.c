// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Structural checks of an ELF file, shared by the scan, the reader and encode. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include "elf_check.h"
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

int btfi_elf_check_file(const char *path, const struct btfi_log *log)
{
	struct stat st;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		btfi_err(log, "%s: %s", path, err == -EISDIR ? strerror(EISDIR) : "not a regular file");
		close(fd);
		return err;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	err = btfi_elf_check(elf, path, st.st_size, log);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
