// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `btfinline trace -x BIN [-p PID] FUNC... [-- CMD ARGS]`: uprobes at every
 * inline site and the out-of-line entry of each FUNC, one line per hit with
 * the arguments typed from BTF. Inline info: source/source.h (BIN's
 * .BTF.inline, --inline-btf, else built from BIN's DWARF through the cache).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btfinline.h"
#include "attach/attach.h"
#include "cli.h"
#include "source/source.h"
#include "json_writer.h"
#include "trace_expr.h"
#include "trace_fmt.h"
#include "trace_sym.h"
#include "trace_caller.h"
#include "debug_opts.h"
#include "dwarf/debuginfo.h"
#include "trace_kernel.h"
#include "../bpf/trace.h"
#include "trace.skel.h"

struct tsite {
	const struct btf *btf;		/* of the object it is in (vmlinux, a module) */
	const char *func;
	char label[96];
	char where[160];	/* file:line of the call, "" if no DWARF */
	uint64_t vaddr;		/* the probe's ELF (or kernel) address */
	uint32_t nout;
	struct tout *outs;
};

/* The command line. */
struct trace_args {
	const char *binary;		/* -x, resolved; "kernel" with -k (names the target) */
	char binpath[4096];		/* a library or program name resolved */
	const char *inline_btf, *kbase, *outpath;
	const char *inline_btfs[64];	/* -k: one per --inline-btf */
	int ninline;
	const char *mods[64];		/* -k -m: modules in one step */
	int nmods;
	enum btfinline_policy policy;
	bool kernel, all_inst, fold_nested, no_entry, no_multi;
	bool json, str, count, bare;
	int pid;			/* -p, else -1 */
	double duration;		/* -d, 0: until the end */
	char **funcs;			/* FUNC or 'FUNC EXPR...' */
	int nfuncs;
	char **cmd;			/* after --, NULL if none */
	struct debug_opts dbg;		/* where the DWARF for file:line is */
};

struct trace_ctx {
	const struct trace_args *a;
	FILE *out;
	/* resolve: inline info, sites, what each site prints */
	struct btfinline *bi;
	struct trace_kernel *tk;	/* -k */
	struct trace_sym *sym;		/* user binaries with DWARF: file:line */
	struct trace_caller *caller;	/* entries' callers */
	const struct btf *btf;
	struct btfi_site_list sl;
	struct tsite *sites;		/* per attached site, by tag */
	size_t nsites;
	/* attach */
	struct trace_bpf *skel;
	struct btfinline_link *link;
	struct ring_buffer *rb;
	int pid, child, sync_pipe[2];
	/* run */
	uint64_t start_ns;		/* the command started */
	uint64_t t0_ns;			/* probes attached: event times are relative to it */
	uint64_t events;
	int status;			/* the child's */
	struct trace_fold *fold;	/* -k: nested instances fold (trace_kernel.c) */
	struct json_writer jw;		/* -j: one event line */
};

static volatile sig_atomic_t stop_sig;
static void on_signal(int sig) { stop_sig = sig; }

/* Fill the printed columns (and per-arg extras) of the sites [from, to). */
static int prepare_sites(struct trace_ctx *tc, struct btfi_site_list *sl, size_t from,
			 char **exprs, int nexpr, struct trace_sym *sym)
{
	const struct btf *btf = tc->btf;
	const struct trace_args *a = tc->a;

	for (size_t i = from; i < sl->cnt; i++) {
		struct btfi_attach_site *as = &sl->sites[i];
		const struct btf_type *f = as->func_id ? btf__type_by_id(btf, as->func_id) : NULL;
		uint32_t proto = f ? f->type : 0, nout = nexpr ? (uint32_t)nexpr : as->nargs;
		const struct btf_param *pp = proto ? btf_params(btf__type_by_id(btf, proto)) : NULL;
		struct btfi_loc *locs;
		struct tsite *ts;

		ts = &tc->sites[tc->nsites];
		memset(ts, 0, sizeof(*ts));
		ts->btf = btf;
		ts->func = as->func;
		ts->vaddr = as->vaddr;
		snprintf(ts->label, sizeof(ts->label), "%s", as->entry ? "entry" : as->label);
		if (nout > BTFI_MAX_ARGS)
			nout = BTFI_MAX_ARGS;
		ts->outs = btfi_site_list_alloc(sl, (nout + 1) * sizeof(*ts->outs));
		as->extra = btfi_site_list_alloc(sl, (nout + 1) * sizeof(*as->extra));
		locs = btfi_site_list_alloc(sl, (nout + 1) * sizeof(*locs));
		if (!ts->outs || !as->extra || !locs)
			return -ENOMEM;
		for (uint32_t k = 0; k < nout; k++) {
			struct tout *to = &ts->outs[k];

			if (nexpr) {
				char err[200];

				if (!pp || trace_resolve_expr(btf, exprs[k], as->arg_names, as->nargs,
							      proto, as->locs, &locs[k], &as->extra[k],
							      to, a->str, err, sizeof(err))) {
					if (!pp)
						snprintf(err, sizeof(err), "'%s': no prototype in BTF", exprs[k]);
					fprintf(stderr, "btfinline: %s: %s: %s\n", a->binary, as->func, err);
					return -EINVAL;
				}
				to->str = as->extra[k].str;
				continue;
			}
			locs[k] = as->locs[k];
			snprintf(to->name, sizeof(to->name), "%s",
				 as->arg_names && as->arg_names[k] && *as->arg_names[k] ?
				 as->arg_names[k] : "?");
			to->type_id = pp ? pp[k].type : 0;
			to->size = locs[k].size;
			to->is_signed = locs[k].is_signed;
			as->extra[k].str = a->str && pp && trace_is_char_ptr(btf, pp[k].type);
			to->str = as->extra[k].str;
		}
		/* expression names double as argument names in policy messages */
		if (nexpr) {
			const char **nn = btfi_site_list_alloc(sl, (nout + 1) * sizeof(char *));

			if (!nn)
				return -ENOMEM;
			for (uint32_t k = 0; k < nout; k++)
				nn[k] = ts->outs[k].name;
			as->arg_names = nn;
		}
		as->locs = locs;
		as->nargs = nout;
		ts->nout = nout;
		as->tag = tc->nsites++;
	}
	return 0;
}

/* One line per hit: text, or a JSON object (-j). */
static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace_ctx *tc = ctx;
	const struct btfi_trace_event *ev = data;
	const struct tsite *ts;
	struct json_writer *w = &tc->jw;
	char line[4096], val[512];
	const char *caller = NULL, *cline = "";
	size_t pos = 0;
	double t;

	if (size < sizeof(*ev) || ev->tag >= tc->nsites)
		return 0;
	ts = &tc->sites[ev->tag];
	if (tc->fold && fold_hit(tc->fold, ev->tid, ts->func, ts->label, ev->nargs, ev->err, ev->val))
		return 0;
	tc->events++;
	/* signed: a probe attached early can fire before the last one is
	 * (kprobes go in one at a time), a moment before t0 */
	t = (double)(int64_t)(ev->ts - tc->t0_ns) / 1e9;
	/* an out-of-line entry: who called it */
	if (ev->ret && tc->caller)
		trace_caller_at(tc->caller, ev->pid, ev->ret, ev->ip, ts->vaddr, &caller, &cline);
	if (tc->a->json) {
		jw_reset(w);
		jw_start_object(w);
		jw_float_field(w, "time", "%.6f", t);
		jw_uint_field(w, "pid", ev->pid);
		jw_uint_field(w, "tid", ev->tid);
		jw_string_field(w, "func", ts->func);
		jw_string_field(w, "site", ts->label);
		jw_string_field(w, "where", ts->where);
		if (caller) {
			char ra[24];

			snprintf(ra, sizeof(ra), "0x%llx", (unsigned long long)ev->ret);
			jw_string_field(w, "ret", ra);
			jw_string_field(w, "caller", caller);
			jw_string_field(w, "caller_line", cline);
		}
		jw_name(w, "args");
		jw_start_object(w);
	} else {
		pos += snprintf(line + pos, sizeof(line) - pos, "%.6f %u %s %s%s%s%s", t, ev->pid,
				ts->func, ts->label, *ts->where ? " (" : "", ts->where,
				*ts->where ? ")" : "");
		if (caller)
			pos += snprintf(line + pos, sizeof(line) - pos, " from %s%s%s%s", caller,
					*cline ? " (" : "", cline, *cline ? ")" : "");
	}
	for (uint32_t k = 0; k < ts->nout && k < ev->nargs && k < BTFI_MAX_ARGS; k++) {
		const struct tout *to = &ts->outs[k];
		const uint8_t *raw = (const uint8_t *)ev->val[k] + to->slice_off;
		uint32_t avail = 16 - to->slice_off, sz = to->size < avail ? to->size : avail;
		const char *str = to->str ? ev->str[k] : NULL;

		if (tc->a->json) {
			jw_name(w, to->name);
			if (ev->err[k])
				jw_null(w);
			else
				btfi_fmt_value_json(ts->btf, to->type_id, raw, sz, to->is_signed, str, w);
			continue;
		}
		if (ev->err[k])
			snprintf(val, sizeof(val), "?");
		else
			btfi_fmt_value(ts->btf, to->type_id, raw, sz, to->is_signed, str, val, sizeof(val));
		pos += snprintf(line + pos, sizeof(line) - pos, " %s=%s", to->name, val);
		if (pos >= sizeof(line))
			pos = sizeof(line) - 1;
	}
	if (tc->a->json) {
		jw_end_object(w);
		jw_end_object(w);	/* ends the line */
		if (w->nomem) {
			fprintf(stderr, "btfinline: out of memory\n");
			return -ENOMEM;
		}
		fwrite(w->buf, 1, w->len, tc->out);
	} else {
		fprintf(tc->out, "%s\n", line);
	}
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void print_counts(struct trace_ctx *tc)
{
	int fd = bpf_map__fd(tc->skel->maps.counts);
	struct json_writer w;

	jw_init(&w, tc->out, JSON_LINE);
	for (size_t i = 0; i < tc->nsites; i++) {
		__u64 key = i, v = 0;
		struct tsite *ts = &tc->sites[i];

		bpf_map_lookup_elem(fd, &key, &v);
		if (tc->a->json) {
			jw_start_object(&w);
			jw_string_field(&w, "func", ts->func);
			jw_string_field(&w, "site", ts->label);
			jw_string_field(&w, "where", ts->where);
			jw_uint_field(&w, "hits", v);
			jw_end_object(&w);
		} else {
			fprintf(tc->out, "%10llu %s %s%s%s%s\n", (unsigned long long)v, ts->func,
				ts->label, *ts->where ? " (" : "", ts->where, *ts->where ? ")" : "");
		}
	}
}

/* ---- parse: the command line ---- */

/* 0: go on; -1: stop with *rc (help: 0, usage error: 2). */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* optarg appended to a bounded list of a repeatable option. */
static int push_arg(const char **list, int *n, size_t cap, const char *opt)
{
	if ((size_t)*n == cap) {
		cli_usage(&cli_trace, "too many %s", opt);
		return -1;
	}
	list[(*n)++] = optarg;
	return 0;
}

static int parse_args(int argc, char **argv, struct trace_args *a, int *rc)
{
	static const struct option lopts[] = {
		{ "binary", required_argument, 0, 'x' },
		{ "pid", required_argument, 0, 'p' },
		{ "inline-btf", required_argument, 0, 'I' },
		{ "str", no_argument, 0, 'S' },
		{ "count", no_argument, 0, 'c' },
		{ "json", no_argument, 0, 'j' },
		{ "best-effort", no_argument, 0, 'B' },
		{ "no-entry", no_argument, 0, 'E' },
		{ "bare", no_argument, 0, 'Z' },	/* bench: empty program */
		{ "no-uprobe-multi", no_argument, 0, 'M' },	/* tests: per-site uprobes */
		{ "kernel", no_argument, 0, 'k' },
		{ "module", required_argument, 0, 'm' },
		{ "base", required_argument, 0, 'K' },
		{ "all-instances", no_argument, 0, 'A' },
		{ "fold-nested", no_argument, 0, 'F' },
		{ "duration", required_argument, 0, 'd' },
		{ "output", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' },
		{ "verbose", no_argument, 0, 'v' },
		DEBUG_LONGOPTS,
		{ 0 }
	};
	int c;

	*a = (struct trace_args){ .pid = -1, .policy = BTFI_ALL_OR_NONE };
	*rc = 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {	/* CMD [ARGS] */
			a->cmd = &argv[i + 1];
			argv[i] = NULL;
			argc = i;
			break;
		}
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":x:p:cjo:hkd:vm:", lopts, NULL)) != -1) {
		switch (c) {
		case 'x': a->binary = optarg; break;
		case 'p':
			a->pid = atoi(optarg);
			if (a->pid <= 0) {
				cli_usage(&cli_trace, "-p '%s': not a PID", optarg);
				return -1;
			}
			break;
		case 'I':
			if (push_arg(a->inline_btfs, &a->ninline, ARRAY_LEN(a->inline_btfs), "--inline-btf"))
				return -1;
			a->inline_btf = optarg;
			break;
		case 'S': a->str = true; break;
		case 'c': a->count = true; break;
		case 'j': a->json = true; break;
		case 'B': a->policy = BTFI_BEST_EFFORT; break;
		case 'E': a->no_entry = true; break;
		case 'Z': a->bare = true; break;
		case 'M': a->no_multi = true; break;
		case 'o': a->outpath = optarg; break;
		case 'k': a->kernel = true; break;
		case 'm':
			if (push_arg(a->mods, &a->nmods, ARRAY_LEN(a->mods), "-m"))
				return -1;
			break;
		case 'K': a->kbase = optarg; break;
		case 'A': a->all_inst = true; break;
		case 'F': a->fold_nested = true; break;
		case 'd':
			a->duration = atof(optarg);
			if (a->duration <= 0) {
				cli_usage(&cli_trace, "-d '%s': not a number of seconds", optarg);
				return -1;
			}
			break;
		case 'h':
			cli_help(&cli_trace, stdout);
			*rc = 0;
			return -1;
		case 'v': a->dbg.verbose = true; break;
		default:
			if (debug_opt(&a->dbg, c, optarg))
				break;
			cli_bad_option(&cli_trace, c, argv);
			return -1;
		}
	}
	a->funcs = argv + optind;
	a->nfuncs = argc - optind;
	if (a->kernel && (a->binary || a->pid > 0 || a->cmd)) {
		cli_usage(&cli_trace, "-k traces the kernel: no -x, -p or CMD");
		return -1;
	}
	if (a->kernel)
		a->binary = "kernel";
	if (!a->kernel && a->nmods) {
		cli_usage(&cli_trace, "-m MODULE is for -k");
		return -1;
	}
	if (!a->kernel && a->ninline > 1) {
		cli_usage(&cli_trace, "one --inline-btf with -x (several: -k, vmlinux and modules)");
		return -1;
	}
	if (!a->binary || a->nfuncs <= 0) {
		cli_usage(&cli_trace, a->binary ? "no FUNC" : "-x BINARY or -k");
		return -1;
	}
	if (a->cmd && !a->cmd[0]) {
		cli_usage(&cli_trace, "no CMD after --");
		return -1;
	}
	if (a->cmd && a->pid > 0) {
		cli_usage(&cli_trace, "-p and CMD exclude each other");
		return -1;
	}
	for (int f = 0; f < a->nfuncs; f++) {
		if (!a->funcs[f][strspn(a->funcs[f], " \t")]) {
			cli_usage(&cli_trace, "empty FUNC");
			return -1;
		}
	}
	return 0;
}

/* ---- resolve: inline info, the sites of each FUNC, what they print ---- */

static int grow_sites(struct trace_ctx *tc)
{
	struct tsite *ns = realloc(tc->sites, (tc->sl.cnt + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	tc->sites = ns;
	return 0;
}

/* -k: the sites one kernel object (vmlinux, a module) added, typed
 * from its BTF. */
struct prep_ctx {
	struct trace_ctx *tc;
	char **exprs;
	int nexpr;
};

static int prep_kernel(void *ctx, size_t from, const struct btf *btf)
{
	struct prep_ctx *pc = ctx;

	if (!btf)
		return -EINVAL;
	pc->tc->btf = btf;
	return grow_sites(pc->tc) ?: prepare_sites(pc->tc, &pc->tc->sl, from, pc->exprs, pc->nexpr, NULL);
}

/* Sites of one 'FUNC EXPR...' (split on spaces) appended to tc->sl. */
static int resolve_func(struct trace_ctx *tc, const char *arg)
{
	const struct trace_args *a = tc->a;
	char *spec = strdup(arg), *save = NULL, *func, *copy, *exprs[BTFI_MAX_ARGS], *e;
	size_t from = tc->sl.cnt;
	int nexpr = 0, err;

	if (!spec)
		return -ENOMEM;
	func = strtok_r(spec, " \t", &save);	/* not NULL: parse_args checked */
	while ((e = strtok_r(NULL, " \t,", &save))) {
		if (nexpr == BTFI_MAX_ARGS) {
			fprintf(stderr, "btfinline: %s: more than %d expressions\n", func, BTFI_MAX_ARGS);
			err = -E2BIG;
			goto out;
		}
		exprs[nexpr++] = e;
	}
	/* lives as long as sl: sites reference it */
	copy = btfi_site_list_alloc(&tc->sl, strlen(func) + 1);
	if (!copy) {
		err = -ENOMEM;
		goto out;
	}
	func = strcpy(copy, func);
	if (a->kernel) {
		struct prep_ctx pc = { tc, exprs, nexpr };

		err = trace_kernel_collect(tc->tk, func, a->no_entry, a->policy, &tc->sl, prep_kernel, &pc);
		goto out;
	}
	err = btfi_collect_sites(tc->bi, a->binary, trace_sym_dwarf_path(tc->sym), func, a->no_entry,
				 NULL, NULL, NULL, &tc->sl);
	if (err)
		goto out;
	err = grow_sites(tc);
	if (!err)
		err = prepare_sites(tc, &tc->sl, from, exprs, nexpr, tc->sym);
out:
	free(spec);
	return err;
}

/* -v: where the inline info came from; built or cached, how and how fast. */
static void source_report(const char *bin, const struct btfi_source_info *si)
{
	const struct btfi_build_info *b = &si->build;

	switch (si->how) {
	case BTFI_SOURCE_CACHE:
		fprintf(stderr, "btfinline: %s: inline info from the cache, %s (%s), opened in %.1f ms\n",
			bin, si->path, si->key, si->secs * 1e3);
		break;
	case BTFI_SOURCE_BUILT:
		fprintf(stderr, "btfinline: %s: no .BTF.inline: built from the DWARF of %s (%s) in %.2f s, "
			"%u sites, base BTF: %s%s%s%s\n", bin, b->dwarf_path,
			btfi_debuginfo_src_str(b->dwarf_src), si->secs, b->nsites,
			btfi_base_how_str(b->base_how), *b->base_note ? " (" : "", b->base_note,
			*b->base_note ? ")" : "");
		if (*si->path)
			fprintf(stderr, "btfinline: %s: cached as %s (%s)\n", bin, si->path, si->key);
		break;
	default:
		fprintf(stderr, "btfinline: %s: inline info from %s\n", bin, si->path);
		break;
	}
	if (*si->note)
		fprintf(stderr, "btfinline: %s: %s\n", bin, si->note);
}

/* Every site's file:line at once: one scan of the DWARF for all. */
static int call_lines(struct trace_ctx *tc)
{
	struct trace_sym_req *req = calloc(tc->sl.cnt + 1, sizeof(*req));
	size_t n = 0, ninl = 0, found;

	if (!req)
		return -ENOMEM;
	for (size_t i = 0; i < tc->sl.cnt; i++) {
		const struct btfi_attach_site *as = &tc->sl.sites[i];
		struct tsite *ts = &tc->sites[as->tag];

		ninl += !as->entry;
		req[n++] = (struct trace_sym_req){ .addr = as->vaddr, .func = as->entry ? NULL : as->func,
						   .buf = ts->where, .len = sizeof(ts->where) };
	}
	found = trace_sym_call_lines(tc->sym, req, n);
	if (tc->a->dbg.verbose)
		fprintf(stderr, "btfinline: %s: call lines of %zu of %zu inline sites from their instances\n",
			tc->a->binary, found, ninl);
	free(req);
	return 0;
}

static int resolve(struct trace_ctx *tc)
{
	const struct trace_args *a = tc->a;
	int err;

	if (a->kernel) {
		struct trace_kernel_opts ko = {
			.blobs = a->inline_btfs, .nblobs = a->ninline, .mods = a->mods,
			.nmods = a->nmods, .base = a->kbase, .debug_dirs = a->dbg.dirs,
			.verbose = a->dbg.verbose,
		};

		err = trace_kernel_open(&ko, &tc->tk);
		if (err)
			return err;
		/* Only for blobs that made GCC's split parts sites (encoders
		 * before they were left out): the rule also folds a genuine
		 * second call F(x) after F(x) in the same caller. */
		if (a->fold_nested && !a->all_inst && !(tc->fold = fold_new()))
			return -ENOMEM;
	} else {
		BTFI_OPTS(btfi_source_opts, so, .inline_btf = a->inline_btf, .build = true,
			  .debug_file = a->dbg.file, .debug_dirs = a->dbg.dirs);
		struct btfi_source_info si;

		err = btfi_source_open(BTFI_TARGET_USER, a->binary, &so, &tc->bi, &si);
		if (err)
			return err;
		if (a->dbg.verbose)
			source_report(a->binary, &si);
	}
	tc->btf = a->kernel ? NULL : btfinline__btf(tc->bi);
	tc->sym = a->kernel ? NULL : trace_sym_open(a->binary, a->dbg.file, a->dbg.dirs);
	if (a->dbg.verbose && !a->kernel)
		fprintf(stderr, "btfinline: %s: file:line %s%s\n", a->binary,
			tc->sym ? "from the DWARF of " : "not shown: no DWARF found",
			tc->sym ? trace_sym_dwarf_path(tc->sym) : "");
	for (int f = 0; f < a->nfuncs; f++) {
		err = resolve_func(tc, a->funcs[f]);
		if (err)
			return err;
	}
	{
		struct trace_caller_opts co = {
			.ks = a->kernel ? trace_kernel_ksyms(tc->tk) : NULL,
			.binary = a->kernel ? NULL : a->binary,
			.debug_file = tc->sym ? trace_sym_dwarf_path(tc->sym) : NULL,
			.sym = tc->sym,
		};

		if (!(tc->caller = trace_caller_new(&co)))
			return -ENOMEM;
	}
	return tc->sym ? call_lines(tc) : 0;
}

/* ---- attach: BPF program, the traced command, probes ---- */

/* Fork CMD, stopped until run() writes to the pipe (EOF: exit 127). */
static int start_child(struct trace_ctx *tc)
{
	char **cmd = tc->a->cmd;

	if (pipe2(tc->sync_pipe, O_CLOEXEC)) {
		perror("btfinline: pipe");
		return -errno;
	}
	tc->child = fork();
	if (tc->child < 0) {
		perror("btfinline: fork");
		return -errno;
	}
	if (tc->child == 0) {
		char b;

		close(tc->sync_pipe[1]);
		if (read(tc->sync_pipe[0], &b, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "btfinline: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(tc->sync_pipe[0]);
	tc->sync_pipe[0] = -1;
	tc->pid = tc->child;
	return 0;
}

static int attach(struct trace_ctx *tc)
{
	const struct trace_args *a = tc->a;
	struct trace_bpf *skel;
	struct bpf_program *prog;
	int err;

	skel = tc->skel = trace_bpf__open();
	if (!skel) {
		fprintf(stderr, "btfinline: cannot open the BPF program: %s\n", strerror(errno));
		return -errno;
	}
	skel->rodata->count_only = a->count;
	if (tc->sl.cnt > BTFI_SPECS_MAX) {
		bpf_map__set_max_entries(skel->maps.btfi_specs, tc->sl.cnt);
		bpf_map__set_max_entries(skel->maps.counts, tc->sl.cnt);
	}
	bpf_program__set_autoload(a->bare ? skel->progs.btfi_trace : skel->progs.btfi_empty, false);
	/* one uprobe_multi link for all sites where the kernel has them:
	 * detaching per-site uprobes costs a grace period each */
	if (!a->kernel && !a->no_multi && btfi_uprobe_multi_supported()) {
		bpf_program__set_expected_attach_type(skel->progs.btfi_trace, BTFI_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.btfi_empty, BTFI_TRACE_UPROBE_MULTI);
	}
	err = trace_bpf__load(skel);
	if (err) {
		fprintf(stderr, "btfinline: cannot load the BPF program: %s\n", strerror(-err));
		return err;
	}
	if (a->cmd && (err = start_child(tc)))
		return err;
	prog = a->bare ? skel->progs.btfi_empty : skel->progs.btfi_trace;
	if (a->kernel) {
		err = trace_kernel_attach(tc->tk, prog, &tc->sl, a->policy, &tc->link);
	} else {
		BTFI_OPTS(btfi_attach_core_opts, co, .policy = a->policy);

		err = btfi_attach_sites(prog, tc->pid, a->binary, tc->sl.sites, tc->sl.cnt, &co,
					&tc->link);
	}
	if (err)
		return err;
	if (!a->count && !a->bare) {
		tc->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, tc, NULL);
		if (!tc->rb) {
			fprintf(stderr, "btfinline: ring buffer: %s\n", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* ---- run: events until a signal, -d, or the end of the traced process ---- */

static int run(struct trace_ctx *tc)
{
	const struct trace_args *a = tc->a;
	size_t nprobes = btfinline_link__cnt(tc->link);
	uint64_t last_poll = 0;
	int err;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	tc->t0_ns = mono_ns();
	if (a->dbg.verbose)
		fprintf(stderr, "btfinline: ready %.1f ms after start\n", (tc->t0_ns - tc->start_ns) / 1e6);
	fprintf(stderr, "btfinline: %zu probe%s on %d function%s in %s\n", nprobes,
		nprobes == 1 ? "" : "s", a->nfuncs, a->nfuncs > 1 ? "s" : "", a->binary);
	if (tc->child > 0) {	/* go: one byte (EOF alone means "attach failed") */
		if (write(tc->sync_pipe[1], "g", 1) != 1)
			perror("btfinline: pipe");
		close(tc->sync_pipe[1]);
		tc->sync_pipe[1] = -1;
	}

	while (!stop_sig && !(a->duration > 0 && (mono_ns() - tc->t0_ns) / 1e9 >= a->duration)) {
		if (tc->rb) {
			/* the BPF side wakes us only when the ring fills up */
			err = ring_buffer__poll(tc->rb, 50);
			if (err >= 0)
				err = ring_buffer__consume(tc->rb);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "btfinline: ring buffer: %s\n", strerror(-err));
				break;
			}
		} else {
			usleep(100000);
		}
		if (tc->child > 0 && waitpid(tc->child, &tc->status, WNOHANG) == tc->child) {
			tc->child = -1;
			break;
		}
		if (tc->pid > 0 && !a->cmd && kill(tc->pid, 0) && errno == ESRCH)
			break;
		/* a module that went away loses its probes; none left: done */
		if (tc->tk && mono_ns() - last_poll >= 200000000ull) {
			last_poll = mono_ns();
			if (!trace_kernel_poll(tc->tk, tc->link)) {
				fprintf(stderr, "btfinline: kernel: no probe left\n");
				break;
			}
		}
	}
	if (tc->rb)
		ring_buffer__consume(tc->rb);
	if (a->count)
		print_counts(tc);
	if (tc->skel->bss->dropped)
		fprintf(stderr, "btfinline: %llu events dropped (ring buffer full)\n",
			(unsigned long long)tc->skel->bss->dropped);
	if (a->cmd && WIFEXITED(tc->status) && WEXITSTATUS(tc->status) == 127)
		return 1;
	return 0;
}

static void cleanup(struct trace_ctx *tc)
{
	/* detach before the child may be killed: nothing stays behind */
	btfinline_link__destroy(tc->link);
	ring_buffer__free(tc->rb);
	trace_bpf__destroy(tc->skel);
	if (tc->sync_pipe[1] >= 0)
		close(tc->sync_pipe[1]);	/* child reads EOF and exits 127 */
	if (tc->child > 0) {
		if (stop_sig)
			kill(tc->child, SIGTERM);
		waitpid(tc->child, &tc->status, 0);
	}
	btfi_site_list_free(&tc->sl);
	free(tc->sites);
	trace_sym_close(tc->sym);
	trace_caller_free(tc->caller);
	btfinline__free(tc->bi);
	trace_kernel_close(tc->tk);
	fold_free(tc->fold);
	jw_free(&tc->jw);
	if (tc->out && tc->out != stdout)
		fclose(tc->out);
	else
		fflush(stdout);
}

static int cmd_trace(int argc, char **argv)
{
	struct trace_args a;
	struct trace_ctx tc = { .a = &a, .out = stdout, .child = -1, .sync_pipe = { -1, -1 } };
	int rc;

	tc.start_ns = mono_ns();
	if (parse_args(argc, argv, &a, &rc))
		return rc;
	tc.pid = a.pid;
	if (a.pid > 0 && kill(a.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "btfinline: pid %d: %s\n", a.pid, strerror(ESRCH));
		return 1;
	}
	if (!a.kernel) {
		const char *how, *name = a.binary;

		if (btfi_resolve_binary(name, a.pid, a.binpath, sizeof(a.binpath), &how, NULL))
			return 1;
		a.binary = a.binpath;
		if (a.dbg.verbose && strcmp(name, a.binary))
			fprintf(stderr, "btfinline: %s: %s (%s)\n", name, a.binary, how);
	}
	if (a.outpath && !(tc.out = fopen(a.outpath, "w"))) {
		fprintf(stderr, "btfinline: %s: %s\n", a.outpath, strerror(errno));
		return 1;
	}
	jw_init_buf(&tc.jw, JSON_LINE);
	rc = 1;
	if (!resolve(&tc) && !attach(&tc))
		rc = run(&tc);
	cleanup(&tc);
	return rc;
}

const struct cli_cmd cli_trace = {
	.name = "trace",
	.fn = cmd_trace,
	.synopsis = "trace -x BINARY [-p PID] [OPTIONS] FUNC... [-- CMD [ARGS]]\n"
		    "trace -k [-m MODULE]... [--inline-btf BLOB] [--inline-btf MODULE=BLOB]... [--base BTF] [OPTIONS] FUNC...",
	.summary = "Probes at every inline site and the out-of-line entry of FUNC; arguments typed from BTF.",
	.options =
"  FUNC                 every inline site and the out-of-line entry of FUNC\n"
"  'FUNC EXPR...'       print only these: ARG, ARG->field.sub, ARG.field\n"
"  -x, --binary BIN     the ELF whose functions are traced (uprobes): a path, or a\n"
"                       library or program name (libc, libssl.so.3, python3)\n"
"                       found among the files PID maps, in the ld.so cache or PATH\n"
"  -p, --pid PID        only this process (default: CMD if given, else all);\n"
"                       -p is a PID as in perf, strace and bpftrace\n"
"  --inline-btf FILE    inline info from FILE (default: BIN's .BTF.inline, else\n"
"                       built from BIN's DWARF and cached in\n"
"                       ${XDG_CACHE_HOME:-~/.cache}/btfinline/encoded)\n"
"  -k, --kernel         kernel functions, kprobes; inline info: --inline-btf, else\n"
"                       /sys/kernel/btf/vmlinux.inline, else cached by the running\n"
"                       kernel's build-id, else encoded once from its DWARF\n"
"                       (/usr/lib/debug, debuginfod) and cached; loaded modules\n"
"                       with a symbol FUNC likewise\n"
"  -m, --module MOD     -k: loaded module MOD's inline sites too (one step, as\n"
"                       vmlinux's: for functions the module only inlines)\n"
"  --inline-btf MOD=FILE  -k: a loaded module's inline info (repeat for several\n"
"                       modules; a module's `encode -o` ELF names itself: FILE)\n"
"  --base BTF           -k: the base vmlinux's BLOB was encoded against; must equal the running kernel's\n"
"  --all-instances      -k: print every hit (the default; undoes --fold-nested)\n"
"  --fold-nested        -k: fold a hit into the thread's previous one of the same\n"
"                       function, caller and arguments at a lower offset (blobs\n"
"                       that made GCC's split parts sites; may fold real calls)\n"
"  --str                print char pointers as strings\n"
"  -c, --count          per-site hit counts at exit instead of one line per hit\n"
"  -j, --json           JSON lines\n"
"  --best-effort        attach even where some argument has no location\n"
"  --no-entry           skip the out-of-line entry (and clones' entries)\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -o, --output FILE    output to FILE\n"
"  -v, --verbose        say where BIN, its inline info and its DWARF came from,\n"
"                       and how long it took to attach\n"
"  --debug-file FILE    BIN's DWARF from FILE (build-id checked; default: in BIN,\n"
"                       found by build-id or .gnu_debuglink, or from debuginfod\n"
"                       when DEBUGINFOD_URLS is set)\n"
"  --debug-dir DIR      debug files under DIR (DIR:DIR2...) instead of /usr/lib/debug\n"
"                       (-k: ROOT/boot/vmlinux-RELEASE, ROOT/lib/modules/RELEASE/...)\n"
"  -h, --help           this text\n",
};
