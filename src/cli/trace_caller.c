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
#include "dwarf/u64map.h"
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
	uint32_t next;		/* 1 + another process's entry at this ret, 0: none */
	char *caller, *line;
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
	struct memo *memo;
	uint32_t nmemo, memo_cap;
	struct u64map memo_at;		/* ret -> 1 + its latest memo entry */
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
	for (uint32_t i = 0; i < c->nmemo; i++) {
		free(c->memo[i].caller);
		free(c->memo[i].line);
	}
	free(c->memo);
	u64map_free(&c->memo_at);
	c->memo = NULL;
	c->nmemo = c->memo_cap = 0;
	c->memo_at = (struct u64map){ 0 };
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

static const struct map *find_map(const struct trace_caller *c, uint64_t a)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (a >= c->maps[i].start && a < c->maps[i].end)
			return &c->maps[i];
	return NULL;
}

static const struct map *map_at(struct trace_caller *c, int pid, uint64_t a)
{
	const struct map *m;

	if (c->pid != pid)
		read_maps(c, pid);
	if ((m = find_map(c, a)) || !c->nmaps)	/* none: the process is gone */
		return m;
	read_maps(c, pid);	/* mapped since they were read */
	return find_map(c, a);
}

/* "file+0xaddr": an address in object o that no symbol names */
static void obj_off(const struct obj *o, uint64_t a, char *buf, size_t len)
{
	const char *b = strrchr(o->path, '/');

	snprintf(buf, len, "%s+0x%llx", b ? b + 1 : o->path, (unsigned long long)a);
}

/* "sym+0xoff" (else "file+0xva") of va in o; the call's line if o is the
 * traced binary. */
static void label(struct trace_caller *c, const struct obj *o, uint64_t va, char *caller,
		  size_t clen, char *line, size_t llen)
{
	btfi_elf_label(&o->ei, va, caller, clen);
	if (caller[0] == '0')		/* no symbol */
		obj_off(o, va, caller, clen);
	/* the call instruction ends at the return address */
	if (o->traced && c->o.sym)
		trace_sym_where(c->o.sym, va - 1, NULL, line, llen);
}

static void symbolize(struct trace_caller *c, int pid, uint64_t ret, bool at, uint64_t bias,
		      char *caller, size_t clen, char *line, size_t llen)
{
	const struct map *m;
	const struct obj *o;
	uint64_t va, off;
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
	    !btfi_elf_vaddr_to_off(&c->objs[oi].ei, ret - bias, &off)) {
		label(c, &c->objs[oi], ret - bias, caller, clen, line, llen);
		return;
	}
	if (!(m = map_at(c, pid, ret)))
		return;
	o = &c->objs[m->obj];
	off = ret - m->start + m->off;
	if (o->ok && !btfi_elf_off_to_vaddr(&o->ei, off, &va))
		label(c, o, va, caller, clen, line, llen);
	else
		obj_off(o, off, caller, clen);
}

static void caller_of(struct trace_caller *c, int pid, uint64_t ret, bool at, uint64_t bias,
		      const char **caller, const char **line)
{
	char cb[256], lb[256];
	uint32_t head = 0, i;
	struct memo *e;

	*caller = *line = "";
	if (c->o.ks)
		pid = 0;	/* one kernel */
	if (u64map_get(&c->memo_at, ret, &head))
		for (i = head; i; i = c->memo[i - 1].next)
			if (c->memo[i - 1].pid == pid) {
				*caller = c->memo[i - 1].caller;
				*line = c->memo[i - 1].line;
				return;
			}
	if (c->nmemo == MEMO_MAX) {
		memo_clear(c);
		head = 0;
	}
	if (GROW(c->memo, c->memo_cap, c->nmemo + 1))
		return;
	symbolize(c, pid, ret, at, bias, cb, sizeof(cb), lb, sizeof(lb));
	e = &c->memo[c->nmemo];
	*e = (struct memo){ .pid = pid, .next = head, .caller = strdup(cb), .line = strdup(lb) };
	if (!e->caller || !e->line || u64map_put(&c->memo_at, ret, c->nmemo + 1)) {
		free(e->caller);
		free(e->line);
		return;
	}
	c->nmemo++;
	*caller = e->caller;
	*line = e->line;
}

void trace_caller_at(struct trace_caller *c, int pid, uint64_t ret, uint64_t ip, uint64_t vaddr,
		     const char **caller, const char **line)
{
	/* mappings are page-aligned, and a uprobe's ip may be the breakpoint's
	 * or one past it: the bias is (ip - vaddr) rounded down to a page */
	caller_of(c, pid, ret, ip != 0, (ip - vaddr) & ~0xfffULL, caller, line);
}
