// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `btfinline trace -x BIN [-p PID] FUNC... [-- CMD ARGS]`: uprobes at every
 * inline site and the out-of-line entry of each FUNC, one line per hit with
 * the arguments typed from BTF. Inline info comes from .BTF.inline only.
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
#include "trace_fmt.h"
#include "trace_sym.h"
#include "trace_kernel.h"
#include "../bpf/trace.h"
#include "trace.skel.h"

struct tout {			/* one printed value */
	char name[64];
	uint32_t type_id;	/* 0: integer of size/is_signed */
	uint32_t size;
	bool is_signed;
	uint8_t slice_off;	/* '.' into a by-value struct held in registers */
	bool str;		/* BPF read a string for it (ev->str) */
};

struct tsite {
	const char *func;
	char label[96];
	char where[160];	/* file:line of the call, "" if no DWARF */
	uint32_t nout;
	struct tout *outs;
	uint64_t hits;
};

struct trace_ctx {
	const char *binary;
	bool json, str, count, bare, quiet_start;
	FILE *out;
	const struct btf *btf;
	struct tsite *sites;
	size_t nsites;
	struct timespec t0;
	uint64_t t0_ns;
	uint64_t events;
	struct trace_fold *fold;	/* -k: nested instances fold (trace_kernel.c) */
};

static volatile sig_atomic_t stop_sig;
static void on_signal(int sig) { stop_sig = sig; }

static void usage(FILE *f)
{
	fprintf(f,
"usage: btfinline trace -x BINARY [-p PID] [OPTIONS] FUNC... [-- CMD [ARGS]]\n"
"       btfinline trace -k [--inline-btf BLOB] [--base BTF] [OPTIONS] FUNC...\n"
"  -k, --kernel         kernel functions, kprobes (inline info: --inline-btf, or\n"
"                       /sys/kernel/btf/vmlinux.inline)\n"
"  --base BTF           -k: the base BLOB was encoded against; must equal the running kernel's\n"
"  --all-instances      -k: print nested instances of the same call too\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  FUNC                 every inline site and the out-of-line entry of FUNC\n"
"  'FUNC EXPR...'       print only these: ARG, ARG->field.sub, ARG.field\n"
"  -x, --binary BIN     the ELF whose functions are traced\n"
"  -p, --pid PID        only this process (default: CMD if given, else all)\n"
"  --inline-btf FILE    inline info from FILE (default: BIN's .BTF.inline)\n"
"  --str                print char pointers as strings\n"
"  -c, --count          per-site hit counts at exit instead of one line per hit\n"
"  -j, --json           JSON lines\n"
"  --best-effort        attach even where some argument has no location\n"
"  --no-entry           skip the out-of-line entry\n"
"  -o FILE              output to FILE\n");
}

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static bool is_char_ptr(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = skip_mods(btf, &id);

	if (!t || !btf_is_ptr(t))
		return false;
	id = t->type;
	t = skip_mods(btf, &id);
	return t && btf_is_int(t) && t->size == 1;
}

/* Member `name` of composite type id (anonymous members searched too). */
static int find_member(const struct btf *btf, uint32_t id, const char *name,
		       uint32_t *off, uint32_t *mtype, int depth)
{
	const struct btf_type *t = skip_mods(btf, &id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return -ENOENT;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t boff = btf_member_bit_offset(t, i);

		if (btf_member_bitfield_size(t, i) || boff % 8)
			continue;
		if (mn && !strcmp(mn, name)) {
			*off = boff / 8;
			*mtype = m->type;
			return 0;
		}
		if ((!mn || !*mn) && !find_member(btf, m->type, name, off, mtype, depth + 1)) {
			*off += boff / 8;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Resolve `arg->a.b->c` against the parameter's type: adjusts the location
 * (a '.' into a struct passed in memory), fills the BPF field chain, and
 * gives the type of the printed value. Errors name the expression.
 */
static int resolve_expr(const struct btf *btf, const char *expr, const char **names,
			uint32_t nparams, uint32_t proto_id, const struct btfi_loc *locs,
			struct btfi_loc *loc, struct btfi_arg_extra *ex, struct tout *to,
			bool want_str, char *err, size_t errlen)
{
	const struct btf_param *pp = btf_params(btf__type_by_id(btf, proto_id));
	char buf[256], *p, *tok;
	uint32_t cur, poff = 0;
	bool addr_mode = false;	/* the value is the address of a `cur` object + poff */
	int k;

	snprintf(buf, sizeof(buf), "%s", expr);
	p = buf + strcspn(buf, ".-");
	tok = strndup(buf, p - buf);
	for (k = 0; k < (int)nparams; k++)
		if (names[k] && !strcmp(names[k], tok))
			break;
	free(tok);
	if (k == (int)nparams) {
		snprintf(err, errlen, "'%s': no such argument", expr);
		return -ENOENT;
	}
	*loc = locs[k];
	memset(ex, 0, sizeof(*ex));
	memset(to, 0, sizeof(*to));
	snprintf(to->name, sizeof(to->name), "%s", expr);
	cur = pp[k].type;
	while (*p) {
		bool arrow = p[0] == '-' && p[1] == '>';
		const struct btf_type *t;
		uint32_t moff, mtype;
		char mname[64];
		size_t n;

		if (!arrow && *p != '.')
			goto bad;
		p += arrow ? 2 : 1;
		n = strcspn(p, ".-");
		if (!n || n >= sizeof(mname))
			goto bad;
		memcpy(mname, p, n);
		mname[n] = 0;
		p += n;
		t = skip_mods(btf, &cur);
		if (arrow) {
			if (!t || !btf_is_ptr(t))
				goto notptr;
			if (addr_mode) {	/* load the pointer first */
				if (ex->nsteps >= BTFI_MAX_STEPS)
					goto deep;
				ex->steps[ex->nsteps++] = (struct btfi_step){ .off = poff, .size = 8 };
			} else if (to->slice_off) {
				goto unsup;
			}
			cur = t->type;
			poff = 0;
			addr_mode = true;
		}
		if (find_member(btf, cur, mname, &moff, &mtype, 0)) {
			snprintf(err, errlen, "'%s': no member '%s'", expr, mname);
			return -ENOENT;
		}
		if (addr_mode) {
			poff += moff;
		} else if (loc->kind == BTFI_LOC_KMEM) {
			loc->off += moff;	/* struct passed in memory */
		} else if (loc->kind == BTFI_LOC_KREG_PAIR || loc->kind == BTFI_LOC_KREG) {
			to->slice_off += moff;	/* taken from the captured bytes */
		} else if (loc->kind != BTFI_LOC_NONE) {
			goto unsup;
		}
		cur = mtype;
	}
	{
		int64_t sz = btf__resolve_size(btf, cur);
		const struct btf_type *t = skip_mods(btf, &cur);
		bool char_arr = t && btf_is_array(t) && ({
			uint32_t e = btf_array(t)->type;
			const struct btf_type *et = skip_mods(btf, &e);
			et && btf_is_int(et) && et->size == 1; });

		if (sz < 0)
			sz = 0;
		if (addr_mode) {
			if (ex->nsteps >= BTFI_MAX_STEPS)
				goto deep;
			if (char_arr && sz > 16) {	/* address, then a string read */
				ex->steps[ex->nsteps++] = (struct btfi_step){ .off = poff, .size = 0 };
				ex->str = true;
			} else {
				ex->steps[ex->nsteps++] = (struct btfi_step){
					.off = poff, .size = sz > 16 ? 16 : sz,
					.is_signed = t && btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED) };
			}
		} else if (loc->kind == BTFI_LOC_KMEM && sz) {
			loc->size = sz;
		}
		to->type_id = cur;
		to->size = sz;
		if (want_str && is_char_ptr(btf, cur)) {
			if (ex->nsteps < BTFI_MAX_STEPS && !to->slice_off)
				ex->str = true;
		}
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s': bad field expression", expr);
	return -EINVAL;
notptr:
	snprintf(err, errlen, "'%s': '->' on a non-pointer", expr);
	return -EINVAL;
deep:
	snprintf(err, errlen, "'%s': more than %d dereferences", expr, BTFI_MAX_STEPS);
	return -E2BIG;
unsup:
	snprintf(err, errlen, "'%s': field of a value in registers cannot be dereferenced", expr);
	return -EOPNOTSUPP;
}

/* Fill the printed columns (and per-arg extras) of the sites [from, to). */
static int prepare_sites(struct trace_ctx *tc, struct btfi_site_list *sl, size_t from,
			 char **exprs, int nexpr, struct trace_sym *sym)
{
	const struct btf *btf = tc->btf;

	for (size_t i = from; i < sl->cnt; i++) {
		struct btfi_attach_site *as = &sl->sites[i];
		const struct btf_type *f = as->func_id ? btf__type_by_id(btf, as->func_id) : NULL;
		uint32_t proto = f ? f->type : 0, nout = nexpr ? (uint32_t)nexpr : as->nargs;
		const struct btf_param *pp = proto ? btf_params(btf__type_by_id(btf, proto)) : NULL;
		struct btfi_loc *locs;
		struct tsite *ts;

		ts = &tc->sites[tc->nsites];
		memset(ts, 0, sizeof(*ts));
		ts->func = as->func;
		snprintf(ts->label, sizeof(ts->label), "%s", as->entry ? "entry" : as->label);
		trace_sym_where(sym, as->vaddr, as->entry ? NULL : as->func, ts->where, sizeof(ts->where));
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

				if (!pp || resolve_expr(btf, exprs[k], as->arg_names, as->nargs, proto,
							as->locs, &locs[k], &as->extra[k], to, tc->str,
							err, sizeof(err))) {
					if (!pp)
						snprintf(err, sizeof(err), "'%s': no prototype in BTF", exprs[k]);
					fprintf(stderr, "btfinline: %s: %s: %s\n", tc->binary, as->func, err);
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
			as->extra[k].str = tc->str && pp && is_char_ptr(btf, pp[k].type);
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

static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace_ctx *tc = ctx;
	const struct btfi_trace_event *ev = data;
	const struct tsite *ts;
	char line[4096], val[512];
	size_t pos = 0;
	double t;

	if (size < sizeof(*ev) || ev->tag >= tc->nsites)
		return 0;
	ts = &tc->sites[ev->tag];
	if (tc->fold && fold_hit(tc->fold, ev->tid, ts->func, ts->label, ev->nargs, ev->err, ev->val))
		return 0;
	tc->events++;
	t = (double)(ev->ts - tc->t0_ns) / 1e9;
	if (tc->json) {
		char w[200];

		btfi_fmt_json_str(ts->where, w, sizeof(w));
		pos += snprintf(line + pos, sizeof(line) - pos,
				"{\"time\": %.6f, \"pid\": %u, \"tid\": %u, \"func\": \"%s\", \"site\": \"%s\", \"where\": %s, \"args\": {",
				t, ev->pid, ev->tid, ts->func, ts->label, w);
	} else {
		pos += snprintf(line + pos, sizeof(line) - pos, "%.6f %u %s %s%s%s%s", t, ev->pid,
				ts->func, ts->label, *ts->where ? " (" : "", ts->where,
				*ts->where ? ")" : "");
	}
	for (uint32_t k = 0; k < ts->nout && k < ev->nargs && k < BTFI_MAX_ARGS; k++) {
		const struct tout *to = &ts->outs[k];
		const uint8_t *raw = (const uint8_t *)ev->val[k] + to->slice_off;
		uint32_t avail = 16 - to->slice_off;

		if (ev->err[k])
			snprintf(val, sizeof(val), tc->json ? "null" : "?");
		else
			btfi_fmt_value(tc->btf, to->type_id, raw, to->size < avail ? to->size : avail,
				       to->is_signed, to->str ? ev->str[k] : NULL, tc->json, val, sizeof(val));
		if (tc->json)
			pos += snprintf(line + pos, sizeof(line) - pos, "%s\"%s\": %s", k ? ", " : "",
					to->name, val);
		else
			pos += snprintf(line + pos, sizeof(line) - pos, " %s=%s", to->name, val);
		if (pos >= sizeof(line))
			pos = sizeof(line) - 1;
	}
	if (tc->json)
		snprintf(line + pos, sizeof(line) - pos, "}}");
	fprintf(tc->out, "%s\n", line);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void print_counts(struct trace_ctx *tc, struct trace_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.counts);

	for (size_t i = 0; i < tc->nsites; i++) {
		__u64 key = i, v = 0;
		struct tsite *ts = &tc->sites[i];

		bpf_map_lookup_elem(fd, &key, &v);
		if (tc->json)
			fprintf(tc->out, "{\"func\": \"%s\", \"site\": \"%s\", \"where\": \"%s\", \"hits\": %llu}\n",
				ts->func, ts->label, ts->where, (unsigned long long)v);
		else
			fprintf(tc->out, "%10llu %s %s%s%s%s\n", (unsigned long long)v, ts->func,
				ts->label, *ts->where ? " (" : "", ts->where, *ts->where ? ")" : "");
	}
}

int cmd_trace(int argc, char **argv)
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
		{ "base", required_argument, 0, 'K' },
		{ "all-instances", no_argument, 0, 'A' },
		{ "duration", required_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	struct trace_ctx tc = { .out = stdout };
	const char *inline_btf = NULL, *outpath = NULL;
	struct btfi_site_list sl = { 0 };
	struct btfinline *bi = NULL;
	struct btfinline_link *link = NULL;
	struct ring_buffer *rb = NULL;
	struct trace_bpf *skel = NULL;
	struct trace_sym *sym = NULL;
	enum btfinline_policy policy = BTFI_ALL_OR_NONE;
	bool no_entry = false, no_multi = false;
	char **cmd = NULL;
	int pid = -1, child = -1, sync_pipe[2] = { -1, -1 }, ret = 1, c, err, status = 0;
	int nfuncs;
	bool kernel = false, all_inst = false;
	const char *kbase = NULL;
	struct trace_kernel *tk = NULL;
	double duration = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			cmd = &argv[i + 1];
			argv[i] = NULL;
			argc = i;
			break;
		}
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "x:p:cjo:hkd:", lopts, NULL)) != -1) {
		switch (c) {
		case 'x': tc.binary = optarg; break;
		case 'p': pid = atoi(optarg); if (pid <= 0) goto badusage; break;
		case 'I': inline_btf = optarg; break;
		case 'S': tc.str = true; break;
		case 'c': tc.count = true; break;
		case 'j': tc.json = true; break;
		case 'B': policy = BTFI_BEST_EFFORT; break;
		case 'E': no_entry = true; break;
		case 'Z': tc.bare = true; break;
		case 'M': no_multi = true; break;
		case 'o': outpath = optarg; break;
		case 'k': kernel = true; break;
		case 'K': kbase = optarg; break;
		case 'A': all_inst = true; break;
		case 'd': duration = atof(optarg); if (duration <= 0) goto badusage; break;
		case 'h': usage(stdout); return 0;
		default: goto badusage;
		}
	}
	nfuncs = argc - optind;
	if (kernel && (tc.binary || pid > 0 || cmd))
		goto badusage;
	if (kernel)
		tc.binary = "kernel";	/* names the target in messages */
	if (!tc.binary || nfuncs <= 0 || (cmd && !cmd[0]) || (cmd && pid > 0))
		goto badusage;
	if (pid > 0 && kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "btfinline: pid %d: %s\n", pid, strerror(ESRCH));
		return 1;
	}
	if (outpath && !(tc.out = fopen(outpath, "w"))) {
		fprintf(stderr, "btfinline: %s: %s\n", outpath, strerror(errno));
		return 1;
	}

	if (kernel) {
		if (trace_kernel_open(inline_btf, kbase, &tk, &bi))
			goto out;
		if (!all_inst && !(tc.fold = fold_new()))
			goto out;
	} else {
		BTFI_OPTS(btfinline_open_opts, oo, .base_path = inline_btf ? tc.binary : NULL);

		err = btfinline__open(inline_btf ? inline_btf : tc.binary, &oo, &bi);
		if (err)
			goto out;
	}
	tc.btf = btfinline__btf(bi);
	sym = kernel ? NULL : trace_sym_open(tc.binary);

	/* Sites of every FUNC ('FUNC expr...' splits on spaces). */
	for (int f = optind; f < argc; f++) {
		char *spec = strdup(argv[f]), *save = NULL, *func, *exprs[BTFI_MAX_ARGS], *e;
		int nexpr = 0;
		size_t from = sl.cnt;
		struct tsite *ns;

		func = strtok_r(spec, " \t", &save);
		while (func && (e = strtok_r(NULL, " \t,", &save))) {
			if (nexpr == BTFI_MAX_ARGS) {
				fprintf(stderr, "btfinline: %s: more than %d expressions\n", func, BTFI_MAX_ARGS);
				free(spec);
				goto out;
			}
			exprs[nexpr++] = e;
		}
		if (!func) {
			free(spec);
			goto badusage;
		}
		{	/* lives as long as sl: sites reference it */
			char *copy = btfi_site_list_alloc(&sl, strlen(func) + 1);

			if (!copy) {
				free(spec);
				goto out;
			}
			func = strcpy(copy, func);
		}
		err = kernel ? trace_kernel_collect(tk, bi, func, no_entry, &sl) :
			btfi_collect_sites(bi, tc.binary, func, no_entry, NULL, NULL, NULL, &sl);
		if (!err) {
			ns = realloc(tc.sites, sl.cnt * sizeof(*ns));
			err = ns ? 0 : -ENOMEM;
			if (ns)
				tc.sites = ns;
		}
		if (!err)
			err = prepare_sites(&tc, &sl, from, exprs, nexpr, sym);
		free(spec);
		if (err)
			goto out;
	}

	skel = trace_bpf__open();
	if (!skel) {
		fprintf(stderr, "btfinline: cannot open the BPF program: %s\n", strerror(errno));
		goto out;
	}
	skel->rodata->count_only = tc.count;
	if (sl.cnt > BTFI_SPECS_MAX) {
		bpf_map__set_max_entries(skel->maps.btfi_specs, sl.cnt);
		bpf_map__set_max_entries(skel->maps.counts, sl.cnt);
	}
	bpf_program__set_autoload(tc.bare ? skel->progs.btfi_trace : skel->progs.btfi_empty, false);
	/* one uprobe_multi link for all sites where the kernel has them:
	 * detaching per-site uprobes costs a grace period each */
	if (!kernel && !no_multi && btfi_uprobe_multi_supported()) {
		bpf_program__set_expected_attach_type(skel->progs.btfi_trace, BTFI_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.btfi_empty, BTFI_TRACE_UPROBE_MULTI);
	}
	err = trace_bpf__load(skel);
	if (err) {
		fprintf(stderr, "btfinline: cannot load the BPF program: %s\n", strerror(-err));
		goto out;
	}

	if (cmd) {	/* fork, attach to the child, then let it exec */
		if (pipe2(sync_pipe, O_CLOEXEC)) {
			perror("btfinline: pipe");
			goto out;
		}
		child = fork();
		if (child < 0) {
			perror("btfinline: fork");
			goto out;
		}
		if (child == 0) {
			char b;

			close(sync_pipe[1]);
			if (read(sync_pipe[0], &b, 1) != 1)
				_exit(127);
			execvp(cmd[0], cmd);
			fprintf(stderr, "btfinline: %s: %s\n", cmd[0], strerror(errno));
			_exit(127);
		}
		close(sync_pipe[0]);
		sync_pipe[0] = -1;
		pid = child;
	}

	{
		BTFI_OPTS(btfi_attach_core_opts, co, .policy = policy);

		if (kernel)
			err = trace_kernel_attach(tk, tc.bare ? skel->progs.btfi_empty : skel->progs.btfi_trace,
						  &sl, policy, &link);
		else
			err = btfi_attach_sites(tc.bare ? skel->progs.btfi_empty : skel->progs.btfi_trace,
						pid, tc.binary, sl.sites, sl.cnt, &co, &link);
		if (err)
			goto out;
	}
	if (!tc.count && !tc.bare) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, &tc, NULL);
		if (!rb) {
			fprintf(stderr, "btfinline: ring buffer: %s\n", strerror(errno));
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	tc.t0_ns = mono_ns();
	fprintf(stderr, "btfinline: %zu probe%s on %d function%s in %s\n", btfinline_link__cnt(link),
		btfinline_link__cnt(link) == 1 ? "" : "s",
		nfuncs, nfuncs > 1 ? "s" : "", tc.binary);
	if (child > 0) {	/* go: one byte (EOF alone means "attach failed") */
		if (write(sync_pipe[1], "g", 1) != 1)
			perror("btfinline: pipe");
		close(sync_pipe[1]);
		sync_pipe[1] = -1;
	}

	while (!stop_sig && !(duration > 0 && (mono_ns() - tc.t0_ns) / 1e9 >= duration)) {
		if (rb) {
			/* the BPF side wakes us only when the ring fills up */
			err = ring_buffer__poll(rb, 50);
			if (err >= 0)
				err = ring_buffer__consume(rb);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "btfinline: ring buffer: %s\n", strerror(-err));
				break;
			}
		} else {
			usleep(100000);
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (pid > 0 && !cmd && kill(pid, 0) && errno == ESRCH)
			break;
	}
	if (rb)
		ring_buffer__consume(rb);
	if (tc.count)
		print_counts(&tc, skel);
	if (skel->bss->dropped)
		fprintf(stderr, "btfinline: %llu events dropped (ring buffer full)\n",
			(unsigned long long)skel->bss->dropped);
	ret = 0;
	if (cmd && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		ret = 1;
	goto out;
badusage:
	usage(stderr);
	ret = 2;
out:
	/* detach before the child may be killed: nothing stays behind */
	btfinline_link__destroy(link);
	ring_buffer__free(rb);
	trace_bpf__destroy(skel);
	if (sync_pipe[1] >= 0)
		close(sync_pipe[1]);	/* child reads EOF and exits 127 */
	if (child > 0) {
		if (stop_sig)
			kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	btfi_site_list_free(&sl);
	free(tc.sites);
	trace_sym_close(sym);
	btfinline__free(bi);
	trace_kernel_close(tk);
	fold_free(tc.fold);
	if (tc.out && tc.out != stdout)
		fclose(tc.out);
	else
		fflush(stdout);
	return ret;
}
