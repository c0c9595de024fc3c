// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `btfinline trace -k FUNC...`: the kernel half of the trace command. The
 * output, the BPF program and the event loop are cmd_trace.c's; this file
 * finds the inline info and the sites of the running kernel and attaches
 * kprobes. Also: folding of nested instances of the same function.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>
#include <bpf/libbpf.h>
#include "attach/attach_kernel.h"
#include "elf_file.h"
#include "log.h"
#include "dwarf/debuginfo.h"
#include "source/source.h"
#include "attach/kallsyms.h"
#include "trace_kernel.h"

/* vmlinux, or one loaded module: its inline info and where it runs. */
struct kobj {
	char name[64];		/* "vmlinux" or the module's */
	bool is_mod;
	struct btfi_kmod mod;	/* section load addresses */
	struct btfinline *bi;
	uint64_t lo, hi;	/* span of its probe addresses */
	bool any, gone;
};

struct trace_kernel {
	struct btfi_ksyms *ks;
	struct btfi_kblacklist bl;
	struct kobj *objs;
	size_t nobjs;
	struct trace_kernel_opts o;
	bool one_step;		/* no --inline-btf: modules found by symbol too */
	char **tried;		/* modules whose inline info could not be had */
	size_t ntried;
};

/* "MODULE=FILE", or FILE: a module's ELF (encode -o of its .ko) names
 * itself in .modinfo; anything else is vmlinux's. */
static int blob_target(const char *arg, char *mod, size_t len, const char **file)
{
	const char *eq = strchr(arg, '=');
	int fd;
	Elf *elf;
	bool named = false;

	*mod = 0;
	*file = arg;
	if (eq && access(arg, F_OK) && (size_t)(eq - arg) < len && eq > arg && !memchr(arg, '/', eq - arg)) {
		memcpy(mod, arg, eq - arg);
		mod[eq - arg] = 0;
		*file = eq + 1;
		return 0;
	}
	if (btfi_file_kind(arg) != BTFI_FILE_ELF || (fd = open(arg, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && btfi_elf_is_kmod(elf))
		named = btfi_elf_kmod_name(elf, mod, len);
	if (elf)
		elf_end(elf);
	close(fd);
	if (elf && btfi_file_is_kmod(arg) && !named) {
		fprintf(stderr, "btfinline: %s: kernel module without a .modinfo name: pass --inline-btf NAME=%s\n",
			arg, arg);
		return -EINVAL;
	}
	return 0;
}

/* -v: where an object's inline info came from */
static void report(const char *name, const struct btfi_source_info *si)
{
	switch (si->how) {
	case BTFI_SOURCE_CACHE:
		fprintf(stderr, "btfinline: kernel: %s: inline info from the cache, %s (%s), opened in %.1f ms\n",
			name, si->path, si->key, si->secs * 1e3);
		break;
	case BTFI_SOURCE_BUILT:
		fprintf(stderr, "btfinline: kernel: %s: inline info built from the DWARF of %s (%s) in %.2f s, "
			"%u sites%s%s\n", name, si->build.dwarf_path, btfi_debuginfo_src_str(si->build.dwarf_src),
			si->secs, si->build.nsites, *si->path ? ", cached as " : "", si->path);
		break;
	default:
		fprintf(stderr, "btfinline: kernel: %s: inline info from %s\n", name, si->path);
		break;
	}
	if (*si->note)
		fprintf(stderr, "btfinline: kernel: %s: %s\n", name, si->note);
}

/* log: where the failure goes (NULL: stderr). */
static int add_obj(struct trace_kernel *tk, const char *mod, const char *blob, bool build,
		   const struct btfi_log *log)
{
	BTFI_OPTS(btfi_source_opts, so, .inline_btf = blob, .base = mod ? NULL : tk->o.base,
		  .module = mod, .build = build && !blob, .debug_dirs = tk->o.debug_dirs);
	struct btfi_source_info si;
	struct kobj *o, *no;
	int err;

	if (log)
		so.log = *log;
	for (size_t i = 0; i < tk->nobjs; i++)
		if (!strcmp(tk->objs[i].name, mod ? mod : "vmlinux")) {
			fprintf(stderr, "btfinline: kernel: two inline infos for %s\n", tk->objs[i].name);
			return -EINVAL;
		}
	no = realloc(tk->objs, (tk->nobjs + 1) * sizeof(*no));
	if (!no)
		return -ENOMEM;
	tk->objs = no;
	o = &tk->objs[tk->nobjs];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", mod ? mod : "vmlinux");
	o->is_mod = mod;
	err = btfi_source_open(BTFI_TARGET_KERNEL, NULL, &so, &o->bi, &si);
	if (!err && mod)
		err = btfi_kmod_load(mod, &o->mod, log);
	if (err) {
		btfinline__free(o->bi);
		btfi_kmod_free(&o->mod);
		return err;
	}
	if (tk->o.verbose)
		report(o->name, &si);
	tk->nobjs++;
	return 0;
}

int trace_kernel_open(const struct trace_kernel_opts *opts, struct trace_kernel **out)
{
	BTFI_OPTS(btfi_ksyms_opts, kso);
	struct trace_kernel *tk;
	bool have_vmlinux = false;
	int err = 0;

	*out = NULL;
	tk = calloc(1, sizeof(*tk));
	if (!tk)
		return -ENOMEM;
	tk->o = *opts;
	tk->one_step = !opts->nblobs;
	for (int i = 0; i < opts->nblobs && !err; i++) {
		char mod[64];
		const char *file;

		err = blob_target(opts->blobs[i], mod, sizeof(mod), &file);
		if (!err)
			err = add_obj(tk, *mod ? mod : NULL, file, false, NULL);
		have_vmlinux |= !err && !*mod;
	}
	/* vmlinux: its own sysfs blob unless given, or in one step the cache
	 * or its DWARF; with only modules' blobs given, vmlinux's when the
	 * kernel has one */
	if (!err && !have_vmlinux && (tk->one_step || !access(BTFI_SYSFS_INLINE, R_OK)))
		err = add_obj(tk, NULL, NULL, tk->one_step, NULL);
	for (int i = 0; i < opts->nmods && !err; i++)
		err = add_obj(tk, opts->mods[i], NULL, true, NULL);
	if (!err)
		err = btfi_ksyms_load(&kso, &tk->ks);
	if (err) {
		trace_kernel_close(tk);
		return err;
	}
	btfi_kblacklist_load(NULL, &tk->bl);
	*out = tk;
	return 0;
}

/* One step: loaded modules with a symbol named func (its out-of-line
 * copy: the module's inline sites of it come along) join, in one step
 * too. A module whose inline info cannot be had is left out; *why keeps
 * the reason for when nothing else has func. */
static void join_modules(struct trace_kernel *tk, const char *func, struct btfi_msgbuf *why)
{
	const char *mods[16];
	size_t n = btfi_ksyms_mods_with(tk->ks, func, mods, 16);

	for (size_t i = 0; i < n; i++) {
		struct btfi_msgbuf m = { { 0 } };
		struct btfi_log ml = BTFI_LOG_KEEP(&m);
		bool seen = false;
		char **nt;

		for (size_t k = 0; k < tk->nobjs && !seen; k++)
			seen = tk->objs[k].is_mod && !strcmp(tk->objs[k].name, mods[i]);
		for (size_t k = 0; k < tk->ntried && !seen; k++)
			seen = !strcmp(tk->tried[k], mods[i]);
		if (seen)
			continue;
		if (!add_obj(tk, mods[i], NULL, true, &ml))
			continue;
		if (!why->s[0])
			memcpy(why, &m, sizeof(m));
		nt = realloc(tk->tried, (tk->ntried + 1) * sizeof(*nt));
		if (nt && (nt[tk->ntried] = strdup(mods[i])))
			tk->ntried++;
		if (nt)
			tk->tried = nt;
		fprintf(stderr, "btfinline: kernel: %s: module %s left out: %s\n", func, mods[i], m.s);
	}
}

const struct btfi_ksyms *trace_kernel_ksyms(const struct trace_kernel *tk)
{
	return tk ? tk->ks : NULL;
}

void trace_kernel_close(struct trace_kernel *tk)
{
	if (!tk)
		return;
	for (size_t i = 0; i < tk->nobjs; i++) {
		btfinline__free(tk->objs[i].bi);
		btfi_kmod_free(&tk->objs[i].mod);
	}
	free(tk->objs);
	for (size_t i = 0; i < tk->ntried; i++)
		free(tk->tried[i]);
	free(tk->tried);
	btfi_ksyms_free(tk->ks);
	btfi_kblacklist_free(&tk->bl);
	free(tk);
}

int trace_kernel_collect(struct trace_kernel *tk, const char *func, bool no_entry,
			 enum btfinline_policy policy, struct btfi_site_list *sl,
			 trace_kernel_prep_fn prep, void *ctx)
{
	struct btfi_kskips sk = { 0 };
	struct btfi_msgbuf unknown = { { 0 } }, none = { { 0 } }, left = { { 0 } };
	bool added = false;
	int err;

	if (tk->one_step)
		join_modules(tk, func, &left);
	for (size_t i = 0; i < tk->nobjs; i++) {
		struct kobj *o = &tk->objs[i];
		struct btfi_msgbuf m = { { 0 } };
		struct btfi_log ml = BTFI_LOG_KEEP(&m);
		size_t from = sl->cnt;

		err = btfi_collect_ksites(o->bi, tk->ks, o->is_mod ? &o->mod : NULL, &tk->bl, func,
					  no_entry, NULL, NULL, &ml, sl, &sk);
		if (err == -ESRCH)
			continue;	/* not in this module */
		if (err == -ENOENT) {	/* unknown in vmlinux, or nothing probe-able */
			struct btfi_msgbuf *keep = strstr(m.s, "no probe-able") ? &none : &unknown;

			if (!keep->s[0])
				memcpy(keep, &m, sizeof(m));
			continue;
		}
		if (err) {
			if (m.s[0])
				fprintf(stderr, "btfinline: %s\n", m.s);
			return err;
		}
		for (size_t k = from; k < sl->cnt; k++) {
			uint64_t a = sl->sites[k].vaddr;

			if (!o->any || a < o->lo)
				o->lo = a;
			if (!o->any || a > o->hi)
				o->hi = a;
			o->any = true;
		}
		err = prep(ctx, from, btfinline__btf(o->bi));
		if (err)
			return err;
		added = true;
	}
	if (!added) {	/* a module left out above has said why */
		if (!left.s[0])
			fprintf(stderr, "btfinline: %s\n", none.s[0] ? none.s : unknown.s[0] ? unknown.s :
				"kernel: no inline site and no kernel symbol of that name");
		return -ENOENT;
	}
	if (sk.nmissed && policy != BTFI_BEST_EFFORT) {
		fprintf(stderr, "btfinline: kernel: %s: %zu site%s cannot be probed, calls there would "
			"be missed, refusing (--best-effort to attach the others): %s\n", func,
			sk.nmissed, sk.nmissed > 1 ? "s" : "", sk.text);
		return -ENOTSUP;
	}
	if (sk.n)
		fprintf(stderr, "btfinline: kernel: %s: %zu site%s skipped: %s\n", func, sk.n,
			sk.n > 1 ? "s" : "", sk.text);
	return 0;
}

size_t trace_kernel_poll(struct trace_kernel *tk, struct btfinline_link *link)
{
	size_t live = 0;

	for (size_t i = 0; i < tk->nobjs; i++) {
		struct kobj *o = &tk->objs[i];
		size_t n;

		if (!o->is_mod || !o->any || o->gone || btfi_kmod_loaded(o->name))
			continue;
		/* the kernel disarmed them as the module went; closing the
		 * events unregisters them */
		n = btfi_link_detach_range(link, o->lo, o->hi);
		o->gone = true;
		fprintf(stderr, "btfinline: kernel: module %s was unloaded: its %zu probe%s removed\n",
			o->name, n, n == 1 ? "" : "s");
	}
	for (size_t i = 0; link && i < link->cnt; i++)
		live += link->links[i] != NULL;
	return live;
}

/* Each kprobe holds a perf event fd and a BPF link fd. */
static void raise_nofile(size_t nsites)
{
	struct rlimit r;
	rlim_t need = 2 * nsites + 64;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= need)
		return;
	if (r.rlim_max < need)
		r.rlim_max = need;	/* root may raise the hard limit */
	r.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &r)) {
		getrlimit(RLIMIT_NOFILE, &r);
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int trace_kernel_attach(struct trace_kernel *tk, struct bpf_program *prog,
			const struct btfi_site_list *sl, enum btfinline_policy policy,
			struct btfinline_link **link)
{
	BTFI_OPTS(btfi_attach_core_opts, co, .policy = policy, .kernel = true);
	struct btfi_kskips sk = { 0 };
	double t0 = now_s();
	int err;

	raise_nofile(sl->cnt);
	err = btfi_attach_ksites(prog, sl->sites, sl->cnt,
				 btfi_ksyms_kaslr_delta(tk->ks, BTFI_X86_64_LINK_TEXT), &tk->bl, &co, link, &sk);
	if (err)
		return err;
	if (sk.n)
		fprintf(stderr, "btfinline: kernel: %zu site%s refused by the kernel, skipped: %s\n",
			sk.n, sk.n > 1 ? "s" : "", sk.text);
	fprintf(stderr, "btfinline: kernel: %zu kprobes attached in %.3f s\n",
		btfinline_link__cnt(*link), now_s() - t0);
	return 0;
}

/* ---- nested instances ---- */

#define FOLD_SLOTS 1024

struct fold_slot {
	uint32_t tid;
	bool used;
	const char *func;
	char caller[96];
	uint64_t off;
	uint32_t nargs;
	int32_t err[BTFI_MAX_ARGS];
	uint64_t val[BTFI_MAX_ARGS];
};

struct trace_fold {
	struct fold_slot s[FOLD_SLOTS];
};

struct trace_fold *fold_new(void)
{
	return calloc(1, sizeof(struct trace_fold));
}

void fold_free(struct trace_fold *f)
{
	free(f);
}

/* "caller+0xOFF" -> caller, off */
static bool split_label(const char *label, char *caller, size_t len, uint64_t *off)
{
	const char *plus = strrchr(label, '+');
	char *end;

	if (!plus || plus == label || (size_t)(plus - label) >= len || strncmp(plus, "+0x", 3))
		return false;
	*off = strtoull(plus + 3, &end, 16);
	if (*end)
		return false;
	memcpy(caller, label, plus - label);
	caller[plus - label] = 0;
	return true;
}

bool fold_hit(struct trace_fold *f, uint32_t tid, const char *func, const char *label,
	      uint32_t nargs, const int32_t *err, const void *val)
{
	struct fold_slot *p = &f->s[tid % FOLD_SLOTS], cur = { .tid = tid, .used = true, .func = func };
	uint32_t same = 0;
	bool fold;

	if (nargs > BTFI_MAX_ARGS)
		nargs = BTFI_MAX_ARGS;
	if (!split_label(label, cur.caller, sizeof(cur.caller), &cur.off)) {
		p->used = false;	/* an entry hit ends any chain */
		return false;
	}
	cur.nargs = nargs;
	for (uint32_t k = 0; k < nargs; k++) {
		cur.err[k] = err[k];
		memcpy(&cur.val[k], (const char *)val + k * 16, 8);
	}
	fold = p->used && p->tid == tid && !strcmp(p->func, func) &&
	       !strcmp(p->caller, cur.caller) && cur.off > p->off && p->nargs == nargs;
	for (uint32_t k = 0; fold && k < nargs; k++) {
		if (p->err[k] || cur.err[k])
			continue;	/* not located at one of the two */
		if (p->val[k] != cur.val[k])
			fold = false;
		same++;
	}
	if (fold && !same)
		fold = false;	/* no argument to tell: keep both */
	*p = cur;		/* a chain of nested levels folds into the first */
	return fold;
}
