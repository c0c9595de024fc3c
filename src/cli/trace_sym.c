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

struct trace_sym {
	struct btfi_debuginfo *di;
	Dwarf *dw;
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
