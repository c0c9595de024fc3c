// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel module helpers:
 *  - btfi_base_flatten(): a split BTF over a base, flattened, names every
 *    type as libbpf's own split over that base does (libbpf 1.1 is right
 *    for one level), and a split made over the flattened BTF continues
 *    both ids and string offsets (a module's .BTF.inline);
 *  - btfi_notes_build_id(): the GNU build-id among other notes, as
 *    /sys/kernel/notes holds them; truncated notes give none;
 *  - with arguments `test_kmod MODULE.ko VMLINUX`: the same flattening
 *    check on a real module's .BTF over vmlinux's, and its .modinfo name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <gelf.h>
#include <bpf/btf.h>
#include "btfinline.h"
#include "attach/kmodule.h"
#include "format/base.h"
#include "elf_file.h"
#include "check.h"

/* Every type of split (ids start_id..) read through flat: same kind,
 * name and referenced id. Returns the number compared. */
static int same_types(const struct btf *split, const struct btf *flat, const char *what)
{
	uint32_t cnt = btf__type_cnt(split);
	int n = 0, bad = 0;

	CHECK(btf__type_cnt(flat) == cnt, "%s: %u types flattened, %u in the chain", what,
	      btf__type_cnt(flat), cnt);
	for (uint32_t id = 1; id < cnt && id < btf__type_cnt(flat); id++, n++) {
		const struct btf_type *a = btf__type_by_id(split, id), *b = btf__type_by_id(flat, id);
		const char *na = btf__name_by_offset(split, a->name_off);
		const char *nb = btf__name_by_offset(flat, b->name_off);

		if (a->info != b->info || a->type != b->type || a->name_off != b->name_off ||
		    !na || !nb || strcmp(na, nb)) {
			if (bad++ < 5)
				CHECK(0, "%s: type %u: %s '%s' vs '%s'", what, id,
				      a->info != b->info ? "info" : "name", na ? na : "?", nb ? nb : "?");
		}
	}
	CHECK(!bad, "%s: %d of %d types differ", what, bad, n);
	return n;
}

static void test_synthetic(void)
{
	struct btf *vm = btf__new_empty(), *mod, *flat, *inl;
	const void *vraw, *mraw;
	uint32_t vsz, msz, vstr;
	const char *why = NULL;
	void *out;
	size_t osz;
	int i32, s, m1, m2, f;

	i32 = btf__add_int(vm, "int", 4, BTF_INT_SIGNED);
	s = btf__add_struct(vm, "task_struct", 8);
	btf__add_field(vm, "pid", i32, 0, 0);
	btf__add_ptr(vm, s);
	mod = btf__new_empty_split(vm);
	m1 = btf__add_struct(mod, "ovl_config", 16);
	btf__add_field(mod, "lowerdir", btf__add_ptr(mod, i32), 0, 0);
	btf__add_field(mod, "task", s, 64, 0);
	m2 = btf__add_func_proto(mod, i32);
	btf__add_func_param(mod, "cfg", m1);
	btf__add_func_param(mod, "pid", i32);	/* "pid": a vmlinux string */
	btf__add_func(mod, "ovl_fill_super", BTF_FUNC_STATIC, m2);
	vraw = btf__raw_data(vm, &vsz);
	mraw = btf__raw_data(mod, &msz);
	vstr = ((const struct btf_header *)vraw)->str_len;
	CHECK(((const char *)mraw)[sizeof(struct btf_header) + ((const struct btf_header *)mraw)->str_off] != 0,
	      "libbpf's split strings do not start with \"\"");
	flat = btfi_base_flatten_btf(vm, mraw, msz, &why);
	if (!CHECK(flat, "flatten: %s", why))
		goto out;
	CHECK(same_types(mod, flat, "synthetic") == 7, "7 types compared (3 + 4)");
	/* a blob over the module: ids and strings continue the chain */
	inl = btf__new_empty_split(flat);
	f = btf__add_func(inl, "ovl_inlined", BTF_FUNC_STATIC, m2);
	CHECK(f == (int)btf__type_cnt(mod), "split id %d continues the chain at %u", f, btf__type_cnt(mod));
	CHECK(btf__type_by_id(inl, f)->name_off >= vstr + ((const struct btf_header *)mraw)->str_len,
	      "split name offset %u past vmlinux's %u + the module's strings",
	      btf__type_by_id(inl, f)->name_off, vstr);
	btf__free(inl);
	btf__free(flat);

	/* bad inputs: one reason each */
	CHECK(btfi_base_flatten(vraw, 10, mraw, msz, &out, &osz, &why) == -EINVAL && strstr(why, "vmlinux"),
	      "short vmlinux: %s", why);
	CHECK(btfi_base_flatten(vraw, vsz, mraw, 23, &out, &osz, &why) == -EINVAL && strstr(why, "module"),
	      "short module: %s", why);
	CHECK(btfi_base_flatten(mraw, msz, mraw, msz, &out, &osz, &why) == -EINVAL &&
	      strstr(why, "does not start"), "a module as vmlinux: %s", why);
out:
	btf__free(mod);
	btf__free(vm);
}

static void put_note(FILE *f, const char *name, uint32_t type, const void *desc, uint32_t dsz)
{
	Elf64_Nhdr nh = { .n_namesz = strlen(name) + 1, .n_descsz = dsz, .n_type = type };
	static const char zero[4];

	fwrite(&nh, sizeof(nh), 1, f);
	fwrite(name, nh.n_namesz, 1, f);
	fwrite(zero, (4 - nh.n_namesz % 4) % 4, 1, f);
	fwrite(desc, dsz, 1, f);
	fwrite(zero, (4 - dsz % 4) % 4, 1, f);
}

static void test_notes(void)
{
	char path[] = "/tmp/btfi-notes-XXXXXX", hex[130];
	unsigned char id[20];
	uint32_t ver = 0x060100;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	long full;

	for (int i = 0; i < 20; i++)
		id[i] = 0xa0 + i;
	put_note(f, "Xen", 5, "xx", 2);
	put_note(f, "Linux", 0x100, &ver, 4);
	put_note(f, "GNU", NT_GNU_BUILD_ID, id, sizeof(id));
	full = ftell(f);
	fclose(f);
	CHECK(btfi_notes_build_id(path, hex, sizeof(hex)) == 20 &&
	      !strcmp(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3"), "build-id after two notes: %s", hex);
	CHECK(btfi_notes_build_id(path, hex, 20) == 0, "buffer too small for 40 hex digits");
	CHECK(!truncate(path, full - 4) && btfi_notes_build_id(path, hex, sizeof(hex)) == 0 && !hex[0],
	      "truncated note: none");
	unlink(path);
	CHECK(btfi_notes_build_id(path, hex, sizeof(hex)) == 0, "no file: none");
	CHECK(btfi_kmod_build_id("../x", hex, sizeof(hex)) == 0 && !btfi_kmod_loaded("a/b"),
	      "a path is not a module name");
}

/* MODULE.ko VMLINUX: the real thing */
static void test_real(const char *ko, const char *vmlinux)
{
	struct btf *vm = btf__parse(vmlinux, NULL), *mod = vm ? btf__parse_split(ko, vm) : NULL, *flat = NULL;
	int fd = open(ko, O_RDONLY);
	Elf *elf;
	const void *raw;
	const char *why = "";
	char name[64] = "";
	size_t sz;
	int n = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf && btfi_elf_is_kmod(elf) && btfi_elf_kmod_name(elf, name, sizeof(name)),
	      "%s: a kernel module with a .modinfo name", ko);
	raw = elf ? btfi_elf_section(elf, ".BTF", &sz, NULL) : NULL;
	if (CHECK(vm && mod && raw, "%s over %s: libbpf split or .BTF missing", ko, vmlinux))
		flat = btfi_base_flatten_btf(vm, raw, sz, &why);
	if (CHECK(flat, "flatten: %s", why))
		n = same_types(mod, flat, ko);
	printf("%s (module %s): %d types through the flattened base = libbpf's split over %s\n",
	       ko, name, n, vmlinux);
	btf__free(flat);
	btf__free(mod);
	btf__free(vm);
	if (elf)
		elf_end(elf);
	close(fd);
}

int main(int argc, char **argv)
{
	test_synthetic();
	test_notes();
	if (argc == 3)
		test_real(argv[1], argv[2]);
	return check_done();
}
