// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What kallsyms does not say. Without CONFIG_KALLSYMS_ALL (Debian's arm64
 * and i386 kernels) /proc/kallsyms, and the table in memory, list only
 * text symbols: no __start_BTF, no init_uts_ns, no modules. From memory
 * alone they are found by what they are, each candidate checked before
 * it is believed:
 *  - the BTF by its header (include/uapi/linux/btf.h: magic 0xeB9F,
 *    version 1), in the read-only data that follows the kallsyms tables
 *    (RO_DATA in include/asm-generic/vmlinux.lds.h), kept only if libbpf
 *    parses it and it describes struct module;
 *  - the release by linux_banner ("Linux version %s (", init/version.c);
 *  - the build-id by its note (NT_GNU_BUILD_ID, "GNU") in .notes, which
 *    RO_DATA puts just before the BTF (NOTES then BTF, since BTF's
 *    section was added there in 7472d5a642c9, 5.7);
 *  - the module list head by the code of print_modules(), a text symbol
 *    whose list_for_each_entry_rcu(mod, &modules, list) loads &modules
 *    (arm64: ADRP + ADD or LDR; s390x: LARL; i386 and ARM: a 32-bit
 *    constant); each
 *    address it computes is a candidate,
 *    kept only if it is a list of struct modules that closes on itself.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kmem-int.h"

#define KDATA_CHUNK (2u << 20)
#define KDATA_MAX_SCAN (96u << 20)
#define KDATA_MAX_BTF (64u << 20)
#define KDATA_MAX_FN 4096u /* bytes of print_modules() decoded */
#define KDATA_MAX_CAND 256u

/* A BTF blob at p whose header says len bytes; 0 if none. */
static size_t btf_header(const unsigned char *p, size_t avail)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint64_t end;

	if (avail < 24 || p[0] != 0x9f || p[1] != 0xeb || p[2] != 1 ||
	    p[3] != 0)
		return 0;
	memcpy(&hdr_len, p + 4, 4);
	memcpy(&type_off, p + 8, 4);
	memcpy(&type_len, p + 12, 4);
	memcpy(&str_off, p + 16, 4);
	memcpy(&str_len, p + 20, 4);
	if (hdr_len < 24 || hdr_len > 256 || !type_len || !str_len)
		return 0;
	end = (uint64_t)type_off + type_len;
	if ((uint64_t)str_off + str_len > end)
		end = (uint64_t)str_off + str_len;
	end += hdr_len;
	return end <= KDATA_MAX_BTF ? (size_t)end : 0;
}

/* 0 if the BTF at is the kernel's, -ENOENT if not, -ENOMEM, or I/O. */
static int try_btf(struct kern *k, uint64_t at, size_t len,
		   struct ms_err *err)
{
	unsigned char *data = malloc(len);
	struct btf *btf = NULL;
	int r;

	if (!data)
		return ms_err_errno(err, ENOMEM, "BTF");
	r = kern_probe(k, at, data, len, "BTF", err);
	if (!r)
		btf = btf__new(data, (uint32_t)len);
	if (!btf || btf__find_by_name_kind(btf, "module", BTF_KIND_STRUCT) <= 0) {
		btf__free(btf);
		free(data);
		return r < 0 ? r : -ENOENT;
	}
	k->btf = btf;
	k->btf_data = data;
	k->btf_addr = at;
	return 0;
}

#define KDATA_NOTES_BEFORE 4096u

/*
 * The build-id note nearest before the BTF: Elf_Nhdr namesz 4, descsz
 * 1..64, type 3, then "GNU\0". The last one in the window is taken, the
 * kernel's own; a module's note would not sit in vmlinux's RO_DATA.
 */
int kdata_notes_build_id(struct kern *k, struct ms_err *err)
{
	unsigned char buf[KDATA_NOTES_BEFORE];
	uint64_t from;
	size_t best = SIZE_MAX;
	int r;

	if (k->build_id || !k->btf_addr || k->btf_addr < sizeof(buf))
		return 0;
	from = k->btf_addr - sizeof(buf);
	r = kern_probe(k, from, buf, sizeof(buf), "kernel notes", err);
	if (r)
		return r < 0 ? r : 0;
	for (size_t i = 0; i + 16 <= sizeof(buf); i += 4) {
		struct ms_notes it;
		struct ms_note n;

		ms_notes_init(&it, buf + i, sizeof(buf) - i, k->big_endian);
		if (ms_notes_next(&it, &n) > 0 && ms_note_is_build_id(&n))
			best = i;
	}
	if (best != SIZE_MAX &&
	    ms_notes_build_id(buf + best, sizeof(buf) - best, k->big_endian,
			      &k->build_id))
		return ms_err_errno(err, ENOMEM, "kernel notes");
	return 0;
}

int kdata_find_btf(struct kern *k, uint64_t from, struct ms_err *err)
{
	unsigned char *buf = malloc(KDATA_CHUNK);
	int r = -ENOENT, p;

	if (!buf)
		return ms_err_errno(err, ENOMEM, "BTF search");
	from &= ~(uint64_t)3;
	for (uint64_t off = 0; r == -ENOENT && off < KDATA_MAX_SCAN;
	     off += KDATA_CHUNK) {
		p = kern_probe(k, from + off, buf, KDATA_CHUNK, "BTF search",
			       err);
		if (p) {
			r = p < 0 ? p : r;
			break;
		}
		for (size_t i = 0; r == -ENOENT && i + 24 <= KDATA_CHUNK;
		     i += 4) {
			size_t len = btf_header(buf + i, KDATA_CHUNK - i);

			if (len)
				r = try_btf(k, from + off + i, len, err);
		}
	}
	free(buf);
	if (r && r != -ENOENT)
		return r; /* out of memory, or I/O */
	if (r)
		return ms_err_set(err, ENOTSUP,
				  "%s: the running kernel has no BTF (CONFIG_DEBUG_INFO_BTF) in the %u MiB after its kallsyms tables, and its kallsyms has no __start_BTF",
				  k->origin, KDATA_MAX_SCAN >> 20);
	return 0;
}

int kdata_banner_release(const unsigned char *p, size_t len, char **ret)
{
	static const char tag[] = "Linux version ";
	const size_t n = sizeof(tag) - 1;

	for (size_t i = 0; i + n + 2 < len; i++) {
		size_t j = i + n;

		if (p[i] != 'L' || memcmp(p + i, tag, n))
			continue;
		while (j < len && j - i - n < 64 && p[j] > ' ' && p[j] < 0x7f)
			j++;
		if (j == i + n || j + 1 >= len || p[j] != ' ' || p[j + 1] != '(')
			continue;
		*ret = strndup((const char *)p + i + n, j - i - n);
		return *ret ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

/* Sign-extends the low bits of v. */
static int64_t sext(uint64_t v, unsigned int bits)
{
	uint64_t m = 1ull << (bits - 1);

	return (int64_t)((v ^ m) - m);
}

static uint32_t insn(const unsigned char *c)
{
	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
	       (uint32_t)c[3] << 24;
}

/*
 * The addresses arm64 code at pc computes from ADRP: a register's value
 * is tracked through ADD (immediate) and the 64-bit LDR forms (unsigned
 * offset, pre-index with writeback, unscaled) that use it as a base; GCC
 * reaches a variable through a section anchor (ADRP, ADD, then LDR x,
 * [base, #off]!), so each such address is a candidate. Values of
 * registers that other instructions overwrite go stale; a stale
 * candidate fails the check that follows.
 */
static size_t arm64_addrs(const unsigned char *code, size_t len, uint64_t pc,
			  uint64_t *out, size_t max)
{
	uint64_t val[32];
	uint32_t known = 0;
	size_t n = 0;

	for (size_t i = 0; i + 4 <= len && n < max; i += 4) {
		uint32_t a = insn(code + i);
		unsigned int rd = a & 31, rn = (a >> 5) & 31;
		uint64_t v;

		if ((a & 0x9f000000u) == 0x90000000u) { /* ADRP */
			uint64_t imm = ((a >> 29) & 3) |
				       ((uint64_t)(a >> 5) & 0x7ffff) << 2;

			val[rd] = ((pc + i) & ~0xfffull) +
				  (uint64_t)(sext(imm, 21) * 4096);
			known |= 1u << rd;
			continue;
		}
		if (!(known & 1u << rn))
			continue;
		if ((a & 0xff800000u) == 0x91000000u) { /* ADD x, x, #imm */
			v = val[rn] + (uint64_t)((a >> 10) & 0xfff) *
					      ((a >> 22) & 1 ? 4096 : 1);
			val[rd] = v;
			known |= 1u << rd;
		} else if ((a & 0xffc00000u) == 0xf9400000u) { /* LDR uoff */
			v = val[rn] + (uint64_t)((a >> 10) & 0xfff) * 8;
			known &= ~(1u << rd);
		} else if ((a & 0xffe00c00u) == 0xf8400c00u) { /* LDR pre */
			v = val[rn] + (uint64_t)sext((a >> 12) & 0x1ff, 9);
			val[rn] = v;
			known &= ~(1u << rd);
		} else if ((a & 0xffe00c00u) == 0xf8400000u) { /* LDUR */
			v = val[rn] + (uint64_t)sext((a >> 12) & 0x1ff, 9);
			known &= ~(1u << rd);
		} else {
			continue;
		}
		out[n++] = v;
	}
	return n;
}

/*
 * The value an ARM (A32) instruction gives a register from registers of
 * known value (MOVW/MOVT halves, ADD immediate) or the address a load or
 * store (immediate offset) uses; GCC reaches a variable through a section
 * anchor (MOVW, MOVT, then LDR r, [anchor, #off]!). 1 with *addr, else 0.
 */
static int arm_insn(uint32_t a, uint32_t *val, uint32_t *known, uint32_t *addr)
{
	unsigned int rd = (a >> 12) & 15, rn = (a >> 16) & 15;
	uint32_t imm16 = ((a >> 4) & 0xf000) | (a & 0xfff);
	uint32_t rot = ((a >> 8) & 15) * 2, imm8 = a & 0xff;

	if ((a & 0x0ff00000u) == 0x03000000u) { /* MOVW */
		val[rd] = imm16;
		*known |= 1u << rd;
		return 0;
	}
	if ((a & 0x0ff00000u) == 0x03400000u) { /* MOVT */
		*addr = val[rd] = imm16 << 16 | (val[rd] & 0xffff);
		return 1;
	}
	if (!(*known & 1u << rn))
		return 0;
	if ((a & 0x0fe00000u) == 0x02800000u) { /* ADD immediate */
		uint32_t imm = rot ? imm8 >> rot | imm8 << (32 - rot) : imm8;

		*addr = val[rd] = val[rn] + imm;
		*known |= 1u << rd;
		return 1;
	}
	if ((a & 0x0e000000u) == 0x04000000u) { /* LDR/STR immediate */
		uint32_t off = a & 0xfff, at = val[rn];

		at = a & (1u << 23) ? at + off : at - off;
		*addr = a & (1u << 24) ? at : val[rn];
		if ((a & (1u << 24)) && (a & (1u << 21)))
			val[rn] = at; /* pre-indexed with writeback */
		return 1;
	}
	return 0;
}

/*
 * 32-bit kernels address their data with absolute constants: i386 code
 * as an instruction's immediate or displacement (any byte offset), ARM
 * code as a word of the literal pool after the function or built by
 * MOVW/MOVT (arm_insn). Each 4-byte-aligned value in the kernel's part
 * of the address space (from PAGE_OFFSET, 0xc0000000 with VMSPLIT_3G,
 * Debian's) is a candidate for &modules.
 */
static size_t const32_addrs(const struct kern *k, const unsigned char *code,
			    size_t len, uint64_t *out, size_t max)
{
	bool arm = k->elf_machine == EM_ARM;
	uint32_t val[16] = { 0 }, known = 0;
	size_t n = 0;

	for (size_t i = 0; i + 4 <= len && n < max; i += arm ? 4 : 1) {
		uint32_t v = (uint32_t)kget(k, code + i, 0, 4), a;

		if (arm && arm_insn(v, val, &known, &a) && a >= 0xc0000000u &&
		    !(a % 4) && n < max)
			out[n++] = a;
		if (v >= 0xc0000000u && !(v % 4) && n < max)
			out[n++] = v;
	}
	return n;
}

/*
 * s390x code addresses its data PC-relative: LARL (load address relative
 * long, RIL-b: 0xc0, R1 << 4 | 0) and LGRL (load relative long, 0xc4,
 * R1 << 4 | 8), a signed 32-bit count of halfwords (z/Architecture
 * Principles of Operation). 6.1's print_modules() loads modules.next
 * with LGRL and takes the LARL of container_of(&modules), the list less
 * its offset in struct module. An instruction's length is in its first
 * two bits: 2, 4, 4 or 6 bytes.
 */
static size_t s390_addrs(const unsigned char *code, size_t len, uint64_t pc,
			 uint64_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i + 2 <= len && n < max;) {
		unsigned int top = code[i] >> 6;
		size_t ilen = top == 0 ? 2 : top == 3 ? 6 : 4;

		if (i + ilen > len)
			break;
		if ((code[i] == 0xc0 && (code[i + 1] & 0x0f) == 0) ||
		    (code[i] == 0xc4 && (code[i + 1] & 0x0f) == 8)) {
			int32_t imm = (int32_t)((uint32_t)code[i + 2] << 24 |
						(uint32_t)code[i + 3] << 16 |
						(uint32_t)code[i + 4] << 8 |
						code[i + 5]);

			out[n++] = pc + i + (uint64_t)((int64_t)imm * 2);
		}
		i += ilen;
	}
	return n;
}

/*
 * 64-bit powerpc (ELFv2, little-endian) addresses its data from the TOC
 * pointer r2, which a function's global entry computes from its own
 * address in r12: `addis r2,r12,H; addi r2,r2,L` (the ELFv2 ABI's
 * prologue). Then `addis rA,r2,H2; addi rB,rA,L2` is TOC + H2 << 16 +
 * L2, the address of data in the TOC's reach (modules, a static of the
 * same file as print_modules()).
 */
static size_t ppc64_addrs(const unsigned char *code, size_t len, uint64_t pc,
			  uint64_t *out, size_t max)
{
	uint64_t toc, hi[32] = { 0 };
	uint32_t known = 0;
	size_t n = 0;

	if (len < 8 || (insn(code) & 0xffff0000u) != 0x3c4c0000u ||
	    (insn(code + 4) & 0xffff0000u) != 0x38420000u)
		return 0;
	toc = pc + (uint64_t)(sext(insn(code) & 0xffff, 16) * 65536) +
	      (uint64_t)sext(insn(code + 4) & 0xffff, 16);
	for (size_t i = 8; i + 4 <= len && n < max; i += 4) {
		uint32_t w = insn(code + i);
		unsigned int op = w >> 26, rt = (w >> 21) & 31,
			     ra = (w >> 16) & 31;
		int64_t d = sext(w & 0xffff, 16);

		if (op == 15 && ra == 2) { /* addis rt,r2,d */
			hi[rt] = toc + (uint64_t)(d * 65536);
			known |= 1u << rt;
		} else if (op == 14 && ra && (known >> ra & 1)) { /* addi */
			out[n++] = hi[ra] + (uint64_t)d;
		}
	}
	return n;
}

/* Is the list node at node a struct module's, named? 1, 0, or I/O. */
static int module_node(const struct kern *k, const struct klayout *l,
		       uint64_t node, unsigned char *lst, struct ms_err *err)
{
	size_t ps = (size_t)k->ptr_size;
	unsigned char name[64];
	size_t nl = l->mod_name.size < sizeof(name) ? l->mod_name.size :
						      sizeof(name);
	int r;

	if (node < l->mod_list.off)
		return 0;
	r = kern_probe(k, node, lst, 2 * ps, "probe", err);
	if (!r)
		r = kern_probe(k, node - l->mod_list.off + l->mod_name.off,
			       name, nl, "probe", err);
	if (r)
		return r < 0 ? r : 0;
	if (!name[0] || !memchr(name, '\0', nl))
		return 0;
	for (size_t i = 0; name[i]; i++)
		if (name[i] <= ' ' || name[i] >= 0x7f)
			return 0;
	return 1;
}

/*
 * Is head a list of struct modules (named, each node's prev the one
 * before) that comes back to head? 1 with the number of modules in *n,
 * 0 if not, or an I/O failure.
 */
static int walk_ok(const struct kern *k, const struct klayout *l,
		   uint64_t head, long *n, struct ms_err *err)
{
	size_t ps = (size_t)k->ptr_size;
	unsigned char lst[16];
	uint64_t node, prev = head;
	int r = kern_probe(k, head, lst, 2 * ps, "probe", err);

	if (r)
		return r < 0 ? r : 0;
	*n = 0;
	node = kget(k, lst, 0, ps);
	while (node != head) {
		if (++*n > KMEM_MAX_MODULES)
			return 0;
		r = module_node(k, l, node, lst, err);
		if (r <= 0)
			return r;
		if (kget(k, lst, ps, ps) != prev)
			return 0;
		prev = node;
		node = kget(k, lst, 0, ps);
	}
	return 1;
}

int kdata_modules(const struct kern *k, const struct klayout *l,
		  uint64_t *head, struct ms_err *err)
{
	const struct ms_ksym *fn = NULL;
	uint64_t cand[KDATA_MAX_CAND], end = UINT64_MAX, empty = 0;
	unsigned char *code;
	size_t len, n, nempty = 0;
	int r;

	for (size_t i = 0; k->ksyms && i < k->ksyms->nsyms; i++)
		if (!strcmp(k->ksyms->syms[i].name, "print_modules"))
			fn = &k->ksyms->syms[i];
	if (!fn || (k->elf_machine != EM_AARCH64 &&
		    k->elf_machine != EM_S390 && k->elf_machine != EM_PPC64 &&
		    k->ptr_size != 4))
		return ms_err_set(err, ENOENT,
				  "%s: the kernel's kallsyms has no symbol modules (no CONFIG_KALLSYMS_ALL), and modsect finds the module list without it only on arm64, s390x, ppc64le, i386 and 32-bit ARM; give --kernel-image with a vmlinux that has symbols",
				  k->origin);
	for (size_t i = 0; i < k->ksyms->nsyms; i++)
		if (k->ksyms->syms[i].addr > fn->addr &&
		    k->ksyms->syms[i].addr < end)
			end = k->ksyms->syms[i].addr;
	len = end - fn->addr < KDATA_MAX_FN ? (size_t)(end - fn->addr) :
					     KDATA_MAX_FN;
	code = malloc(len ? len : 1);
	if (!code)
		return ms_err_errno(err, ENOMEM, "print_modules");
	r = ms_mem_read(k->mem, kern_moved(k, fn->addr), code, len,
			"print_modules", err);
	if (r) {
		free(code);
		return r;
	}
	if (k->ptr_size == 4)
		n = const32_addrs(k, code, len, cand, KDATA_MAX_CAND);
	else if (k->elf_machine == EM_S390)
		n = s390_addrs(code, len, kern_moved(k, fn->addr), cand,
			       KDATA_MAX_CAND);
	else if (k->elf_machine == EM_PPC64 && !k->big_endian)
		n = ppc64_addrs(code, len, kern_moved(k, fn->addr), cand,
				KDATA_MAX_CAND);
	else
		n = arm64_addrs(code, len, kern_moved(k, fn->addr), cand,
				KDATA_MAX_CAND);
	free(code);
	for (size_t i = 0; i < n; i++) {
		long m = 0;
		int w = cand[i] % (uint64_t)k->ptr_size ?
				0 :
				walk_ok(k, l, cand[i], &m, err);

		if (w < 0)
			return w;
		if (w && m > 0) {
			*head = cand[i];
			return 0;
		}
		if (w && m == 0 && cand[i] != empty) {
			empty = cand[i];
			nempty++;
		}
	}
	/* No module loaded: believed only if no other list looks like it. */
	if (nempty == 1) {
		*head = empty;
		return 0;
	}
	return ms_err_set(err, ENOENT,
			  "%s: none of the %zu addresses print_modules() computes is the module list (and kallsyms has no modules symbol: no CONFIG_KALLSYMS_ALL)",
			  k->origin, n);
}
