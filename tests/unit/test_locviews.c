// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfi_loc_at_view() against binutils' readelf. For every DIE of the GCC
 * fixtures with DW_AT_GNU_locviews, `readelf --debug-dump=loc` prints each
 * entry of its location list with its view pair. At the bounds of every
 * entry (address, view), one view in, in the middle, and at every inline
 * instance's entry (DW_AT_entry_pc, DW_AT_GNU_entry_view), the entry the
 * function picks must be the one readelf's entries give: the first whose
 * [(begin, begin view), (end, end view)) holds the point; none -> 0.
 * Refused (-1): no views attribute (clang), the views of another list,
 * no list section.
 *   test_locviews [ELF...]   default: every shapes-like fixture in $FIXTURES
 * (files with "-gcc-" in their name must have views, "-clang-" none).
 */
#include <dirent.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include "dwarf/locviews.h"
#include "check.h"

/* readelf's view of .debug_loc / .debug_loclists */
struct rentry { uint64_t b, e, bv, ev; bool views; };
struct rlist { uint64_t off; uint32_t first, n; };
struct rdump {
	struct rentry *e;
	struct rlist *l;
	uint32_t ne, nl;
};

static void *grow(void *p, uint32_t n, size_t elsz)
{
	/* power-of-two capacities: grow when n reaches one */
	if (n && (n & (n - 1)))
		return p;
	p = realloc(p, (n ? 2 * n : 1) * elsz);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

static int readelf_loc(const char *path, struct rdump *r)
{
	char cmd[4200], *line = NULL;
	size_t cap = 0;
	uint64_t off, a, b, start = 0;
	uint32_t first = 0;
	bool have_start = false, pending = false;
	struct rentry pe = {};
	FILE *f;
	int rc;

	snprintf(cmd, sizeof(cmd), "readelf -W --debug-dump=loc '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, "location view pair"))
			continue;	/* the view block before a list */
		if (strstr(line, "<End of list>")) {
			if (have_start) {
				r->l = grow(r->l, r->nl, sizeof(*r->l));
				r->l[r->nl++] = (struct rlist){ start, first, r->ne - first };
			}
			have_start = pending = false;
			continue;
		}
		if (strstr(line, "(base address)")) {
			if (!have_start && sscanf(line, " %" SCNx64, &off) == 1)
				start = off, first = r->ne, have_start = true;
			continue;
		}
		if (sscanf(line, " %" SCNx64 " v%" SCNx64 " v%" SCNx64 " views at", &off, &a, &b) == 3 &&
		    strstr(line, "views at")) {
			if (!have_start)
				start = off, first = r->ne, have_start = true;
			pe = (struct rentry){ .bv = a, .ev = b, .views = true };
			pending = true;
			continue;
		}
		if (pending && sscanf(line, " %" SCNx64 " %" SCNx64 " (", &a, &b) == 2) {
			pe.b = a;
			pe.e = b;
			r->e = grow(r->e, r->ne, sizeof(*r->e));
			r->e[r->ne++] = pe;
			pending = false;
			continue;
		}
		/* an entry without views: "off begin end (expr)" */
		if (sscanf(line, " %" SCNx64 " %" SCNx64 " %" SCNx64 " (", &off, &a, &b) == 3 &&
		    strchr(line, '(')) {
			if (!have_start)
				start = off, first = r->ne, have_start = true;
			r->e = grow(r->e, r->ne, sizeof(*r->e));
			r->e[r->ne++] = (struct rentry){ .b = a, .e = b };
		}
	}
	free(line);
	rc = pclose(f);
	return rc == 0 && r->nl ? 0 : -1;
}

static const struct rlist *rlist_at(const struct rdump *r, uint64_t off)
{
	for (uint32_t i = 0; i < r->nl; i++)
		if (r->l[i].off == off)
			return &r->l[i];
	return NULL;
}

/* (addr, view) a <= b */
static bool le(uint64_t a, uint64_t av, uint64_t b, uint64_t bv)
{
	return a < b || (a == b && av <= bv);
}

/* The entry readelf's view ranges give at (addr, view), -1 if none. */
static int want_entry(const struct rdump *r, const struct rlist *l, uint64_t addr, uint64_t view)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const struct rentry *e = &r->e[l->first + i];

		if (le(e->b, e->bv, addr, view) && !le(e->e, e->ev, addr, view))
			return i;
	}
	return -1;
}

/* The entry by address alone (what a lookup without views returns). */
static int addr_entry(const struct rdump *r, const struct rlist *l, uint64_t addr)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (r->e[l->first + i].b <= addr && addr < r->e[l->first + i].e)
			return i;
	return -1;
}

/* What btfi_loc_next_view() must pick, from readelf's entries: with the
 * probe's view, the earliest view after it that an entry starts at addr
 * with; without (where no entry holds addr by address), an entry ending
 * at addr that holds its first views, else the earliest empty [addr,
 * addr) between two views. -1 if none. */
static int want_next(const struct rdump *r, const struct rlist *l, uint64_t addr, bool has_view,
		     uint64_t view)
{
	int best = -1;
	uint64_t bestkey = 0;

	for (uint32_t i = 0; i < l->n; i++) {
		const struct rentry *e = &r->e[l->first + i];
		uint64_t key;

		if (has_view) {
			if (e->b != addr || e->bv <= view || (e->e == e->b && e->ev <= e->bv))
				continue;
			key = e->bv;
		} else if (e->b < addr && e->e == addr && e->ev > 0) {
			key = 0;
		} else if (e->b == addr && e->e == addr && e->bv < e->ev) {
			key = e->bv;
		} else {
			continue;
		}
		if (best < 0 || key < bestkey) {
			best = i;
			bestkey = key;
		}
	}
	return best;
}

static uint32_t nnext_points;

/* Index in libdw's enumeration of the list entry whose ops these are. */
static int entry_of(Dwarf_Attribute *loc, Dwarf_Op *ops, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr base, s, e;
	Dwarf_Op *eops;
	size_t neops;
	ptrdiff_t off = 0;
	int i = 0;

	while ((off = dwarf_getlocations(loc, off, &base, &s, &e, &eops, &neops)) > 0) {
		if (eops == ops) {
			*start = s;
			*end = e;
			return i;
		}
		i++;
	}
	return -1;
}

struct die_ref {
	Dwarf_Die die;
	uint64_t listoff;
	int version, offset_size;
};

struct file_ctx {
	const char *path;
	const struct rdump *r;
	struct btfi_locview_secs secs;
	bool want_views;
	struct die_ref *dies;
	uint32_t ndies;
	/* counts */
	uint32_t nviews, nnoviews, npoints, nhit, nnone, nviewdep, nentry_points;
};

/* One (addr, view) point of one DIE's list. */
static void probe(struct file_ctx *fc, Dwarf_Die *die, const struct rlist *l, uint64_t addr,
		  uint64_t view, const char *what)
{
	Dwarf_Attribute loc;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	uint64_t s = 0, e = 0;
	int want = want_entry(fc->r, l, addr, view), n, got;

	dwarf_attr(die, DW_AT_location, &loc);
	n = btfi_loc_at_view(&fc->secs, die, &loc, addr, view, &ops, &nops, NULL);
	fc->npoints++;
	/* no entry there: the later view's, as readelf gives it; by address
	 * alone (no probe view) where no entry holds addr */
	for (int hv = 0; hv < 2; hv++) {
		Dwarf_Op *nops_ = NULL;
		size_t nnops = 0;
		uint64_t ns, ne;
		int wn, gn, nn;

		if (hv ? want >= 0 : addr_entry(fc->r, l, addr) >= 0)
			continue;
		wn = want_next(fc->r, l, addr, hv, view);
		nn = btfi_loc_next_view(&fc->secs, die, &loc, addr, hv, view, &nops_, &nnops);
		gn = nn == 1 ? entry_of(&loc, nops_, &ns, &ne) : -1;
		nnext_points += wn >= 0;
		CHECK(nn == (wn >= 0) && gn == wn, "%s: DIE 0x%" PRIx64 " list 0x%" PRIx64 " at 0x%"
		      PRIx64 " view %" PRIu64 " (%s, %s): next view returned %d, entry %d, readelf's %d",
		      fc->path, (uint64_t)dwarf_dieoffset(die), l->off, addr, view, what,
		      hv ? "with its view" : "no view", nn, gn, wn);
	}
	if (want < 0) {
		fc->nnone++;
		CHECK(n == 0, "%s: DIE 0x%" PRIx64 " list 0x%" PRIx64 " at 0x%" PRIx64 " view %" PRIu64
		      " (%s): returned %d, readelf has no entry there", fc->path,
		      (uint64_t)dwarf_dieoffset(die), l->off, addr, view, what, n);
		return;
	}
	fc->nhit++;
	if (want != addr_entry(fc->r, l, addr))
		fc->nviewdep++;
	got = n == 1 ? entry_of(&loc, ops, &s, &e) : -1;
	CHECK(n == 1 && got == want, "%s: DIE 0x%" PRIx64 " list 0x%" PRIx64 " at 0x%" PRIx64
	      " view %" PRIu64 " (%s): returned %d, entry %d, readelf's entry %d [0x%" PRIx64
	      " v%" PRIu64 ", 0x%" PRIx64 " v%" PRIu64 ")", fc->path,
	      (uint64_t)dwarf_dieoffset(die), l->off, addr, view, what, n, got, want,
	      fc->r->e[l->first + want].b, fc->r->e[l->first + want].bv,
	      fc->r->e[l->first + want].e, fc->r->e[l->first + want].ev);
	if (got == want)
		CHECK(s == fc->r->e[l->first + want].b && e == fc->r->e[l->first + want].e,
		      "%s: entry %d is [0x%" PRIx64 ", 0x%" PRIx64 ") in libdw", fc->path, got, s, e);
}

/* A DIE with a location list: check it against readelf's list. */
static void one_die(struct file_ctx *fc, Dwarf_Die *die, int version, int offset_size)
{
	Dwarf_Attribute loc, lv;
	Dwarf_Word listoff;
	Dwarf_Addr base, s, e;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t off = 0;
	const struct rlist *l;
	uint32_t i = 0;
	bool same = true;

	if (!dwarf_attr(die, DW_AT_location, &loc) || dwarf_whatform(&loc) == DW_FORM_exprloc ||
	    dwarf_formudata(&loc, &listoff))
		return;
	if (!dwarf_attr(die, DW_AT_GNU_locviews, &lv)) {
		fc->nnoviews++;
		CHECK(!fc->want_views, "%s: DIE 0x%" PRIx64 ": GCC list without views", fc->path,
		      (uint64_t)dwarf_dieoffset(die));
		CHECK(btfi_loc_at_view(&fc->secs, die, &loc, 0, 0, &ops, &nops, NULL) == -1,
		      "%s: DIE 0x%" PRIx64 " has no views attribute: not refused", fc->path,
		      (uint64_t)dwarf_dieoffset(die));
		return;
	}
	fc->nviews++;
	CHECK(fc->want_views, "%s: DIE 0x%" PRIx64 ": views in a clang file?", fc->path,
	      (uint64_t)dwarf_dieoffset(die));
	l = rlist_at(fc->r, listoff);
	if (!CHECK(l, "%s: DIE 0x%" PRIx64 ": readelf has no list at 0x%" PRIx64, fc->path,
		   (uint64_t)dwarf_dieoffset(die), (uint64_t)listoff))
		return;
	/* readelf and libdw must see the same entries, in order. */
	while ((off = dwarf_getlocations(&loc, off, &base, &s, &e, &ops, &nops)) > 0) {
		same = same && i < l->n && fc->r->e[l->first + i].b == s && fc->r->e[l->first + i].e == e;
		i++;
	}
	if (!CHECK(same && i == l->n && off == 0, "%s: list 0x%" PRIx64 ": libdw has %u entries, "
		   "readelf %u, or their ranges differ", fc->path, l->off, i, l->n))
		return;
	for (i = 0; i < l->n; i++) {
		const struct rentry *re = &fc->r->e[l->first + i];

		if (!CHECK(re->views, "%s: list 0x%" PRIx64 " entry %u: readelf shows no views",
			   fc->path, l->off, i))
			return;
		probe(fc, die, l, re->b, re->bv, "begin");
		probe(fc, die, l, re->b, re->bv + 1, "begin, next view");
		probe(fc, die, l, re->b, 0, "begin, view 0");
		probe(fc, die, l, re->e, re->ev, "end");
		if (re->ev)
			probe(fc, die, l, re->e, re->ev - 1, "end, view before");
		if (re->e > re->b) {
			probe(fc, die, l, re->b + (re->e - re->b) / 2, 0, "middle");
			probe(fc, die, l, re->e - 1, 0, "last byte");
		}
	}
	fc->dies = grow(fc->dies, fc->ndies, sizeof(*fc->dies));
	fc->dies[fc->ndies++] = (struct die_ref){ *die, listoff, version, offset_size };
}

/* An inline instance: its parameters at its entry (pc, view). */
static void one_instance(struct file_ctx *fc, Dwarf_Die *inst)
{
	Dwarf_Attribute a;
	Dwarf_Word view;
	Dwarf_Addr pc;
	Dwarf_Die c;

	if (dwarf_formudata(dwarf_attr(inst, DW_AT_GNU_entry_view, &a), &view) ||
	    dwarf_entrypc(inst, &pc) || dwarf_child(inst, &c))
		return;
	do {
		Dwarf_Attribute loc;
		Dwarf_Word listoff;
		const struct rlist *l;

		if (dwarf_tag(&c) != DW_TAG_formal_parameter || !dwarf_hasattr(&c, DW_AT_GNU_locviews) ||
		    !dwarf_attr(&c, DW_AT_location, &loc) || dwarf_formudata(&loc, &listoff) ||
		    !(l = rlist_at(fc->r, listoff)))
			continue;
		probe(fc, &c, l, pc, view, "inline entry");
		fc->nentry_points++;
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void walk(struct file_ctx *fc, Dwarf_Die *die, int version, int offset_size)
{
	Dwarf_Die c;

	if (dwarf_child(die, &c))
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable)
			one_die(fc, &c, version, offset_size);
		if (tag == DW_TAG_inlined_subroutine && fc->want_views)
			one_instance(fc, &c);
		walk(fc, &c, version, offset_size);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static const Elf_Data *section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Views that are not this list's, and no list section: refused. */
static void negatives(struct file_ctx *fc)
{
	uint32_t nmixed = 0;

	for (uint32_t i = 0; i + 1 < fc->ndies; i++) {
		struct die_ref *x = &fc->dies[i], *y = &fc->dies[i + 1];
		Dwarf_Attribute ly, lx;
		Dwarf_Op *ops;
		size_t nops;

		if (x->listoff == y->listoff || x->version != y->version)
			continue;
		dwarf_attr(&y->die, DW_AT_location, &ly);
		dwarf_attr(&x->die, DW_AT_location, &lx);
		/* x's views with y's list (later) and y's with x's (earlier) */
		CHECK(btfi_loc_at_view(&fc->secs, &x->die, &ly, 0, 0, &ops, &nops, NULL) == -1,
		      "%s: views of DIE 0x%" PRIx64 " accepted for list 0x%" PRIx64, fc->path,
		      (uint64_t)dwarf_dieoffset(&x->die), y->listoff);
		CHECK(btfi_loc_at_view(&fc->secs, &y->die, &lx, 0, 0, &ops, &nops, NULL) == -1,
		      "%s: views of DIE 0x%" PRIx64 " accepted for list 0x%" PRIx64, fc->path,
		      (uint64_t)dwarf_dieoffset(&y->die), x->listoff);
		nmixed += 2;
	}
	CHECK(nmixed > 0, "%s: no two lists to mix", fc->path);
	if (fc->ndies) {
		struct btfi_locview_secs none = { NULL, NULL, fc->dies[0].version, 4 };
		Dwarf_Attribute loc;
		Dwarf_Op *ops;
		size_t nops;

		dwarf_attr(&fc->dies[0].die, DW_AT_location, &loc);
		CHECK(btfi_loc_at_view(&none, &fc->dies[0].die, &loc, 0, 0, &ops, &nops, NULL) == -1,
		      "%s: no list section: not refused", fc->path);
	}
	printf("  %u mixed (views, list) pairs refused\n", nmixed);
}

static void one(const char *path)
{
	struct rdump r = {};
	struct file_ctx fc = { .path = path };
	Dwarf_CU *cu = NULL;
	Dwarf *dw;
	int fd;

	fc.want_views = strstr(path, "-gcc-") != NULL;
	printf("%s (%s)\n", path, fc.want_views ? "views" : "no views");
	if (!CHECK(readelf_loc(path, &r) == 0, "%s: readelf --debug-dump=loc failed or shows no list",
		   path))
		goto out_r;
	fc.r = &r;
	fd = open(path, O_RDONLY);
	dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	if (!CHECK(dw, "%s: cannot open: %s", path, dwarf_errmsg(-1)))
		goto out_fd;
	fc.secs.loclists = section(dwarf_getelf(dw), ".debug_loclists");
	fc.secs.loc = section(dwarf_getelf(dw), ".debug_loc");
	for (;;) {
		Dwarf_CU *next;
		Dwarf_Half version;
		uint8_t unit_type, offset_size = 4;
		Dwarf_Die cudie;

		if (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, NULL))
			break;
		cu = next;
		dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, NULL, &offset_size);
		fc.secs.cu_version = version;
		fc.secs.offset_size = offset_size;
		walk(&fc, &cudie, version, offset_size);
	}
	printf("  %u lists with views, %u without; %u points: %u in an entry (%u where views "
	       "change the entry), %u in none; %u inline-entry points\n", fc.nviews, fc.nnoviews,
	       fc.npoints, fc.nhit, fc.nviewdep, fc.nnone, fc.nentry_points);
	if (fc.want_views) {
		CHECK(fc.nviews > 0 && fc.nviewdep > 0 && fc.nentry_points > 0,
		      "%s: nothing that depends on views was tested", path);
		negatives(&fc);
	} else {
		CHECK(fc.nviews == 0 && fc.nnoviews > 0, "%s: no list without views to refuse", path);
	}
	dwarf_end(dw);
out_fd:
	if (fd >= 0)
		close(fd);
out_r:
	free(fc.dies);
	free(r.e);
	free(r.l);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FIXTURES") ?: "build/fixtures";
	int n = 0;

	for (int i = 1; i < argc; i++, n++)
		one(argv[i]);
	if (argc == 1) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.' || strchr(e->d_name, '.') ||
			    (!strstr(e->d_name, "-gcc-") && !strstr(e->d_name, "-clang-")))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			one(path);
			n++;
		}
		if (d)
			closedir(d);
	}
	CHECK(n > 0, "no fixture in %s (make fixtures)", dir);
	/* the recover fixture's sub_and_test: its i only at a later view */
	CHECK(argc > 1 || nnext_points > 0, "no point where a later view was tested");
	printf("%u points where only another view has an entry: as readelf's\n", nnext_points);
	return check_done();
}
