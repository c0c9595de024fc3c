// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `btfinline stats FILE [-j|-p] [--sites] [--probe=POLICY]`: inline sites
 * and how many of their arguments a tracer can recover, from DWARF. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "cli.h"
#include "debug_opts.h"
#include "dwarf/debuginfo.h"
#include "json_writer.h"
#include "dwarf/scan.h"

static const char *const policies[BTFI_PROBE__MAX] = {
	[BTFI_PROBE_DEFAULT] = "default",
	[BTFI_PROBE_ENTRY_PC] = "entry-pc",
	[BTFI_PROBE_LOWEST] = "lowest",
	[BTFI_PROBE_ENTRY_IN_RANGE] = "entry-in-range",
	[BTFI_PROBE_FIRST_RANGE] = "first-range",
	[BTFI_PROBE_PER_CALL] = "per-call",
};

int cli_probe_policy(const char *name)
{
	for (int k = 0; k < BTFI_PROBE__MAX; k++)
		if (!strcmp(name, policies[k]))
			return k;
	return -1;
}

static const char *const hows[BTFI_PROBE_HOW__MAX] = {
	[BTFI_PROBE_HOW_NO_CFG] = "no_cfg",
	[BTFI_PROBE_HOW_KEPT] = "kept",
	[BTFI_PROBE_HOW_DEEPER] = "deeper",
	[BTFI_PROBE_HOW_FIRST] = "first",
	[BTFI_PROBE_HOW_PRELOOP] = "preloop",
	[BTFI_PROBE_HOW_POSTLOOP] = "postloop",
	[BTFI_PROBE_HOW_MULTI] = "multi",
	[BTFI_PROBE_HOW_AMBIGUOUS] = "ambiguous",
};

/* One line per instance: a debugging view that tests also check; the
 * locations in dump's syntax, `?` with the reason DWARF gives. */
static void print_sites(const struct btfi_scan *s)
{
	uint32_t u = 0;		/* s->entry_rows.unprobed, by site */

	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];
		const struct btfi_func *f = &s->funcs[site->func];
		const char *caller = site->caller != UINT32_MAX ? s->funcs[site->caller].name : NULL;

		/* An instance with several addresses: one line each, in a
		 * row. A split part is no site: "split" instead of "site".
		 * An address below the caller's entry is in a piece GCC moved
		 * out of it (`f.cold`): a negative offset. */
		bool below = site->addr < site->caller_addr;

		printf("%s %s 0x%llx in %s%s0x%llx at %s:%u depth %u shndx %u:",
		       site->flags & BTFI_SITE_SPLIT ? "split" :
		       site->flags & BTFI_SITE_SHARED ? "shared" :
		       site->flags & BTFI_SITE_CLONE ? "clone" :
		       site->flags & BTFI_SITE_ENTRY ? "entry" : "site",
		       f->name ? f->name : "?", (unsigned long long)site->addr,
		       caller ? caller : "?", below ? "-" : "+",
		       (unsigned long long)(below ? site->caller_addr - site->addr :
						    site->addr - site->caller_addr),
		       site->call_file ? site->call_file : "?", site->call_line,
		       site->depth, site->shndx);
		if (site->cond)		/* a branch of the caller's: when it goes in */
			printf(" if %s:", btfi_cc_str(site->cond - 1));
		for (uint32_t j = 0; j < site->nlocs; j++) {
			const struct btfi_param *p = &s->params[f->first_param + j];
			const struct btfi_loc *l = &s->locs[site->first_loc + j];
			char loc[128];

			btfi_loc_snprintf(loc, sizeof(loc), l, p->size);
			printf(" %s=%s", p->name ? p->name : "?", loc);
			if (l->kind == BTFI_LOC_NONE)
				printf("(%s)", btfi_reason_str(l->reason));
		}
		if (site->flags & BTFI_SITE_REFUSED)
			printf(" refused");
		if (site->flags & BTFI_SITE_NOTRACE)
			printf(" notrace");
		/* --entry-rows: a copy of GCC's entry row no probe shares a
		 * path with */
		while (u < s->entry_rows.nunprobed && s->entry_rows.unprobed[u].site < i)
			u++;
		if (u < s->entry_rows.nunprobed && s->entry_rows.unprobed[u].site == i)
			printf(" unprobed-copy 0x%llx", (unsigned long long)s->entry_rows.unprobed[u].addr);
		printf("\n");
		/* after an instance's last address, when it has several: all
		 * of them, one line (a site on a branch with its condition),
		 * so that a reader can tell two instances on one line apart */
		if ((site->flags & BTFI_SITE_EXTRA) &&
		    (i + 1 == s->nsites || !(s->sites[i + 1].flags & BTFI_SITE_EXTRA))) {
			uint32_t g = i;

			while (g > 0 && (s->sites[g].flags & BTFI_SITE_EXTRA))
				g--;
			printf("multi %s", f->name ? f->name : "?");
			for (; g <= i; g++) {
				printf(" 0x%llx", (unsigned long long)s->sites[g].addr);
				if (s->sites[g].cond)
					printf(":%s", btfi_cc_str(s->sites[g].cond - 1));
			}
			printf("\n");
		}
	}
	for (uint32_t i = 0; i < s->nfuncs; i++) {
		const struct btfi_func *f = &s->funcs[i];
		static const char *const cls[] = { "never", "selective", "full" };

		printf("func %s class %s sites %u noaddr %u ool %u symbol %d clones %u\n",
		       f->name ? f->name : "?", cls[f->cls], f->nsites, f->nsites_noaddr,
		       f->nool, f->has_symbol, f->nclones);
	}
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0.0;
}

static void print_json(const char *path, const struct btfi_stats *st, uint32_t max_instances,
		       const struct btfi_scan *s, bool pretty)
{
	struct json_writer w;
	int k;

	jw_init(&w, stdout, pretty ? JSON_PRETTY : JSON_COMPACT);
	jw_start_object(&w);
	jw_string_field(&w, "file", path);
	jw_uint_field(&w, "inline_instances", st->inline_instances);
	jw_uint_field(&w, "instances_noaddr", st->instances_noaddr);
	jw_uint_field(&w, "split_parts", st->split_parts);
	jw_uint_field(&w, "shared_tails", st->shared_tails);
	jw_uint_field(&w, "entry_sites", st->entry_sites);
	jw_uint_field(&w, "clone_entries", st->clone_entries);
	jw_uint_field(&w, "entry_params", st->entry_params);
	jw_uint_field(&w, "entry_params_located", st->entry_params_located);
	jw_uint_field(&w, "params", st->params);
	jw_uint_field(&w, "params_recoverable", st->params_recoverable);
	jw_uint_field(&w, "instances_all_recoverable", st->instances_all_recoverable);
	jw_uint_field(&w, "instances_some_recoverable", st->instances_some_recoverable);
	jw_uint_field(&w, "instances_none_recoverable", st->instances_none_recoverable);
	jw_uint_field(&w, "funcs_never_inlined", st->funcs_never_inlined);
	jw_uint_field(&w, "funcs_selectively_inlined", st->funcs_selectively_inlined);
	jw_uint_field(&w, "funcs_fully_inlined", st->funcs_fully_inlined);
	jw_uint_field(&w, "sites_selectively_inlined", st->sites_selectively_inlined);
	jw_uint_field(&w, "sites_fully_inlined", st->sites_fully_inlined);
	jw_name(&w, "classes");
	jw_start_object(&w);
	for (k = BTFI_LOC_KREG; k <= BTFI_LOC_KADDR; k++)
		jw_uint_field(&w, btfi_loc_kind_str(k), st->classes[k]);
	jw_end_object(&w);
	jw_uint_field(&w, "next_view", s->next_view);
	jw_name(&w, "unavailable");
	jw_start_object(&w);
	for (k = BTFI_R_NO_LOCATION; k < BTFI_R__MAX; k++) {
		if (k == BTFI_R_UNKNOWN)	/* only from blobs */
			continue;
		jw_uint_field(&w, btfi_reason_str(k), st->unavailable[k]);
	}
	jw_end_object(&w);
	jw_name(&w, "entry_pc");
	jw_start_object(&w);
	jw_uint_field(&w, "with_entry_pc", s->entry_pc.with_entry_pc);
	jw_uint_field(&w, "inside", s->entry_pc.inside);
	jw_uint_field(&w, "at_range_end", s->entry_pc.at_range_end);
	jw_uint_field(&w, "outside", s->entry_pc.outside);
	jw_uint_field(&w, "nocode", s->entry_pc.nocode);
	jw_end_object(&w);
	if (s->policy == BTFI_PROBE_PER_CALL) {
		jw_name(&w, "per_call");
		jw_start_object(&w);
		for (k = 0; k < BTFI_PROBE_HOW__MAX; k++)
			jw_uint_field(&w, hows[k], s->probe.how[k]);
		jw_uint_field(&w, "extra_addrs", s->probe.extra_addrs);
		jw_uint_field(&w, "copies", s->probe.copies);
		jw_uint_field(&w, "views", s->probe.views);
		jw_uint_field(&w, "entry_copies", s->probe.entry_copies);
		jw_uint_field(&w, "nop_skipped", s->probe.nop_skipped);
		jw_uint_field(&w, "refused_moved", s->probe.refused_moved);
		jw_uint_field(&w, "refused_left", s->probe.refused_left);
		jw_uint_field(&w, "moved_locs", s->probe.moved_locs);
		jw_uint_field(&w, "notrace", s->probe.notrace);
		jw_uint_field(&w, "borrowed", s->probe.borrowed);
		jw_uint_field(&w, "reg_copy", s->probe.reg_copy);
		jw_uint_field(&w, "reg_load", s->probe.reg_load);
		jw_uint_field(&w, "reg_affine", s->probe.reg_affine);
		jw_uint_field(&w, "join_view", s->probe.join_view);
		jw_uint_field(&w, "unshared", s->probe.unshared);
		jw_uint_field(&w, "others_ways", s->probe.others_ways);
		jw_uint_field(&w, "back_moved", s->probe.back_moved);
		jw_uint_field(&w, "cut", s->probe.cut);
		jw_uint_field(&w, "edges", s->probe.edges);
		jw_uint_field(&w, "loop_changed", s->probe.loop_changed);
		jw_end_object(&w);
	}
	if (s->reach) {
		jw_name(&w, "ceiling");
		jw_start_object(&w);
		jw_uint_field(&w, "params", st->ceil_params);
		jw_uint_field(&w, "params_any_location", st->ceil_any);
		jw_uint_field(&w, "instances_all", st->ceil_instances);
		jw_end_object(&w);
	}
	if (s->entry_rows.on) {
		jw_name(&w, "entry_rows");
		jw_start_object(&w);
		jw_uint_field(&w, "instances", s->entry_rows.instances);
		jw_uint_field(&w, "probe_on_each", s->entry_rows.each);
		jw_uint_field(&w, "fewer_probes", s->entry_rows.fewer);
		jw_uint_field(&w, "fewer_probes_on_each", s->entry_rows.fewer_each);
		jw_end_object(&w);
	}
	jw_uint_field(&w, "funcs_inlined", st->funcs_inlined);
	jw_uint_field(&w, "funcs_all_recoverable", st->funcs_all_recoverable);
	if (max_instances) {
		jw_uint_field(&w, "max_instances", max_instances);
		jw_uint_field(&w, "funcs_over_max", st->funcs_over_max);
		jw_uint_field(&w, "sites_over_max", st->sites_over_max);
	}
	/* Over every instance (max_instances does not apply). */
	jw_name(&w, "unsupported_shapes");
	jw_start_array(&w);
	for (uint32_t i = 0; i < s->nshapes && i < 10; i++) {
		jw_start_object(&w);
		jw_string_field(&w, "shape", s->shapes[i].text);
		jw_uint_field(&w, "count", s->shapes[i].count);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_float_field(&w, "extraction_secs", "%.3f", st->secs);
	jw_end_object(&w);
}

static void row(const char *label, uint64_t n, uint64_t of)
{
	if (of)
		printf("  %-40s %10llu  %5.1f%%\n", label, (unsigned long long)n, pct(n, of));
	else
		printf("  %-40s %10llu\n", label, (unsigned long long)n);
}

static void print_table(const char *path, const struct btfi_stats *st, uint32_t max_instances,
			const struct btfi_scan *s)
{
	char buf[96];
	int k;

	printf("%s\n", path);
	row("inline instances", st->inline_instances, 0);
	row("  without any code address", st->instances_noaddr, st->inline_instances);
	if (st->split_parts)
		row("  split parts (the enclosing call)", st->split_parts,
		    st->inline_instances);
	if (st->shared_tails)
		row("  shared tails (another call's events)", st->shared_tails,
		    st->inline_instances);
	row("parameters (over all instances)", st->params, 0);
	row("  recoverable", st->params_recoverable, st->params);
	for (k = BTFI_LOC_KREG; k <= BTFI_LOC_KADDR; k++) {
		snprintf(buf, sizeof(buf), "    %s", btfi_loc_kind_str(k));
		row(buf, st->classes[k], st->params);
	}
	row("    from a later view at the probe", s->next_view, 0);
	row("  unavailable", st->params - st->params_recoverable, st->params);
	for (k = BTFI_R_NO_LOCATION; k < BTFI_R__MAX; k++) {
		if (k == BTFI_R_UNKNOWN)
			continue;
		snprintf(buf, sizeof(buf), "    %s", btfi_reason_str(k));
		row(buf, st->unavailable[k], st->params);
	}
	/* over the instances that are sites (not split parts or shared tails) */
	row("instances with all parameters recoverable", st->instances_all_recoverable,
	    st->inline_instances - st->split_parts - st->shared_tails);
	row("instances with some parameters recoverable", st->instances_some_recoverable,
	    st->inline_instances - st->split_parts - st->shared_tails);
	row("instances with no parameter recoverable", st->instances_none_recoverable,
	    st->inline_instances - st->split_parts - st->shared_tails);
	if (s->reach) {
		/* at any address of the instance, any view */
		row("ceiling: located where it can be probed", st->ceil_params, st->params);
		row("  any location there (carried or not)", st->ceil_any, st->params);
		row("  instances with every parameter located", st->ceil_instances,
		    st->inline_instances - st->split_parts - st->shared_tails);
	}
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
	row("instances without code, at their entry_pc", s->entry_pc.nocode,
	    st->inline_instances);
	if (s->policy == BTFI_PROBE_PER_CALL) {
		uint64_t n = 0;

		for (k = 0; k < BTFI_PROBE_HOW__MAX; k++)
			n += s->probe.how[k];
		row("per-call probe: instances placed", n, 0);
		for (k = 0; k < BTFI_PROBE_HOW__MAX; k++) {
			snprintf(buf, sizeof(buf), "  %s", hows[k]);
			row(buf, s->probe.how[k], n);
		}
		row("  addresses beyond one per instance", s->probe.extra_addrs, 0);
		row("    of them: unrolled copies, one DIE", s->probe.copies, 0);
		row("    of them: view-only pieces (the call without code)", s->probe.views, 0);
		row("    of them: entry-row copies no other address's path meets", s->probe.entry_copies, 0);
		row("  padding skipped", s->probe.nop_skipped, 0);
		row("  moved off a refused instruction", s->probe.refused_moved, 0);
		row("  left on one (no way round it found)", s->probe.refused_left, 0);
		row("  parameter locations from the one moved off", s->probe.moved_locs, 0);
		row("  in a notrace function (kprobe PMU: refused)", s->probe.notrace, 0);
		row("  parameter locations from the probe's path", s->probe.borrowed, 0);
		row("    a register copied from the probe's", s->probe.reg_copy, 0);
		row("    memory a register is loaded from later", s->probe.reg_load, 0);
		row("    a register computed later from one", s->probe.reg_affine, 0);
		row("  locations only views give, at a join: not taken", s->probe.join_view, 0);
		row("  moved off another call's probe", s->probe.unshared, 0);
		row("  ways dropped: another call's code", s->probe.others_ways, 0);
		row("  moved off a call's own back edge", s->probe.back_moved, 0);
		row("  at a cut past a join an edge enters", s->probe.cut, 0);
		row("  sites on a caller's branch into the body", s->probe.edges, 0);
		row("  postloop: locations the loop changes, not taken", s->probe.loop_changed, 0);
	}
	if (s->entry_rows.on) {	/* GCC's copies of inline entries (tail duplication) */
		row("entry row copied onto alternative paths", s->entry_rows.instances, st->inline_instances);
		row("  a probe on each copy's path", s->entry_rows.each, s->entry_rows.instances);
		row("  fewer probe addresses than copies", s->entry_rows.fewer, s->entry_rows.instances);
		row("    a probe on each copy's path", s->entry_rows.fewer_each, s->entry_rows.fewer);
	}
	/* not instances: out-of-line entries the calling convention misreads */
	row("entries with their own locations (ABI changed)", st->entry_sites, 0);
	row("  GCC clones (f.isra.N, f.constprop.N)", st->clone_entries, st->entry_sites);
	row("  their parameters located", st->entry_params_located, st->entry_params);
	row("inlined functions", st->funcs_inlined, 0);
	row("  all arguments at all sites recoverable", st->funcs_all_recoverable, st->funcs_inlined);
	if (max_instances) {
		snprintf(buf, sizeof(buf), "left out: more than %u instances", max_instances);
		row(buf, st->funcs_over_max, 0);
		row("  their inline instances", st->sites_over_max, 0);
	}
	if (s->nshapes) {
		uint64_t n = 0;

		for (uint32_t i = 0; i < s->nshapes; i++)
			n += s->shapes[i].count;
		printf("  unsupported expressions: %llu in %u shapes; the most frequent (all instances):\n",
		       (unsigned long long)n, s->nshapes);
	}
	for (uint32_t i = 0; i < s->nshapes && i < 10; i++)
		printf("    %10u  %s\n", s->shapes[i].count, s->shapes[i].text);
	printf("  %-40s %10.2f s\n", "extraction time", st->secs);
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "sites", no_argument, NULL, 'S' },
		{ "probe", required_argument, NULL, 'P' },
		{ "max-instances", required_argument, NULL, 'M' },
		{ "ceiling", no_argument, NULL, 'C' },
		{ "entry-rows", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		DEBUG_LONGOPTS,
		{}
	};
	BTFI_OPTS(btfi_scan_opts, opts);
	struct debug_opts dbg = {};
	const char *path;
	struct btfi_scan *s;
	struct btfi_stats st;
	bool json = false, pretty = false, sites = false;
	uint32_t max_instances = 0;
	char *end;
	int c, k;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jphv", lopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'p': json = pretty = true; break;
		case 'S': sites = true; break;
		case 'C': opts.ceiling = true; break;
		case 'E': opts.entry_rows = true; break;
		case 'P':
			if ((k = cli_probe_policy(optarg)) < 0)
				return cli_usage(&cli_stats, "unknown probe policy '%s'", optarg);
			opts.probe_policy = k;
			break;
		case 'M':
			errno = 0;
			max_instances = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !max_instances)
				return cli_usage(&cli_stats, "--max-instances needs a positive number, not '%s'",
						 optarg);
			break;
		case 'h': cli_help(&cli_stats, stdout); return 0;
		case 'v': dbg.verbose = true; break;
		default:
			if (!debug_opt(&dbg, c, optarg))
				return cli_bad_option(&cli_stats, c, argv);
			break;
		}
	}
	if (optind == argc)
		return cli_usage(&cli_stats, NULL);
	if (optind + 1 < argc)
		return cli_usage(&cli_stats, "extra argument '%s'", argv[optind + 1]);
	path = argv[optind];
	opts.debug_file = dbg.file;
	opts.debug_dirs = dbg.dirs;
	if (btfi_scan_open(path, &opts, &s))
		return 1;	/* the scan logged "btfinline: FILE: problem" */
	debug_opts_report(&dbg, path, s);
	btfi_stats_compute(s, max_instances, &st);
	if (sites)
		print_sites(s);
	else if (json)
		print_json(path, &st, max_instances, s, pretty);
	else
		print_table(path, &st, max_instances, s);
	btfi_scan_free(s);
	return 0;
}

const struct cli_cmd cli_stats = {
	.name = "stats",
	.fn = cmd_stats,
	.synopsis = "stats FILE [-j|-p] [--sites] [--probe=POLICY] [--max-instances N] [--ceiling] [--entry-rows]",
	.summary = "Inline sites and how many of their arguments a tracer can recover, from DWARF.",
	.options =
"  FILE            an ELF with DWARF (a kernel vmlinux, a program, a library), in\n"
"                  it (compressed, split .dwo) or detached (build-id, .gnu_debuglink)\n"
"  -j, --json      the counts as one JSON object\n"
"  -p, --pretty    the same JSON indented (bpftool's -p)\n"
"  --sites         one line per inline instance: address, caller, call file:line,\n"
"                  depth, and each argument's location as `dump` prints it, with\n"
"                  the reason for `?` (a line per address for an instance entered\n"
"                  by several paths, then `multi FUNC ADDR...` with all of them,\n"
"                  `ADDR:COND` for a site on a branch; `split` for GCC's split parts, which are\n"
"                  the enclosing call; `shared` for code only another call of\n"
"                  the function enters, its events; `refused` after an address\n"
"                  the probes cannot take, kprobes' jump labels, WARNs and static\n"
"                  calls or uprobes' lock prefix, with no way round it; `notrace`\n"
"                  after a kernel address in a function without an ftrace call,\n"
"                  which the kprobe PMU refuses unless the kernel has\n"
"                  CONFIG_KPROBE_EVENTS_ON_NOTRACE); with\n"
"                  --entry-rows, an instance with a copy of its entry row that no\n"
"                  probe shares a path with ends in `unprobed-copy ADDR`; then one\n"
"                  line per function\n"
"  --probe=POLICY  probe address of an instance: default (= per-call), per-call,\n"
"                  entry-pc, lowest, entry-in-range, first-range (docs/DESIGN.md)\n"
"  --max-instances N  leave out functions inlined more than N times (the\n"
"                  published samples use 100), as if they were not there\n"
"  --ceiling       also count the parameters whose DWARF has a location anywhere\n"
"                  their instance can be probed (any address of its code, any\n"
"                  view): what no probe address policy can exceed\n"
"  --entry-rows    also count the instances whose inline-entry row (is_stmt at\n"
"                  the callee's declaration) GCC copied onto alternative paths,\n"
"                  and those with a probe on each copy's path (reads every\n"
"                  unit's line table: a kernel's costs about 150 MB more)\n"
"  --debug-file FILE  DWARF from FILE (its build-id must match FILE's)\n"
"  --debug-dir DIR    debug files under DIR (DIR:DIR2...) instead of /usr/lib/debug\n"
"  -v, --verbose   say where the DWARF came from (stderr)\n"
"  -h, --help      this text\n",
};
