// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interop checker, built by `make interop` against an UPSTREAM libbpf
 * source tree (never Debian's 1.1, never libbtfinline): does upstream
 * libbpf accept a .BTF.inline blob, and what does it see in it?
 *
 *   check [-o OUT] [-c CANON] BASE BLOB
 *   check -V               (the libbpf version it runs)
 *
 * BASE: raw BTF or an ELF with .BTF; BLOB: a raw blob (`encode --raw`) or an
 * ELF with .BTF.inline. Parses BLOB with btf__new_split(), prints libbpf's
 * log on failure, per-kind counts of the split part, every LOCSEC site in a
 * canonical text form (decoded here from btf__type_by_id() records: upstream
 * has no definitions for kinds 20-22, it only sizes them through the blob's
 * layout section), and checks that btf__raw_data() is the input byte for
 * byte, both as parsed and re-serialized from libbpf's modifiable state.
 * -o OUT: write the re-serialized bytes there. -c CANON: write every site
 * there also in the canonical form tests/interop/ours.c prints from
 * btfinline's reader (see there; unsorted, one line per site).
 *
 * Output lines (tests/interop/compare.py reads them):
 *   libbpf MAJOR.MINOR
 *   header hdr_len N type_off N type_len N str_off N str_len N layout_off N layout_len N total N
 *   kind NAME COUNT BYTES                 (one per kind present in the split part)
 *   site LOCSEC FUNC base|split 0xOFF [name=LOC]...
 *   sites N functions N sections N
 *   order strict|unsorted (N ...)        (LOCSEC entries strictly increasing in (func, offset))
 *   raw parsed identical|differs ... ; raw reserialized identical|differs ...
 * LOC: none | reg(R)/SIZE/S | reg_pair(R,R)/SIZE/S | reg_offset(R+-0xO)/SIZE/S |
 *      mem(R[+-0xO])/SIZE/S | const(0xV)/SIZE/S | addr(0xV)/SIZE/S, where S is
 *      s or u (the SIGNED flag), V the 64-bit value after extension.
 * Exit 0 when everything parsed, decoded and matched; 1 otherwise; 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* Fail the build on Debian's headers (hdr_len 24, 16-bit vlen, no layout):
 * the include order must put the upstream tree first. */
_Static_assert(offsetof(struct btf_header, layout_len) == 28,
	       "linux/btf.h is not upstream's (no layout_off/layout_len): check -I order");
_Static_assert(BTF_INFO_VLEN(0xffffffffu) == 0xffffff,
	       "linux/btf.h is not upstream's (vlen not 24 bits)");
_Static_assert(sizeof(struct btf_layout) == 4, "no struct btf_layout");
_Static_assert(offsetof(struct btf_new_opts, add_layout) > 0,
	       "bpf/btf.h is not upstream's (no btf_new_opts.add_layout)");

/* The bpf-next kinds upstream libbpf does not define. */
#define KIND_LOC_PARAM	20
#define KIND_LOC_PROTO	21
#define KIND_LOCSEC	22

#define LOC_SIGNED	0x01
#define LOC_CONST	0x02
#define LOC_ADDR	0x04
#define LOC_REG		0x08
#define LOC_DEREF	0x10
#define LOC_OFFSET	0x20
#define REG_FBREG	0xffffffffu

struct locsec_entry {
	__u32 func;
	__u32 loc_proto;
	__u32 offset;
};

/* libbpf's messages, kept to print them when parsing fails. */
static char *log_buf;
static size_t log_len;
static FILE *log_f;

static int log_cb(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (log_f)
		vfprintf(log_f, fmt, ap);
	return 0;
}

static void log_flush(const char *why)
{
	fflush(log_f);
	fprintf(stderr, "check: libbpf log (%s):\n%s", why, log_len ? log_buf : "(empty)\n");
}

static const char *kind_name(unsigned k)
{
	static const char *const names[] = {
		"UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD",
		"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO",
		"VAR", "DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64",
		"LOC_PARAM", "LOC_PROTO", "LOCSEC",
	};
	static char buf[16];

	if (k < sizeof(names) / sizeof(names[0]))
		return names[k];
	snprintf(buf, sizeof(buf), "KIND%u", k);
	return buf;
}

static void *read_file(const char *path, size_t *sz)
{
	struct stat st;
	void *p = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !(p = malloc(st.st_size ? st.st_size : 1))) {
		fprintf(stderr, "check: %s: %s\n", path, strerror(errno));
		goto err;
	}
	n = pread(fd, p, st.st_size, 0);
	if (n != st.st_size) {
		fprintf(stderr, "check: %s: short read\n", path);
		goto err;
	}
	close(fd);
	*sz = st.st_size;
	return p;
err:
	free(p);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* BLOB bytes: the file, or its .BTF.inline section if it is an ELF
 * (libbpf only looks up .BTF and .BTF.ext by name). */
static void *read_blob(const char *path, size_t *sz)
{
	void *file, *out = NULL;
	size_t fsz, shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;

	file = read_file(path, &fsz);
	if (!file)
		return NULL;
	if (fsz < 4 || memcmp(file, ELFMAG, SELFMAG)) {
		*sz = fsz;
		return file;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory(file, fsz);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		fprintf(stderr, "check: %s: not a readable ELF: %s\n", path, elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".BTF.inline"))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || !(out = malloc(d->d_size ? d->d_size : 1))) {
			fprintf(stderr, "check: %s: cannot read .BTF.inline\n", path);
			goto out;
		}
		memcpy(out, d->d_buf, d->d_size);
		*sz = d->d_size;
		goto out;
	}
	fprintf(stderr, "check: %s: ELF without a .BTF.inline section\n", path);
out:
	if (elf)
		elf_end(elf);
	free(file);
	return out;
}

static void reg_str(__u32 reg, char *buf, size_t n)
{
	static const char *const names[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};

	if (reg == REG_FBREG)
		snprintf(buf, n, "fb");
	else if (reg < sizeof(names) / sizeof(names[0]))
		snprintf(buf, n, "%%%s", names[reg]);
	else
		snprintf(buf, n, "%%reg%u", reg);
}

static void off_str(__s32 off, char *buf, size_t n)
{
	if (off)
		snprintf(buf, n, "%c0x%x", off < 0 ? '-' : '+', off < 0 ? -(__u32)off : (__u32)off);
	else
		buf[0] = 0;
}

/* One LOC_PARAM record decoded by the bpf-next UAPI rules (docs/FORMAT.md
 * section 2): { btf_type; u32 flags; u32 values[vlen]; }. */
enum uform { U_BAD, U_REG, U_REG_PAIR, U_REG_OFFSET, U_MEM, U_CONST, U_ADDR };

struct uloc {
	enum uform form;
	__u32 size, r, r2, flags, vlen;
	__s32 off;
	__u64 c;	/* constant after extension */
	bool sign;
};

static const char *const uform_name[] = {
	"bad", "reg", "reg_pair", "reg_offset", "mem", "const", "addr",
};

/* Returns false for a flags/vlen pair that has no meaning there. */
static bool loc_decode(const struct btf_type *t, struct uloc *u)
{
	const __u32 *w = (const __u32 *)(t + 1), *v = w + 1;
	__u32 form;

	memset(u, 0, sizeof(*u));
	u->flags = w[0];
	u->vlen = btf_vlen(t);
	u->size = t->size;
	u->sign = u->flags & LOC_SIGNED;
	form = u->flags & ~LOC_SIGNED;
	switch (form) {
	case LOC_REG:
		if (u->vlen != 1 && u->vlen != 2)
			return false;
		u->form = u->vlen == 1 ? U_REG : U_REG_PAIR;
		u->r = v[0];
		u->r2 = u->vlen == 2 ? v[1] : 0;
		return true;
	case LOC_REG | LOC_OFFSET:
		if (u->vlen != 2)
			return false;
		u->form = U_REG_OFFSET;
		u->r = v[0];
		u->off = (__s32)v[1];
		return true;
	case LOC_REG | LOC_DEREF:
	case LOC_REG | LOC_DEREF | LOC_OFFSET:
		if (u->vlen != (form & LOC_OFFSET ? 2u : 1u))
			return false;
		u->form = U_MEM;
		u->r = v[0];
		u->off = u->vlen == 2 ? (__s32)v[1] : 0;
		return true;
	case LOC_CONST:
	case LOC_CONST | LOC_ADDR:
		if (u->vlen == 1)
			u->c = u->sign ? (__u64)(__s64)(__s32)v[0] : v[0];
		else if (u->vlen == 2)
			u->c = v[0] | (__u64)v[1] << 32;
		else
			return false;
		u->form = form & LOC_ADDR ? U_ADDR : U_CONST;
		return true;
	}
	return false;
}

/* The site-line form (compare.py's, against dump): register names. */
static void loc_str(const struct uloc *u, char *buf, size_t n)
{
	char sign = u->sign ? 's' : 'u', r[32], r2[32], o[32];

	reg_str(u->r, r, sizeof(r));
	reg_str(u->r2, r2, sizeof(r2));
	off_str(u->off, o, sizeof(o));
	switch (u->form) {
	case U_REG:
		snprintf(buf, n, "reg(%s)/%u/%c", r, u->size, sign);
		break;
	case U_REG_PAIR:
		snprintf(buf, n, "reg_pair(%s,%s)/%u/%c", r, r2, u->size, sign);
		break;
	case U_REG_OFFSET:
	case U_MEM:
		snprintf(buf, n, "%s(%s%s)/%u/%c", uform_name[u->form], r, o, u->size, sign);
		break;
	case U_CONST:
	case U_ADDR:
		snprintf(buf, n, "%s(0x%llx)/%u/%c", uform_name[u->form],
			 (unsigned long long)u->c, u->size, sign);
		break;
	default:
		snprintf(buf, n, "bad(flags=0x%x,vlen=%u)", u->flags, u->vlen);
		break;
	}
}

/* The canonical form (-c; tests/interop/ours.c prints the same from
 * btfinline's struct btfi_loc): raw register numbers, every field. */
static void loc_canon(const struct uloc *u, char *buf, size_t n)
{
	char sign = u->sign ? 's' : 'u';

	switch (u->form) {
	case U_REG:
		snprintf(buf, n, "reg(%u)/%u/%c", u->r, u->size, sign);
		break;
	case U_REG_PAIR:
		snprintf(buf, n, "reg_pair(%u,%u)/%u/%c", u->r, u->r2, u->size, sign);
		break;
	case U_REG_OFFSET:
	case U_MEM:
		snprintf(buf, n, "%s(%u,%d)/%u/%c", uform_name[u->form], u->r, u->off, u->size,
			 sign);
		break;
	case U_CONST:
	case U_ADDR:
		snprintf(buf, n, "%s(0x%llx)/%u/%c", uform_name[u->form],
			 (unsigned long long)u->c, u->size, sign);
		break;
	default:
		snprintf(buf, n, "bad(flags=0x%x,vlen=%u)", u->flags, u->vlen);
		break;
	}
}

static const struct btf_type *type_of_kind(const struct btf *btf, __u32 id, unsigned kind)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	return t && btf_kind(t) == kind ? t : NULL;
}

/* LOCSEC name -> section, as btfinline__sec_name() gives it. */
static const char *sec_of(const char *locsec)
{
	return !strncmp(locsec, "inline", 6) && locsec[6] ? locsec + 6 : locsec;
}

/* Print one LOCSEC entry (and its canonical line to canon when set);
 * returns the number of problems found. */
static int print_site(const struct btf *btf, __u32 start_id, const char *sec,
		      const struct locsec_entry *e, FILE *canon)
{
	const struct btf_type *f, *p, *lp, *lpar;
	const struct btf_param *pp;
	const __u32 *slot;
	struct uloc u;
	char loc[128];
	int bad = 0;

	f = type_of_kind(btf, e->func, BTF_KIND_FUNC);
	p = f ? type_of_kind(btf, f->type, BTF_KIND_FUNC_PROTO) : NULL;
	lp = type_of_kind(btf, e->loc_proto, KIND_LOC_PROTO);
	if (!f || !p || !lp) {
		printf("site %s [%u] ? 0x%x bad(func or loc_proto [%u])\n", sec, e->func,
		       e->offset, e->loc_proto);
		if (canon)
			fprintf(canon, "%s ? [%u] 0x%x [%u] bad\n", sec_of(sec), e->func,
				e->offset, e->loc_proto);
		return 1;
	}
	printf("site %s %s %s 0x%x", sec, btf__name_by_offset(btf, f->name_off),
	       e->func < start_id ? "base" : "split", e->offset);
	if (canon)
		fprintf(canon, "%s %s [%u] 0x%x [%u]", sec_of(sec),
			btf__name_by_offset(btf, f->name_off), e->func, e->offset, e->loc_proto);
	pp = btf_params(p);
	slot = (const __u32 *)(lp + 1);
	if (btf_vlen(lp) > btf_vlen(p))
		bad++;
	for (__u32 i = 0; i < btf_vlen(lp); i++) {
		const char *pn = i < btf_vlen(p) ? btf__name_by_offset(btf, pp[i].name_off) : "?";

		if (!slot[i]) {
			printf(" %s=none", pn);
			if (canon)
				fprintf(canon, " %s=none", pn);
			continue;
		}
		lpar = type_of_kind(btf, slot[i], KIND_LOC_PARAM);
		if (!lpar) {
			printf(" %s=bad(slot [%u])", pn, slot[i]);
			if (canon)
				fprintf(canon, " %s=bad(slot [%u])", pn, slot[i]);
			bad++;
			continue;
		}
		bad += !loc_decode(lpar, &u);
		loc_str(&u, loc, sizeof(loc));
		printf(" %s=%s", pn, loc);
		if (canon) {
			loc_canon(&u, loc, sizeof(loc));
			fprintf(canon, " %s=%s", pn, loc);
		}
	}
	printf("\n");
	if (canon)
		fputc('\n', canon);
	return bad;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	__u64 kcnt[128] = {}, kbytes[128] = {}, tbytes = 0, nsites = 0, nunordered = 0;
	const char *out_path = NULL, *canon_path = NULL, *base_path, *blob_path;
	FILE *canon = NULL;
	const struct btf_header *hdr;
	struct btf *base, *btf;
	__u32 start_id, end_id, raw_sz, nf = 0, nsec = 0, *funcs = NULL;
	const char **secs = NULL;
	const void *raw;
	void *blob;
	size_t blob_sz;
	int c, bad = 0, err;

	while ((c = getopt(argc, argv, "c:o:V")) != -1) {
		if (c == 'V') {
			printf("libbpf %s\n", libbpf_version_string());
			return 0;
		}
		if (c == 'c')
			canon_path = optarg;
		else if (c == 'o')
			out_path = optarg;
		else
			goto usage;
	}
	if (argc - optind != 2)
		goto usage;
	base_path = argv[optind];
	blob_path = argv[optind + 1];

	log_f = open_memstream(&log_buf, &log_len);
	libbpf_set_print(log_cb);
	printf("libbpf %u.%u\n", libbpf_major_version(), libbpf_minor_version());

	base = btf__parse(base_path, NULL);
	if (!base) {
		err = -errno;
		log_flush("base");
		fprintf(stderr, "check: %s: upstream libbpf cannot parse the base BTF: %s\n",
			base_path, strerror(-err));
		return 1;
	}
	blob = read_blob(blob_path, &blob_sz);
	if (!blob) {
		btf__free(base);
		return 1;
	}
	btf = btf__new_split(blob, blob_sz, base);
	if (!btf) {
		err = -errno;
		log_flush("btf__new_split");
		fprintf(stderr, "check: %s: upstream btf__new_split() failed: %s\n", blob_path,
			strerror(-err));
		printf("parsed no\n");
		btf__free(base);
		free(blob);
		return 1;
	}
	printf("parsed ok\n");
	if (canon_path && !(canon = fopen(canon_path, "w"))) {
		fprintf(stderr, "check: %s: %s\n", canon_path, strerror(errno));
		bad++;
	}

	raw = btf__raw_data(btf, &raw_sz);
	hdr = raw;
	printf("header hdr_len %u type_off %u type_len %u str_off %u str_len %u layout_off %u "
	       "layout_len %u total %u\n", hdr->hdr_len, hdr->type_off, hdr->type_len, hdr->str_off,
	       hdr->str_len, hdr->layout_off, hdr->layout_len, raw_sz);

	/* Record sizes as libbpf walked them (it sizes kinds 20-22 through the
	 * layout section): distance to the next record, the last one to the
	 * end of the type section. */
	start_id = btf__type_cnt(base);
	end_id = btf__type_cnt(btf);
	for (__u32 id = start_id; id < end_id; id++) {
		const char *t = (const char *)btf__type_by_id(btf, id);
		const char *next = id + 1 < end_id ? (const char *)btf__type_by_id(btf, id + 1) :
			(const char *)raw + hdr->hdr_len + hdr->type_off + hdr->type_len;
		unsigned k = btf_kind((const struct btf_type *)t);

		kcnt[k]++;
		kbytes[k] += next - t;
		tbytes += next - t;
	}
	if (tbytes != hdr->type_len) {
		fprintf(stderr, "check: %s: records cover %llu bytes, type_len is %u\n", blob_path,
			(unsigned long long)tbytes, hdr->type_len);
		bad++;
	}
	for (unsigned k = 0; k < 128; k++)
		if (kcnt[k])
			printf("kind %s %llu %llu\n", kind_name(k), (unsigned long long)kcnt[k],
			       (unsigned long long)kbytes[k]);

	/* Every site, in blob order; functions = distinct FUNC ids named. */
	for (__u32 id = start_id; id < end_id; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct locsec_entry *e = (const void *)(t + 1);
		const char *name;
		__u32 i;

		if (btf_kind(t) != KIND_LOCSEC)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name) {
			fprintf(stderr, "check: LOCSEC [%u]: bad name offset %u\n", id, t->name_off);
			bad++;
			name = "?";
		}
		for (i = 0; i < nsec && strcmp(secs[i], name); i++)
			;
		if (i == nsec) {
			secs = realloc(secs, (nsec + 1) * sizeof(*secs));
			secs[nsec++] = name;
		}
		funcs = realloc(funcs, (nsites + btf_vlen(t) + 1) * sizeof(*funcs));
		for (i = 0; i < btf_vlen(t); i++) {
			bad += print_site(btf, start_id, name, &e[i], canon);
			funcs[nsites++] = e[i].func;
			/* upstream's tests expect offsets strictly increasing per function */
			if (i && (e[i].func < e[i - 1].func ||
				  (e[i].func == e[i - 1].func && e[i].offset <= e[i - 1].offset)))
				nunordered++;
		}
	}
	if (nsites) {
		qsort(funcs, nsites, sizeof(*funcs), cmp_u32);
		for (__u64 i = 0; i < nsites; i++)
			nf += !i || funcs[i] != funcs[i - 1];
	}
	if (canon && fclose(canon)) {
		fprintf(stderr, "check: %s: %s\n", canon_path, strerror(errno));
		bad++;
	}
	printf("sites %llu functions %u sections %u\n", (unsigned long long)nsites, nf, nsec);
	printf("order %s (%llu entries not after their predecessor in (func, offset))\n",
	       nunordered ? "unsorted" : "strict", (unsigned long long)nunordered);
	bad += nunordered > 0;

	/* As parsed, btf__raw_data() is libbpf's copy of the input. */
	if (raw_sz != blob_sz || memcmp(raw, blob, blob_sz)) {
		printf("raw parsed differs (%u vs %zu bytes)\n", raw_sz, blob_sz);
		bad++;
	} else {
		printf("raw parsed identical (%u bytes)\n", raw_sz);
	}
	/* Re-serialized: a string lookup that misses the base makes the split
	 * BTF modifiable (types, layout and strings in separate buffers, raw
	 * data dropped), adds nothing, and btf__raw_data() then lays the blob
	 * out again by upstream's rules. */
	err = btf__find_str(btf, "\001btfinline interop: not a string");
	if (err != -ENOENT) {
		fprintf(stderr, "check: btf__find_str: unexpected %d\n", err);
		bad++;
	}
	raw = btf__raw_data(btf, &raw_sz);
	if (!raw) {
		fprintf(stderr, "check: btf__raw_data() after re-serialization failed\n");
		bad++;
	} else if (raw_sz != blob_sz || memcmp(raw, blob, blob_sz)) {
		size_t i = 0;

		while (i < raw_sz && i < blob_sz && ((const char *)raw)[i] == ((const char *)blob)[i])
			i++;
		printf("raw reserialized differs (%u vs %zu bytes, first difference at byte %zu)\n",
		       raw_sz, blob_sz, i);
		bad++;
	} else {
		printf("raw reserialized identical (%u bytes)\n", raw_sz);
	}
	if (raw && out_path) {
		FILE *f = fopen(out_path, "wb");

		if (!f || fwrite(raw, 1, raw_sz, f) != raw_sz || fclose(f)) {
			fprintf(stderr, "check: %s: %s\n", out_path, strerror(errno));
			bad++;
		}
	}
	if (bad)
		fprintf(stderr, "check: %s: %d problem%s\n", blob_path, bad, bad == 1 ? "" : "s");
	btf__free(btf);
	btf__free(base);
	free(blob);
	free(funcs);
	free(secs);
	return bad ? 1 : 0;
usage:
	fprintf(stderr, "usage: check [-o OUT] [-c CANON] BASE BLOB | check -V\n");
	return 2;
}
