// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Call-site file:line from the traced binary's DWARF, in the file or detached. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "trace_sym.h"
#include "dwarf/debuginfo.h"
#include "dwarf/scan.h"
#include "sorted.h"

struct trace_sym {
	struct btfi_debuginfo *di;
	Dwarf *dw;
	const char *path;
};

static void quiet(void *ctx, const char *msg)
{
}

struct trace_sym *trace_sym_open(const char *path, const char *debug_file, const char *debug_dirs)
{
	/* No DWARF only means no file:line; a problem with a named debug
	 * file was reported by the commands that need it. */
	BTFI_OPTS(btfi_debuginfo_opts, o, .log = { quiet, NULL }, .optional = true,
		  .debug_file = debug_file, .debug_dirs = debug_dirs);
	struct trace_sym *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (btfi_debuginfo_open(path, &o, &s->di)) {
		free(s);
		return NULL;
	}
	s->dw = s->di->dw;
	s->path = path;
	return s;
}

const char *trace_sym_dwarf_path(const struct trace_sym *s)
{
	return s ? s->di->dwarf_path : NULL;
}

void trace_sym_close(struct trace_sym *s)
{
	if (!s)
		return;
	btfi_debuginfo_close(s->di);
	free(s);
}

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* CU covering addr. dwarf_addrdie needs .debug_aranges, which clang does
 * not emit by default: then test each CU's ranges. */
static bool cu_at(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsz;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (!dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsz, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

void trace_sym_where(struct trace_sym *s, uint64_t addr, const char *func, char *buf, size_t len)
{
	Dwarf_Die cu, *scopes = NULL;
	int n;

	buf[0] = 0;
	if (!s || !cu_at(s->dw, addr, &cu))
		return;
	{	/* split DWARF: the scopes are in the unit's .dwo */
		Dwarf_Die sub;
		uint8_t ut;

		if (dwarf_cu_info(cu.cu, NULL, &ut, NULL, &sub, NULL, NULL, NULL) == 0 &&
		    ut == DW_UT_skeleton && dwarf_tag(&sub) == DW_TAG_compile_unit)
			cu = sub;
	}
	if (func) {
		n = dwarf_getscopes(&cu, addr, &scopes);
		for (int i = 0; i < n; i++) {
			Dwarf_Attribute a;
			Dwarf_Files *files;
			Dwarf_Word fno, line;
			const char *name, *file;

			if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
				continue;
			name = dwarf_diename(&scopes[i]);
			if (!name) {
				Dwarf_Die origin;

				if (dwarf_attr(&scopes[i], DW_AT_abstract_origin, &a) &&
				    dwarf_formref_die(&a, &origin))
					name = dwarf_diename(&origin);
			}
			if (!name || strcmp(name, func))
				continue;
			if (!dwarf_attr(&scopes[i], DW_AT_call_file, &a) || dwarf_formudata(&a, &fno) ||
			    !dwarf_attr(&scopes[i], DW_AT_call_line, &a) || dwarf_formudata(&a, &line) ||
			    dwarf_getsrcfiles(&cu, &files, NULL) ||
			    !(file = dwarf_filesrc(files, fno, NULL, NULL)))
				break;
			snprintf(buf, len, "%s:%llu", base(file), (unsigned long long)line);
			free(scopes);
			return;
		}
		free(scopes);
	}
	{
		Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
		int line;
		const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;

		if (file && !dwarf_lineno(l, &line))
			snprintf(buf, len, "%s:%d", base(file), line);
	}
}

/* Fill the requests still without a line whose address the scan gives an
 * instance of their function (scan of the units holding them, with this
 * probe policy). Returns how many it filled. */
static size_t match_policy(struct trace_sym *s, struct trace_sym_req *req, size_t n,
			   uint64_t *addrs, int policy)
{
	struct btfi_scan *sc = NULL;
	uint32_t *by_addr = NULL, nby = 0;
	size_t na = 0, found = 0;

	for (size_t i = 0; i < n; i++)
		if (req[i].func && !req[i].buf[0])
			addrs[na++] = req[i].addr;
	if (!na)
		return 0;
	qsort(addrs, na, sizeof(*addrs), btfi_cmp_u64);
	{
		/* the DWARF trace_sym_open opened, not searched nor inflated again */
		BTFI_OPTS(btfi_scan_opts, so, .log = { quiet, NULL }, .no_locations = true,
			  .probe_policy = policy, .debuginfo = s->di,
			  .unit_addrs = addrs, .nunit_addrs = na);

		if (btfi_scan_open(s->path, &so, &sc))
			return 0;
	}
	by_addr = btfi_scan_sites_by_addr(sc, &nby);
	if (!by_addr)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct trace_sym_req *r = &req[i];
		uint32_t l;

		if (!r->func || r->buf[0])
			continue;
		for (l = btfi_scan_sites_at(sc, by_addr, nby, r->addr);
		     l < nby && sc->sites[by_addr[l]].addr == r->addr; l++) {
			const struct btfi_site *site = &sc->sites[by_addr[l]];
			const char *name = sc->funcs[site->func].name;

			/* a split part is the enclosing call, not a site */
			if ((site->flags & (BTFI_SITE_SPLIT | BTFI_SITE_SHARED)) || !name || strcmp(name, r->func) ||
			    !site->call_file || !site->call_line)
				continue;
			snprintf(r->buf, r->len, "%s:%u", base(site->call_file), site->call_line);
			found++;
			break;
		}
	}
out:
	free(by_addr);
	btfi_scan_free(sc);
	return found;
}

/*
 * The probe address can be outside the instance's ranges (GCC's entry_pc,
 * the per-call policy's loop head) and the line table there names the
 * body's or hoisted code's line: the call line is the instance's own
 * DW_AT_call_file:DW_AT_call_line, found by the probe address the scan
 * gives it. Only the units holding the sites are scanned, without
 * locations; with the default policy, then (inline info encoded with
 * another --probe) the others while sites are left.
 */
size_t trace_sym_call_lines(struct trace_sym *s, struct trace_sym_req *req, size_t n)
{
	static const int policies[] = { BTFI_PROBE_DEFAULT, BTFI_PROBE_ENTRY_PC, BTFI_PROBE_ENTRY_IN_RANGE,
					BTFI_PROBE_LOWEST, BTFI_PROBE_FIRST_RANGE };
	uint64_t *addrs;
	size_t found = 0, want = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < n; i++) {
		req[i].buf[0] = 0;
		want += !!req[i].func;
	}
	addrs = malloc((n + 1) * sizeof(*addrs));
	for (size_t k = 0; addrs && found < want && k < sizeof(policies) / sizeof(*policies); k++)
		found += match_policy(s, req, n, addrs, policies[k]);
	free(addrs);
	/* entries, and sites no policy placed: the instance around the
	 * address, else the line there */
	for (size_t i = 0; i < n; i++)
		if (!req[i].buf[0])
			trace_sym_where(s, req[i].addr, req[i].func, req[i].buf, req[i].len);
	return found;
}
