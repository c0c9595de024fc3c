// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The caller of an out-of-line entry's hit (trace_caller.h). A return
 * address is symbolized once per (process, address) and kept: a hot
 * function has few call sites. User space: a call from the traced binary
 * by the hit's load bias, else the object that /proc/PID/maps has at the
 * address (procmaps.h), its loadable segments and symbols
 * (elf_file.h; the traced binary's from its debug file when stripped),
 * the call's line from the traced binary's DWARF (trace_sym.h). Kernel:
 * kallsyms.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attach/kallsyms.h"
#include "attach/procmaps.h"
#include "elf_file.h"
#include "trace_caller.h"
#include "trace_sym.h"

struct obj {
	char *path;
	struct btfi_elf_info ei;
	bool ok, traced;
};

struct map {
	uint64_t start, end, off;
	size_t obj;
};

struct memo {
	int pid;
	uint64_t ret;
	char *caller, *line;	/* caller NULL: a free slot */
};

#define MEMO_MAX	(1u << 16)	/* then forgotten and begun again */

struct trace_caller {
	struct trace_caller_opts o;
	char traced[PATH_MAX];		/* realpath of o.binary, "" if none */
	int pid;			/* whose maps are read, 0: none */
	struct map *maps;
	size_t nmaps;
	struct obj *objs;
	size_t nobjs;
	struct memo *memo;		/* open addressing, memo_cap a power of 2 */
	size_t nmemo, memo_cap;
};

struct trace_caller *trace_caller_new(const struct trace_caller_opts *o)
{
	struct trace_caller *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->o = *o;
	if (o->binary && !realpath(o->binary, c->traced))
		c->traced[0] = 0;
	return c;
}

static void memo_clear(struct trace_caller *c)
{
	for (size_t i = 0; i < c->memo_cap; i++) {
		free(c->memo[i].caller);
		free(c->memo[i].line);
	}
	free(c->memo);
	c->memo = NULL;
	c->nmemo = c->memo_cap = 0;
}

void trace_caller_free(struct trace_caller *c)
{
	if (!c)
		return;
	memo_clear(c);
	for (size_t i = 0; i < c->nobjs; i++) {
		if (c->objs[i].ok)
			btfi_elf_info_free(&c->objs[i].ei);
		free(c->objs[i].path);
	}
	free(c->objs);
	free(c->maps);
	free(c);
}

static size_t obj_index(struct trace_caller *c, const char *path)
{
	struct obj *no;

	for (size_t i = 0; i < c->nobjs; i++)
		if (!strcmp(c->objs[i].path, path))
			return i;
	no = realloc(c->objs, (c->nobjs + 1) * sizeof(*no));
	if (!no)
		return SIZE_MAX;
	c->objs = no;
	no = &c->objs[c->nobjs];
	memset(no, 0, sizeof(*no));
	if (!(no->path = strdup(path)))
		return SIZE_MAX;
	no->traced = *c->traced && !strcmp(path, c->traced);
	/* symbols are extra: an object that does not load prints its name */
	no->ok = !btfi_elf_info_load(path, &no->ei, NULL);
	if (no->ok && no->traced && c->o.debug_file)
		btfi_elf_info_debug_syms(&no->ei, c->o.debug_file, NULL);
	return c->nobjs++;
}

static int add_map(const struct btfi_procmap *pm, void *ctx)
{
	struct trace_caller *c = ctx;
	struct map *nm;
	size_t oi = obj_index(c, pm->path);

	if (oi == SIZE_MAX)
		return 0;
	if (!(nm = realloc(c->maps, (c->nmaps + 1) * sizeof(*nm))))
		return -ENOMEM;
	c->maps = nm;
	c->maps[c->nmaps++] = (struct map){ pm->start, pm->end, pm->off, oi };
	return 0;
}

/* The file mappings of pid (the previous pid's forgotten). */
static void read_maps(struct trace_caller *c, int pid)
{
	c->nmaps = 0;
	c->pid = pid;
	btfi_procmaps(pid, add_map, c);
}

static const struct map *map_at(struct trace_caller *c, int pid, uint64_t a)
{
	for (int pass = 0; pass < 2; pass++) {
		if (pass || c->pid != pid)
			read_maps(c, pid);	/* mapped since: read again once */
		for (size_t i = 0; i < c->nmaps; i++)
			if (a >= c->maps[i].start && a < c->maps[i].end)
				return &c->maps[i];
		if (c->pid == pid && pass == 0 && !c->nmaps)
			break;		/* gone: nothing to read again */
	}
	return NULL;
}

/* The loadable segment's address of file offset off; false if none. */
static bool off_vaddr(const struct btfi_elf_info *ei, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < ei->nsegs; i++)
		if (off >= ei->segs[i].off && off < ei->segs[i].off + ei->segs[i].memsz) {
			*vaddr = off - ei->segs[i].off + ei->segs[i].vaddr;
			return true;
		}
	return false;
}

static bool in_segs(const struct btfi_elf_info *ei, uint64_t va)
{
	for (size_t i = 0; i < ei->nsegs; i++)
		if (va >= ei->segs[i].vaddr && va < ei->segs[i].vaddr + ei->segs[i].memsz)
			return true;
	return false;
}

/* "sym+0xoff" (else "file+0xva") of va in o; the call's line if o is the
 * traced binary. */
static void label(struct trace_caller *c, const struct obj *o, uint64_t va, char *caller,
		  size_t clen, char *line, size_t llen)
{
	btfi_elf_label(&o->ei, va, caller, clen);
	if (caller[0] == '0') {		/* no symbol: the object and its address */
		const char *b = strrchr(o->path, '/');

		snprintf(caller, clen, "%s+0x%llx", b ? b + 1 : o->path, (unsigned long long)va);
	}
	/* the call instruction ends at the return address */
	if (o->traced && c->o.sym)
		trace_sym_where(c->o.sym, va - 1, NULL, line, llen);
}

static void symbolize(struct trace_caller *c, int pid, uint64_t ret, bool at, uint64_t bias,
		      char *caller, size_t clen, char *line, size_t llen)
{
	const struct map *m;
	const struct obj *o;
	uint64_t va;
	size_t oi;

	*line = 0;
	snprintf(caller, clen, "0x%llx", (unsigned long long)ret);
	if (c->o.ks) {
		const struct btfi_ksym *s = btfi_ksyms_by_addr(c->o.ks, ret);

		if (s)
			snprintf(caller, clen, "%s+0x%llx", s->name, (unsigned long long)(ret - s->addr));
		else if ((s = btfi_ksyms_any_mod_by_addr(c->o.ks, ret)))
			snprintf(caller, clen, "%s+0x%llx [%s]", s->name, (unsigned long long)(ret - s->addr),
				 s->mod);
		return;
	}
	/* a call from the traced binary itself: its load bias is the hit's */
	if (at && *c->traced && (oi = obj_index(c, c->traced)) != SIZE_MAX && c->objs[oi].ok &&
	    in_segs(&c->objs[oi].ei, ret - bias)) {
		label(c, &c->objs[oi], ret - bias, caller, clen, line, llen);
		return;
	}
	if (!(m = map_at(c, pid, ret)))
		return;
	o = &c->objs[m->obj];
	if (!o->ok || !off_vaddr(&o->ei, ret - m->start + m->off, &va)) {
		const char *b = strrchr(o->path, '/');

		snprintf(caller, clen, "%s+0x%llx", b ? b + 1 : o->path,
			 (unsigned long long)(ret - m->start + m->off));
		return;
	}
	label(c, o, va, caller, clen, line, llen);
}

static uint64_t memo_hash(int pid, uint64_t ret)
{
	uint64_t h = ret ^ ((uint64_t)(unsigned)pid << 47);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static void caller_of(struct trace_caller *c, int pid, uint64_t ret, bool at, uint64_t bias,
		      const char **caller, const char **line)
{
	static const char *const unknown = "";
	char cb[256], lb[256];
	struct memo *e;
	size_t i;

	*caller = *line = unknown;
	if (c->o.ks)
		pid = 0;	/* one kernel */
	if (c->nmemo * 2 >= c->memo_cap) {
		size_t ncap = c->memo_cap ? c->memo_cap * 2 : 256;
		struct memo *nm;

		if (ncap > MEMO_MAX) {
			memo_clear(c);
			ncap = 256;
		}
		if (!(nm = calloc(ncap, sizeof(*nm))))
			return;
		for (i = 0; i < c->memo_cap; i++) {
			struct memo *o = &c->memo[i];
			size_t j;

			if (!o->caller)
				continue;
			for (j = memo_hash(o->pid, o->ret) & (ncap - 1); nm[j].caller; j = (j + 1) & (ncap - 1))
				;
			nm[j] = *o;
		}
		free(c->memo);
		c->memo = nm;
		c->memo_cap = ncap;
	}
	for (i = memo_hash(pid, ret) & (c->memo_cap - 1); c->memo[i].caller; i = (i + 1) & (c->memo_cap - 1))
		if (c->memo[i].pid == pid && c->memo[i].ret == ret)
			goto found;
	symbolize(c, pid, ret, at, bias, cb, sizeof(cb), lb, sizeof(lb));
	e = &c->memo[i];
	e->caller = strdup(cb);
	e->line = strdup(lb);
	if (!e->caller || !e->line) {
		free(e->caller);
		free(e->line);
		e->caller = e->line = NULL;
		return;
	}
	e->pid = pid;
	e->ret = ret;
	c->nmemo++;
found:
	*caller = c->memo[i].caller;
	*line = c->memo[i].line;
}

void trace_caller_of(struct trace_caller *c, int pid, uint64_t ret, const char **caller,
		     const char **line)
{
	caller_of(c, pid, ret, false, 0, caller, line);
}

void trace_caller_at(struct trace_caller *c, int pid, uint64_t ret, uint64_t ip, uint64_t vaddr,
		     const char **caller, const char **line)
{
	/* mappings are page-aligned, and a uprobe's ip may be the breakpoint's
	 * or one past it: the bias is (ip - vaddr) rounded down to a page */
	caller_of(c, pid, ret, ip != 0, (ip - vaddr) & ~0xfffULL, caller, line);
}
