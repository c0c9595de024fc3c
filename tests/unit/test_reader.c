// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reader/writer unit test: the upstream-selftest-shaped blob has the exact
 * bytes docs/FORMAT.md describes and decodes back to the same locations;
 * each kind of broken blob is rejected with a message naming the problem.
 * With BTFI_WRITE_CORPUS=DIR, also writes the broken blobs there (that is
 * how tests/fuzz/corpus/ was made).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "btfinline.h"
#include "blob_fixture.h"
#include "log.h"
#include "check.h"

static char lastmsg[1024];
static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
}
static const struct btfi_log qlog = { .fn = logfn, .ctx = NULL };

static uint32_t w32(const void *blob, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)blob + off, 4);
	return v;
}

static void p32(void *blob, size_t off, uint32_t v)
{
	memcpy((char *)blob + off, &v, 4);
}

static bool loc_eq(const struct btfi_loc *a, const struct btfi_loc *b)
{
	if (a->kind != b->kind || a->size != b->size || !!a->is_signed != !!b->is_signed)
		return false;
	switch (a->kind) {
	case BTFI_LOC_KREG: return a->reg == b->reg;
	case BTFI_LOC_KREG_PAIR: return a->reg == b->reg && a->reg2 == b->reg2;
	case BTFI_LOC_KREG_OFF: case BTFI_LOC_KMEM: return a->reg == b->reg && a->off == b->off;
	case BTFI_LOC_KCONST: case BTFI_LOC_KADDR: return a->cval == b->cval;
	default: return true;
	}
}

/* Offsets in the fixture blob (see docs/FORMAT.md, "worked example"). */
enum {
	HDR = 32,
	T_PARAM0 = HDR,			/* [4] REG vlen 1: 20 bytes */
	T_PARAM1 = T_PARAM0 + 20,	/* [5] REG|DEREF|OFFSET: 24 */
	T_PARAM2 = T_PARAM1 + 24,	/* [6] REG|OFFSET */
	T_PARAM3 = T_PARAM2 + 24,	/* [7] ADDR|CONST */
	T_PARAM4 = T_PARAM3 + 24,	/* [8] CONST */
	T_PARAM5 = T_PARAM4 + 24,	/* [9] SIGNED|REG|DEREF|OFFSET */
	T_PROTO0 = T_PARAM5 + 24,	/* [10] */
	T_PROTO1 = T_PROTO0 + 32,	/* [11] */
	T_LOCSEC = T_PROTO1 + 32,	/* [12] */
	T_END = T_LOCSEC + 12 + 24,
	LAYOUT = T_END,			/* libbpf's order: types | layout | strings */
	STRS = LAYOUT + 23 * 4,		/* "inline.text\0" */
	TOTAL = STRS + 12,
};

static void test_bytes(const uint8_t *b, size_t sz)
{
	CHECK(sz == TOTAL, "size %zu, want %d", sz, TOTAL);
	if (sz != TOTAL)
		return;
	CHECK(w32(b, 0) == (0xeB9F | 1u << 16), "magic/version/flags 0x%x", w32(b, 0));
	CHECK(w32(b, 4) == 32, "hdr_len %u", w32(b, 4));
	CHECK(w32(b, 8) == 0 && w32(b, 12) == T_END - HDR, "type %u+%u", w32(b, 8), w32(b, 12));
	CHECK(w32(b, 16) == STRS - HDR && w32(b, 20) == 12, "str %u+%u", w32(b, 16), w32(b, 20));
	CHECK(w32(b, 24) == LAYOUT - HDR && w32(b, 28) == 92, "layout %u+%u", w32(b, 24), w32(b, 28));
	/* [4] LOC_PARAM reg 1, int: name 0, info kind 20 vlen 1, size 4, flags SIGNED|REG */
	CHECK(w32(b, T_PARAM0) == 0 && w32(b, T_PARAM0 + 4) == (20u << 24 | 1), "p0 info 0x%x", w32(b, T_PARAM0 + 4));
	CHECK(w32(b, T_PARAM0 + 8) == 4 && w32(b, T_PARAM0 + 12) == 0x09 && w32(b, T_PARAM0 + 16) == 1, "p0 body");
	/* [5] reg2+0x10, 8 bytes: REG|DEREF|OFFSET = 0x38 */
	CHECK(w32(b, T_PARAM1 + 4) == (20u << 24 | 2) && w32(b, T_PARAM1 + 8) == 8, "p1 hdr");
	CHECK(w32(b, T_PARAM1 + 12) == 0x38 && w32(b, T_PARAM1 + 16) == 2 && w32(b, T_PARAM1 + 20) == 0x10, "p1 body");
	/* [6] fb-0x10 as address: REG|OFFSET = 0x28, FBREG, -16 */
	CHECK(w32(b, T_PARAM2 + 12) == 0x28 && w32(b, T_PARAM2 + 16) == 0xffffffff &&
	      w32(b, T_PARAM2 + 20) == 0xfffffff0, "p2 body 0x%x 0x%x 0x%x", w32(b, T_PARAM2 + 12),
	      w32(b, T_PARAM2 + 16), w32(b, T_PARAM2 + 20));
	/* [7] constant address: ADDR|CONST = 0x6, {lo, hi} */
	CHECK(w32(b, T_PARAM3 + 12) == 0x06 && w32(b, T_PARAM3 + 16) == 0x81234560 &&
	      w32(b, T_PARAM3 + 20) == 0xffffffff, "p3 body");
	/* [8] constant: CONST = 0x2 */
	CHECK(w32(b, T_PARAM4 + 12) == 0x02 && w32(b, T_PARAM4 + 16) == 0x90abcdef &&
	      w32(b, T_PARAM4 + 20) == 0x12345678, "p4 body");
	/* [9] *(int *)(fb-0x20): SIGNED|REG|DEREF|OFFSET = 0x39 */
	CHECK(w32(b, T_PARAM5 + 8) == 4 && w32(b, T_PARAM5 + 12) == 0x39 &&
	      w32(b, T_PARAM5 + 16) == 0xffffffff && w32(b, T_PARAM5 + 20) == 0xffffffe0, "p5 body");
	/* [10] LOC_PROTO {4,5,6,7,8}; [11] {9,0,4,4,8} */
	CHECK(w32(b, T_PROTO0 + 4) == (21u << 24 | 5), "proto0 info");
	for (int i = 0; i < 5; i++) {
		uint32_t want1 = fx_site2[i] < 0 ? 0 : 4 + fx_site2[i];

		CHECK(w32(b, T_PROTO0 + 12 + 4 * i) == 4u + i, "proto0[%d] = %u", i, w32(b, T_PROTO0 + 12 + 4 * i));
		CHECK(w32(b, T_PROTO1 + 12 + 4 * i) == want1, "proto1[%d] = %u", i, w32(b, T_PROTO1 + 12 + 4 * i));
	}
	/* [12] LOCSEC "inline.text" (name_off = base str_len 19), 2 sites sorted */
	CHECK(w32(b, T_LOCSEC) == 19 && w32(b, T_LOCSEC + 4) == (22u << 24 | 2), "locsec hdr");
	CHECK(w32(b, T_LOCSEC + 12) == 3 && w32(b, T_LOCSEC + 16) == 10 && w32(b, T_LOCSEC + 20) == 0x10, "site 0");
	CHECK(w32(b, T_LOCSEC + 24) == 3 && w32(b, T_LOCSEC + 28) == 11 && w32(b, T_LOCSEC + 32) == 0x20, "site 1");
	CHECK(!memcmp(b + STRS, "inline.text", 12), "strings");
	/* layout: LOC_PARAM {4,4}, LOC_PROTO {0,4}, LOCSEC {0,12}, FUNC_PROTO {0,8} */
	CHECK(w32(b, LAYOUT + 4 * 20) == 0x0404 && w32(b, LAYOUT + 4 * 21) == 0x0400 &&
	      w32(b, LAYOUT + 4 * 22) == 0x0c00 && w32(b, LAYOUT + 4 * 13) == 0x0800, "layout");
}

static void test_decode(const void *blob, size_t sz, struct btf *base)
{
	struct btfinline *bi;
	const struct btfinline_site *s, *at[4];
	struct btfinline_sizes z;
	struct btfi_loc locs[8];
	size_t n;
	int err;

	err = btfinline__open_mem(blob, sz, base, &qlog, &bi);
	CHECK(!err, "open_mem: %d %s", err, lastmsg);
	if (err)
		return;
	n = btfinline__func_sites(bi, "foo", &s);
	CHECK(n == 2, "foo has %zu sites", n);
	CHECK(btfinline__func_sites(bi, "fo", &s) == 0 && btfinline__func_sites(bi, "zzz", &s) == 0, "no other");
	n = btfinline__func_sites(bi, "foo", &s);
	CHECK(btfinline__nsecs(bi) == 1 && !strcmp(btfinline__sec_name(bi, 0), ".text"), "sec");
	if (n == 2) {
		CHECK(s[0].func_id == 3 && s[0].offset == 0x10 && s[1].offset == 0x20, "site order");
		err = btfinline__site_locs(bi, &s[0], locs, 8);
		CHECK(err == 5, "site 0 has %d locs", err);
		for (int i = 0; i < 5; i++)
			CHECK(loc_eq(&locs[i], &fx_locs[i]), "site 0 loc %d kind %u", i, locs[i].kind);
		err = btfinline__site_locs(bi, &s[1], locs, 8);
		CHECK(err == 5, "site 1 has %d locs", err);
		for (int i = 0; i < 5; i++) {
			if (fx_site2[i] < 0)
				CHECK(locs[i].kind == BTFI_LOC_NONE && locs[i].reason == BTFI_R_UNKNOWN, "none");
			else
				CHECK(loc_eq(&locs[i], &fx_locs[fx_site2[i]]), "site 1 loc %d", i);
		}
		CHECK(btfinline__sites_at(bi, 0, 0x20, at, 4) == 1 && at[0]->offset == 0x20 &&
		      at[0]->func_id == 3 && at[0]->loc_proto_id == s[1].loc_proto_id, "sites_at 0x20");
		{
			size_t na;
			const struct btfinline_site *all = btfinline__sites(bi, &na);

			const struct btfinline_site *s2;

			CHECK(na == 2 && all[0].offset == 0x10 && all[1].offset == 0x20 &&
			      all[1].loc_proto_id == s[1].loc_proto_id, "all sites");
			/* now through the name-sorted list */
			CHECK(btfinline__func_sites(bi, "foo", &s2) == 2 && s2 == all &&
			      btfinline__func_sites(bi, "fo", &s2) == 0 &&
			      btfinline__func_sites(bi, "zzz", &s2) == 0, "func_sites via sorted list");
		}
		CHECK(btfinline__sites_at(bi, 0, 0x18, at, 4) == 0, "sites_at 0x18");
		/* The first queries scan the LOCSEC, later ones use the index
		 * by address: the same answers either way. */
		for (int q = 0; q < 12; q++) {
			uint32_t off = q % 3 == 0 ? 0x10 : q % 3 == 1 ? 0x20 : 0x18;

			n = btfinline__sites_at(bi, 0, off, at, 4);
			CHECK(off == 0x18 ? n == 0 : n == 1 && at[0]->offset == off && at[0]->func_id == 3 &&
			      at[0]->loc_proto_id == (off == 0x10 ? s[0].loc_proto_id : s[1].loc_proto_id),
			      "sites_at query %d (0x%x): %zu", q, off, n);
		}
		CHECK(btfinline__sites_at(bi, 0, 0x10, at, 0) == 0, "sites_at max 0");
	}
	btfinline__sizes(bi, &z);
	CHECK(z.total == TOTAL && z.nsites == 2 && z.nloc_param == 6 && z.nloc_proto == 2 &&
	      z.nlocsec == 1 && z.locsec == 36 && z.loc_param == 140 && z.loc_proto == 64 &&
	      z.strs == 12 && z.layout == 92 && z.hdr == 32 && z.nfunc == 0, "sizes");
	/* libbpf view: same ids, placeholders for new kinds */
	CHECK(btf__type_cnt(btfinline__btf(bi)) == 13, "type_cnt %u", btf__type_cnt(btfinline__btf(bi)));
	btfinline__free(bi);
}

struct broken {
	const char *name, *want;	/* corpus file name, expected message part */
};

static void expect_bad(const char *dir, const struct broken *k, const void *blob, size_t sz,
		       struct btf *base)
{
	struct btfinline *bi = NULL;
	int err;

	lastmsg[0] = 0;
	err = btfinline__open_mem(blob, sz, base, &qlog, &bi);
	CHECK(err < 0 && !bi, "%s: accepted", k->name);
	CHECK(strstr(lastmsg, k->want), "%s: message '%s' lacks '%s'", k->name, lastmsg, k->want);
	printf("%-22s -> %s\n", k->name, lastmsg);
	if (dir) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, k->name);
		f = fopen(path, "wb");
		if (f) {
			fwrite(blob, 1, sz, f);
			fclose(f);
		}
	}
	btfinline__free(bi);
}

static void test_broken(const uint8_t *good, size_t sz, struct btf *base)
{
	const char *dir = getenv("BTFI_WRITE_CORPUS");
	uint8_t *b = malloc(sz + 64);
	struct btf *other;
	void *ob;
	size_t osz;

#define RESET() memcpy(b, good, sz)
	RESET();
	expect_bad(dir, &(struct broken){ "truncated-header", "truncated header" }, b, 6, base);
	RESET(); p32(b, 4, sz + 4);
	expect_bad(dir, &(struct broken){ "hdr-len-past-end", "hdr_len" }, b, sz, base);
	RESET(); p32(b, 12, 0xfffffff0);
	expect_bad(dir, &(struct broken){ "type-len-overflow", "type section" }, b, sz, base);
	RESET(); p32(b, T_LOCSEC, 5000);
	expect_bad(dir, &(struct broken){ "string-offset-range", "name offset 5000 out of range" }, b, sz, base);
	RESET(); p32(b, T_LOCSEC + 12, 1);
	expect_bad(dir, &(struct broken){ "locsec-non-func", "not a FUNC" }, b, sz, base);
	RESET(); p32(b, T_LOCSEC + 4, 22u << 24 | 3);
	expect_bad(dir, &(struct broken){ "vlen-past-section", "runs past the type section" }, b, sz, base);
	RESET(); p32(b, T_PARAM0 + 4, 40u << 24 | 1); p32(b, 28, 0);
	expect_bad(dir, &(struct broken){ "unknown-kind-no-layout", "unknown kind 40 without layout" }, b, sz, base);
	RESET(); p32(b, T_PARAM1 + 12, 0x18);
	expect_bad(dir, &(struct broken){ "loc-param-bad-flags", "illegal flags 0x18" }, b, sz, base);
	RESET(); p32(b, T_LOCSEC + 20, 0x30);
	expect_bad(dir, &(struct broken){ "locsec-order", "order" }, b, sz, base);
	RESET(); p32(b, T_PROTO0 + 12, 11);
	expect_bad(dir, &(struct broken){ "loc-proto-bad-ref", "not a LOC_PARAM" }, b, sz, base);
	RESET(); p32(b, LAYOUT + 4 * 20, 0x0408);
	expect_bad(dir, &(struct broken){ "layout-disagrees", "layout for kind 20" }, b, sz, base);
	RESET(); b[sz - 1] = 'x';
	expect_bad(dir, &(struct broken){ "strings-unterminated", "NUL" }, b, sz, base);

	/* Base mismatch: a blob made for a base whose FUNC [3] has 2 params,
	 * read with the 5-param base. */
	other = btf__new_empty();
	btf__add_int(other, "int", 4, BTF_INT_SIGNED);
	btf__add_func_proto(other, 1);
	btf__add_func_param(other, "a", 1);
	btf__add_func_param(other, "b", 1);
	btf__add_func(other, "foo", BTF_FUNC_GLOBAL, 2);
	{
		struct btfi_writer *w;
		int h, p;

		btfi_writer_new(other, NULL, &w);
		h = btfi_writer_loc_param(w, &fx_locs[0]);
		p = btfi_writer_loc_proto(w, (int[]){ h, h }, 2);
		btfi_writer_site(w, ".text", 3, p, 0x10);
		if (!btfi_writer_finish(w, &ob, &osz)) {
			expect_bad(dir, &(struct broken){ "base-mismatch", "base mismatch" }, ob, osz, base);
			free(ob);
		}
		btfi_writer_free(w);
	}
	btf__free(other);
	/* A good blob is also kept in the corpus as the fuzzer's seed. */
	if (dir) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/good-selftest-shape", dir);
		if ((f = fopen(path, "wb"))) {
			fwrite(good, 1, sz, f);
			fclose(f);
		}
	}
	free(b);
}

/* A hand-made blob whose records refer ahead (FUNC -> later FUNC_PROTO,
 * LOC_PROTO -> later LOC_PARAMs), as another writer may order them: the
 * reader's checks while walking cannot decide those and check everything
 * again in order. The FUNC_PROTO ends in a vararg slot, which is not a
 * parameter: its LOC_PROTO has 2 slots. On the fixture base (strings
 * "\0int\0a\0b\0c\0d\0e\0foo\0": "a" at 5, "b" at 7, split strings at 19). */
static void test_forward(struct btf *base)
{
	static const uint32_t types[] = {
		/* [4] FUNC bar, global, -> [5] */
		19, 12u << 24 | 1, 5,
		/* [5] FUNC_PROTO int(int a, int b, ...) */
		0, 13u << 24 | 3, 1, 5, 1, 7, 1, 0, 0,
		/* [6] LOC_PROTO { [7], [8] } */
		0, 21u << 24 | 2, 0, 7, 8,
		/* [7] LOC_PARAM: 4 bytes in rdi */
		0, 20u << 24 | 1, 4, BTFI_LOC_REG, 5,
		/* [8] LOC_PARAM: constant 42 */
		0, 20u << 24 | 1, 4, BTFI_LOC_CONST, 42,
		/* [9] LOCSEC inline.text: bar at 0x40 */
		23, 22u << 24 | 1, 0, 4, 6, 0x40,
	};
	static const char strs[] = "bar\0inline.text";
	uint8_t b[32 + sizeof(types) + sizeof(strs)];
	uint32_t hdr[8] = { BTFI_MAGIC | 1u << 16, 32, 0, sizeof(types), sizeof(types), sizeof(strs), 0, 0 };
	const struct btfinline_site *s;
	struct btfinline *bi = NULL;
	struct btfi_loc locs[4];
	int err;

	memcpy(b, hdr, 32);
	memcpy(b + 32, types, sizeof(types));
	memcpy(b + 32 + sizeof(types), strs, sizeof(strs));
	err = btfinline__open_mem(b, sizeof(b), base, &qlog, &bi);
	CHECK(!err, "forward refs: open_mem %d %s", err, lastmsg);
	if (getenv("BTFI_WRITE_CORPUS")) {	/* a fuzzer seed for the second pass */
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/good-forward-refs", getenv("BTFI_WRITE_CORPUS"));
		if ((f = fopen(path, "wb"))) {
			fwrite(b, 1, sizeof(b), f);
			fclose(f);
		}
	}
	if (!err) {
		CHECK(btfinline__func_sites(bi, "bar", &s) == 1 && s[0].func_id == 4 &&
		      s[0].offset == 0x40 && s[0].loc_proto_id == 6, "forward refs: bar's site");
		err = btfinline__site_locs(bi, &s[0], locs, 4);
		CHECK(err == 2 && locs[0].kind == BTFI_LOC_KREG && locs[0].reg == 5 && locs[0].size == 4 &&
		      locs[1].kind == BTFI_LOC_KCONST && locs[1].cval == 42,
		      "forward refs: %d locs, kinds %u %u", err, locs[0].kind, locs[1].kind);
		CHECK(btfinline__func_sites(bi, "foo", &s) == 0, "forward refs: foo has no site");
	}
	btfinline__free(bi);
	/* The second pass names the bad record: FUNC_PROTO param name, the
	 * LOCSEC naming the FUNC_PROTO, a LOC_PROTO slot past the end. */
	memcpy(b + 32 + 4 * 6, &(uint32_t){ 5000 }, 4);
	expect_bad(NULL, &(struct broken){ "fwd-param-name", "type [5] FUNC_PROTO: param 0 bad name" }, b, sizeof(b), base);
	memcpy(b + 32 + 4 * 6, &(uint32_t){ 5 }, 4);
	memcpy(b + 32 + 4 * 30, &(uint32_t){ 5 }, 4);
	expect_bad(NULL, &(struct broken){ "fwd-site-func", "site 0: type 5 is not a FUNC" }, b, sizeof(b), base);
	memcpy(b + 32 + 4 * 30, &(uint32_t){ 4 }, 4);
	memcpy(b + 32 + 4 * 16, &(uint32_t){ 10 }, 4);
	expect_bad(NULL, &(struct broken){ "fwd-slot-range", "slot 1 names type 10" }, b, sizeof(b), base);
}

/* Section order: libbpf (btf_parse_hdr) requires types | layout | strings,
 * which the writer produces (test_bytes); the reader also opens the order
 * older writers used (layout after the strings, 4-byte aligned) and refuses
 * a layout that shares bytes with another section. */
static void test_order(const uint8_t *good, size_t sz, struct btf *base)
{
	const size_t nlay = STRS - LAYOUT, nstr = TOTAL - STRS, pad = (4 - nstr % 4) % 4;
	uint8_t *b = calloc(1, sz + 4);
	struct btfinline *bi = NULL;
	const struct btfinline_site *s;
	struct btfi_loc locs[8];
	int err;

	if (!b)
		return;
	memcpy(b, good, LAYOUT);
	memcpy(b + LAYOUT, good + STRS, nstr);
	memcpy(b + LAYOUT + nstr + pad, good + LAYOUT, nlay);
	p32(b, 16, LAYOUT - HDR);			/* str_off */
	p32(b, 24, LAYOUT - HDR + nstr + pad);		/* layout_off */
	err = btfinline__open_mem(b, sz + pad, base, &qlog, &bi);
	CHECK(!err, "old order (strings | layout): open_mem %d %s", err, lastmsg);
	if (!err) {
		CHECK(btfinline__func_sites(bi, "foo", &s) == 2 && s[0].offset == 0x10 &&
		      s[1].offset == 0x20, "old order: foo's sites");
		err = btfinline__site_locs(bi, &s[0], locs, 8);
		CHECK(err == 5 && loc_eq(&locs[0], &fx_locs[0]) && loc_eq(&locs[4], &fx_locs[4]),
		      "old order: site 0 locations (%d)", err);
	}
	btfinline__free(bi);
	/* LOCSEC named ".text" (the kernel selftest's form): the tail of
	 * "inline.text" in the string section. */
	memcpy(b, good, sz);
	p32(b, T_LOCSEC, 19 + 6);
	bi = NULL;
	err = btfinline__open_mem(b, sz, base, &qlog, &bi);
	CHECK(!err && btfinline__func_sites(bi, "foo", &s) == 2 &&
	      !strcmp(btfinline__sec_name(bi, s[0].secno), ".text"),
	      "LOCSEC named .text: %d %s", err, lastmsg);
	btfinline__free(bi);
	p32(b, T_LOCSEC, 19 + 7);	/* "text": neither form */
	expect_bad(NULL, &(struct broken){ "locsec-name-text", "is not \"inline<section>\"" }, b, sz, base);
	/* layout over the last type record, then over the strings */
	memcpy(b, good, sz);
	p32(b, 24, T_END - HDR - 4);
	expect_bad(NULL, &(struct broken){ "layout-over-types", "overlaps types or strings" }, b, sz, base);
	memcpy(b, good, sz);
	p32(b, 28, nlay + 4);
	expect_bad(NULL, &(struct broken){ "layout-over-strings", "overlaps types or strings" }, b, sz, base);
	free(b);
}

/* LOCSEC keys are strictly increasing: of entries with one (func, offset)
 * the first added stays, identical ones and other instances are counted. */
static void test_dup_sites(struct btf *base)
{
	struct btfi_writer *w;
	const struct btfinline_site *s;
	struct btfinline *bi = NULL;
	struct btfi_writer_counts cnt;
	int h0, h1, p0, p1, err;
	void *blob = NULL;
	size_t sz;

	if (btfi_writer_new(base, NULL, &w))
		return;
	h0 = btfi_writer_loc_param(w, &fx_locs[0]);
	h1 = btfi_writer_loc_param(w, &fx_locs[4]);
	p0 = btfi_writer_loc_proto(w, (int[]){ h0, h0, h0, h0, h0 }, 5);
	p1 = btfi_writer_loc_proto(w, (int[]){ h1, h1, h1, h1, h1 }, 5);
	err = btfi_writer_site(w, ".text", 3, p0, 0x30);
	err = err ?: btfi_writer_site(w, ".text", 3, p1, 0x10);
	err = err ?: btfi_writer_site(w, ".text", 3, p0, 0x30);	/* identical */
	err = err ?: btfi_writer_site(w, ".text", 3, p1, 0x30);	/* another instance */
	err = err ?: btfi_writer_site(w, ".text", 3, p1, 0x10);	/* identical */
	err = err ?: btfi_writer_finish(w, &blob, &sz);
	CHECK(!err, "dup sites: writer %d", err);
	btfi_writer_counts(w, &cnt);
	CHECK(cnt.ndup_same == 2 && cnt.ndup_other == 1, "dup sites: %u identical, %u other dropped",
	      cnt.ndup_same, cnt.ndup_other);
	btfi_writer_free(w);
	if (err)
		return;
	err = btfinline__open_mem(blob, sz, base, &qlog, &bi);
	CHECK(!err, "dup sites: open_mem %d %s", err, lastmsg);
	if (!err) {
		struct btfi_loc l[5];

		CHECK(btfinline__func_sites(bi, "foo", &s) == 2 && s[0].offset == 0x10 &&
		      s[1].offset == 0x30, "dup sites: two sites left");
		CHECK(btfinline__site_locs(bi, &s[1], l, 5) == 5 && loc_eq(&l[0], &fx_locs[0]),
		      "dup sites: 0x30 keeps the first instance's locations");
	}
	btfinline__free(bi);
	free(blob);
}

/* Opts from a newer caller: a longer struct opens only if its unknown tail
 * is zero (checked before the file is opened: -EINVAL, not -ENOENT). */
static void test_opts(void)
{
	struct { struct btfinline_open_opts o; uint64_t extra; } big;
	struct btfinline *bi = NULL;
	int err;

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.log = qlog;
	big.extra = 1;
	lastmsg[0] = 0;
	err = btfinline__open("/nonexistent/x", &big.o, &bi);
	CHECK(err == -EINVAL && strstr(lastmsg, "unknown non-zero field"), "opts tail: %d %s", err, lastmsg);
	big.extra = 0;
	err = btfinline__open("/nonexistent/x", &big.o, &bi);
	CHECK(err == -ENOENT, "opts zero tail: %d %s", err, lastmsg);
	big.o.sz = 4;
	err = btfinline__open("/nonexistent/x", &big.o, &bi);
	CHECK(err == -EINVAL, "opts sz 4: %d %s", err, lastmsg);
}

/* Log levels: print gets every level; fn only WARN. */
static int nprint[3];
static void printfn(void *ctx, enum btfi_log_level lvl, const char *msg)
{
	nprint[lvl]++;
}

static void test_log_levels(void)
{
	struct btfi_log p = { .print = printfn }, f = { .fn = logfn };

	btfi_err(&p, "w");
	btfi_info(&p, "i");
	btfi_debug(&p, "d");
	CHECK(nprint[BTFI_LOG_WARN] == 1 && nprint[BTFI_LOG_INFO] == 1 && nprint[BTFI_LOG_DEBUG] == 1,
	      "print sink: %d %d %d", nprint[0], nprint[1], nprint[2]);
	lastmsg[0] = 0;
	btfi_info(&f, "info");
	btfi_debug(&f, "debug");
	CHECK(!lastmsg[0], "fn sink got '%s'", lastmsg);
	btfi_err(&f, "warn %d", 1);
	CHECK(!strcmp(lastmsg, "warn 1"), "fn sink: '%s'", lastmsg);
}

int main(void)
{
	struct btf *base = fx_base("foo");
	void *blob = NULL;
	size_t sz = 0;
	int err;

	err = fx_blob(base, &blob, &sz);
	CHECK(!err, "fx_blob %d", err);
	if (!err) {
		test_bytes(blob, sz);
		test_decode(blob, sz, base);
		test_broken(blob, sz, base);
		test_forward(base);
		test_order(blob, sz, base);
		test_dup_sites(base);
	}
	test_opts();
	test_log_levels();
	free(blob);
	btf__free(base);
	return check_done();
}
