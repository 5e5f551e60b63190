// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * orccfi: the CFI modsect makes from ORC tables, read back with libdw
 * and checked row by row against what arch/x86/kernel/unwind_orc.c does
 * with each entry (tests/t-orc.sh).
 *
 *   orccfi IMAGE [OUT]         the image's own tables (vmlinuz/vmlinux)
 *   orccfi --synth V [OUT]     made-up entries of every kind, format V
 *   orccfi --kernel HEX REL [OUT]  the same, in the format .orc_header
 *                              HEX (or "-") and release REL say, laid
 *                              out as that kernel's tables
 *   orccfi --misread V R       format V's, read as format R: "meaning"
 *   orccfi --raw V IPS ENTS    tables from two files (fuzz reproducer)
 *   orccfi --header HEX REL    the format .orc_header HEX (or "-": none)
 *                              and release REL say: "version: V"
 *   orccfi --dump ELF ADDR...  the row libdw finds at each ADDR in the
 *                              .debug_frame of ELF: "ADDR START END S CFA"
 *
 * For each entry, at its first and last address, with made-up register
 * values and memory (a word at address a reads as a hash of a): the CFA,
 * where the return address and rbp are saved (and, for REGS, every
 * register), the signal flag and the row's extent must be the kernel's.
 * Prints "entries: N rows: N bad: N version: V bytes: N" then
 * "checked: N mismatches: N"; each mismatch is one line. Made-up entries
 * of formats 3 and 4 are first checked to read as what they were written
 * to mean: "meaning: N mismatches: N". OUT gets the unwind ELF. Exit 0
 * if all agree, 1 if not, 2 on usage.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsect.h"

static const int ptregs[17] = { 80, 96, 88, 40, 104, 112, 32, -1, 72,
				64, 56, 48, 24, 16, 8,	 0,   128 };

static uint64_t regs[17];

static uint64_t mem(uint64_t a)
{
	a ^= a >> 33;
	a *= UINT64_C(0xff51afd7ed558ccd);
	return a ^ (a >> 29);
}

/* Evaluates libdw's ops; cfa for DW_OP_call_frame_cfa. */
static bool eval(const Dwarf_Op *ops, size_t n, uint64_t cfa, uint64_t *ret)
{
	uint64_t st[16];
	size_t sp = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;

		if (sp >= 15)
			return false;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			st[sp++] = regs[a - DW_OP_breg0 < 17 ? a - DW_OP_breg0 : 0] +
				   ops[i].number;
		else if (a == DW_OP_bregx)
			st[sp++] = regs[ops[i].number % 17] + ops[i].number2;
		else if (a == DW_OP_call_frame_cfa)
			st[sp++] = cfa;
		else if (a == DW_OP_consts || a == DW_OP_constu)
			st[sp++] = ops[i].number;
		else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
			st[sp++] = a - DW_OP_lit0;
		else if (a == DW_OP_deref && sp)
			st[sp - 1] = mem(st[sp - 1]);
		else if (a == DW_OP_plus_uconst && sp)
			st[sp - 1] += ops[i].number;
		else if (a == DW_OP_plus && sp >= 2)
			sp--, st[sp - 1] += st[sp];
		else
			return false;
	}
	if (!sp)
		return false;
	*ret = st[sp - 1];
	return true;
}

static int dreg(uint8_t r)
{
	static const int8_t m[] = { -1, -1, 1, 5, 6, 7, 10, 13, 6, 7, 0 };

	return r < 11 ? m[r] : -1;
}

/* The kernel's base: sp_reg + sp_offset, or the word there (INDIRECT). */
static uint64_t base(const struct ms_orc_entry *e)
{
	if (e->sp_reg == MS_ORC_REG_SP_INDIRECT)
		return mem(regs[7]) + (uint64_t)(int64_t)e->sp_offset;
	if (e->sp_reg == MS_ORC_REG_BP_INDIRECT)
		return mem(regs[6] + (uint64_t)(int64_t)e->sp_offset);
	return regs[dreg(e->sp_reg)] + (uint64_t)(int64_t)e->sp_offset;
}

struct want {
	uint64_t cfa, at[17]; /* at: address saved, 0 same value, 1 undef */
};

static void expect(const struct ms_orc_entry *e, struct want *w)
{
	uint64_t b;

	memset(w, 0, sizeof(*w));
	if (e->type < MS_ORC_CALL) {
		w->at[16] = 1;
		return;
	}
	b = base(e);
	if (e->type == MS_ORC_CALL) {
		w->cfa = b;
		w->at[16] = b - 8;
	} else if (e->type == MS_ORC_REGS) {
		w->cfa = mem(b + 152);
		for (int r = 0; r < 17; r++)
			if (r != 7)
				w->at[r] = b + (uint64_t)ptregs[r];
	} else {
		w->cfa = mem(b + 24);
		w->at[16] = b;
	}
	if (e->bp_reg == MS_ORC_REG_PREV_SP)
		w->at[6] = b + (uint64_t)(int64_t)e->bp_offset;
	else if (e->bp_reg == MS_ORC_REG_BP)
		w->at[6] = regs[6] + (uint64_t)(int64_t)e->bp_offset;
}

static int check_at(Dwarf_CFI *cfi, const struct ms_orc_entry *e,
		    uint64_t pc)
{
	Dwarf_Frame *f;
	Dwarf_Op *ops, mem_ops[3];
	size_t nops;
	Dwarf_Addr start, end;
	bool sig;
	struct want w;
	uint64_t cfa, at;
	int bad = 0;

	for (int i = 0; i < 17; i++)
		regs[i] = mem(pc * 31 + (uint64_t)i) | 0xffff000000000000;
	expect(e, &w);
	if (dwarf_cfi_addrframe(cfi, pc, &f)) {
		printf("0x%" PRIx64 ": no frame: %s\n", pc, dwarf_errmsg(-1));
		return 1;
	}
	if (dwarf_frame_info(f, &start, &end, &sig) < 0 ||
	    sig != e->signal || start > pc || end <= pc) {
		printf("0x%" PRIx64 ": row %#" PRIx64 "..%#" PRIx64
		       " signal %d, want signal %d\n",
		       pc, start, end, sig, e->signal);
		bad = 1;
	}
	if (dwarf_frame_cfa(f, &ops, &nops) || !eval(ops, nops, 0, &cfa) ||
	    (e->type >= MS_ORC_CALL && cfa != w.cfa)) {
		printf("0x%" PRIx64 ": CFA differs (type %u sp_reg %u)\n", pc,
		       e->type, e->sp_reg);
		bad = 1;
	}
	for (int r = 0; r < 17 && !bad; r++) {
		if (r == 7 || dwarf_frame_register(f, r, mem_ops, &ops, &nops))
			continue;
		at = nops ? UINT64_MAX : ops ? 1 : 0; /* undefined : same */
		if (at == UINT64_MAX && !eval(ops, nops, cfa, &at))
			at = 2;
		/* No rule: libdw gives the ABI's (undefined if clobbered). */
		if (w.at[r] == 0 && at == 1 && r != 6 && r != 16)
			continue;
		if (at != w.at[r]) {
			printf("0x%" PRIx64 ": register %d at %#" PRIx64
			       ", want %#" PRIx64 " (type %u bp_reg %u)\n",
			       pc, r, at, w.at[r], e->type, e->bp_reg);
			bad = 1;
		}
	}
	free(f);
	return bad;
}

static int check(const struct ms_orc *orc, const uint64_t *fs, size_t nfs,
		 const char *out)
{
	char *buf;
	size_t len, nrows, checked = 0, bad = 0;
	struct ms_err err = { 0 };
	void *cfi_bytes;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	Elf *elf;
	int fd;

	if (ms_orc_to_debug_frame(orc, MS_CFI_USER_END, fs, nfs, &cfi_bytes,
				  &len, &nrows,
				  &err) ||
	    ms_cfi_elf_bytes(cfi_bytes, len, &buf, &len, &err)) {
		fprintf(stderr, "orccfi: %s\n", err.msg);
		return 1;
	}
	printf("entries: %zu rows: %zu bad: %zu version: %d bytes: %zu\n",
	       orc->n, nrows, orc->nbad, orc->version, len);
	free(cfi_bytes);
	if (out && (fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
		if (write(fd, buf, len) != (ssize_t)len)
			return 1;
		close(fd);
	}
	elf_version(EV_CURRENT);
	elf = elf_memory(buf, len);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!cfi) {
		fprintf(stderr, "orccfi: libdw: %s\n", dwarf_errmsg(-1));
		return 1;
	}
	/* A function's start starts a row (an FDE, by construction). */
	for (size_t i = 0; i < nfs; i++) {
		const struct ms_orc_entry *e = ms_orc_find(orc, fs[i]);
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		bool sig;

		if (!e)
			continue;
		checked++;
		if (dwarf_cfi_addrframe(cfi, fs[i], &f) ||
		    dwarf_frame_info(f, &start, &end, &sig) < 0 ||
		    start != fs[i]) {
			printf("%#" PRIx64 ": a function start inside a row\n",
			       fs[i]);
			bad++;
		}
		free(f);
		bad += check_at(cfi, e, fs[i]);
	}
	for (size_t i = 0; i < orc->n; i++) {
		const struct ms_orc_entry *e = &orc->e[i];

		bad += check_at(cfi, e, e->ip);
		if (e->end - 1 != e->ip)
			bad += check_at(cfi, e, e->end - 1);
		checked += 1 + (e->end - 1 != e->ip);
	}
	printf("checked: %zu mismatches: %zu\n", checked, bad);
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
	return bad ? 1 : 0;
}

/*
 * A base register (6.4's numbering, what the entry means) in format v's
 * bits: 7.1's as its orc_types.h numbers them (1735858caa4b, "objtool/x86:
 * Reorder ORC register numbering"), written out here again, not orc.c's.
 */
static uint8_t enc_reg(int v, uint8_t r)
{
	static const uint8_t v4[] = {
		[MS_ORC_REG_UNDEFINED] = 0,    [MS_ORC_REG_AX] = 1,
		[MS_ORC_REG_DX] = 2,	       [MS_ORC_REG_SP] = 3,
		[MS_ORC_REG_BP] = 4,	       [MS_ORC_REG_DI] = 5,
		[MS_ORC_REG_R10] = 6,	       [MS_ORC_REG_R13] = 7,
		[MS_ORC_REG_PREV_SP] = 8,      [MS_ORC_REG_SP_INDIRECT] = 9,
		[MS_ORC_REG_BP_INDIRECT] = 10,
	};

	return v == MS_ORC_V4 && r < sizeof(v4) ? v4[r] : r;
}

/*
 * Each entry read means what it was written to (formats 3 and 4, whose
 * types are the same): its registers, offsets, type and signal; UNDEFINED
 * where unwind_next_frame() would refuse it. Prints the first 5 mismatches, then
 * "meaning: N mismatches: N".
 */
static int meaning(const struct ms_orc *orc, const struct ms_orc_entry *w,
		   size_t n)
{
	static const uint8_t sp_ok[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	size_t bad = 0;

	if (orc->n != n) {
		printf("meaning: %zu entries read of %zu\n", orc->n, n);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ms_orc_entry *e = &orc->e[i];
		bool ok = w[i].type < MS_ORC_CALL ||
			  (memchr(sp_ok, w[i].sp_reg, sizeof(sp_ok)) &&
			   (w[i].bp_reg == MS_ORC_REG_UNDEFINED ||
			    w[i].bp_reg == MS_ORC_REG_PREV_SP ||
			    w[i].bp_reg == MS_ORC_REG_BP));

		if (e->ip != w[i].ip || e->sp_reg != w[i].sp_reg ||
		    e->bp_reg != w[i].bp_reg ||
		    e->sp_offset != w[i].sp_offset ||
		    e->bp_offset != w[i].bp_offset ||
		    e->type != (ok ? w[i].type : MS_ORC_UNDEFINED) ||
		    e->signal != (ok && w[i].signal)) {
			if (bad++ < 5)
				printf("0x%" PRIx64
				       ": read as sp_reg %u bp_reg %u type %u signal %d, written sp_reg %u bp_reg %u type %u signal %d\n",
				       w[i].ip, e->sp_reg, e->bp_reg, e->type,
				       e->signal, w[i].sp_reg, w[i].bp_reg,
				       w[i].type, w[i].signal);
		}
	}
	printf("meaning: %zu mismatches: %zu\n", n, bad);
	return bad ? 1 : 0;
}

/* The flags of format v for what w means (6.4's numbering). */
static uint16_t enc_flags(int v, const struct ms_orc_entry *w)
{
	unsigned t = w->type, sig = w->signal;
	uint16_t f =
		(uint16_t)(enc_reg(v, w->sp_reg) | enc_reg(v, w->bp_reg) << 4);

	if (v >= MS_ORC_V3)
		return (uint16_t)(f | t << 8 | sig << 11);
	if (t)
		f |= (uint16_t)((t - 1) % 4 << 8 |
				(t == 4) << (v == 2 ? 11 : 10) |
				(v == 2 ? sig << 10 : 0));
	return f;
}

/*
 * Entries of every kind, in format v's bits, 16 bytes apart: AX only in
 * 7.1's. With tables, laid out as a kernel writes them (.orc_unwind_ip:
 * each entry's address less its own; .orc_unwind) and read from there.
 * Read as format rv (v but to show a misreading).
 */
static int synth(int v, int rv, bool tables, struct ms_orc **ret, int *mism,
		 struct ms_err *err)
{
	static const uint8_t sp[] = { 5, 4, 9, 8, 6,  7,
				      3, 2, 0, 1, 15, MS_ORC_REG_AX };
	static const uint8_t bp[] = { 0, 1, 4, 5 };
	struct ms_orc_entry w[5 * 12 * 4 * 2];
	uint8_t raw[5 * 12 * 4 * 2][6], ips[5 * 12 * 4 * 2][4];
	uint64_t ip[5 * 12 * 4 * 2];
	const uint64_t ip_base = 0xffffffff82000000;
	size_t nsp = sizeof(sp) - (v != MS_ORC_V4), n = 5 * nsp * 4 * 2;
	int r;

	/* Signal innermost, then bp_reg, sp_reg, type. */
	for (size_t i = 0; i < n; i++) {
		struct ms_orc_entry *e = &w[i];
		uint32_t off;
		uint16_t f;

		memset(e, 0, sizeof(*e));
		e->ip = ip[i] = 0xffffffff81000000 + 16 * i;
		e->signal = i % 2;
		e->bp_reg = bp[i / 2 % 4];
		e->sp_reg = sp[i / 8 % nsp];
		e->type = (uint8_t)(i / 8 / nsp);
		e->sp_offset = (int16_t)(8 * (int)(i % 7) - 16);
		e->bp_offset = (int16_t)(-16 - 8 * (int)(i % 3));
		f = enc_flags(v, e);
		memcpy(raw[i], &e->sp_offset, 2);
		memcpy(raw[i] + 2, &e->bp_offset, 2);
		memcpy(raw[i] + 4, &f, 2);
		off = (uint32_t)(ip[i] - (ip_base + 4 * i));
		memcpy(ips[i], &off, 4);
	}
	if (tables)
		r = ms_orc_from_tables(ips, 4 * n, ip_base, raw, 6 * n, rv,
				       "synth", ret, err);
	else
		r = ms_orc_from_ips(ip, raw, n, rv, "synth", ret, err);
	if (!r && v >= MS_ORC_V3)
		*mism = meaning(*ret, w, n);
	return r;
}

/* The format an .orc_header (hex, or "-" for none) and release give. */
static int version_of(const char *hex, const char *rel, int *v)
{
	struct ms_err err = { 0 };
	uint8_t h[64];
	size_t n = strlen(hex) / 2;

	if (strcmp(hex, "-") &&
	    (n > sizeof(h) || ms_hex_decode(hex, 2 * n, h))) {
		fprintf(stderr, "orccfi: bad hex\n");
		return 2;
	}
	if (ms_orc_version(strcmp(hex, "-") ? h : NULL, n, rel, "header", v,
			   &err)) {
		fprintf(stderr, "orccfi: %s\n", err.msg);
		return 1;
	}
	printf("version: %d\n", *v);
	return 0;
}

static int header(const char *hex, const char *rel)
{
	int v;

	return version_of(hex, rel, &v);
}

static void print_op(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		printf(" breg%d%+" PRId64, op->atom - DW_OP_breg0,
		       (int64_t)op->number);
	else if (op->atom == DW_OP_bregx)
		printf(" breg%" PRIu64 "%+" PRId64, op->number,
		       (int64_t)op->number2);
	else
		printf(" op%#x", op->atom);
}

static int dump(const char *path, char **addrs, int n)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;

	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!cfi) {
		fprintf(stderr, "orccfi: %s: %s\n", path, dwarf_errmsg(-1));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t a = strtoull(addrs[i], NULL, 0);
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		Dwarf_Op *ops;
		size_t nops;
		bool sig;

		if (dwarf_cfi_addrframe(cfi, a, &f)) {
			printf("%#" PRIx64 " none\n", a);
			continue;
		}
		dwarf_frame_info(f, &start, &end, &sig);
		printf("%#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %d", a, start,
		       end, sig);
		if (!dwarf_frame_cfa(f, &ops, &nops))
			for (size_t k = 0; k < nops; k++)
				print_op(&ops[k]);
		printf("\n");
		free(f);
	}
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
	return 0;
}

/* The image's text symbols, sorted, as function starts. */
static size_t text_starts(struct ms_kimage *k, uint64_t **ret)
{
	const struct ms_ksymtab *t;
	struct ms_err err;
	size_t n = 0;

	if (ms_kimage_ksymtab(k, &t, &err) ||
	    !(*ret = malloc((t->nsyms + 1) * sizeof(**ret))))
		return 0;
	for (size_t i = 0; i < t->nsyms; i++)
		if (strchr("tTwW", t->syms[i].type) &&
		    (!n || (*ret)[n - 1] != t->syms[i].addr))
			(*ret)[n++] = t->syms[i].addr;
	return n;
}

int main(int argc, char **argv)
{
	struct ms_err err = { 0 };
	struct ms_orc *orc = NULL;
	uint64_t *fs = NULL;
	size_t nfs = 0;
	int r, mism = 0;

	if (argc == 4 && !strcmp(argv[1], "--header"))
		return header(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2], argv + 3, argc - 3);
	if (argc >= 3 && !strcmp(argv[1], "--synth")) {
		r = synth(atoi(argv[2]), atoi(argv[2]), false, &orc, &mism,
			  &err);
		argv += 2;
		argc -= 2;
	} else if (argc == 4 && !strcmp(argv[1], "--misread")) {
		r = synth(atoi(argv[2]), atoi(argv[3]), true, &orc, &mism,
			  &err);
		if (r) {
			fprintf(stderr, "orccfi: %s\n", err.msg);
			return 1;
		}
		ms_orc_free(orc);
		return mism;
	} else if (argc >= 4 && !strcmp(argv[1], "--kernel")) {
		int v;

		r = version_of(argv[2], argv[3], &v);
		if (r)
			return r;
		r = synth(v, v, true, &orc, &mism, &err);
		argv += 3;
		argc -= 3;
	} else if (argc == 5 && !strcmp(argv[1], "--raw")) {
		char *a, *b;
		size_t la, lb;

		r = ms_read_file(argv[3], 64 << 20, &a, &la, &err);
		if (!r)
			r = ms_read_file(argv[4], 64 << 20, &b, &lb, &err);
		if (!r)
			r = ms_orc_from_tables(a, la, 0xffffffff81000000, b,
					       lb, atoi(argv[2]), "raw", &orc,
					       &err);
		argc = 1;
	} else if (argc >= 2 && argv[1][0] != '-') {
		struct ms_kimage *k;
		char rel[64] = "";

		r = ms_kimage_open(argv[1], &k, &err);
		if (!r && ms_kimage_banner(k))
			sscanf(ms_kimage_banner(k), "Linux version %63s", rel);
		if (!r)
			r = ms_kimage_orc(k, rel, 0, &orc, &err);
		if (!r)
			nfs = text_starts(k, &fs);
		if (!r)
			ms_kimage_free(k);
		argc--;
		argv++;
	} else {
		fprintf(stderr,
			"usage: orccfi IMAGE|--synth V [OUT] | --kernel HEX REL [OUT] | --raw V IPS ENTS\n");
		return 2;
	}
	if (r) {
		fprintf(stderr, "orccfi: %s\n", err.msg);
		return 1;
	}
	r = check(orc, fs, nfs, argc >= 2 ? argv[1] : NULL) || mism;
	free(fs);
	ms_orc_free(orc);
	return r;
}
