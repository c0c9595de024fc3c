// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/kallsyms parser: KASLR base, name and address lookups. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attach/kallsyms.h"
#include "log.h"

struct btfi_ksyms {
	struct btfi_ksym *syms;		/* sorted by address */
	uint32_t *by_name;		/* indices into syms, sorted by (name, address) */
	size_t cnt, cap;
	char *strs;			/* names, NUL-separated */
	size_t strs_len, strs_cap;
	uint64_t text, etext, sinittext, einittext;
	/* Module symbols ("ADDR t name\t[module]"), sorted by (module,
	 * address): a module's code lies in its own allocation. */
	struct btfi_ksym *msyms;
	size_t mcnt, mcap;
};

static bool is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4096;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct btfi_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);	/* deterministic order of aliases */
}

static int cmp_name_idx(const void *a, const void *b, void *ctx)
{
	const struct btfi_ksym *s = ctx;
	const struct btfi_ksym *x = &s[*(const uint32_t *)a], *y = &s[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "name\t[module]": name and module name stored as "name\0module\0";
 * offsets fixed up to pointers after the load. */
static int add_module_sym(struct btfi_ksyms *ks, uint64_t addr, char type, char *name, size_t nlen)
{
	char *mod = name + nlen + 1, *e;
	size_t mlen;

	if (*mod != '[' || !(e = strchr(mod, ']')))
		return 0;
	mod++;
	mlen = e - mod;
	if (grow((void **)&ks->msyms, &ks->mcap, ks->mcnt + 1, sizeof(*ks->msyms)) ||
	    grow((void **)&ks->strs, &ks->strs_cap, ks->strs_len + nlen + mlen + 2, 1))
		return -ENOMEM;
	memcpy(ks->strs + ks->strs_len, name, nlen);
	ks->strs[ks->strs_len + nlen] = 0;
	memcpy(ks->strs + ks->strs_len + nlen + 1, mod, mlen);
	ks->strs[ks->strs_len + nlen + 1 + mlen] = 0;
	ks->msyms[ks->mcnt].name = (const char *)(uintptr_t)ks->strs_len;
	ks->msyms[ks->mcnt].mod = (const char *)(uintptr_t)(ks->strs_len + nlen + 1);
	ks->msyms[ks->mcnt].addr = addr;
	ks->msyms[ks->mcnt].type = type;
	ks->mcnt++;
	ks->strs_len += nlen + mlen + 2;
	return 0;
}

static int cmp_mod_addr(const void *a, const void *b)
{
	const struct btfi_ksym *x = a, *y = b;
	int c = strcmp(x->mod, y->mod);

	return c ? c : cmp_addr(a, b);
}

int btfi_ksyms_load(const struct btfi_ksyms_opts *opts, struct btfi_ksyms **out)
{
	const char *path = opts && opts->path ? opts->path : "/proc/kallsyms";
	const struct btfi_log *log = opts ? &opts->log : NULL;
	struct btfi_ksyms *ks;
	char line[512];
	size_t nonzero = 0, i;
	FILE *f;
	int err = 0;

	*out = NULL;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(errno));
		return err;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, *name;
		uint64_t addr;
		size_t nlen;
		char type;

		addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !end[1] || end[2] != ' ')
			continue;	/* not "ADDR T NAME": ignore */
		type = end[1];
		name = end + 3;
		nlen = strcspn(name, "\t\n ");
		if (name[nlen] == '\t') {	/* module symbol */
			err = add_module_sym(ks, addr, type, name, nlen);
			if (err)
				goto out;
			continue;
		}
		name[nlen] = '\0';
		if (addr)
			nonzero++;
		if (grow((void **)&ks->syms, &ks->cap, ks->cnt + 1, sizeof(*ks->syms)) ||
		    grow((void **)&ks->strs, &ks->strs_cap, ks->strs_len + nlen + 1, 1)) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(ks->strs + ks->strs_len, name, nlen + 1);
		/* Names are fixed up to pointers once strs stops moving. */
		ks->syms[ks->cnt].name = (const char *)(uintptr_t)ks->strs_len;
		ks->syms[ks->cnt].addr = addr;
		ks->syms[ks->cnt].type = type;
		ks->syms[ks->cnt].mod = NULL;
		ks->cnt++;
		ks->strs_len += nlen + 1;
	}
	if (ferror(f)) {
		err = -EIO;
		btfi_err(log, "%s: read error", path);
		goto out;
	}
	if (ks->cnt && !nonzero) {
		err = -EPERM;
		btfi_err(log, "%s: addresses are hidden (kernel.kptr_restrict; need root/CAP_SYSLOG)",
			 path);
		goto out;
	}
	for (i = 0; i < ks->cnt; i++)
		ks->syms[i].name = ks->strs + (uintptr_t)ks->syms[i].name;
	for (i = 0; i < ks->mcnt; i++) {
		ks->msyms[i].name = ks->strs + (uintptr_t)ks->msyms[i].name;
		ks->msyms[i].mod = ks->strs + (uintptr_t)ks->msyms[i].mod;
	}
	if (ks->mcnt)
		qsort(ks->msyms, ks->mcnt, sizeof(*ks->msyms), cmp_mod_addr);
	if (ks->cnt)
		qsort(ks->syms, ks->cnt, sizeof(*ks->syms), cmp_addr);
	ks->by_name = malloc((ks->cnt + 1) * sizeof(*ks->by_name));
	if (!ks->by_name) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ks->cnt; i++)
		ks->by_name[i] = i;
	qsort_r(ks->by_name, ks->cnt, sizeof(*ks->by_name), cmp_name_idx, ks->syms);

	{
		const struct btfi_ksym *s;

		if (btfi_ksyms_by_name(ks, "_text", &s) < 1 &&
		    btfi_ksyms_by_name(ks, "_stext", &s) < 1) {
			err = -ENOENT;
			btfi_err(log, "%s: no _text or _stext symbol", path);
			goto out;
		}
		ks->text = s->addr;
		if (btfi_ksyms_by_name(ks, "_etext", &s) > 0)
			ks->etext = s->addr;
		if (btfi_ksyms_by_name(ks, "_sinittext", &s) > 0)
			ks->sinittext = s->addr;
		if (btfi_ksyms_by_name(ks, "_einittext", &s) > 0)
			ks->einittext = s->addr;
	}
out:
	fclose(f);
	if (err) {
		btfi_ksyms_free(ks);
		return err;
	}
	*out = ks;
	return 0;
}

void btfi_ksyms_free(struct btfi_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->msyms);
	free(ks->by_name);
	free(ks->strs);
	free(ks);
}

uint64_t btfi_ksyms_text(const struct btfi_ksyms *ks)
{
	return ks->text;
}

int64_t btfi_ksyms_kaslr_delta(const struct btfi_ksyms *ks, uint64_t link_text)
{
	return (int64_t)(ks->text - link_text);
}

/* First index in by_name whose name is >= `name`. */
static size_t name_lower_bound(const struct btfi_ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[ks->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct btfi_ksym *btfi_ksyms_by_name_nth(const struct btfi_ksyms *ks, const char *name,
					       int k)
{
	size_t i = name_lower_bound(ks, name) + (k < 0 ? ks->cnt : (size_t)k);

	return i < ks->cnt && !strcmp(ks->syms[ks->by_name[i]].name, name) ?
	       &ks->syms[ks->by_name[i]] : NULL;
}

int btfi_ksyms_by_name(const struct btfi_ksyms *ks, const char *name,
		       const struct btfi_ksym **sym)
{
	size_t lo = 0, hi = ks->cnt, first;
	int n = 0;

	while (lo < hi) {	/* first index with name >= `name` */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[ks->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < ks->cnt && !strcmp(ks->syms[ks->by_name[lo]].name, name)) {
		n++;
		lo++;
	}
	if (sym)
		*sym = n ? &ks->syms[ks->by_name[first]] : NULL;
	return n;
}

const struct btfi_ksym *btfi_ksyms_by_addr(const struct btfi_ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->cnt;
	bool in_text = addr >= ks->text && (!ks->etext || addr < ks->etext);
	bool in_init = ks->sinittext && addr >= ks->sinittext && addr < ks->einittext;

	if (!in_text && !in_init)
		return NULL;
	while (lo < hi) {	/* first index with addr > `addr` */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Several names may share an address (aliases, section markers such
	 * as _stext): prefer a text name not starting with '_'. */
	while (lo > 0) {
		uint64_t at = ks->syms[lo - 1].addr;
		const struct btfi_ksym *best = NULL;

		for (; lo > 0 && ks->syms[lo - 1].addr == at; lo--) {
			const struct btfi_ksym *s = &ks->syms[lo - 1];

			if (!is_text(s->type))
				continue;
			if (!best || (best->name[0] == '_' && s->name[0] != '_'))
				best = s;
		}
		if (best)
			return best;
	}
	return NULL;
}

int btfi_ksyms_sec_base(const struct btfi_ksyms *ks, const char *sec, uint64_t *addr,
			const struct btfi_log *log)
{
	if (!strncmp(sec, "inline", 6))
		sec += 6;
	/* vmlinux's .text output section starts at _text; everything else
	 * that holds code after boot (.noinstr.text, .entry.text, ...) is
	 * inside it. */
	if (!strcmp(sec, ".text")) {
		*addr = ks->text;
		return 0;
	}
	btfi_err(log, "kernel section %s is not resident after boot", sec);
	return -ENOENT;
}

/* ---- module symbols ---- */

/* [*lo, *hi) of module `mod` in msyms. */
static void mod_span(const struct btfi_ksyms *ks, const char *mod, size_t *lo, size_t *hi)
{
	size_t a = 0, b = ks->mcnt;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (strcmp(ks->msyms[mid].mod, mod) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < ks->mcnt && !strcmp(ks->msyms[a].mod, mod))
		a++;
	*hi = a;
}

size_t btfi_ksyms_mod_cnt(const struct btfi_ksyms *ks, const char *mod)
{
	size_t lo, hi;

	mod_span(ks, mod, &lo, &hi);
	return hi - lo;
}

const struct btfi_ksym *btfi_ksyms_mod_by_name_nth(const struct btfi_ksyms *ks, const char *mod,
						   const char *name, int k)
{
	size_t lo, hi;

	mod_span(ks, mod, &lo, &hi);
	for (; lo < hi; lo++)	/* a module has a few thousand symbols */
		if (!strcmp(ks->msyms[lo].name, name) && k-- == 0)
			return &ks->msyms[lo];
	return NULL;
}

const struct btfi_ksym *btfi_ksyms_mod_by_addr(const struct btfi_ksyms *ks, const char *mod,
					       uint64_t addr)
{
	const struct btfi_ksym *best = NULL;
	size_t lo, hi;

	mod_span(ks, mod, &lo, &hi);
	for (; lo < hi && ks->msyms[lo].addr <= addr; lo++)
		if (is_text(ks->msyms[lo].type) && (!best || best->addr < ks->msyms[lo].addr ||
						    (best->name[0] == '_' && ks->msyms[lo].name[0] != '_')))
			best = &ks->msyms[lo];
	return best;
}

const struct btfi_ksym *btfi_ksyms_any_mod_by_addr(const struct btfi_ksyms *ks, uint64_t addr)
{
	const struct btfi_ksym *best = NULL, *s;
	size_t lo, hi;

	/* modules lie in allocations of their own: the nearest text symbol
	 * below addr, any module, is the one of the module addr is in */
	for (size_t i = 0; i < ks->mcnt; i = hi) {
		mod_span(ks, ks->msyms[i].mod, &lo, &hi);
		s = btfi_ksyms_mod_by_addr(ks, ks->msyms[i].mod, addr);
		if (s && (!best || best->addr < s->addr))
			best = s;
	}
	return best;
}

size_t btfi_ksyms_mods_with(const struct btfi_ksyms *ks, const char *name, const char **mods,
			    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ks->mcnt && n < max; i++)	/* by module, then address */
		if (is_text(ks->msyms[i].type) && !strcmp(ks->msyms[i].name, name) &&
		    (!n || strcmp(mods[n - 1], ks->msyms[i].mod)))
			mods[n++] = ks->msyms[i].mod;
	return n;
}
