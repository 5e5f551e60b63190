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

/* Base registers, as arch/x86/include/asm/orc_types.h numbers them. */
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
	/* Entries the kernel's unwinder would refuse: made UNDEFINED. */
	size_t nbad;
};

/*
 * The formats: 1 before 6.3 (sp_reg:4 bp_reg:4 type:2 end:1), 2 in 6.3
 * (ffb1b4a41016 added signal:1 before end:1), 3 from 6.4 (type:3
 * signal:1, UNDEFINED and END_OF_STACK types); 6.4 added .orc_header,
 * a hash of the header that defines them (b9f174c811e3).
 */
#define MS_ORC_V1 1
#define MS_ORC_V2 2
#define MS_ORC_V3 3
#define MS_ORC_HEADER_SIZE 20
#define MS_ORC_ENTRY_SIZE 6
/* More entries than any kernel has (6.1: about 385,000). */
#define MS_ORC_MAX_ENTRIES (8u << 20)

/*
 * The format of tables from their .orc_header (hdr, hdr_len bytes; NULL
 * if there is none) or, with none, from the kernel release ("6.1.0-27-
 * amd64"). An unknown header or a release whose format cannot be told
 * without one is refused, naming it. where is for messages.
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

#endif
