// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Round trip: scan -> encode -> reader gives back exactly the scan's sites
 * (function, parameter names, section, offset) and locations (a location
 * the format cannot hold, or an unavailable one, compares as NONE).
 *   test_roundtrip [--base VMLINUX] [ELF...]   default: every fixture in $FIXTURES
 * A kernel module's base is its .BTF over VMLINUX's (flattened, as encode
 * does); its blob is also read back from a file over the module and
 * VMLINUX (the reader's two-level base).
 * Prints per file: sites compared. Exit 77 when there is nothing to test.
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btfinline.h"
#include "encode/encode.h"
#include "format/btf_write.h"
#include "dwarf/scan.h"
#include "elf_file.h"
#include "format/base.h"
#include "check.h"

static const char *vmlinux;	/* --base */

struct strs {
	char **v;
	size_t n, cap;
};

static void push(struct strs *s, char *str)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = str;
}

static int cmps(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void loc_key(char *buf, size_t n, const char *pname, const struct btfi_loc *l)
{
	size_t len = strlen(buf);

	switch (l->kind) {
	case BTFI_LOC_KREG:
		snprintf(buf + len, n - len, " %s=reg%u/%u%c", pname, l->reg, l->size, l->is_signed ? 's' : 'u');
		break;
	case BTFI_LOC_KREG_PAIR:
		snprintf(buf + len, n - len, " %s=pair%u,%u/%u%c", pname, l->reg, l->reg2, l->size, l->is_signed ? 's' : 'u');
		break;
	case BTFI_LOC_KREG_OFF:
	case BTFI_LOC_KMEM:
		snprintf(buf + len, n - len, " %s=%s%u%+lld/%u%c", pname, l->kind == BTFI_LOC_KMEM ? "mem" : "off",
			 l->reg, (long long)l->off, l->size, l->is_signed ? 's' : 'u');
		break;
	case BTFI_LOC_KCONST:
	case BTFI_LOC_KADDR:
		snprintf(buf + len, n - len, " %s=%s%llx/%u%c", pname, l->kind == BTFI_LOC_KADDR ? "addr" : "const",
			 (unsigned long long)l->cval, l->size, l->is_signed ? 's' : 'u');
		break;
	default:
		snprintf(buf + len, n - len, " %s=none", pname);
	}
}

/* The writer keeps one LOCSEC entry per (func, section offset), the first
 * the scan gave: drop later scan sites with the same "name sec+off:" key. */
struct keyed {
	char *s;
	size_t idx;
};

static int cmpk(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	size_t lx = strcspn(x->s, ":"), ly = strcspn(y->s, ":");
	int c = strncmp(x->s, y->s, lx < ly ? lx : ly);

	if (c || lx != ly)
		return c ? c : lx < ly ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t first_per_key(struct strs *s)
{
	struct keyed *k = calloc(s->n + 1, sizeof(*k));
	size_t n = 0, dropped = 0;

	for (size_t i = 0; i < s->n; i++)
		k[i] = (struct keyed){ s->v[i], i };
	qsort(k, s->n, sizeof(*k), cmpk);
	for (size_t i = 0; i < s->n; i++) {
		if (n && !cmpk(&(struct keyed){ k[i].s, 0 }, &(struct keyed){ s->v[n - 1], 0 })) {
			free(k[i].s);
			dropped++;
			continue;
		}
		s->v[n++] = k[i].s;
	}
	s->n = n;
	free(k);
	return dropped;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Scan opt unit_addrs (trace's call lines): the units holding the given
 * addresses give the full scan's sites there, with the same address, call
 * line and policy; an address no unit holds gives none. */
static void unit_filter(const char *path, const struct btfi_scan *full)
{
	uint64_t *addrs = malloc((full->nsites + 1) * sizeof(*addrs)), none = 1;
	struct btfi_scan *s = NULL;
	uint32_t na = 0, nf = 0, k = 0;

	for (uint32_t i = 0; i < full->nsites; i++)
		if (full->sites[i].addr)
			addrs[na++] = full->sites[i].addr;
	qsort(addrs, na, sizeof(*addrs), cmp_u64);
	if (CHECK(!btfi_scan_open(path, &(struct btfi_scan_opts){ .sz = sizeof(struct btfi_scan_opts),
			.no_locations = true, .unit_addrs = addrs, .nunit_addrs = na }, &s),
		  "%s: scan of the units holding %u addresses", path, na)) {
		for (uint32_t i = 0; i < full->nsites; i++) {
			const struct btfi_site *a = &full->sites[i], *b;

			/* An exact-name copy's changed ABI is told from its
			 * locations, which that scan does not read (a clone's
			 * is told by its name). */
			if (!a->addr || (a->flags & (BTFI_SITE_ENTRY | BTFI_SITE_CLONE)) == BTFI_SITE_ENTRY)
				continue;
			nf++;
			while (k < s->nsites && !s->sites[k].addr)
				k++;
			if (!CHECK(k < s->nsites, "%s: unit_addrs: site %u (0x%llx) missing", path, i,
				   (unsigned long long)a->addr))
				break;
			b = &s->sites[k++];
			CHECK(a->addr == b->addr && a->call_line == b->call_line &&
			      !strcmp(full->funcs[a->func].name ?: "", s->funcs[b->func].name ?: ""),
			      "%s: unit_addrs: site %u: %s 0x%llx line %u, filtered scan %s 0x%llx line %u", path, i,
			      full->funcs[a->func].name, (unsigned long long)a->addr, a->call_line,
			      s->funcs[b->func].name, (unsigned long long)b->addr, b->call_line);
		}
		CHECK(nf > 0, "%s: no site with an address", path);
	}
	btfi_scan_free(s);
	s = NULL;
	if (CHECK(!btfi_scan_open(path, &(struct btfi_scan_opts){ .sz = sizeof(struct btfi_scan_opts),
			.no_locations = true, .unit_addrs = &none, .nunit_addrs = 1 }, &s),
		  "%s: scan of no unit", path))
		CHECK(s->nsites == 0, "%s: unit_addrs {0x1}: %u sites, want 0", path, s->nsites);
	btfi_scan_free(s);
	free(addrs);
}

static void one(const char *path)
{
	struct btfi_scan *s = NULL;
	struct btf *base = NULL;
	struct btfinline *bi = NULL;
	struct btfi_encode_stats st;
	struct strs want = {}, got = {};
	void *blob = NULL;
	size_t sz, nsites, shstrndx, bad = 0, dropped;
	const struct btfinline_site *sites;
	char buf[4096];
	bool kmod;
	int err;

	kmod = btfi_file_is_kmod(path);
	if (kmod) {
		struct btf *vm = vmlinux ? btf__parse(vmlinux, NULL) : NULL;
		const char *why = "no --base VMLINUX";
		const void *mod;
		size_t msz;
		Elf *elf;
		int fd = open(path, O_RDONLY);

		elf = elf_begin(fd, ELF_C_READ, NULL);
		mod = elf ? btfi_elf_section(elf, ".BTF", &msz, NULL) : NULL;
		if (vm && mod)
			base = btfi_base_flatten_btf(vm, mod, msz, &why);
		if (elf)
			elf_end(elf);
		close(fd);
		btf__free(vm);
		if (!CHECK(base, "%s: module base: %s", path, why))
			return;
	} else {
		base = btf__parse(path, NULL);
	}
	if (!base) {
		printf("%s: no .BTF, skipped\n", path);
		return;
	}
	err = btfi_scan_open(path, &(struct btfi_scan_opts){ .sz = sizeof(struct btfi_scan_opts) }, &s);
	err = err ?: btfi_encode(s, base, NULL, &blob, &sz, &st);
	err = err ?: btfinline__open_mem(blob, sz, base, NULL, &bi);
	if (!CHECK(!err, "%s: pipeline error %d", path, err))
		goto out;
	if (!kmod)
		unit_filter(path, s);
	elf_getshdrstrndx(s->elf, &shstrndx);
	/* What the scan says, for every site the encoder could place. */
	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];
		const struct btfi_func *f = &s->funcs[site->func];
		Elf_Scn *scn;
		GElf_Shdr sh;

		/* a split part is the enclosing call: no site (DESIGN.md) */
		if (!site->addr || !site->shndx || (site->flags & BTFI_SITE_SPLIT) ||
		    !(scn = elf_getscn(s->elf, site->shndx)) ||
		    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		/* a site on a branch is in its own LOCSEC (section:cc; "?" here,
		 * the key ends at the first colon) */
		snprintf(buf, sizeof(buf), "%s %s%s%s+%llx:", f->name, elf_strptr(s->elf, shstrndx, sh.sh_name),
			 site->cond ? "?" : "", site->cond ? btfi_cc_str(site->cond - 1) : "",
			 (unsigned long long)(site->addr - sh.sh_addr));
		for (uint32_t k = 0; k < site->nlocs; k++) {
			struct btfi_loc l = s->locs[site->first_loc + k];
			const char *pn = s->params[f->first_param + k].name;

			if (!btfi_loc_encodable(&l))
				l.kind = BTFI_LOC_NONE;
			loc_key(buf, sizeof(buf), pn ? pn : "", &l);
		}
		push(&want, strdup(buf));
	}
	dropped = first_per_key(&want);
	if (dropped != (size_t)st.ndup_same + st.ndup_other) {
		printf("  %zu scan sites share a (func, offset) key, the encoder dropped %u + %u\n",
		       dropped, st.ndup_same, st.ndup_other);
		bad++;
	}
	/* What the reader gives back. */
	sites = btfinline__sites(bi, &nsites);
	for (size_t i = 0; i < nsites; i++) {
		struct btf *btf = btfinline__btf(bi);
		const struct btf_type *fn = btf__type_by_id(btf, sites[i].func_id);
		const struct btf_type *p = btf__type_by_id(btf, fn->type);
		struct btfi_loc locs[128];
		int n = btfinline__site_locs(bi, &sites[i], locs, 128);

		int cc = btfinline__sec_cond(bi, sites[i].secno);

		snprintf(buf, sizeof(buf), "%s %s%s%s+%x:", btf__name_by_offset(btf, fn->name_off),
			 btfinline__sec_name(bi, sites[i].secno), cc > 0 ? "?" : "",
			 cc > 0 ? btfi_cc_str(cc - 1) : "", sites[i].offset);
		for (int k = 0; k < n && k < 128; k++)
			loc_key(buf, sizeof(buf), k < btf_vlen(p) ? btf__name_by_offset(btf, btf_params(p)[k].name_off) : "?",
				&locs[k]);
		push(&got, strdup(buf));
	}
	/* func_sites by name, both lookup paths (a second reader has not built
	 * the sorted list), against the scan's count per name. */
	{
		struct btfinline *bi2 = NULL;
		size_t checked = 0;

		if (btfinline__open_mem(blob, sz, base, NULL, &bi2))
			bad++;
		qsort(want.v, want.n, sizeof(char *), cmps);	/* by name first */
		for (size_t i = 0; bi2 && i < want.n;) {
			const struct btfinline_site *f1, *f2;
			size_t j = i, len = strcspn(want.v[i], " "), n1, n2;
			char name[512];

			snprintf(name, sizeof(name), "%.*s", (int)len, want.v[i]);
			while (j < want.n && !strncmp(want.v[j], want.v[i], len + 1))
				j++;
			n2 = btfinline__func_sites(bi, name, &f2);
			n1 = checked < 300 ? btfinline__func_sites(bi2, name, &f1) : n2;
			if (n1 != j - i || n2 != j - i) {
				if (bad++ < 10)
					printf("  func_sites(%s): %zu / %zu, scan has %zu\n", name, n1, n2, j - i);
			}
			checked++;
			i = j;
		}
		printf("  func_sites agrees with the scan for %zu function names\n", checked);
		btfinline__free(bi2);
	}
	/* A module's blob from a file, over the module's .BTF and vmlinux. */
	if (kmod) {
		char tmp[] = "/tmp/btfi-rt-XXXXXX";
		int fd = mkstemp(tmp);
		struct btfinline *bi3 = NULL;
		size_t n3 = 0;

		if (fd >= 0 && write(fd, blob, sz) == (ssize_t)sz) {
			BTFI_OPTS(btfinline_open_opts, oo, .base_path = path, .base_base_path = vmlinux);

			if (!btfinline__open(tmp, &oo, &bi3))
				btfinline__sites(bi3, &n3);
		}
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		if (!CHECK(bi3 && n3 == nsites, "%s: from a file over %s and %s: %zu sites, want %zu",
			   path, path, vmlinux, n3, nsites))
			bad++;
		else
			printf("  read back from a file over the module's .BTF and %s: %zu sites\n",
			       vmlinux, n3);
		btfinline__free(bi3);
	}
	qsort(got.v, got.n, sizeof(char *), cmps);
	for (size_t i = 0, j = 0; i < want.n || j < got.n;) {
		int c = i == want.n ? 1 : j == got.n ? -1 : strcmp(want.v[i], got.v[j]);

		if (!c) {
			i++, j++;
			continue;
		}
		if (bad++ < 10)
			printf("  %s %s\n", c < 0 ? "missing:" : "extra:  ", c < 0 ? want.v[i] : got.v[j]);
		if (c < 0)
			i++;
		else
			j++;
	}
	if (CHECK(!bad && want.n, "%s: %zu sites from the scan, %zu from the blob, %zu differ",
		  path, want.n, got.n, bad))
		printf("ok %s: %zu sites from the scan (%zu more at a taken (func, offset)), %zu from "
		       "the blob; blob %zu bytes\n", path, want.n, dropped, got.n, sz);
out:
	for (size_t i = 0; i < want.n; i++)
		free(want.v[i]);
	for (size_t i = 0; i < got.n; i++)
		free(got.v[i]);
	free(want.v);
	free(got.v);
	free(blob);
	btfinline__free(bi);
	btfi_scan_free(s);
	btf__free(base);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FIXTURES");
	int n = 0;

	for (int i = 1; i < argc; i++, n++) {
		if (!strcmp(argv[i], "--base") && i + 1 < argc) {
			vmlinux = argv[++i];
			n--;
			continue;
		}
		one(argv[i]);
	}
	if (argc == 1 && dir) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			one(path);
			n++;
		}
		if (d)
			closedir(d);
	}
	if (!n) {
		printf("no input (set FIXTURES or pass ELF files)\n");
		return 77;
	}
	return check_done();
}
