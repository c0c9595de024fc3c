// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `btfinline stats FILE [--json] [--probe=POLICY]`: inline sites and how many
 * of their arguments a tracer can recover, from DWARF. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "cli.h"
#include "json_pretty.h"
#include "dwarf/scan.h"

static const char *const policies[BTFI_PROBE__MAX] = {
	[BTFI_PROBE_DEFAULT] = "default",
	[BTFI_PROBE_ENTRY_PC] = "entry-pc",
	[BTFI_PROBE_LOWEST] = "lowest",
	[BTFI_PROBE_ENTRY_IN_RANGE] = "entry-in-range",
	[BTFI_PROBE_FIRST_RANGE] = "first-range",
};

static int stats_usage(void)
{
	fprintf(stderr, "usage: btfinline stats FILE [--json|-j|--pretty|-p] [--sites] [--probe=default|entry-pc|lowest|entry-in-range|first-range]\n");
	return 2;
}

/* psize: the parameter's byte size; a narrower register read (GCC's
 * extension idioms) prints as reg:(u32)rdi. */
static void print_loc(const struct btfi_loc *l, uint32_t psize)
{
	const char *r = btfi_reg_name(l->reg), *r2 = btfi_reg_name(l->reg2);
	char ty[16];

	switch (l->kind) {
	case BTFI_LOC_KREG:
		if (btfi_loc_narrowed(l, psize))
			printf("reg:(%s)%s", btfi_loc_type_str(l, ty, sizeof(ty)), r ? r : "?");
		else
			printf("reg:%s", r ? r : "?");
		break;
	case BTFI_LOC_KREG_PAIR:
		printf("reg_pair:%s,%s", r ? r : "?", r2 ? r2 : "?");
		break;
	case BTFI_LOC_KREG_OFF:
		printf("reg_offset:%s%+lld", r ? r : "?", (long long)l->off);
		break;
	case BTFI_LOC_KMEM:
		printf("mem%u:%s%+lld", l->size, r ? r : "?", (long long)l->off);
		break;
	case BTFI_LOC_KCONST:
		printf("const:%lld", (long long)l->cval);
		break;
	case BTFI_LOC_KADDR:
		printf("addr:0x%llx", (unsigned long long)l->cval);
		break;
	default:
		printf("none:%s", btfi_reason_str(l->reason));
	}
}

/* One line per instance: a debugging view that tests also check. */
static void print_sites(const struct btfi_scan *s)
{
	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];
		const struct btfi_func *f = &s->funcs[site->func];
		const char *caller = site->caller != UINT32_MAX ? s->funcs[site->caller].name : NULL;

		printf("site %s 0x%llx in %s+0x%llx at %s:%u depth %u shndx %u:",
		       f->name ? f->name : "?", (unsigned long long)site->addr,
		       caller ? caller : "?",
		       (unsigned long long)(site->addr - site->caller_addr),
		       site->call_file ? site->call_file : "?", site->call_line,
		       site->depth, site->shndx);
		for (uint32_t j = 0; j < site->nlocs; j++) {
			const struct btfi_param *p = &s->params[f->first_param + j];

			printf(" %s=", p->name ? p->name : "?");
			print_loc(&s->locs[site->first_loc + j], p->size);
		}
		printf("\n");
	}
	for (uint32_t i = 0; i < s->nfuncs; i++) {
		const struct btfi_func *f = &s->funcs[i];
		static const char *const cls[] = { "never", "selective", "full" };

		printf("func %s class %s sites %u noaddr %u ool %u symbol %d\n",
		       f->name ? f->name : "?", cls[f->cls], f->nsites, f->nsites_noaddr,
		       f->nool, f->has_symbol);
	}
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0.0;
}

static void print_json(const char *path, const struct btfi_stats *st,
		       const struct btfi_scan *s)
{
	int k;
	bool first = true;

	printf("{\"file\":\"");
	for (const char *c = path; *c; c++)
		printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
	printf("\",\"inline_instances\":%llu,\"instances_noaddr\":%llu,\"params\":%llu,"
	       "\"params_recoverable\":%llu,\"instances_all_recoverable\":%llu,"
	       "\"instances_some_recoverable\":%llu,\"instances_none_recoverable\":%llu,"
	       "\"funcs_never_inlined\":%llu,\"funcs_selectively_inlined\":%llu,"
	       "\"funcs_fully_inlined\":%llu,\"sites_selectively_inlined\":%llu,"
	       "\"sites_fully_inlined\":%llu,\"classes\":{",
	       (unsigned long long)st->inline_instances, (unsigned long long)st->instances_noaddr,
	       (unsigned long long)st->params, (unsigned long long)st->params_recoverable,
	       (unsigned long long)st->instances_all_recoverable,
	       (unsigned long long)st->instances_some_recoverable,
	       (unsigned long long)st->instances_none_recoverable,
	       (unsigned long long)st->funcs_never_inlined,
	       (unsigned long long)st->funcs_selectively_inlined,
	       (unsigned long long)st->funcs_fully_inlined,
	       (unsigned long long)st->sites_selectively_inlined,
	       (unsigned long long)st->sites_fully_inlined);
	for (k = BTFI_LOC_KREG; k <= BTFI_LOC_KADDR; k++) {
		printf("%s\"%s\":%llu", first ? "" : ",", btfi_loc_kind_str(k),
		       (unsigned long long)st->classes[k]);
		first = false;
	}
	printf("},\"unavailable\":{");
	first = true;
	for (k = BTFI_R_NO_LOCATION; k < BTFI_R__MAX; k++) {
		if (k == BTFI_R_UNKNOWN)	/* only from blobs */
			continue;
		printf("%s\"%s\":%llu", first ? "" : ",", btfi_reason_str(k),
		       (unsigned long long)st->unavailable[k]);
		first = false;
	}
	printf("},\"entry_pc\":{\"with_entry_pc\":%u,\"inside\":%u,\"at_range_end\":%u,"
	       "\"outside\":%u},\"extraction_secs\":%.3f}\n", s->entry_pc.with_entry_pc,
	       s->entry_pc.inside, s->entry_pc.at_range_end, s->entry_pc.outside, st->secs);
}

static void row(const char *label, uint64_t n, uint64_t of)
{
	if (of)
		printf("  %-40s %10llu  %5.1f%%\n", label, (unsigned long long)n, pct(n, of));
	else
		printf("  %-40s %10llu\n", label, (unsigned long long)n);
}

static void print_table(const char *path, const struct btfi_stats *st,
			const struct btfi_scan *s)
{
	char buf[96];
	int k;

	printf("%s\n", path);
	row("inline instances", st->inline_instances, 0);
	row("  without any code address", st->instances_noaddr, st->inline_instances);
	row("parameters (over all instances)", st->params, 0);
	row("  recoverable", st->params_recoverable, st->params);
	for (k = BTFI_LOC_KREG; k <= BTFI_LOC_KADDR; k++) {
		snprintf(buf, sizeof(buf), "    %s", btfi_loc_kind_str(k));
		row(buf, st->classes[k], st->params);
	}
	row("  unavailable", st->params - st->params_recoverable, st->params);
	for (k = BTFI_R_NO_LOCATION; k < BTFI_R__MAX; k++) {
		if (k == BTFI_R_UNKNOWN)
			continue;
		snprintf(buf, sizeof(buf), "    %s", btfi_reason_str(k));
		row(buf, st->unavailable[k], st->params);
	}
	row("instances with all parameters recoverable", st->instances_all_recoverable,
	    st->inline_instances);
	row("instances with some parameters recoverable", st->instances_some_recoverable,
	    st->inline_instances);
	row("instances with no parameter recoverable", st->instances_none_recoverable,
	    st->inline_instances);
	uint64_t nf = st->funcs_never_inlined + st->funcs_selectively_inlined + st->funcs_fully_inlined;
	row("functions", nf, 0);
	row("  never inlined", st->funcs_never_inlined, nf);
	row("  selectively inlined", st->funcs_selectively_inlined, nf);
	row("    their inline instances", st->sites_selectively_inlined, st->inline_instances);
	row("  fully inlined", st->funcs_fully_inlined, nf);
	row("    their inline instances", st->sites_fully_inlined, st->inline_instances);
	row("instances with a DW_AT_entry_pc", s->entry_pc.with_entry_pc, 0);
	row("  entry_pc inside the ranges", s->entry_pc.inside, s->entry_pc.with_entry_pc);
	row("  entry_pc at the end of a range", s->entry_pc.at_range_end, s->entry_pc.with_entry_pc);
	row("  entry_pc elsewhere outside", s->entry_pc.outside, s->entry_pc.with_entry_pc);
	printf("  %-40s %10.2f s\n", "extraction time", st->secs);
}

int cmd_stats(int argc, char **argv)
{
	BTFI_OPTS(btfi_scan_opts, opts);
	const char *path = NULL;
	struct btfi_scan *s;
	struct btfi_stats st;
	bool json = false, pretty = false, sites = false;
	int i, k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = true;
		} else if (!strcmp(argv[i], "--pretty") || !strcmp(argv[i], "-p")) {
			json = pretty = true;
		} else if (!strcmp(argv[i], "--sites")) {
			sites = true;
		} else if (!strncmp(argv[i], "--probe=", 8)) {
			for (k = 0; k < BTFI_PROBE__MAX; k++)
				if (!strcmp(argv[i] + 8, policies[k]))
					break;
			if (k == BTFI_PROBE__MAX)
				return stats_usage();
			opts.probe_policy = k;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			stats_usage();
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return stats_usage();
		} else if (!path) {
			path = argv[i];
		} else {
			return stats_usage();
		}
	}
	if (!path)
		return stats_usage();
	if (btfi_scan_open(path, &opts, &s))
		return 1;	/* the scan logged "btfinline: FILE: problem" */
	btfi_stats_compute(s, &st);
	if (sites)
		print_sites(s);
	else if (json) {
		struct json_capture jc = {};

		if (pretty)
			json_capture_begin(&jc);
		print_json(path, &st, s);
		json_capture_end(&jc);
	}
	else
		print_table(path, &st, s);
	btfi_scan_free(s);
	return 0;
}
