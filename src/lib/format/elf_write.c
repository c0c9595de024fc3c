// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Copy an ELF file with one non-allocated section added or replaced.
 * Every existing section keeps its index, offset and bytes (ELF_F_LAYOUT),
 * so program headers, symbols and relocations stay valid; the new data (and
 * a grown .shstrtab when the section is new) go at the end of the file,
 * followed by the section header table. Output goes to a temp file in the
 * destination directory, fsync'ed, then renamed: a crash never leaves a
 * half-written binary, and the input is only read.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomic_file.h"
#include "format/elf_write.h"
#include "elf_file.h"
#include "log.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static int copy_elf(Elf *in, int fd_out, const char *secname, const void *data, size_t sz,
		    const char *path, const struct btfi_log *log)
{
	size_t shnum, shstrndx, phnum, target = 0;
	GElf_Ehdr eh;
	Elf *out;
	Elf_Scn *scn;
	uint64_t end = 0;
	char *newstr = NULL;
	int err = -EINVAL;

	if (!gelf_getehdr(in, &eh) || elf_getshdrnum(in, &shnum) ||
	    elf_getshdrstrndx(in, &shstrndx) || elf_getphdrnum(in, &phnum)) {
		btfi_err(log, "%s: cannot read ELF headers: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	out = elf_begin(fd_out, ELF_C_WRITE, NULL);
	if (!out || !gelf_newehdr(out, gelf_getclass(in))) {
		btfi_err(log, "%s: libelf: %s", path, elf_errmsg(-1));
		goto out;
	}
	elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	if (phnum) {
		if (!gelf_newphdr(out, phnum))
			goto elf_err;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(in, i, &ph) || !gelf_update_phdr(out, i, &ph))
				goto elf_err;
			end = end > ph.p_offset + ph.p_filesz ? end : ph.p_offset + ph.p_filesz;
		}
	}
	end = end > eh.e_phoff + (uint64_t)phnum * eh.e_phentsize ? end
		: eh.e_phoff + (uint64_t)phnum * eh.e_phentsize;
	end = end > eh.e_ehsize ? end : eh.e_ehsize;
	/* Existing sections, byte for byte at their offsets. */
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *si = elf_getscn(in, i);
		GElf_Shdr sh;
		Elf_Data *di, *dout;
		const char *nm;

		if (!si || !gelf_getshdr(si, &sh) || !(scn = elf_newscn(out)))
			goto elf_err;
		nm = elf_strptr(in, shstrndx, sh.sh_name);
		if (nm && !strcmp(nm, secname))
			target = i;
		if (!gelf_update_shdr(scn, &sh))
			goto elf_err;
		/* The replaced section's old bytes do not count: when it was the
		 * last thing in the file, the new data goes at the same place. */
		if (sh.sh_type != SHT_NOBITS && target != i)
			end = end > sh.sh_offset + sh.sh_size ? end : sh.sh_offset + sh.sh_size;
		di = elf_rawdata(si, NULL);
		if (!di || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (!(dout = elf_newdata(scn)))
			goto elf_err;
		dout->d_buf = di->d_buf;
		dout->d_size = di->d_size;
		dout->d_type = ELF_T_BYTE;
		dout->d_off = 0;
		dout->d_align = 1;
		dout->d_version = EV_CURRENT;
	}
	if (!target) {
		/* New section: name appended to a copy of .shstrtab, moved to the end. */
		Elf_Scn *ss = elf_getscn(out, shstrndx);
		Elf_Data *sd = elf_rawdata(elf_getscn(in, shstrndx), NULL);
		GElf_Shdr sh;
		size_t nlen = strlen(secname) + 1;

		if (!ss || !sd || !gelf_getshdr(ss, &sh))
			goto elf_err;
		newstr = malloc(sd->d_size + nlen);
		if (!newstr) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(newstr, sd->d_buf, sd->d_size);
		memcpy(newstr + sd->d_size, secname, nlen);
		elf_getdata(ss, NULL)->d_buf = newstr;
		elf_getdata(ss, NULL)->d_size = sd->d_size + nlen;
		sh.sh_offset = end;
		sh.sh_size = sd->d_size + nlen;
		end += sh.sh_size;
		if (!gelf_update_shdr(ss, &sh) || !(scn = elf_newscn(out)))
			goto elf_err;
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = sd->d_size;
		if (!gelf_update_shdr(scn, &sh))
			goto elf_err;
	} else {
		scn = elf_getscn(out, target);
	}
	{
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh))
			goto elf_err;
		if (!d && !(d = elf_newdata(scn)))
			goto elf_err;
		d->d_buf = (void *)data;
		d->d_size = sz;
		d->d_type = ELF_T_BYTE;
		d->d_off = 0;
		d->d_align = 1;
		d->d_version = EV_CURRENT;
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = 0;
		sh.sh_addr = 0;
		sh.sh_link = sh.sh_info = 0;
		sh.sh_addralign = 4;
		sh.sh_entsize = 0;
		sh.sh_offset = align_up(end, 4);
		sh.sh_size = sz;
		end = sh.sh_offset + sz;
		if (!gelf_update_shdr(scn, &sh))
			goto elf_err;
	}
	eh.e_shoff = align_up(end, 8);
	if (!gelf_update_ehdr(out, &eh))
		goto elf_err;
	if (elf_update(out, ELF_C_WRITE) < 0)
		goto elf_err;
	err = 0;
	goto out;
elf_err:
	btfi_err(log, "%s: libelf: %s", path, elf_errmsg(-1));
	err = -EIO;
out:
	if (out)
		elf_end(out);
	free(newstr);
	return err;
}

int btfi_elf_write_section(const char *in, const char *outp, const char *secname,
			   const void *data, size_t sz, const struct btfi_log *log)
{
	struct btfi_atomic out = { .fd = -1 };
	struct btfi_elf_fd ef;
	struct stat st, ost;
	bool in_place;
	int err;

	err = btfi_elf_open(in, BTFI_ELF_KIND, &ef, log);
	if (err)
		return err;
	if (fstat(ef.fd, &st)) {
		err = -errno;
		btfi_err(log, "%s: %s", in, strerror(-err));
		goto out;
	}
	/* Through a symlink the file it names is replaced (the link stays);
	 * written in place, the file keeps its owner as well as its mode. */
	err = btfi_atomic_open(&out, outp, st.st_mode & 07777, true, log);
	if (err)
		goto out;
	in_place = !stat(out.path, &ost) && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino;
	/* Not root: only our own files can be written in place anyway. */
	if (in_place && (ost.st_uid != geteuid() || ost.st_gid != getegid()) &&
	    fchown(out.fd, ost.st_uid, ost.st_gid)) {
		err = -errno;
		btfi_err(log, "%s: cannot keep the owner: %s", outp, strerror(-err));
		btfi_atomic_abort(&out);
		goto out;
	}
	err = copy_elf(ef.elf, out.fd, secname, data, sz, in, log);
	if (err)
		btfi_atomic_abort(&out);
	else
		err = btfi_atomic_commit(&out, log);
out:
	btfi_elf_close(&ef);
	return err;
}

/* ---- a new ELF file of a few sections ---- */

static int add_data(Elf_Scn *scn, const void *buf, size_t size, size_t align)
{
	Elf_Data *d = elf_newdata(scn);

	if (!d)
		return -1;
	d->d_buf = (void *)buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	return 0;
}

/* Section names: like's code sections, then secs', then .shstrtab. */
int btfi_elf_write_new_fd(int fd, Elf *like, const struct btfi_elf_sec *secs, size_t nsecs,
			  const char *path, const struct btfi_log *log)
{
	size_t shnum, shstrndx, strsz = 1, pos = 1;
	char *strs = NULL;
	GElf_Ehdr leh, eh;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf *out = NULL;
	int err = -EIO;

	if (!gelf_getehdr(like, &leh) || elf_getshdrnum(like, &shnum) ||
	    elf_getshdrstrndx(like, &shstrndx)) {
		btfi_err(log, "%s: cannot read ELF headers: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 1; i < shnum; i++) {
			const char *nm;

			if (!(scn = elf_getscn(like, i)) || !gelf_getshdr(scn, &sh) ||
			    !(sh.sh_flags & SHF_EXECINSTR) || !(nm = elf_strptr(like, shstrndx, sh.sh_name)))
				continue;
			if (pass)
				memcpy(strs + pos, nm, strlen(nm) + 1), pos += strlen(nm) + 1;
			else
				strsz += strlen(nm) + 1;
		}
		for (size_t i = 0; i < nsecs; i++) {
			if (pass)
				memcpy(strs + pos, secs[i].name, strlen(secs[i].name) + 1),
					pos += strlen(secs[i].name) + 1;
			else
				strsz += strlen(secs[i].name) + 1;
		}
		if (pass)
			memcpy(strs + pos, ".shstrtab", 10);
		else if (!(strs = calloc(1, strsz += 10)))
			return -ENOMEM;
	}
	out = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!out || !gelf_newehdr(out, gelf_getclass(like)) || !gelf_getehdr(out, &eh))
		goto elf_err;
	eh.e_ident[EI_DATA] = leh.e_ident[EI_DATA];
	eh.e_type = ET_REL;
	eh.e_machine = leh.e_machine;
	eh.e_version = EV_CURRENT;
	pos = 1;
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr nsh;
		Elf_Scn *ns;

		if (!(scn = elf_getscn(like, i)) || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !elf_strptr(like, shstrndx, sh.sh_name))
			continue;
		if (!(ns = elf_newscn(out)) || add_data(ns, NULL, sh.sh_size, 1) || !gelf_getshdr(ns, &nsh))
			goto elf_err;
		nsh.sh_name = pos;
		nsh.sh_type = SHT_NOBITS;
		nsh.sh_flags = sh.sh_flags;
		nsh.sh_addr = sh.sh_addr;
		nsh.sh_size = sh.sh_size;
		nsh.sh_addralign = 1;
		pos += strlen(strs + pos) + 1;
		if (!gelf_update_shdr(ns, &nsh))
			goto elf_err;
	}
	for (size_t i = 0; i < nsecs; i++) {
		Elf_Scn *ns = elf_newscn(out);

		if (!ns || add_data(ns, secs[i].data, secs[i].size, 8) || !gelf_getshdr(ns, &sh))
			goto elf_err;
		sh.sh_name = pos;
		sh.sh_type = SHT_PROGBITS;
		sh.sh_addralign = 8;
		pos += strlen(strs + pos) + 1;
		if (!gelf_update_shdr(ns, &sh))
			goto elf_err;
	}
	if (!(scn = elf_newscn(out)) || add_data(scn, strs, strsz, 1) || !gelf_getshdr(scn, &sh))
		goto elf_err;
	sh.sh_name = pos;
	sh.sh_type = SHT_STRTAB;
	sh.sh_addralign = 1;
	eh.e_shstrndx = elf_ndxscn(scn);
	if (!gelf_update_shdr(scn, &sh) || !gelf_update_ehdr(out, &eh) || elf_update(out, ELF_C_WRITE) < 0)
		goto elf_err;
	err = 0;
	goto out;
elf_err:
	btfi_err(log, "%s: libelf: %s", path, elf_errmsg(-1));
out:
	if (out)
		elf_end(out);
	free(strs);
	return err;
}

int btfi_elf_write_new(const char *outp, const char *like, const struct btfi_elf_sec *secs,
		       size_t nsecs, const struct btfi_log *log)
{
	struct btfi_atomic out = { .fd = -1 };
	struct btfi_elf_fd ef;
	int err;

	err = btfi_elf_open(like, BTFI_ELF_KIND, &ef, log);
	if (err)
		return err;
	err = btfi_atomic_open(&out, outp, 0644, true, log);
	if (err)
		goto out;
	err = btfi_elf_write_new_fd(out.fd, ef.elf, secs, nsecs, outp, log);
	if (err)
		btfi_atomic_abort(&out);
	else
		err = btfi_atomic_commit(&out, log);
out:
	btfi_elf_close(&ef);
	return err;
}
