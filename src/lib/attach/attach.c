// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Uprobe attach at inline sites: the core (site descriptors -> specs in the
 * program's btfi_specs map -> one uprobe per site with the spec key as
 * cookie) and the .BTF.inline front end btfinline_attach_uprobe().
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach/attach.h"
#include "elf_syms.h"
#include "insn.h"
#include "log.h"

/* ---- site lists ---- */

void btfi_site_list_free(struct btfi_site_list *l)
{
	for (size_t i = 0; i < l->nallocs; i++)
		free(l->allocs[i]);
	free(l->allocs);
	free(l->sites);
	memset(l, 0, sizeof(*l));
}

void *btfi_site_list_alloc(struct btfi_site_list *l, size_t sz)
{
	void **na = realloc(l->allocs, (l->nallocs + 1) * sizeof(*na));
	void *p;

	if (!na)
		return NULL;
	l->allocs = na;
	p = calloc(1, sz ? sz : 1);
	if (p)
		l->allocs[l->nallocs++] = p;
	return p;
}

struct btfi_attach_site *btfi_site_list_add(struct btfi_site_list *l)
{
	if (l->cnt == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		struct btfi_attach_site *ns = realloc(l->sites, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		l->sites = ns;
		l->cap = nc;
	}
	memset(&l->sites[l->cnt], 0, sizeof(l->sites[0]));
	return &l->sites[l->cnt++];
}

bool btfi_label_is_entry(const char *label, const char *func)
{
	size_t n = strcspn(label, "+");
	char sym[sizeof(((struct btfi_attach_site *)0)->label)];

	if (strcmp(label + n, "+0x0") || n >= sizeof(sym))
		return false;
	memcpy(sym, label, n);
	sym[n] = 0;
	return !strcmp(sym, func) || btfi_clone_name(sym, func);
}

struct btfi_attach_site *btfi_site_list_entry(struct btfi_site_list *l, size_t from,
					      uint64_t vaddr, const char *label)
{
	for (size_t i = from; i < l->cnt; i++) {
		struct btfi_attach_site *as = &l->sites[i];

		if (as->vaddr == vaddr && !as->entry && !as->cond) {
			as->entry = true;
			snprintf(as->label, sizeof(as->label), "%s", label);
			return as;
		}
	}
	return NULL;
}

/* ---- the core ---- */

__u32 btfi_spec_flags(const struct btfi_attach_site *s, bool kernel)
{
	__u32 f = kernel ? BTFI_SPEC_KERNEL : 0;

	if (s->cond)	/* the BPF side tests it: bpf_inline_site_is_call() */
		f |= BTFI_SPEC_CC_FLAGS(s->cond - 1);
	/* a function's first instruction (a clone's too): its return address,
	 * bpf_inline_site_ret() */
	if (s->entry || (!s->cond && s->func && btfi_label_is_entry(s->label, s->func)))
		f |= BTFI_SPEC_ENTRY;
	return f;
}

/* The program's btfi_specs map, found through the loaded program's map ids
 * (libbpf 1.1 has no bpf_program -> bpf_object accessor). */
static int find_spec_map(struct bpf_program *prog, const struct btfi_log *log)
{
	struct bpf_prog_info pinfo = { 0 };
	__u32 len = sizeof(pinfo), ids[64], i;
	int pfd = bpf_program__fd(prog);

	if (pfd < 0) {
		btfi_err(log, "program %s is not loaded", bpf_program__name(prog));
		return -EINVAL;
	}
	pinfo.nr_map_ids = 64;
	pinfo.map_ids = (uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(pfd, &pinfo, &len)) {
		int err = -errno;

		btfi_err(log, "program %s: get info: %s", bpf_program__name(prog), strerror(-err));
		return err;
	}
	for (i = 0; i < pinfo.nr_map_ids && i < 64; i++) {
		struct bpf_map_info minfo = { 0 };
		__u32 mlen = sizeof(minfo);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &minfo, &mlen) &&
		    !strcmp(minfo.name, BTFI_SPECS_MAP_NAME) &&
		    minfo.value_size == sizeof(struct btfi_site_spec))
			return mfd;
		close(mfd);
	}
	btfi_err(log, "program %s does not use the %s map (include btfinline.bpf.h)",
		 bpf_program__name(prog), BTFI_SPECS_MAP_NAME);
	return -ENOENT;
}

struct destroy_chunk {
	struct bpf_link **links;
	size_t cnt;
};

static void *destroy_links(void *arg)
{
	struct destroy_chunk *c = arg;

	for (size_t i = 0; i < c->cnt; i++)
		bpf_link__destroy(c->links[i]);
	return NULL;
}

/*
 * Recent kernels (6.12+) wait for an RCU-tasks-trace grace period in every
 * uprobe unregister (~80 ms here): 1,100 sites took 87 s one by one.
 * Concurrent unregisters share grace periods, so large links are closed
 * from up to DESTROY_THREADS threads; small ones stay in this thread.
 */
#define DESTROY_THREADS	64
#define DESTROY_MIN	8	/* links per thread at least */

static void destroy_all(struct bpf_link **links, size_t n)
{
	struct destroy_chunk c[DESTROY_THREADS];
	pthread_t th[DESTROY_THREADS];
	bool started[DESTROY_THREADS] = { 0 };
	size_t nt = n / DESTROY_MIN, per, i;

	if (nt > DESTROY_THREADS)
		nt = DESTROY_THREADS;
	if (nt < 2) {
		c[0] = (struct destroy_chunk){ links, n };
		destroy_links(&c[0]);
		return;
	}
	per = (n + nt - 1) / nt;
	for (i = 0; i < nt; i++) {
		size_t from = i * per;

		c[i] = (struct destroy_chunk){ links + from, from >= n ? 0 : (n - from < per ? n - from : per) };
		started[i] = !pthread_create(&th[i], NULL, destroy_links, &c[i]);
		if (!started[i])	/* no thread: do it here */
			destroy_links(&c[i]);
	}
	for (i = 0; i < nt; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

__u64 btfi_spec_cookie_base(int map_fd)
{
	__u64 key, next, max = 0;
	int err;

	/* above every key already in the map (other attachments) */
	for (err = bpf_map_get_next_key(map_fd, NULL, &key); !err;
	     err = bpf_map_get_next_key(map_fd, &key, &next), key = next)
		if (key > max)
			max = key;
	return max;
}

int btfi_spec_add(int map_fd, __u64 *cookie, const struct btfi_site_spec *spec)
{
	int err;

	do {
		(*cookie)++;
		err = bpf_map_update_elem(map_fd, cookie, spec, BPF_NOEXIST);
	} while (err && errno == EEXIST);
	return err ? -errno : 0;
}

struct btfinline_link *btfi_link_new(int map_fd, size_t n)
{
	struct btfinline_link *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->map_fd = map_fd;
	l->links = calloc(n ? n : 1, sizeof(*l->links));
	l->cookies = calloc(n ? n : 1, sizeof(*l->cookies));
	if (!l->links || !l->cookies) {
		free(l->links);
		free(l->cookies);
		free(l);
		return NULL;
	}
	return l;
}

void btfinline_link__destroy(struct btfinline_link *l)
{
	if (!l)
		return;
	if (l->multi)
		close(l->multi_fd);
	else
		destroy_all(l->links, l->cnt);
	for (size_t i = 0; i < l->cnt; i++)
		if (l->map_fd >= 0 && l->cookies[i])
			bpf_map_delete_elem(l->map_fd, &l->cookies[i]);
	if (l->map_fd >= 0)
		close(l->map_fd);
	free(l->links);
	free(l->cookies);
	free(l->addrs);
	free(l);
}

size_t btfinline_link__cnt(const struct btfinline_link *l)
{
	return l ? l->cnt : 0;
}

/*
 * uprobe_multi links (Linux 6.6+): one link for every site of a binary,
 * attached and detached in one syscall (detaching per-site uprobes waits
 * for a grace period each). libbpf 1.1 and its UAPI headers predate them,
 * so the attach type and the BPF_LINK_CREATE layout are written out here.
 */
struct uprobe_multi_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, um_flags, pid;
};

static int uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offs,
			     const uint64_t *cookies, __u32 cnt, int pid)
{
	struct uprobe_multi_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = prog_fd;
	a.attach_type = BTFI_TRACE_UPROBE_MULTI;
	a.path = (uintptr_t)path;
	a.offsets = (uintptr_t)offs;
	a.cookies = (uintptr_t)cookies;
	a.cnt = cnt;
	a.pid = pid > 0 ? pid : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

bool btfi_uprobe_multi_supported(void)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BTFI_TRACE_UPROBE_MULTI);
	uint64_t off = 0;
	int pfd, fd;

	pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &po);
	if (pfd < 0)
		return false;
	/* A kernel that knows the attach type fails to open "/" as a binary
	 * (EBADF); an older one rejects the attach type (EINVAL). */
	fd = uprobe_multi_link(pfd, "/", &off, NULL, 1, 0);
	if (fd >= 0)
		close(fd);
	close(pfd);
	return fd == -EBADF;
}

/* All-or-none: name every site and argument that has no readable location. */
static int check_policy(const struct btfi_attach_site *sites, size_t n, const char *binary,
			const struct btfi_attach_core_opts *opts)
{
	char msg[768];
	size_t len = 0, bad_sites = 0;
	const char *func = NULL;	/* of the bad sites, when there is one */

	msg[0] = 0;
	for (size_t i = 0; i < n; i++) {
		bool bad = false;

		for (uint32_t k = 0; k < sites[i].nargs; k++) {
			struct btfi_arg_spec a;
			const char *why;

			if (!btfi_loc_to_spec(&sites[i].locs[k], &a, &why))
				continue;
			if (!bad) {
				bad_sites++;
				if (!func)
					func = sites[i].func;
				else if (func != sites[i].func && strcmp(func, sites[i].func))
					func = "";
			}
			bad = true;
			if (len < sizeof(msg) - 1)
				len += snprintf(msg + len, sizeof(msg) - len, "%s %s %s: %s (%s)",
						len ? ";" : "", sites[i].func, sites[i].label,
						sites[i].arg_names && sites[i].arg_names[k] ?
						sites[i].arg_names[k] : "?", why);
		}
	}
	if (!bad_sites)
		return 0;
	if (opts->policy == BTFI_BEST_EFFORT)
		return 0;
	btfi_err(&opts->log, "%s: %s%s%zu of %zu sites lack argument locations, refusing (best-effort to attach anyway):%s%s",
		 binary, *func ? func : "", *func ? ": " : "", bad_sites, n, msg,
		 len >= sizeof(msg) - 1 ? "..." : "");
	return -ENOENT;
}

/* Drop or refuse one site the kernel will not take: all-or-none names it
 * and fails, best-effort says so once and goes on without it. */
static int site_refused(const char *binary, const struct btfi_attach_site *s, const char *why,
			const struct btfi_attach_core_opts *opts)
{
	if (opts->policy != BTFI_BEST_EFFORT) {
		btfi_err(&opts->log, "%s: %s: site %s at 0x%llx: %s, refusing (best-effort to attach "
			 "the other sites)", binary, s->func, s->label, (unsigned long long)s->vaddr, why);
		return -ENOTSUP;
	}
	btfi_info(&opts->log, "%s: %s: site %s at 0x%llx dropped: %s", binary, s->func, s->label,
		  (unsigned long long)s->vaddr, why);
	return 0;
}

/*
 * Before attaching: every site's file offset, and whether x86 uprobes take
 * the instruction there (a refused one fails a whole uprobe_multi link,
 * and, for a binary not mapped yet, a per-site uprobe only when a process
 * maps it). keep[] gets the indexes of the sites to attach.
 */
static int check_sites(const char *binary, const struct btfi_elf_info *ei,
		       const struct btfi_attach_site *sites, size_t n,
		       const struct btfi_attach_core_opts *opts, uint64_t *offs, size_t *keep,
		       size_t *nkeep)
{
	struct btfi_insn_dec *dec = NULL;
	int fd, err = 0;

	*nkeep = 0;
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(&opts->log, "%s: %s", binary, strerror(-err));
		return err;
	}
	err = btfi_insn_dec_new(&dec);
	if (err) {
		btfi_err(&opts->log, "%s: cannot start the x86 decoder (capstone)", binary);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct btfi_attach_site *s = &sites[i];
		struct btfi_insn insn;
		uint8_t code[16];
		ssize_t got;

		if (btfi_elf_vaddr_to_off(ei, s->vaddr, &offs[i])) {
			btfi_err(&opts->log, "%s: %s: site %s at 0x%llx is outside every segment",
				 binary, s->func, s->label, (unsigned long long)s->vaddr);
			err = -ERANGE;
			goto out;
		}
		got = pread(fd, code, sizeof(code), offs[i]);
		if (got <= 0 || btfi_insn_decode(dec, code, got, s->vaddr, &insn)) {
			err = site_refused(binary, s, "no x86 instruction there", opts);
		} else if (insn.uprobe_refusal) {
			char why[96];

			snprintf(why, sizeof(why), "uprobes refuse this instruction (%s)",
				 insn.uprobe_refusal);
			err = site_refused(binary, s, why, opts);
		} else {
			keep[(*nkeep)++] = i;
			continue;
		}
		if (err)
			goto out;
	}
	if (!*nkeep) {
		btfi_err(&opts->log, "%s: %s: no site left to attach", binary, sites[0].func);
		err = -ENOENT;
	}
out:
	btfi_insn_dec_free(dec);
	close(fd);
	return err;
}

/* A uprobe_multi link the kernel refused names no site: try each alone
 * (a one-site link, closed again: only after a failure, each costs a
 * registration) to find which. 0 if every site fails or none does (the
 * caller reports the original error), else the number of bad sites,
 * removed from keep[] (best-effort) or reported (-ENOTSUP). */
static int find_refused(int prog_fd, const char *binary, const struct btfi_attach_site *sites,
			const uint64_t *offs, size_t *keep, size_t *nkeep, int pid,
			const struct btfi_attach_core_opts *opts)
{
	int *res = calloc(*nkeep, sizeof(*res));
	size_t n = 0, nbad = 0;
	int err = 0;

	if (!res)
		return -ENOMEM;
	for (size_t j = 0; j < *nkeep; j++) {
		res[j] = uprobe_multi_link(prog_fd, binary, &offs[keep[j]], NULL, 1, pid);
		if (res[j] >= 0)
			close(res[j]);
		else
			nbad++;
	}
	if (!nbad || nbad == *nkeep) {
		nbad = 0;	/* nothing to tell apart */
		goto out;
	}
	for (size_t j = 0; j < *nkeep && !err; j++) {
		char why[96];

		if (res[j] >= 0) {
			keep[n++] = keep[j];
			continue;
		}
		snprintf(why, sizeof(why), "the kernel refuses a uprobe there (%s)", strerror(-res[j]));
		err = site_refused(binary, &sites[keep[j]], why, opts);
	}
	*nkeep = n;
out:
	free(res);
	return err ? err : (int)nbad;
}

int btfi_attach_sites(struct bpf_program *prog, int pid, const char *binary,
		      const struct btfi_attach_site *sites, size_t n,
		      const struct btfi_attach_core_opts *opts,
		      struct btfinline_link **out)
{
	struct btfinline_link *l = NULL;
	struct btfi_elf_info ei = { 0 };
	__u64 cookie = 0;
	uint64_t *offs = NULL, *moffs = NULL;
	size_t *keep = NULL, nkeep = 0;
	bool multi, retried = false;
	int err, map_fd;

	*out = NULL;
	if (!n) {
		btfi_err(&opts->log, "%s: nothing to attach", binary);
		return -ENOENT;
	}
	err = check_policy(sites, n, binary, opts);
	if (err)
		return err;
	if (!prog) {
		btfi_err(&opts->log, "%s: no program to attach", binary);
		return -EINVAL;
	}
	multi = bpf_program__expected_attach_type(prog) ==
		(enum bpf_attach_type)BTFI_TRACE_UPROBE_MULTI;
	map_fd = find_spec_map(prog, &opts->log);
	if (map_fd < 0)
		return map_fd;
	err = btfi_elf_info_load(binary, &ei, &opts->log);
	if (err)
		goto err;
	l = btfi_link_new(map_fd, n);
	offs = calloc(n, sizeof(*offs));
	moffs = calloc(n, sizeof(*moffs));
	keep = calloc(n, sizeof(*keep));
	if (!l || !offs || !moffs || !keep) {
		btfi_err(&opts->log, "%s: out of memory", binary);
		err = -ENOMEM;
		goto err;
	}
	err = check_sites(binary, &ei, sites, n, opts, offs, keep, &nkeep);
	if (err)
		goto err;
again:
	cookie = btfi_spec_cookie_base(map_fd);

	for (size_t j = 0; j < nkeep; j++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo);
		const struct btfi_attach_site *s = &sites[keep[j]];
		struct btfi_site_spec spec = { 0 };
		uint64_t off = offs[keep[j]];

		spec.nargs = s->nargs > BTFI_MAX_ARGS ? BTFI_MAX_ARGS : s->nargs;
		spec.flags = btfi_spec_flags(s, opts->kernel);
		spec.vaddr = s->vaddr;
		spec.user = s->tag;
		for (uint32_t k = 0; k < spec.nargs; k++) {
			struct btfi_arg_spec *a = &spec.args[k];
			const char *why;

			if (btfi_loc_to_spec(&s->locs[k], a, &why))
				a->kind = BTFI_ARG_NONE;	/* best effort */
			if (s->extra) {
				a->nsteps = s->extra[k].nsteps;
				a->str = s->extra[k].str;
				memcpy(a->steps, s->extra[k].steps, sizeof(a->steps));
			}
		}
		err = btfi_spec_add(map_fd, &cookie, &spec);
		if (err) {
			btfi_err(&opts->log, "%s: %s: spec map update: %s%s", binary, s->func,
				 strerror(-err), err == -E2BIG ? " (btfi_specs full)" : "");
			goto err;
		}
		l->cookies[j] = cookie;
		l->cnt = j + 1;
		if (multi) {	/* attached together below */
			moffs[j] = off;
			continue;
		}
		uo.bpf_cookie = cookie;
		l->links[j] = bpf_program__attach_uprobe_opts(prog, pid, binary, off, &uo);
		if (!l->links[j]) {
			err = -errno;
			btfi_err(&opts->log, "%s: %s: uprobe at %s (offset 0x%llx): %s", binary,
				 s->func, s->label, (unsigned long long)off, strerror(-err));
			goto err;
		}
	}
	if (multi) {
		err = uprobe_multi_link(bpf_program__fd(prog), binary, moffs, l->cookies, nkeep, pid);
		if (err < 0 && !retried && nkeep > 1) {
			int nbad = find_refused(bpf_program__fd(prog), binary, sites, offs, keep,
						&nkeep, pid, opts);

			if (nbad < 0) {
				err = nbad;
				goto err;
			}
			if (nbad > 0) {	/* again without them, fresh cookies */
				for (size_t j = 0; j < l->cnt; j++)
					bpf_map_delete_elem(map_fd, &l->cookies[j]);
				memset(l->cookies, 0, n * sizeof(*l->cookies));
				l->cnt = 0;
				retried = true;
				goto again;
			}
		}
		if (err < 0) {
			btfi_err(&opts->log, "%s: %s: uprobe_multi link at %zu sites: %s", binary,
				 sites[0].func, nkeep, strerror(-err));
			goto err;
		}
		l->multi = true;
		l->multi_fd = err;
		err = 0;
	}
	free(offs);
	free(moffs);
	free(keep);
	btfi_elf_info_free(&ei);
	*out = l;
	return 0;
err:
	free(offs);
	free(moffs);
	free(keep);
	btfi_elf_info_free(&ei);
	if (l)
		btfinline_link__destroy(l);
	else
		close(map_fd);
	return err ? err : -EINVAL;
}

/* For the kprobe path (attach_kernel.c), which shares map and policy. */
int btfi_spec_map_fd(struct bpf_program *prog, const struct btfi_log *log)
{
	return find_spec_map(prog, log);
}

int btfi_sites_policy(const struct btfi_attach_site *sites, size_t n, const char *what,
		      const struct btfi_attach_core_opts *opts)
{
	return check_policy(sites, n, what, opts);
}
