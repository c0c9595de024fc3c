// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * truth_protos BIN: the parameters of every out-of-line function of an
 * (-O0) binary, from its DWARF through libdw, one JSON object a line:
 *   {"name":"f","pc":4198,"params":[{"name":"x","kind":"s","size":4}, ...]}
 * kind: s/u (integers, char), bool, ptr, enum (with "enum":{"VAL":"NAME"}),
 * float, struct (struct/union by value), other. The truth harness
 * (tests/truth/truth.py) reads the arguments from the calling convention
 * with these; nothing here uses btfinline's own DWARF code, so the oracle
 * stays independent of what it checks.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

/* Type of die after typedefs and qualifiers; false if none (void). */
static int peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return 0;
	for (int i = 0; i < 32; i++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
				return 0;
			continue;
		default:
			*out = t;
			return 1;
		}
	}
	return 0;
}

static void print_param(Dwarf_Die *p, int first)
{
	const char *name = dwarf_diename(p);
	const char *kind = "other";
	Dwarf_Word size = 0, enc = 0;
	Dwarf_Attribute a;
	Dwarf_Die t, e;
	int is_enum = 0;

	if (peel(p, &t)) {
		if (dwarf_attr(&t, DW_AT_byte_size, &a))
			dwarf_formudata(&a, &size);
		switch (dwarf_tag(&t)) {
		case DW_TAG_base_type:
			if (dwarf_attr(&t, DW_AT_encoding, &a))
				dwarf_formudata(&a, &enc);
			if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
				kind = "s";
			else if (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF)
				kind = "u";
			else if (enc == DW_ATE_boolean)
				kind = "bool";
			else if (enc == DW_ATE_float)
				kind = "float";
			break;
		case DW_TAG_pointer_type:
		case DW_TAG_reference_type:
			kind = "ptr";
			size = 8;
			break;
		case DW_TAG_enumeration_type:
			kind = "enum";
			is_enum = 1;
			break;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_class_type:
			kind = "struct";
			break;
		}
	}
	printf("%s{\"name\":\"%s\",\"kind\":\"%s\",\"size\":%" PRIu64, first ? "" : ",",
	       name ? name : "", kind, (uint64_t)size);
	if (is_enum) {
		int n = 0;

		printf(",\"enum\":{");
		if (dwarf_child(&t, &e) == 0) {
			do {
				Dwarf_Sword sv;

				if (dwarf_tag(&e) != DW_TAG_enumerator ||
				    !dwarf_attr(&e, DW_AT_const_value, &a) || dwarf_formsdata(&a, &sv))
					continue;
				printf("%s\"%" PRId64 "\":\"%s\"", n++ ? "," : "", (int64_t)sv,
				       dwarf_diename(&e) ? dwarf_diename(&e) : "");
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		printf("}");
	}
	printf("}");
}

static void walk(Dwarf_Die *die)
{
	Dwarf_Die c;

	if (dwarf_child(die, &c))
		return;
	do {
		Dwarf_Addr pc;
		Dwarf_Die p;
		int first = 1, variadic = 0, line;

		if (dwarf_tag(&c) == DW_TAG_namespace) {
			walk(&c);
			continue;
		}
		if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_lowpc(&c, &pc) || !dwarf_diename(&c))
			continue;
		if (dwarf_decl_line(&c, &line))
			line = 0;
		printf("{\"name\":\"%s\",\"pc\":%" PRIu64 ",\"decl_file\":\"%s\",\"decl_line\":%d,\"params\":[",
		       dwarf_diename(&c), (uint64_t)pc, dwarf_decl_file(&c) ? dwarf_decl_file(&c) : "", line);
		if (dwarf_child(&c, &p) == 0) {
			do {
				if (dwarf_tag(&p) == DW_TAG_formal_parameter) {
					print_param(&p, first);
					first = 0;
				} else if (dwarf_tag(&p) == DW_TAG_unspecified_parameters) {
					variadic = 1;
				}
			} while (dwarf_siblingof(&p, &p) == 0);
		}
		printf("],\"variadic\":%s}\n", variadic ? "true" : "false");
	} while (dwarf_siblingof(&c, &c) == 0);
}

int main(int argc, char **argv)
{
	Dwarf_Off off = 0, next;
	size_t hsz;
	Dwarf *dw;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: truth_protos BIN\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || !(dw = dwarf_begin(fd, DWARF_C_READ))) {
		fprintf(stderr, "truth_protos: %s: no DWARF\n", argv[1]);
		return 1;
	}
	while (!dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsz, &cu))
			walk(&cu);
		off = next;
	}
	dwarf_end(dw);
	close(fd);
	return 0;
}
