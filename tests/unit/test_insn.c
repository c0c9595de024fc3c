// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The register-copy rule (insn.c: btfi_insn_copy, btfi_insn_copy_source)
 * and the loads borrow_loc() reads back (btfi_insn_load), what a lone
 * instruction of a one-instruction body touches (btfi_insn_mem) on real
 * instruction bytes; each as objdump -d disassembles it. */
#include <stdio.h>
#include <string.h>
#include "insn.h"
#include "check.h"

struct bytes {
	const char *text;	/* objdump's AT&T disassembly */
	uint8_t b[12];
	uint8_t n;
};

static const struct bytes
	MOV_RDI_RAX = { "mov %rdi,%rax", { 0x48, 0x89, 0xf8 }, 3 },
	MOV_RAX_RDX = { "mov %rax,%rdx", { 0x48, 0x89, 0xc2 }, 3 },
	MOV_R13_RDI = { "mov %r13,%rdi", { 0x4c, 0x89, 0xef }, 3 },
	MOV_ESI_EAX = { "mov %esi,%eax", { 0x89, 0xf0 }, 2 },
	MOV_SI_AX = { "mov %si,%ax", { 0x66, 0x89, 0xf0 }, 3 },
	LOAD_RAX = { "mov 0x28(%rax),%rax", { 0x48, 0x8b, 0x40, 0x28 }, 4 },
	SHR_RSI = { "shr $0x20,%rsi", { 0x48, 0xc1, 0xee, 0x20 }, 4 },
	MOV_RSI_RAX = { "mov %rsi,%rax", { 0x48, 0x89, 0xf0 }, 3 },
	TEST_RAX = { "test %rax,%rax", { 0x48, 0x85, 0xc0 }, 3 },
	CALL = { "call .+5", { 0xe8, 0, 0, 0, 0 }, 5 },
	MOVSLQ = { "movslq %ebx,%rbx", { 0x48, 0x63, 0xdb }, 3 },
	LD_RDI = { "mov (%rbx),%rdi", { 0x48, 0x8b, 0x3b }, 3 },
	LD_R12D = { "mov 0x8(%rdx),%r12d", { 0x44, 0x8b, 0x62, 0x08 }, 4 },
	LD_ZB = { "movzbl 0x1d(%rdi),%eax", { 0x0f, 0xb6, 0x47, 0x1d }, 4 },
	LD_SLQ = { "movslq 0x8(%rdi),%rax", { 0x48, 0x63, 0x47, 0x08 }, 4 },
	LD_SWQ = { "movswq 0x2(%rsi),%rax", { 0x48, 0x0f, 0xbf, 0x46, 0x02 }, 5 },
	LD_INDEX = { "mov (%rax,%rcx,8),%rax", { 0x48, 0x8b, 0x04, 0xc8 }, 4 },
	LD_FS = { "mov %fs:0x28,%rax", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }, 9 },
	LD_RIP = { "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7 },
	LD_AX = { "mov (%rdi),%ax", { 0x66, 0x8b, 0x07 }, 3 },
	LEA_RBX = { "lea 0x70(%rbx),%rdi", { 0x48, 0x8d, 0x7b, 0x70 }, 4 },
	LEA_EDI = { "lea 0x1(%rdi),%eax", { 0x8d, 0x47, 0x01 }, 3 },
	ADD_ESI = { "add $0x3,%esi", { 0x83, 0xc6, 0x03 }, 3 },
	ADD_RDI = { "add $0x66,%rdi", { 0x48, 0x83, 0xc7, 0x66 }, 4 },
	SUB_R13 = { "sub $0x8,%r13", { 0x49, 0x83, 0xed, 0x08 }, 4 },
	INC_R12D = { "inc %r12d", { 0x41, 0xff, 0xc4 }, 3 },
	DEC_RBP = { "dec %rbp", { 0x48, 0xff, 0xcd }, 3 },
	MOVSLQ_EBP = { "movslq %ebp,%rdi", { 0x48, 0x63, 0xfd }, 3 },
	MOVZBL_AL = { "movzbl %al,%eax", { 0x0f, 0xb6, 0xc0 }, 3 },
	MOVSBL_CL = { "movsbl %cl,%edx", { 0x0f, 0xbe, 0xd1 }, 3 },
	MOVZBL_AH = { "movzbl %ah,%eax", { 0x0f, 0xb6, 0xc4 }, 3 },
	LEA_INDEX = { "lea (%rax,%rax,2),%rax", { 0x48, 0x8d, 0x04, 0x40 }, 4 },
	LEA_RIP = { "lea 0x10(%rip),%rax", { 0x48, 0x8d, 0x05, 0x10, 0, 0, 0 }, 7 },
	ADD_RSI_RDX = { "add %rsi,%rdx", { 0x48, 0x01, 0xf2 }, 3 },
	ADD_AX = { "add $0x1,%ax", { 0x66, 0x83, 0xc0, 0x01 }, 4 },
	/* shapes: two of gcc's unrolled vreg copies (percall fixture), the
	 * kernel's tomoyo_set_uint copies, fscrypt_valid_enc_modes_v1's tests */
	LEA_VFS0 = { "lea 0x2eb9(%rip),%rcx", { 0x48, 0x8d, 0x0d, 0xb9, 0x2e, 0, 0 }, 7 },
	LEA_VFS1 = { "lea 0x2e94(%rip),%rsi", { 0x48, 0x8d, 0x35, 0x94, 0x2e, 0, 0 }, 7 },
	MOV_FIND0 = { "mov $0xffffffff8232c2d1,%rsi", { 0x48, 0xc7, 0xc6, 0xd1, 0xc2, 0x32, 0x82 }, 7 },
	MOV_FIND1 = { "mov $0xffffffff8232c2df,%rsi", { 0x48, 0xc7, 0xc6, 0xdf, 0xc2, 0x32, 0x82 }, 7 },
	CMP_1 = { "cmp $0x1,%ecx", { 0x83, 0xf9, 0x01 }, 3 },
	CMP_5 = { "cmp $0x5,%ecx", { 0x83, 0xf9, 0x05 }, 3 },
	LEA_54 = { "lea 0x54(%rbx),%rdx", { 0x48, 0x8d, 0x53, 0x54 }, 4 },
	/* the kernel's one-instruction bodies (split_lock_warn, msr_event_start,
	 * switch_mm_irqs_off) and gcc SQLite's generateSortTail spill */
	INCL_GS = { "incl %gs:0x7efd5722(%rip)", { 0x65, 0xff, 0x05, 0x22, 0x57, 0xfd, 0x7e }, 7 },
	MOV_GS = { "mov %gs:0x1fb80,%rax",
		   { 0x65, 0x48, 0x8b, 0x04, 0x25, 0x80, 0xfb, 0x01, 0x00 }, 9 },
	ST_RBX = { "mov %rax,0x1e0(%rbx)", { 0x48, 0x89, 0x83, 0xe0, 0x01, 0, 0 }, 7 },
	ORW_R13 = { "orw $0x8,0x14(%r13)", { 0x66, 0x41, 0x83, 0x4d, 0x14, 0x08 }, 6 },
	ST_DX_R13 = { "mov %dx,0x14(%r13)", { 0x66, 0x41, 0x89, 0x55, 0x14 }, 5 },
	LD_DX_R13 = { "mov 0x14(%r13),%dx", { 0x66, 0x41, 0x8b, 0x55, 0x14 }, 5 },
	CMPB_RBX = { "cmpb $0x0,0x1e(%rbx)", { 0x80, 0x7b, 0x1e, 0x00 }, 4 },
	BT_RBP = { "bt %r13,0x448(%rbp)", { 0x4c, 0x0f, 0xa3, 0xad, 0x48, 0x04, 0, 0 }, 8 },
	ST_RSP = { "mov %r12d,0x8(%rsp)", { 0x44, 0x89, 0x64, 0x24, 0x08 }, 5 },
	NOPL = { "nopl 0x0(%rax,%rax,1)", { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5 },
	LEA_58 = { "lea 0x58(%rbx),%rdx", { 0x48, 0x8d, 0x53, 0x58 }, 4 };

/* btfi_insn_shape(): do a and b do the same (copies of one code)? */
static void shape(struct btfi_insn_dec *d, const struct bytes *a, const struct bytes *b, bool same)
{
	struct btfi_insn in;
	uint32_t ha, hb;

	if (!CHECK(!btfi_insn_decode(d, a->b, a->n, 0x1000, &in) && in.len == a->n, "%s", a->text))
		return;
	ha = btfi_insn_shape(d);
	if (!CHECK(!btfi_insn_decode(d, b->b, b->n, 0x2000, &in) && in.len == b->n, "%s", b->text))
		return;
	hb = btfi_insn_shape(d);
	CHECK((ha == hb) == same, "shape of %s %s %s", a->text, same ? "!=" : "==", b->text);
}

/* btfi_insn_affine(): want dst < 0 for "not taken". */
static void affine(struct btfi_insn_dec *d, const struct bytes *x, int dst, int src, int64_t off,
		   uint32_t bytes, uint32_t ext, bool sgn)
{
	struct btfi_insn_affine a = { .dst = -1, .src = -1 };
	struct btfi_insn in;
	bool ok;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && in.len == x->n,
		   "%s: not decoded", x->text))
		return;
	ok = btfi_insn_affine(d, &a);
	if (CHECK(dst < 0 ? !ok : ok && a.dst == dst && a.src == src && a.off == off &&
		  a.bytes == bytes && a.ext == ext && a.sgn == sgn,
		  "%s: affine %d dst %d src %d off %lld bytes %u ext %u signed %d", x->text, ok,
		  a.dst, a.src, (long long)a.off, a.bytes, a.ext, a.sgn))
		printf("ok   %s: %s\n", x->text, dst < 0 ? "not taken" : "src + off");
}

/* btfi_insn_affine_read(): a read of (size, sgn) after x is which read
 * of its source before it? want_size 0: none. */
static void aread(struct btfi_insn_dec *d, const struct bytes *x, uint32_t size, bool sgn,
		  uint32_t want_size, bool want_sgn)
{
	struct btfi_insn_affine a;
	struct btfi_insn in;
	bool ok;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && btfi_insn_affine(d, &a),
		   "%s: no affine", x->text))
		return;
	ok = btfi_insn_affine_read(&a, &size, &sgn);
	if (CHECK(want_size ? ok && size == want_size && sgn == want_sgn : !ok,
		  "%s: read %d size %u signed %d, want %u %d", x->text, ok, size, sgn, want_size,
		  want_sgn))
		printf("ok   %s: read as %u bytes %s\n", x->text, want_size,
		       !want_size ? "(none)" : want_sgn ? "signed" : "unsigned");
}

/* btfi_insn_load(): want dst < 0 for "not a load borrow_loc() takes". */
static void load(struct btfi_insn_dec *d, const struct bytes *x, int dst, int base, int64_t disp,
		 uint32_t bytes, bool sgn)
{
	struct btfi_insn in;
	int gd = -1, gb = -1;
	int64_t gdisp = 0;
	uint32_t gbytes = 0;
	bool gsgn = false, ok;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && in.len == x->n,
		   "%s: not decoded", x->text))
		return;
	ok = btfi_insn_load(d, &gd, &gb, &gdisp, &gbytes, &gsgn);
	if (CHECK(dst < 0 ? !ok : ok && gd == dst && gb == base && gdisp == disp &&
		  gbytes == bytes && gsgn == sgn,
		  "%s: load %d dst %d base %d disp %lld bytes %u signed %d", x->text, ok, gd, gb,
		  (long long)gdisp, gbytes, gsgn))
		printf("ok   %s: %s\n", x->text, dst < 0 ? "not taken" : "a load");
}

/* btfi_insn_store(): want base < 0 for "writes no memory it names". */
static void store(struct btfi_insn_dec *d, const struct bytes *x, int base, int64_t disp,
		  uint32_t bytes)
{
	struct btfi_insn in;
	int gb = -1;
	int64_t gdisp = 0;
	uint32_t gbytes = 0;
	bool ok;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && in.len == x->n,
		   "%s: not decoded", x->text))
		return;
	ok = btfi_insn_store(d, &gb, &gdisp, &gbytes);
	if (CHECK(base < 0 ? !ok : ok && gb == base && gdisp == disp && gbytes == bytes,
		  "%s: store %d base %d disp %lld bytes %u", x->text, ok, gb, (long long)gdisp, gbytes))
		printf("ok   %s: %s\n", x->text, base < 0 ? "no store" : "a store");
}

/* btfi_insn_mem(): does a lone instruction touch memory or call? */
static void mem(struct btfi_insn_dec *d, const struct bytes *x, bool want)
{
	struct btfi_insn in;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && in.len == x->n,
		   "%s: not decoded", x->text))
		return;
	if (CHECK(btfi_insn_mem(d) == want, "%s: mem %d, want %d", x->text, !want, want))
		printf("ok   %s: %s\n", x->text, want ? "touches memory" : "does not");
}

/* What scan_cfg_step_facts() gives for one instruction. */
static struct btfi_insn_step step(struct btfi_insn_dec *d, const struct bytes *x)
{
	struct btfi_insn_step st = { .copy_dst = -1, .copy_src = -1 };
	struct btfi_insn in;
	uint32_t bytes;
	int dst, src;

	if (!CHECK(!btfi_insn_decode(d, x->b, x->n, 0x1000, &in) && in.len == x->n,
		   "%s: not decoded", x->text))
		return st;
	st.writes = btfi_insn_writes(d);
	st.call = in.flow == BTFI_FLOW_CALL;
	if (btfi_insn_copy(d, &dst, &src, &bytes)) {
		st.copy_dst = dst;
		st.copy_src = src;
		st.copy_bytes = bytes;
	}
	return st;
}

static void copy(struct btfi_insn_dec *d, const struct bytes *x, int dst, int src, int bytes)
{
	struct btfi_insn_step st = step(d, x);

	if (CHECK(st.copy_dst == dst && st.copy_src == src && (dst < 0 || st.copy_bytes == bytes),
		  "%s: copy %d <- %d (%u bytes), want %d <- %d (%d)", x->text, st.copy_dst,
		  st.copy_src, st.copy_bytes, dst, src, bytes))
		printf("ok   %s: %s\n", x->text, dst < 0 ? "no copy" : "a copy");
}

/* The value is in DWARF register reg after the instructions ran: where
 * was it before them? */
static void source(struct btfi_insn_dec *d, const char *what, const struct bytes *const *xs,
		   uint32_t n, int reg, uint32_t size, int want)
{
	struct btfi_insn_step st[8];
	int got;

	for (uint32_t i = 0; i < n; i++)
		st[i] = step(d, xs[i]);
	got = btfi_insn_copy_source(st, n, reg, size);
	if (CHECK(got == want, "%s: source %d, want %d", what, got, want))
		printf("ok   %s: %d\n", what, got);
}

#define SOURCE(what, reg, size, want, ...) do { \
	const struct bytes *const xs_[] = { __VA_ARGS__ }; \
	source(d, what, xs_, sizeof(xs_) / sizeof(xs_[0]), reg, size, want); \
} while (0)

int main(void)
{
	struct btfi_insn_dec *d;

	if (!CHECK(!btfi_insn_dec_new(&d), "capstone"))
		return check_done();
	/* DWARF numbers: rax 0, rdx 1, rbx 3, rsi 4, rdi 5, r13 13 */
	copy(d, &MOV_RDI_RAX, 0, 5, 8);
	copy(d, &MOV_R13_RDI, 5, 13, 8);
	copy(d, &MOV_ESI_EAX, 0, 4, 4);
	copy(d, &MOV_SI_AX, -1, -1, 0);		/* 16 bits: the rest of rax stays */
	copy(d, &LOAD_RAX, -1, -1, 0);		/* memory */
	copy(d, &MOVSLQ, -1, -1, 0);		/* sign-extends: another value */
	copy(d, &TEST_RAX, -1, -1, 0);

	/* the kernel's apic_ack_edge: irqd is rax at the loop head, rdi
	 * before the copy into rax */
	SOURCE("mov %rdi,%rax; value in rax", 0, 8, 5, &MOV_RDI_RAX);
	SOURCE("mov %rdi,%rax; mov %rax,%rdx; value in rdx", 1, 8, 5, &MOV_RDI_RAX, &MOV_RAX_RDX);
	SOURCE("nothing writes rax", 0, 8, 0, &TEST_RAX, &SHR_RSI);
	SOURCE("mov %rdi,%rax; shr %rsi: rdi untouched", 0, 8, 5, &MOV_RDI_RAX, &SHR_RSI);
	SOURCE("shr %rsi; mov %rsi,%rax: rsi changed before the copy", 0, 8, -1,
	       &SHR_RSI, &MOV_RSI_RAX);
	SOURCE("mov %rdi,%rax; load into rax: rax is another value", 0, 8, -1,
	       &MOV_RDI_RAX, &LOAD_RAX);
	SOURCE("mov %rdi,%rax; call: no calls on the way", 0, 8, -1, &MOV_RDI_RAX, &CALL);
	SOURCE("mov %esi,%eax; a 4-byte value", 0, 4, 4, &MOV_ESI_EAX);
	SOURCE("mov %esi,%eax; an 8-byte value (upper half zeroed)", 0, 8, -1, &MOV_ESI_EAX);
	SOURCE("mov %esi,%eax; size unknown", 0, 0, -1, &MOV_ESI_EAX);
	SOURCE("mov %si,%ax: a partial write", 0, 2, -1, &MOV_SI_AX);
	SOURCE("movslq %ebx,%rbx", 3, 8, -1, &MOVSLQ);
	/* loads: DWARF rax 0, rdx 1, rbx 3, rsi 4, rdi 5, r12 12 */
	load(d, &LD_RDI, 5, 3, 0, 8, false);
	load(d, &LD_R12D, 12, 1, 8, 4, false);	/* a 32-bit load zero-extends */
	load(d, &LD_ZB, 0, 5, 0x1d, 1, false);
	load(d, &LD_SLQ, 0, 5, 8, 4, true);
	load(d, &LD_SWQ, 0, 4, 2, 2, true);
	load(d, &LOAD_RAX, 0, 0, 0x28, 8, false);
	load(d, &LD_INDEX, -1, 0, 0, 0, false);	/* an index: no one address */
	load(d, &LD_FS, -1, 0, 0, 0, false);	/* a segment (TLS) */
	load(d, &LD_RIP, -1, 0, 0, 0, false);	/* rip: no base register */
	load(d, &LD_AX, -1, 0, 0, 0, false);	/* 16 bits: the rest of rax stays */
	load(d, &MOV_RDI_RAX, -1, 0, 0, 0, false);
	/* a lone instruction of a one-instruction body */
	/* the same 2-byte field written two ways (bio_set_flag's copies) */
	store(d, &ORW_R13, 13, 0x14, 2);
	store(d, &ST_DX_R13, 13, 0x14, 2);
	store(d, &ST_RBX, 3, 0x1e0, 8);
	store(d, &LD_DX_R13, -1, 0, 0);		/* a load */
	store(d, &CMPB_RBX, -1, 0, 0);		/* a read */
	store(d, &INCL_GS, -1, 0, 0);		/* per-cpu: a segment */
	store(d, &ST_RSP, -1, 0, 0);		/* a spill */
	store(d, &CALL, -1, 0, 0);
	mem(d, &INCL_GS, true);
	mem(d, &MOV_GS, true);
	mem(d, &ST_RBX, true);
	mem(d, &BT_RBP, true);
	mem(d, &LD_RIP, true);
	mem(d, &CALL, true);
	mem(d, &ST_RSP, false);		/* a spill: the caller's */
	mem(d, &LEA_RBX, false);	/* an address, no access */
	mem(d, &NOPL, false);
	mem(d, &TEST_RAX, false);
	mem(d, &SHR_RSI, false);
	/* shapes: %rip offsets, registers, moved constants are the copy's own */
	shape(d, &LEA_VFS0, &LEA_VFS1, true);
	shape(d, &MOV_FIND0, &MOV_FIND1, true);
	shape(d, &CALL, &CALL, true);		/* another address, another target */
	shape(d, &CMP_1, &CMP_5, false);	/* a test of another constant */
	shape(d, &LEA_54, &LEA_58, false);	/* another field */
	shape(d, &LEA_VFS0, &LEA_54, false);
	/* affine: DWARF rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6 */
	affine(d, &LEA_RBX, 5, 3, 0x70, 8, 0, false);
	affine(d, &LEA_EDI, 0, 5, 1, 4, 0, false);
	affine(d, &ADD_ESI, 4, 4, 3, 4, 0, false);
	affine(d, &ADD_RDI, 5, 5, 0x66, 8, 0, false);
	affine(d, &SUB_R13, 13, 13, -8, 8, 0, false);
	affine(d, &INC_R12D, 12, 12, 1, 4, 0, false);
	affine(d, &DEC_RBP, 6, 6, -1, 8, 0, false);
	affine(d, &MOVSLQ_EBP, 5, 6, 0, 8, 4, true);
	affine(d, &MOVZBL_AL, 0, 0, 0, 4, 1, false);
	affine(d, &MOVSBL_CL, 1, 2, 0, 4, 1, true);
	affine(d, &MOV_RDI_RAX, 0, 5, 0, 8, 0, false);
	affine(d, &MOV_ESI_EAX, 0, 4, 0, 4, 4, false);
	affine(d, &MOVZBL_AH, -1, 0, 0, 0, 0, false);	/* bits 8-15, not a low byte */
	affine(d, &LEA_INDEX, -1, 0, 0, 0, 0, false);	/* two registers */
	affine(d, &LEA_RIP, -1, 0, 0, 0, 0, false);	/* an address: btfi_insn_const() */
	affine(d, &ADD_RSI_RDX, -1, 0, 0, 0, 0, false);
	affine(d, &ADD_AX, -1, 0, 0, 0, 0, false);	/* 16 bits: the rest of rax stays */
	affine(d, &LOAD_RAX, -1, 0, 0, 0, 0, false);
	affine(d, &SHR_RSI, -1, 0, 0, 0, 0, false);
	/* reads of the destination, as the source's */
	aread(d, &LEA_RBX, 8, false, 8, false);		/* a pointer: the sum */
	aread(d, &LEA_EDI, 4, true, 4, true);		/* an int: the sum's low half */
	aread(d, &LEA_EDI, 8, false, 4, false);		/* a u64 of a 32-bit sum: zero-extended */
	aread(d, &MOVSLQ_EBP, 8, true, 4, true);	/* SQLite's sqlite3_bind_int64(.., int) */
	aread(d, &MOVSLQ_EBP, 8, false, 4, true);	/* u64 n = (int)x: sign-extended all the way */
	aread(d, &MOVSLQ_EBP, 4, true, 4, true);
	aread(d, &MOVZBL_AL, 4, true, 1, false);	/* sqlite3ErrStr(rc & 0xff) */
	aread(d, &MOVZBL_AL, 1, false, 1, false);
	aread(d, &MOVZBL_AL, 8, false, 1, false);	/* zero up to 64 bits */
	aread(d, &MOVSBL_CL, 4, true, 1, true);
	aread(d, &MOVSBL_CL, 2, false, 0, false);	/* u16 of (s8): not an extension of the byte */
	aread(d, &MOVSBL_CL, 8, true, 0, false);	/* sign into 32 bits, zero above */
	aread(d, &MOV_ESI_EAX, 8, false, 4, false);
	btfi_insn_dec_free(d);
	return check_done();
}
