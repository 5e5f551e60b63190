/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unwind tables: the x86-64 kernel's ORC tables, read and checked
 * (orc.c), and DWARF call frame information made from them for gdb and
 * lldb (cfi.c). Pure codecs over bytes the callers read from a kernel
 * image, a module file or the kernel's memory: they know no source.
 */
#ifndef MODSECT_UNWIND_H
#define MODSECT_UNWIND_H

#include "base/base.h"

/*
 * ORC entry types, in the numbering of Linux 6.4 and later
 * (fb799447ae29, "x86,objtool: Split UNWIND_HINT_EMPTY in two"); older
 * formats are converted to it when read.
 */
enum ms_orc_type {
	MS_ORC_UNDEFINED, /* unwinding is not possible here: stop */
	MS_ORC_END_OF_STACK, /* the outermost frame: stop, cleanly */
	MS_ORC_CALL, /* sp_reg + sp_offset is the caller's SP */
	MS_ORC_REGS, /* sp_reg + sp_offset points to a whole pt_regs */
	MS_ORC_REGS_PARTIAL, /* ... to the iret frame at the end of one */
};

/*
 * Base registers, as arch/x86/include/asm/orc_types.h numbers them up to
 * 7.0; 7.1's numbering is converted to it when read. AX is 7.1's
 * addition, an SP base where Clang realigns the stack with rax
 * (96f3b16a9de5, "objtool: Support Clang RAX DRAP sequence"): read, but
 * not yet said in CFI, so entries on it are made UNDEFINED, in nbad.
 */
enum ms_orc_reg {
	MS_ORC_REG_UNDEFINED,
	MS_ORC_REG_PREV_SP,
	MS_ORC_REG_DX,
	MS_ORC_REG_DI,
	MS_ORC_REG_BP,
	MS_ORC_REG_SP,
	MS_ORC_REG_R10,
	MS_ORC_REG_R13,
	MS_ORC_REG_BP_INDIRECT,
	MS_ORC_REG_SP_INDIRECT,
	MS_ORC_REG_AX,
};

/*
 * One entry, for [ip, end): end is the next entry's ip, or the end of
 * the section the entry is in when the caller gave sections.
 */
struct ms_orc_entry {
	uint64_t ip, end;
	int16_t sp_offset, bp_offset;
	uint8_t sp_reg, bp_reg, type;
	bool signal; /* the caller's ip is exact, not a return address */
};

struct ms_orc {
	struct ms_orc_entry *e; /* sorted by ip, no two at one ip */
	size_t n;
	int version; /* ORC_VERSION_* of the tables read */
	/* Entries the kernel's unwinder would refuse, or AX-based: UNDEFINED. */
	size_t nbad;
};

/*
 * The formats: 1 before 6.3 (sp_reg:4 bp_reg:4 type:2 end:1), 2 in 6.3
 * (ffb1b4a41016 added signal:1 before end:1), 3 from 6.4 (type:3
 * signal:1, UNDEFINED and END_OF_STACK types); 6.4 added .orc_header,
 * a hash of the header that defines them (b9f174c811e3). 4 from 7.1:
 * 3's bits, the registers renumbered and AX added (1735858caa4b,
 * "objtool/x86: Reorder ORC register numbering"), told only by the hash.
 */
#define MS_ORC_V1 1
#define MS_ORC_V2 2
#define MS_ORC_V3 3
#define MS_ORC_V4 4
#define MS_ORC_HEADER_SIZE 20
#define MS_ORC_ENTRY_SIZE 6
/* More entries than any kernel has (6.1: about 385,000). */
#define MS_ORC_MAX_ENTRIES (8u << 20)

/*
 * The format of tables from their .orc_header (hdr, hdr_len bytes; NULL
 * if there is none) or, with none, from the kernel release ("6.1.0-27-
 * amd64"; RHEL 9's "5.14.0-570.12.1.el9_6.x86_64" is 6.4's format). An
 * unknown header or a release whose format cannot be told without one
 * is refused, naming it. where is for messages.
 */
int ms_orc_version(const void *hdr, size_t hdr_len, const char *release,
		   const char *where, int *ret, struct ms_err *err);

/*
 * Reads n entries (little-endian, MS_ORC_ENTRY_SIZE bytes each) whose
 * addresses the caller has resolved: ip[i] for entries[i], or ~0 for an
 * entry to leave out (its section is not loaded). The result is sorted;
 * of two entries at one address a terminator (UNDEFINED) gives way.
 */
int ms_orc_from_ips(const uint64_t *ip, const void *entries, size_t n,
		    int version, const char *where, struct ms_orc **ret,
		    struct ms_err *err);
/*
 * Reads tables as they are in a kernel image or in memory: ips is
 * .orc_unwind_ip (int32 offsets from each one's own address, the first
 * at ip_base), entries .orc_unwind; their sizes must agree.
 */
int ms_orc_from_tables(const void *ips, size_t ips_len, uint64_t ip_base,
		       const void *entries, size_t entries_len, int version,
		       const char *where, struct ms_orc **ret,
		       struct ms_err *err);
/*
 * Ends each entry at the end of the range (lo[i], hi[i]) holding it, and
 * drops entries in none: a section's last entry otherwise runs on over
 * whatever follows it in memory.
 */
void ms_orc_clip(struct ms_orc *orc, const uint64_t *lo, const uint64_t *hi,
		 size_t nranges);
/* Adds delta to every address (a KASLR offset). */
void ms_orc_move(struct ms_orc *orc, int64_t delta);
/* The entry for address ip, or NULL. */
const struct ms_orc_entry *ms_orc_find(const struct ms_orc *orc, uint64_t ip);
void ms_orc_free(struct ms_orc *orc);

/*
 * DWARF call frame information (a .debug_frame section, for a 64-bit
 * little-endian x86-64 file) that says what each entry says: gdb and
 * lldb then unwind as the kernel does. A frame whose caller's ip is
 * exact (REGS, the signal bit) is in an FDE of a CIE with the "S"
 * augmentation, which both debuggers read as a signal frame. UNDEFINED
 * and END_OF_STACK entries have an undefined return address: the
 * debugger stops there. fstarts (sorted, may be NULL): where functions
 * start; no FDE spans one, each starts one. *nrows_ret (may be NULL)
 * gets the rows written.
 */
#define MS_CFI_USER_END 0x1
/*
 * flags MS_CFI_USER_END: also one FDE over user space (below 2^56) with
 * an undefined return address, for the core kernel: where a REGS frame
 * unwinds to user mode, unwind_next_frame() ends the trace; the debugger
 * shows the user ip as the last frame and stops there.
 */
/*
 * flags MS_CFI_LLDB: the CFI for lldb alone (gdb needs the default):
 * one FDE per function with all its rows, under the "S" CIE if any of
 * them is a signal frame's, as lldb reads only the FDE at a function's
 * start; and a pt_regs of user mode gives rbp 0, where lldb's walk ends
 * (it would unwind user space by rbp).
 */
#define MS_CFI_LLDB 0x2
int ms_orc_to_debug_frame(const struct ms_orc *orc, unsigned int flags,
			  const uint64_t *fstarts, size_t nfstarts,
			  void **buf_ret, size_t *len_ret, size_t *nrows_ret,
			  struct ms_err *err);

/*
 * arm64: frame rules made from each function's code (a64.c), for gdb
 * and lldb as .debug_frame (a64cfi.c). See a64.c for how.
 */
enum ms_a64_kind {
	MS_A64_UNDEF, /* the frame is not known here: stop */
	MS_A64_END, /* the outermost frame: stop, cleanly */
	MS_A64_FRAME, /* a function's own frame */
	MS_A64_REGS, /* an exception's: a struct pt_regs at sp + regs_off */
};

/* A function to decode: code holds its size bytes, little-endian. */
#define MS_A64_FN_ENTRY 0x1 /* an exception entry: pt_regs once complete */
#define MS_A64_FN_END 0x2 /* the end of every stack through it */
#define MS_A64_FN_UNDEF 0x4 /* code the decoder must not read as C's */
/*
 * Code not at hand (freed init text): the frame record at x29, as the
 * kernel's unwinder reads it: right where the function is a caller.
 */
#define MS_A64_FN_RECORD 0x8
struct ms_a64_fn {
	uint64_t addr, size;
	const uint8_t *code;
	unsigned int flags;
};

/* What an exception entry leaves, from the kernel's BTF: struct pt_regs. */
struct ms_a64_facts {
	bool have_regs;
	uint32_t regs_sp, regs_pc, regs_stackframe; /* offsets in pt_regs */
};

/* The rule for [ip, end): the state before each instruction there. */
struct ms_a64_row {
	uint64_t ip, end;
	uint8_t kind;
	bool fstart; /* ip is a function's first instruction */
	uint8_t cfa_reg; /* FRAME: 29 or 31 */
	int32_t cfa_off; /* FRAME: CFA = cfa_reg + cfa_off; REGS: regs_off */
	int32_t fp_at, lr_at; /* saved at CFA + at; 0: in the register */
	int16_t saved[10]; /* x19..x28 at CFA + saved[i]; 0: unchanged */
};

struct ms_a64 {
	struct ms_a64_row *r; /* sorted by ip */
	size_t n;
	size_t nfuncs, ninsns;
	size_t nlost; /* instructions the decoder gave no rule */
	struct ms_a64_facts facts;
};

/* More instructions than a function has: larger ones are not decoded. */
#define MS_A64_MAX_FN_INSNS (1u << 20)

/*
 * Decodes fns (sorted by address, not overlapping). A function whose
 * size is not a multiple of 4 is decoded up to its last whole word.
 */
int ms_a64_decode(const struct ms_a64_fn *fns, size_t n,
		  const struct ms_a64_facts *facts, struct ms_a64 **ret,
		  struct ms_err *err);
/* The row for address ip, or NULL. */
const struct ms_a64_row *ms_a64_find(const struct ms_a64 *a, uint64_t ip);
void ms_a64_free(struct ms_a64 *a);

/*
 * The rows as .debug_frame (64-bit little-endian, AArch64's DWARF
 * numbers): one FDE per function. The return address is given with its
 * pointer authentication code cleared, as the kernel's unwinder does
 * (ptrauth_strip_kernel_insn_pac()). A REGS frame is a signal frame
 * ("S") whose return address column is the pc (32), so that x30 can be
 * the interrupted function's. flags: MS_CFI_LLDB as for ORC.
 */
int ms_a64_to_debug_frame(const struct ms_a64 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err);

/*
 * i386: frame rules made from each function's code (x86.c, decoded with
 * capstone), for gdb and lldb as .debug_frame (x86cfi.c). See x86.c.
 */
enum ms_x86_kind {
	MS_X86_UNDEF, /* the frame is not known here: stop */
	MS_X86_END, /* the outermost frame: stop, cleanly */
	MS_X86_FRAME, /* a function's own frame */
	MS_X86_REGS, /* an entry's: a struct pt_regs at esp + cfa_off */
};

/* A function to decode: code holds its size bytes. */
#define MS_X86_FN_ENTRY 0x1 /* entry code: pt_regs once passed to C */
#define MS_X86_FN_END 0x2 /* the end of every stack through it */
#define MS_X86_FN_UNDEF 0x4 /* code the decoder must not read as C's */
/* Code not at hand (freed init text): the kernel's rule, ebp's frame. */
#define MS_X86_FN_RECORD 0x8
/* A part of another function's body (foo.cold): ebp's frame at entry. */
#define MS_X86_FN_COLD 0x10
/* Entry code that starts with its pt_regs at esp (after a C call). */
#define MS_X86_FN_REGS 0x20
struct ms_x86_fn {
	uint64_t addr, size;
	const uint8_t *code;
	unsigned int flags;
	/*
	 * Offsets in code of 4-byte fields a relocation fills (a module's
	 * file), sorted; a branch through one leaves the function.
	 */
	const uint32_t *rel;
	size_t nrel;
};

/*
 * struct pt_regs, from the kernel's BTF or, without one, the fixed i386
 * layout (ms_x86_default_facts()): offsets of eax, ecx, edx, ebx, esp,
 * ebp, esi, edi, eip (DWARF's order).
 */
struct ms_x86_facts {
	uint32_t regs[9];
};
void ms_x86_default_facts(struct ms_x86_facts *f);

/* The rule for [ip, end): the state before each instruction there. */
struct ms_x86_row {
	uint64_t ip, end;
	uint8_t kind;
	bool fstart; /* ip is a function's first instruction */
	/* the stack changed under the frame: a signal frame for gdb */
	bool signal;
	uint8_t cfa_reg; /* FRAME: 4 (esp) or 5 (ebp), DWARF's numbers */
	int32_t cfa_off; /* FRAME: CFA = cfa_reg + cfa_off; REGS: regs_off */
	/* ebp, ebx, esi, edi saved at CFA + saved[i]; 0: unchanged */
	int16_t saved[4];
};

struct ms_x86 {
	struct ms_x86_row *r; /* sorted by ip */
	size_t n;
	size_t nfuncs, ninsns;
	size_t nlost; /* instructions the decoder gave no rule */
	struct ms_x86_facts facts;
	/* user space is below (the core kernel's), 0 if not known */
	uint64_t user_end;
};

/* More bytes than a function has: larger ones are not decoded. */
#define MS_X86_MAX_FN_BYTES (1u << 20)

/* Decodes fns (sorted by address, not overlapping) as 32-bit code. */
int ms_x86_decode(const struct ms_x86_fn *fns, size_t n,
		  const struct ms_x86_facts *facts, struct ms_x86 **ret,
		  struct ms_err *err);
/* The row for address ip, or NULL. */
const struct ms_x86_row *ms_x86_find(const struct ms_x86 *a, uint64_t ip);
void ms_x86_free(struct ms_x86 *a);

/*
 * The rows as .debug_frame for an ELF32 file (4-byte addresses, i386's
 * DWARF numbers: eax 0 ... edi 7, eip 8, the return address column):
 * one FDE per function; a function with REGS or signal rows under an
 * "S" CIE. With user_end set, one FDE more over [0, user_end) with an
 * undefined return address: a pt_regs of user mode ends the walk.
 * flags: MS_CFI_LLDB as for ORC.
 */
int ms_x86_to_debug_frame(const struct ms_x86 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err);

#endif
