// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sites on a branch (docs/FORMAT.md, "Sites on a branch"): condition code
 * names and their evaluation on EFLAGS, the LOCSEC names the writer gives
 * them ("inline.text:ne") and what the reader makes of those (secno, its
 * condition, the section name without the suffix), the spec flags attach
 * stores and the entry logic leaving them out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "btfinline.h"
#include "btfinline.bpf.h"
#include "blob_fixture.h"
#include "attach/attach.h"
#include "names.h"
#include "check.h"

static char lastmsg[1024];
static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
}
static const struct btfi_log qlog = { .fn = logfn, .ctx = NULL };

enum { CC_O, CC_NO, CC_B, CC_AE, CC_E, CC_NE, CC_BE, CC_A, CC_S, CC_NS, CC_P, CC_NP,
       CC_L, CC_GE, CC_LE, CC_G };

static void test_names(void)
{
	static const char *const want[16] = {
		"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
	};

	for (uint32_t cc = 0; cc < 16; cc++) {
		const char *n = btfi_cc_str(cc);

		CHECK(n && !strcmp(n, want[cc]), "cc %u: %s, want %s", cc, n ? n : "NULL", want[cc]);
		CHECK(btfi_cc_parse(want[cc], strlen(want[cc])) == (int)cc, "parse %s", want[cc]);
	}
	CHECK(btfi_cc_str(16) == NULL, "cc 16 has no name");
	CHECK(btfi_cc_parse("nz", 2) == -EINVAL, "nz is not one of ours");
	CHECK(btfi_cc_parse("", 0) == -EINVAL, "empty");
	CHECK(btfi_cc_parse("ne", 1) == -EINVAL, "\"n\" (a prefix of ne) is no name");
	CHECK(btfi_cc_parse("gex", 2) == CC_GE, "length-bounded: \"ge\" of \"gex\"");
}

/* Expected value of each of the 16 codes on one EFLAGS value, as a
 * 16-character string of 0/1 in cc order (o no b ae e ne be a s ns p np l
 * ge le g), written out by hand from the Intel SDM's Jcc table. */
static void expect_flags(const char *what, uint64_t fl, const char *want)
{
	char got[17];

	for (uint32_t cc = 0; cc < 16; cc++)
		got[cc] = '0' + btfi_cc_holds(fl, cc);
	got[16] = 0;
	CHECK(!strcmp(got, want), "%s (eflags 0x%llx): %s, want %s", what, (unsigned long long)fl,
	      got, want);
}

static void test_eval(void)
{
	/*                                   o n b a e n b a s n p n l g l g
	 *                                     o   e   e e     s   p   e e   */
	expect_flags("none (IF, bit 1)", 0x202, "0101010101010101");
	expect_flags("ZF", 0x242,               "0101101001010110");
	expect_flags("ZF PF", 0x246,            "0101101001100110");
	expect_flags("CF", 0x203,               "0110011001010101");
	expect_flags("SF", 0x282,               "0101010110011010");
	expect_flags("SF OF", 0xa82,            "1001010110010101");
	expect_flags("OF", 0xa02,               "1001010101011010");
	expect_flags("PF", 0x206,               "0101010101100101");
	/* The ones the brief names, one by one. */
	CHECK(btfi_cc_holds(BTFI_EFL_ZF, CC_E) == 1 && btfi_cc_holds(BTFI_EFL_ZF, CC_NE) == 0,
	      "ZF: e holds, ne does not");
	CHECK(btfi_cc_holds(BTFI_EFL_SF, CC_L) == 1 && btfi_cc_holds(BTFI_EFL_SF, CC_GE) == 0,
	      "SF != OF: l holds, ge does not");
	CHECK(btfi_cc_holds(BTFI_EFL_OF, CC_L) == 1 && btfi_cc_holds(BTFI_EFL_OF | BTFI_EFL_SF, CC_L) == 0,
	      "OF alone: l; SF = OF: not l");
	CHECK(btfi_cc_holds(BTFI_EFL_ZF, CC_LE) == 1 && btfi_cc_holds(BTFI_EFL_ZF, CC_G) == 0,
	      "ZF: le, not g");
	CHECK(btfi_cc_holds(0, CC_G) == 1 && btfi_cc_holds(0, CC_A) == 1 && btfi_cc_holds(0, CC_AE) == 1,
	      "no flags: g, a, ae");
	/* Bits above 11 (and the cc's high bits) change nothing. */
	CHECK(btfi_cc_holds(0xffffffff00000000ull | BTFI_EFL_ZF, CC_E) == 1 &&
	      btfi_cc_holds(BTFI_EFL_ZF, 0x10 | CC_NE) == 0, "other bits ignored");
}

static void test_spec_flags(void)
{
	struct btfi_attach_site s = { .cond = 1 + CC_NE };
	struct btfi_site_list l = { 0 };
	struct btfi_attach_site *a, *b;

	CHECK(btfi_spec_flags(&s, false) == (BTFI_SPEC_COND | CC_NE << 8), "user ne: 0x%x",
	      btfi_spec_flags(&s, false));
	CHECK(btfi_spec_flags(&s, false) == 0x502, "0x502 on the wire");
	CHECK(btfi_spec_flags(&s, true) == (BTFI_SPEC_KERNEL | BTFI_SPEC_COND | CC_NE << 8), "kernel ne");
	CHECK(BTFI_SPEC_CC(btfi_spec_flags(&s, true)) == CC_NE, "BTFI_SPEC_CC");
	s.cond = 1 + CC_O;	/* cc 0: the flag, not the code, says "conditional" */
	CHECK(btfi_spec_flags(&s, false) == BTFI_SPEC_COND && BTFI_SPEC_CC(BTFI_SPEC_COND) == CC_O, "o");
	s.cond = 1 + CC_G;
	CHECK(btfi_spec_flags(&s, false) == (BTFI_SPEC_COND | 0xf00), "g");
	s.cond = 0;
	CHECK(btfi_spec_flags(&s, false) == 0 && btfi_spec_flags(&s, true) == BTFI_SPEC_KERNEL, "plain");

	/* An out-of-line entry at an address with a site on a branch and a
	 * plain site: the plain one becomes the entry, the branch never. */
	a = btfi_site_list_add(&l);
	a->vaddr = 0x1000;
	a->cond = 1 + CC_E;
	CHECK(btfi_site_list_entry(&l, 0, 0x1000, "f (entry)") == NULL, "branch site is no entry");
	CHECK(!l.sites[0].entry, "branch site not marked");
	b = btfi_site_list_add(&l);
	b->vaddr = 0x1000;
	a = &l.sites[0];
	CHECK(btfi_site_list_entry(&l, 0, 0x1000, "f (entry)") == &l.sites[1], "plain site is the entry");
	CHECK(l.sites[1].entry && !l.sites[0].entry, "only the plain one marked");
	btfi_site_list_free(&l);
}

/* The LOCSEC records of a blob, in order: their names and vlens. */
static int locsec_names(const struct btfinline *bi, char names[][64], uint32_t *vlens, int max)
{
	int n = 0;

	for (uint32_t id = btfinline__start_id(bi);; id++) {
		const struct btf_type *t = btfinline__type_by_id(bi, id);

		if (!t)
			break;
		if ((t->info >> 24 & 0x7f) != BTFI_KIND_LOCSEC || n == max)
			continue;
		snprintf(names[n], 64, "%s", btfinline__name_by_offset(bi, t->name_off));
		vlens[n++] = t->info & 0xffffff;
	}
	return n;
}

static int secno_of(const struct btfinline *bi, const char *sec, int cond)
{
	for (uint32_t k = 0; k < btfinline__nsecs(bi); k++)
		if (!strcmp(btfinline__sec_name(bi, k), sec) && btfinline__sec_cond(bi, k) == cond)
			return k;
	return -1;
}

static void test_roundtrip(struct btf *base)
{
	struct btfi_writer *w;
	struct btfinline *bi = NULL;
	const struct btfinline_site *s, *at[8];
	char names[8][64];
	uint32_t vlens[8];
	struct btfi_loc locs[8];
	void *blob = NULL;
	size_t sz = 0, n;
	int h[6], p1, p2, err, nl, sno, sne, se, sun, sfoo;

	err = btfi_writer_new(base, &qlog, &w);
	CHECK(!err, "writer %d", err);
	if (err)
		return;
	for (int i = 0; i < 6; i++)
		h[i] = btfi_writer_loc_param(w, &fx_locs[i]);
	p1 = btfi_writer_loc_proto(w, h, 5);
	p2 = btfi_writer_loc_proto(w, (int[]){ h[5], -1, h[0], h[0], h[4] }, 5);
	/* Out of order on purpose: a branch site first, the plain one later,
	 * conditions in decreasing order, a second section last. */
	err = btfi_writer_cond_site(w, ".text", 1 + CC_NE, 3, p2, 0x30);
	err = err ?: btfi_writer_cond_site(w, ".text.unlikely", 1 + CC_NE, 3, p1, 0x8);
	err = err ?: btfi_writer_site(w, ".text", 3, p1, 0x10);
	err = err ?: btfi_writer_cond_site(w, ".text", 1 + CC_E, 3, p1, 0x40);
	err = err ?: btfi_writer_cond_site(w, ".text", 1 + CC_NE, 3, p1, 0x20);
	/* Not a condition: part of the section name. */
	err = err ?: btfi_writer_cond_site(w, ".text:foo", 0, 3, p1, 0x4);
	CHECK(btfi_writer_cond_site(w, ".text", 17, 3, p1, 0x4) == -EINVAL, "cond 17 refused");
	err = err ?: btfi_writer_finish(w, &blob, &sz);
	btfi_writer_free(w);
	CHECK(!err, "write %d", err);
	if (err)
		goto out;
	err = btfinline__open_mem(blob, sz, base, &qlog, &bi);
	CHECK(!err, "open_mem: %d %s", err, lastmsg);
	if (err)
		goto out;

	/* LOCSEC names and order: by section's first use, plain first, then
	 * by condition code (e = 4 before ne = 5). */
	nl = locsec_names(bi, names, vlens, 8);
	CHECK(nl == 5, "%d LOCSECs", nl);
	if (nl == 5) {
		CHECK(!strcmp(names[0], "inline.text") && vlens[0] == 1, "[0] %s/%u", names[0], vlens[0]);
		CHECK(!strcmp(names[1], "inline.text:e") && vlens[1] == 1, "[1] %s/%u", names[1], vlens[1]);
		CHECK(!strcmp(names[2], "inline.text:ne") && vlens[2] == 2, "[2] %s/%u", names[2], vlens[2]);
		CHECK(!strcmp(names[3], "inline.text.unlikely:ne") && vlens[3] == 1, "[3] %s/%u", names[3], vlens[3]);
		CHECK(!strcmp(names[4], "inline.text:foo") && vlens[4] == 1, "[4] %s/%u", names[4], vlens[4]);
	}

	/* One secno per (section, condition), named without the suffix. */
	CHECK(btfinline__nsecs(bi) == 5, "nsecs %u", btfinline__nsecs(bi));
	sno = secno_of(bi, ".text", 0);
	se = secno_of(bi, ".text", 1 + CC_E);
	sne = secno_of(bi, ".text", 1 + CC_NE);
	sun = secno_of(bi, ".text.unlikely", 1 + CC_NE);
	sfoo = secno_of(bi, ".text:foo", 0);
	CHECK(sno == 0 && se == 1 && sne == 2 && sun == 3 && sfoo == 4, "secnos %d %d %d %d %d",
	      sno, se, sne, sun, sfoo);
	CHECK(btfinline__sec_cond(bi, 5) == -ENOENT && btfinline__sec_name(bi, 5) == NULL, "out of range");
	CHECK(btfinline__sec_addr(bi, 2, &(uint64_t){ 0 }) == -ENOENT, "raw blob: no address");

	/* func_sites(): before the full list (binary search of each LOCSEC)
	 * and after (the sorted list): (secno, offset) order, same sites. */
	for (int pass = 0; pass < 2; pass++) {
		static const uint32_t want_sec[6] = { 0, 1, 2, 2, 3, 4 };
		static const uint32_t want_off[6] = { 0x10, 0x40, 0x20, 0x30, 0x8, 0x4 };

		if (pass)
			btfinline__sites(bi, &n);
		n = btfinline__func_sites(bi, "foo", &s);
		CHECK(n == 6, "pass %d: foo has %zu sites", pass, n);
		for (size_t i = 0; i < n && i < 6; i++)
			CHECK(s[i].secno == want_sec[i] && s[i].offset == want_off[i] && s[i].func_id == 3,
			      "pass %d: site %zu at %u+0x%x, want %u+0x%x", pass, i, s[i].secno, s[i].offset,
			      want_sec[i], want_off[i]);
	}

	/* sites_at(): the scan (first 8 queries), then the index. */
	for (int q = 0; q < 10; q++) {
		n = btfinline__sites_at(bi, sne, 0x30, at, 8);
		CHECK(n == 1 && at[0]->secno == (uint32_t)sne && at[0]->offset == 0x30, "q%d: ne 0x30: %zu", q, n);
		if (n == 1) {
			int k = btfinline__site_locs(bi, at[0], locs, 8);

			/* p2: loc 5 (*(s32 *)(fb-0x20)), none, rdx, ... */
			CHECK(k == 5 && locs[0].kind == BTFI_LOC_KMEM && locs[0].off == -0x20 &&
			      locs[1].kind == BTFI_LOC_NONE && locs[2].kind == BTFI_LOC_KREG && locs[2].reg == 1,
			      "q%d: locations of the branch site", q);
		}
		CHECK(btfinline__sites_at(bi, sno, 0x30, at, 8) == 0, "q%d: nothing plain at 0x30", q);
		CHECK(btfinline__sites_at(bi, se, 0x40, at, 8) == 1, "q%d: e 0x40", q);
		CHECK(btfinline__sites_at(bi, sun, 0x8, at, 8) == 1, "q%d: .text.unlikely:ne 0x8", q);
	}
out:
	btfinline__free(bi);
	free(blob);
}

/* Blobs without branch sites are as before: the writer's one section,
 * named "inline.text", and no condition. */
static void test_plain(struct btf *base)
{
	struct btfinline *bi = NULL;
	void *blob = NULL;
	size_t sz = 0;
	char names[2][64];
	uint32_t vlens[2];
	int err = fx_blob(base, &blob, &sz);

	CHECK(!err, "fx_blob %d", err);
	if (!err)
		err = btfinline__open_mem(blob, sz, base, &qlog, &bi);
	CHECK(!err, "open %d %s", err, lastmsg);
	if (!err) {
		CHECK(locsec_names(bi, names, vlens, 2) == 1 && !strcmp(names[0], "inline.text"), "name");
		CHECK(btfinline__nsecs(bi) == 1 && btfinline__sec_cond(bi, 0) == 0 &&
		      !strcmp(btfinline__sec_name(bi, 0), ".text"), "plain secno");
	}
	btfinline__free(bi);
	free(blob);
}

int main(void)
{
	struct btf *base = fx_base("foo");

	test_names();
	test_eval();
	test_spec_flags();
	test_roundtrip(base);
	test_plain(base);
	btf__free(base);
	return check_done();
}
