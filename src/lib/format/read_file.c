// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Opening a blob from a file: mapped (or read, for sysfs), found in an ELF
 * section, with its base (the ELF's own .BTF, or base_path). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/read_priv.h"
#include "format/base.h"
#include "elf_file.h"
#include "opts.h"

/* Map [off, off+len) of fd read-only; len 0: the whole file. Falls back to
 * reading (sysfs files cannot always be mapped and report no size). */
static int map_region(int fd, uint64_t off, uint64_t len, struct region *r)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t a = off & ~(uint64_t)(pg - 1);
	struct stat st;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if (!len)
			len = st.st_size - off;
		if (off + len > (uint64_t)st.st_size)
			return -EINVAL;
		r->map_len = off - a + len;
		r->map = mmap(NULL, r->map_len ? r->map_len : 1, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, a);
		if (r->map != MAP_FAILED) {
			/* Not 4-byte aligned (an odd section offset): use a copy. */
			if (!((off - a) % 4)) {
				r->data = (const uint8_t *)r->map + (off - a);
				r->len = len;
				return 0;
			}
			munmap(r->map, r->map_len);
		}
		r->map = NULL;
	}
	{
		size_t cap = len ? len : 1 << 20, n = 0;
		ssize_t got;

		r->buf = malloc(cap ? cap : 1);
		while (r->buf && (got = pread(fd, (uint8_t *)r->buf + n, cap - n, off + n)) > 0) {
			n += got;
			if (n == cap) {
				void *nb;

				if (len)
					break;
				nb = realloc(r->buf, cap *= 2);
				if (!nb)
					return -ENOMEM;
				r->buf = nb;
			}
		}
		if (!r->buf)
			return -ENOMEM;
		if (len && n != len)
			return -EIO;
		r->data = r->buf;
		r->len = n;
	}
	return 0;
}

static void unmap_region(struct region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

struct elf_sec {
	char name[64];
	uint64_t addr;
};

/* Offset and size of section `want` (0 size: absent), and the allocated
 * sections' addresses (secs may be NULL; none for a relocatable object,
 * whose sections have no address before it is loaded). *kmod: the file is
 * a kernel module (NULL: not asked). Only headers are read. */
static int elf_find(struct btfinline *bi, int fd, const char *path, const char *want,
		    uint64_t *off, uint64_t *size, struct elf_sec **secs, uint32_t *nsecs,
		    bool *kmod)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool rel;

	*off = *size = 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		btfi_err(&bi->log, "%s: not a readable ELF file", path);
		return -EINVAL;
	}
	{
		struct stat st;
		int err;

		if (fstat(fd, &st)) {
			err = -errno;
			btfi_err(&bi->log, "%s: %s", path, strerror(-err));
		} else {
			err = btfi_elf_check(elf, path, st.st_size, &bi->log);
		}
		if (err) {
			elf_end(elf);
			return err;
		}
	}
	{
		GElf_Ehdr eh;

		rel = gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;
	}
	if (rel)
		secs = NULL;
	if (kmod)
		*kmod = false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (kmod && !strcmp(nm, ".gnu.linkonce.this_module"))
			*kmod = rel;
		if (secs && (sh.sh_flags & SHF_ALLOC) && strlen(nm) < 64) {
			struct elf_sec *ns = realloc(*secs, (*nsecs + 1) * sizeof(*ns));

			if (ns) {
				*secs = ns;
				strcpy(ns[*nsecs].name, nm);
				ns[(*nsecs)++].addr = sh.sh_addr;
			}
		}
		if (!strcmp(nm, want) && sh.sh_type != SHT_NOBITS && !*size) {
			*off = sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	elf_end(elf);
	return 0;
}

/* The BTF of a base file (an ELF's .BTF, or raw) into r; *split: it is
 * split BTF (a kernel module's .BTF, or raw BTF whose strings do not
 * start with "": /sys/kernel/btf/<module>). */
static int read_base(struct btfinline *bi, const char *path, struct region *r, bool *split)
{
	uint64_t off = 0, size = 0;
	bool kmod = false;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(&bi->log, "%s: cannot open base BTF %s: %s", bi->name, path, strerror(-err));
		return err;
	}
	if (btfi_file_kind_fd(fd) == BTFI_FILE_ELF) {
		err = elf_find(bi, fd, path, ".BTF", &off, &size, NULL, NULL, &kmod);
		if (!err && !size) {
			btfi_err(&bi->log, "%s: %s has no .BTF section (run `pahole -J` first)", bi->name, path);
			err = -ENOENT;
		}
	} else {
		err = 0;
	}
	if (!err && (err = map_region(fd, off, size, r)))
		btfi_err(&bi->log, "%s: cannot read base BTF %s: %s", bi->name, path, strerror(-err));
	close(fd);
	if (err)
		return err;
	*split = kmod;
	if (!kmod && r->len >= sizeof(struct btf_header)) {
		const struct btf_header *h = (const void *)r->data;

		*split = h->magic == BTF_MAGIC && h->hdr_len <= r->len && h->str_len &&
			 (uint64_t)h->hdr_len + h->str_off < r->len &&
			 r->data[h->hdr_len + h->str_off] != 0;
	}
	return 0;
}

/* Base BTF of a file we open: mapped and indexed by us (fast; libbpf only
 * when btfinline__btf() is asked for). A split base (a kernel module's)
 * is flattened over its own base (format/base.h). */
static int open_base(struct btfinline *bi, const char *path, const char *base_base)
{
	struct btfi_hdr h;
	bool split = false, vsplit = false;
	int err;

	err = read_base(bi, path, &bi->bregion, &split);
	if (err)
		return err;
	if (split) {
		struct region vm = { 0 };
		const char *why, *vpath = base_base ? base_base : "/sys/kernel/btf/vmlinux";
		size_t sz;
		void *flat;

		err = read_base(bi, vpath, &vm, &vsplit);
		if (!err && vsplit)
			err = btfi_read_bad(bi, "base's base %s is split BTF too (a module's, not vmlinux's)",
					    vpath);
		if (!err) {
			err = btfi_base_flatten(vm.data, vm.len, bi->bregion.data, bi->bregion.len,
						&flat, &sz, &why);
			if (err == -EINVAL)
				err = btfi_read_bad(bi, "base %s over %s: %s", path, vpath, why);
		}
		unmap_region(&vm);
		if (err)
			return err;
		unmap_region(&bi->bregion);
		bi->bregion.buf = flat;
		bi->bregion.data = flat;
		bi->bregion.len = sz;
		bi->flat_base = true;
	}
	err = btfi_read_check_hdr(bi, "base BTF: ", bi->bregion.data, bi->bregion.len, &h);
	if (err)
		return err;
	if (h.layout_len) {
		/* A base in the new format: let libbpf decide later; we need 24-byte ones. */
		return btfi_read_bad(bi, "base BTF: header with a layout section is not supported");
	}
	bi->b.types = bi->bregion.data + h.hdr_len + h.type_off;
	bi->b.type_len = h.type_len;
	bi->b.strs = (const char *)bi->bregion.data + h.hdr_len + h.str_off;
	bi->b.str_len = h.str_len;
	err = btfi_read_walk_base(bi, "base BTF: ", &bi->b);
	if (err)
		return err;
	if (h.str_len && bi->b.strs[0])
		return btfi_read_bad(bi, "base BTF: string section does not start with \"\"");
	bi->have_rb = true;
	bi->start_id = bi->b.n + 1;
	bi->base_str_len = h.str_len;
	bi->base_path = strdup(path);
	return bi->base_path ? 0 : -ENOMEM;
}

int btfinline__open(const char *path, const struct btfinline_open_opts *opts,
		    struct btfinline **out)
{
	struct btfinline *bi;
	struct elf_sec *esecs = NULL;
	uint32_t nesecs = 0;
	const char *base_path = NULL;
	uint64_t off = 0, size = 0;
	bool elf;
	int fd, err;

	*out = NULL;
	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	bi->name = path;
	if (OPTS_HAS(opts, log))
		bi->log = opts->log;
	if (!OPTS_VALID(opts, btfinline_open_opts, &bi->log)) {
		free(bi);
		return -EINVAL;
	}
	base_path = OPTS_GET(opts, base_path, NULL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(&bi->log, "%s: %s", path, strerror(-err));
		goto err;
	}
	{
		struct stat st;

		if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
			btfi_err(&bi->log, "%s: %s", path, strerror(EISDIR));
			close(fd);
			err = -EISDIR;
			goto err;
		}
	}
	elf = btfi_file_kind_fd(fd) == BTFI_FILE_ELF;
	if (elf) {
		err = elf_find(bi, fd, path, ".BTF.inline", &off, &size, &esecs, &nesecs, NULL);
		if (!err && !size) {
			btfi_err(&bi->log, "%s: no .BTF.inline section (run `btfinline encode` first)", path);
			err = -ENOENT;
		}
	} else {
		err = 0;
	}
	if (!err && (err = map_region(fd, off, size, &bi->blob)))
		btfi_err(&bi->log, "%s: cannot read: %s", path, strerror(-err));
	close(fd);
	if (err)
		goto err;
	bi->raw = bi->blob.data;
	bi->raw_sz = bi->blob.len;
	/* Neither ELF nor BTF magic (either byte order): say that, not
	 * "bad magic" of a format the user never meant to give. */
	if (!elf && (bi->raw_sz < 2 || (memcmp(bi->raw, "\x9f\xeb", 2) && memcmp(bi->raw, "\xeb\x9f", 2)))) {
		btfi_err(&bi->log, "%s: not an ELF file or a BTF blob", path);
		err = -EINVAL;
		goto err;
	}
	if (!base_path) {
		base_path = elf ? path : "/sys/kernel/btf/vmlinux";
		/* A raw blob does not name its base: say which one it was
		 * checked against when that fails. */
		if (!elf && asprintf(&bi->name_buf, "%s (base %s)", path, base_path) > 0)
			bi->name = bi->name_buf;
	}
	err = open_base(bi, base_path, OPTS_GET(opts, base_base_path, NULL));
	if (err)
		goto err;
	err = btfi_read_parse(bi);
	if (err)
		goto err;
	for (uint32_t s = 0; s < bi->nsecs; s++)
		for (uint32_t k = 0; k < nesecs; k++)
			if (!strcmp(esecs[k].name, bi->secs[s].name)) {
				bi->secs[s].addr = esecs[k].addr;
				bi->secs[s].has_addr = true;
				break;
			}
	free(esecs);
	bi->name = NULL;
	*out = bi;
	return 0;
err:
	free(esecs);
	btfinline__free(bi);
	return err;
}

void btfinline__free(struct btfinline *bi)
{
	if (!bi)
		return;
	btf__free(bi->btf);
	if (bi->own_base)
		btf__free(bi->base);
	unmap_region(&bi->blob);
	unmap_region(&bi->bregion);
	free(bi->base_path);
	free(bi->name_buf);
	if (bi->s.mem)
		munmap(bi->s.mem, bi->s.mem_len);
	if (bi->b.mem)
		munmap(bi->b.mem, bi->b.mem_len);
	free(bi->sites);
	free(bi->by_addr);
	free_secs(bi);
	free(bi->secs);
	free(bi->locsecs);
	free(bi->locsec_ids);
	free(bi->locsec_sno);
	if (bi->fmem)
		munmap(bi->fmem, bi->fmem_len);
	while (bi->chunks) {
		struct chunk *c = bi->chunks;

		bi->chunks = c->next;
		free(c);
	}
	free(bi);
}
