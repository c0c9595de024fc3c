// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What kprobes cannot take: the kernel's kprobe blacklist (address ranges
 * from debugfs) and functions outside available_filter_functions; and the
 * list of sites left out for that, one summary line per function.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attach/attach_kernel.h"

static int range_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "name" or "name [module]" per line; names only (module functions too:
 * the list only names the cause of a refusal). */
static bool load_filter_funcs(const char *path, struct btfi_kblacklist *bl)
{
	size_t len = 0, cap = 1 << 20, n = 0;
	FILE *f = fopen(path, "re");
	char *p;

	if (!f)
		return false;
	bl->fbuf = malloc(cap);
	while (bl->fbuf) {
		size_t got;

		if (len + 1 >= cap) {
			char *nb = realloc(bl->fbuf, cap *= 2);

			if (!nb) {
				free(bl->fbuf);
				bl->fbuf = NULL;
				break;
			}
			bl->fbuf = nb;
		}
		got = fread(bl->fbuf + len, 1, cap - len - 1, f);
		if (!got)
			break;
		len += got;
	}
	fclose(f);
	if (!bl->fbuf || !len)
		goto drop;
	bl->fbuf[len] = 0;
	for (p = bl->fbuf; *p; p++)
		n += *p == '\n';
	bl->fn = malloc((n + 1) * sizeof(*bl->fn));
	if (!bl->fn)
		goto drop;
	for (p = strtok(bl->fbuf, "\n"); p; p = strtok(NULL, "\n")) {
		p[strcspn(p, " \t")] = 0;
		bl->fn[bl->nfn++] = p;
	}
	if (bl->nfn)
		qsort(bl->fn, bl->nfn, sizeof(*bl->fn), str_cmp);
	return true;
drop:
	free(bl->fbuf);
	free(bl->fn);
	bl->fbuf = NULL;
	bl->fn = NULL;
	bl->nfn = 0;
	return false;
}

int btfi_kblacklist_load(const char *path, struct btfi_kblacklist *bl)
{
	char line[256];
	size_t cap = 0;
	FILE *f;

	memset(bl, 0, sizeof(*bl));
	f = fopen(path ? path : BTFI_KPROBE_BLACKLIST, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		/* "0xSTART-0xEND\tsym [mod]"; zeros when addresses are hidden */
		if (sscanf(line, "0x%llx-0x%llx", &s, &e) != 2 || !s || e <= s)
			continue;
		if (bl->n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			void *nr = realloc(bl->r, nc * sizeof(*bl->r));

			if (!nr)
				break;
			bl->r = nr;
			cap = nc;
		}
		bl->r[bl->n].start = s;
		bl->r[bl->n].end = e;
		bl->n++;
	}
	fclose(f);
	if (bl->n)
		qsort(bl->r, bl->n, sizeof(*bl->r), range_cmp);
	if (!path && !load_filter_funcs(BTFI_FILTER_FUNCS, bl))
		load_filter_funcs("/sys/kernel/debug/tracing/available_filter_functions", bl);
	return 0;
}

void btfi_kblacklist_free(struct btfi_kblacklist *bl)
{
	free(bl->r);
	free(bl->fbuf);
	free(bl->fn);
	memset(bl, 0, sizeof(*bl));
}

bool btfi_kfunc_traceable(const struct btfi_kblacklist *bl, const char *func)
{
	size_t lo = 0, hi = bl ? bl->nfn : 0;

	if (!hi)
		return true;	/* not known */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(bl->fn[mid], func);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool btfi_kblacklist_has(const struct btfi_kblacklist *bl, uint64_t addr)
{
	size_t lo = 0, hi = bl ? bl->n : 0;

	while (lo < hi) {	/* ranges may overlap: check the last few starts <= addr */
		size_t mid = (lo + hi) / 2;

		if (bl->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (addr < bl->r[i].end)
			return true;
	return false;
}

void btfi_kskips_add(struct btfi_kskips *sk, const char *label, const char *why, bool missed)
{
	size_t len;

	if (!sk)
		return;
	sk->nmissed += missed;
	len = strlen(sk->text);
	sk->n++;
	if (len >= 3 && !strcmp(sk->text + len - 3, "..."))
		return;		/* full */
	if (strlen(label) + strlen(why) + len + 8 >= sizeof(sk->text)) {
		strcat(sk->text, len ? ", ..." : "...");
		return;
	}
	snprintf(sk->text + len, sizeof(sk->text) - len, "%s%s (%s)", len ? ", " : "", label, why);
}
