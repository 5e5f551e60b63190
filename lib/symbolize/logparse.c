// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Frames in kernel log text: "func+0x1a/0x60 [mod]" (what %pS prints in
 * oopses, WARNs, KASAN, lockdep and hung-task reports), raw
 * "[<ffffffffc0a14000>]" addresses (16 hex digits, 8 on 32-bit kernels)
 * and the bare "0xffff800008123456" that %pS prints for an address
 * kallsyms cannot place. A frame is a return address (its line is the one
 * of the call, so it is looked up at address - 1) unless the text before
 * it says it is where execution is: a register dump's program counter, or
 * a WARNING/BUG "at"/"in".
 *
 * The formats, by architecture (Linux 6.1 and 6.12):
 *  x86-64  arch/x86/kernel/dumpstack.c show_ip: "RIP: %04x:%pS";
 *          printk_stack_address: " %s%pBb" with "? " for unreliable ones.
 *  i386    the same file: "EIP: %pS"; register lines of process_32.c
 *          __show_regs ("EAX: %08lx EBX: ...") hold no frame.
 *  arm64   arch/arm64/kernel/process.c __show_regs: "pc : %pS",
 *          "lr : %pS" (lr with its PAC stripped), "sp : %016llx", then
 *          "x29: %016llx" register lines, which hold no frame;
 *          stacktrace.c dump_backtrace: "Call trace:", then " %pSb" per
 *          entry (6.13 and later add " (P)" to the regs' pc entry).
 *  s390x   arch/s390/kernel/dumpstack.c show_registers: "Krnl PSW : %px
 *          %px (%pSR)", the PSW's mask, then its address (where execution
 *          was: the faulting instruction, or the one after a WARN's
 *          monitor call, traps.c monitor_event_exception); "Krnl GPRS:"
 *          register lines and "Krnl Code:" lines hold no frame; show_stack:
 *          "Call Trace:", then " [<%016lx>] %pSR " per reliable entry and
 *          "([<%016lx>] %pSR)" per unreliable one (the stale r14 of an
 *          interrupted frame); show_last_breaking_event: "Last
 *          Breaking-Event-Address:", then " [<%016lx>] %pSR" (%pSR: %pS
 *          of __builtin_extract_return_addr, the address itself on
 *          64-bit). The unwinder (unwind_bc.c) gives return addresses
 *          (r14 saved in each frame), except the psw.addr of a pt_regs it
 *          meets: a trace printed from a register dump (show_regs) starts
 *          with the dump's PSW address.
 *  older   "[<%px>] %pS" call-trace lines (x86 print_ip_sym, arm64
 *          before 5.x), arm "pc : [<%08lx>]    lr : [<%08lx>]" and
 *          "PC is at %pS" / "LR is at %pS", x86 "IP: [<%p>] %pS".
 * In "func+off", func + off is the address printed either way: %pS names
 * the symbol at the address, %pB (x86 traces) the one at address - 1 but
 * with the offset of the address (lib/vsprintf.c symbol_string,
 * kernel/kallsyms.c sprint_backtrace), and the "b" of %pSb/%pBb adds the
 * module's build-id inside the brackets.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

static bool symchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool modchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static size_t xdigits(const char *p)
{
	size_t n = 0;

	while (isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* "0x" hex digits at p; returns the end or NULL. */
static const char *hex(const char *p, uint64_t *v)
{
	const char *s = p;
	char *end;

	if (p[0] != '0' || p[1] != 'x' || !isxdigit((unsigned char)p[2]))
		return NULL;
	s = p + 2;
	*v = strtoull(s, &end, 16);
	return end - s > 16 ? NULL : end;
}

enum site { SITE_EXACT, SITE_PC, SITE_RETURN, SITE_WARN };

/*
 * Words that say what the frames after them are, up to the next such word
 * ("pc : [<a>] lr : [<b>]" holds one of each).
 */
static const struct {
	const char *text;
	enum site site;
} markers[] = {
	{ "RIP: ", SITE_PC }, /* x86-64 show_ip */
	{ "EIP: ", SITE_PC }, /* i386 show_ip */
	{ "IP: ", SITE_PC }, /* x86 page faults before 4.x */
	{ "RIP ", SITE_PC }, /* x86-64 "RIP  [<...>]" after oopses before 4.x */
	{ "EIP is at ", SITE_PC }, /* i386 before 2.6.25 */
	{ "pc : ", SITE_PC }, /* arm64 and arm __show_regs */
	{ "Krnl PSW : ", SITE_PC }, /* s390 show_registers */
	{ "PC is at ", SITE_PC }, /* arm, and arm64 before 4.16 */
	{ "lr : ", SITE_RETURN }, /* arm64 and arm: the link register */
	{ "LR is at ", SITE_RETURN },
	/*
	 * powerpc show_regs (arch/powerpc/kernel/process.c): "NIP ["REG"]
	 * %pS" of regs->nip, where the exception was taken, and "LR ["REG"]
	 * %pS" of regs->link: the link register holds what the last bl/bctrl
	 * wrote, the instruction after a call (in the caller, or in this
	 * function after a call it made), so a return address. show_stack's
	 * "--- interrupt: %lx at %pS" is the nip of an exception frame.
	 */
	{ "NIP [", SITE_PC },
	{ "LR [", SITE_RETURN },
	{ "--- interrupt: ", SITE_PC },
	{ "WARNING: ", SITE_WARN }, /* kernel/panic.c __warn "... at" */
	/*
	 * mm/kasan/report.c: "BUG: KASAN: %s in %pS" of kasan_report's ip,
	 * the _RET_IP_ of the instrumented access's __asan_load/store call.
	 * Before "BUG: ", which the same position also matches.
	 */
	{ "BUG: KASAN: ", SITE_RETURN },
	{ "BUG: KASan: ", SITE_RETURN }, /* before 4.x */
	{ "BUG: ", SITE_EXACT },
	{ "kernel BUG at ", SITE_EXACT },
	/*
	 * s390: the last branch taken, where the PSW came from (arch/s390/
	 * kernel/dumpstack.c show_last_breaking_event), an instruction's
	 * own address; 6.1 prints it on the next line (ms_log_last_break).
	 */
	{ "Last Breaking-Event-Address:", SITE_EXACT },
};

/*
 * How far before a frame its marker may be (past a WARNING's file path):
 * a long line is not searched from its start for every frame.
 */
#define MARKER_REACH 512

/* Whether text occurs at line + at as a word of its own. */
static bool word_at(const char *line, size_t at, const char *text)
{
	return (at == 0 || !isalnum((unsigned char)line[at - 1])) &&
	       strncmp(line + at, text, strlen(text)) == 0;
}

/* The site of a frame starting at start: the nearest marker before it. */
static enum site site_of(const char *line, size_t start)
{
	size_t stop = start > MARKER_REACH ? start - MARKER_REACH : 0;

	for (size_t at = start; at-- > stop;) {
		for (size_t i = 0; i < sizeof(markers) / sizeof(*markers);
		     i++) {
			if (at + strlen(markers[i].text) <= start &&
			    word_at(line, at, markers[i].text))
				return markers[i].site;
		}
	}
	return SITE_RETURN;
}

/*
 * " [mod]", or " [mod BUILDID]" with CONFIG_STACKTRACE_BUILD_ID (%pSb and
 * %pBb add the module's 20-byte build-id as "%20phN": kernel/kallsyms.c
 * __sprint_symbol); returns the end, or NULL. The build-id is kept in
 * lower case, as modsect compares build-ids.
 */
static const char *module_part(const char *p, struct ms_logframe *f)
{
	const size_t idlen = sizeof(f->build_id) - 1;
	const char *m = p + 2, *me = m, *end;

	if (p[0] != ' ' || p[1] != '[')
		return NULL;
	while (modchar(*me))
		me++;
	if (me == m || (size_t)(me - m) >= sizeof(f->module))
		return NULL;
	end = me;
	if (me[0] == ' ' && xdigits(me + 1) == idlen)
		end = me + 1 + idlen;
	if (*end != ']')
		return NULL;
	memcpy(f->module, m, (size_t)(me - m));
	f->module[me - m] = '\0';
	f->build_id[0] = '\0';
	if (end != me) {
		for (size_t i = 0; i < idlen; i++)
			f->build_id[i] = (char)tolower((unsigned char)me[1 + i]);
		f->build_id[idlen] = '\0';
	}
	return end + 1;
}

/* "sym+0xoff/0xsize" with an optional " [mod]" at p, which starts a word. */
static bool symbolic(const char *line, const char *p, struct ms_logframe *f)
{
	const char *q = p, *end, *mend;
	uint64_t offset, size;

	while (symchar(*q))
		q++;
	if (q == p || *q != '+' || (size_t)(q - p) >= sizeof(f->symbol))
		return false;
	end = hex(q + 1, &offset);
	if (!end || *end != '/' || !(end = hex(end + 1, &size)))
		return false;
	f->offset = offset;
	memcpy(f->symbol, p, (size_t)(q - p));
	f->symbol[q - p] = '\0';
	f->module[0] = '\0';
	f->build_id[0] = '\0';
	mend = module_part(end, f);
	if (mend)
		end = mend;
	f->kind = MS_LOGFRAME_SYMBOL;
	f->start = (size_t)(p - line);
	f->end = (size_t)(end - line);
	return true;
}

/* "[<ffffffffc0a14000>]", "[<c1234567>]" */
static bool raw(const char *line, const char *p, struct ms_logframe *f)
{
	const char *q = p + 2;
	size_t n;

	if (p[0] != '[' || p[1] != '<')
		return false;
	n = xdigits(q);
	if (n < 8 || n > 16 || q[n] != '>' || q[n + 1] != ']')
		return false;
	f->address = strtoull(q, NULL, 16);
	f->kind = MS_LOGFRAME_ADDRESS;
	f->has_address = true;
	f->start = (size_t)(p - line);
	f->end = (size_t)(q + n + 2 - line);
	return true;
}

/*
 * "0x" and all the digits of an address, ending the word: __sprint_symbol's
 * "0x%lx" for an address with no symbol, as "lr : %pS" prints an lr whose
 * PAC bits were not stripped.
 */
static bool bare(const char *line, const char *p, struct ms_logframe *f)
{
	size_t n;

	if (p[0] != '0' || p[1] != 'x')
		return false;
	n = xdigits(p + 2);
	if ((n != 8 && n != 16) ||
	    (p[2 + n] && !isspace((unsigned char)p[2 + n])))
		return false;
	f->address = strtoull(p + 2, NULL, 16);
	f->kind = MS_LOGFRAME_ADDRESS;
	f->has_address = true;
	f->start = (size_t)(p - line);
	f->end = (size_t)(p + 2 + n - line);
	return true;
}

/*
 * A raw address and the symbol printed after it are one frame:
 * "[<a>] func+off/size [mod]", "[<a>] ? func...", arm's "[<a>] (func...)",
 * x86's "RIP: 0010:[<a>]  [<a>] func...", and "[<a>] 0xa" where %pS
 * found no symbol.
 */
static void join(const char *line, struct ms_logframe *f)
{
	for (;;) {
		const char *p = line + f->end;
		struct ms_logframe g = { 0 };
		bool paren = false;

		while (*p == ' ' || *p == '\t' || *p == '?')
			p++;
		if (*p == '(') {
			paren = true;
			p++;
		}
		if ((raw(line, p, &g) || bare(line, p, &g)) && !paren &&
		    g.address == f->address) {
			f->end = g.end;
			continue;
		}
		if (!symbolic(line, p, &g))
			return;
		memcpy(f->symbol, g.symbol, sizeof(f->symbol));
		memcpy(f->module, g.module, sizeof(f->module));
		memcpy(f->build_id, g.build_id, sizeof(f->build_id));
		f->offset = g.offset;
		f->kind = MS_LOGFRAME_SYMBOL;
		f->end = g.end + (paren && line[g.end] == ')');
		return;
	}
}

/*
 * arm64's unwinder since 6.13 says where an entry came from: " (P)" is the
 * pc of the regs (exact), C, T, U other sources, F and K the function
 * graph tracer and kretprobes (stacktrace.c dump_backtrace_entry).
 */
static void source_suffix(const char *line, struct ms_logframe *f)
{
	const char *p = line + f->end, *q = p + 2;

	if (p[0] != ' ' || p[1] != '(' || !isupper((unsigned char)*q))
		return;
	while (isupper((unsigned char)*q))
		q++;
	if (*q != ')')
		return;
	if (p[2] == 'P')
		f->exact = true;
	f->end = (size_t)(q + 1 - line);
}

/*
 * s390's "Krnl PSW : MASK ADDRESS (sym+off/size [mod])": ADDRESS, 16 hex
 * digits with no brackets, is a frame only there (p at it).
 */
static bool s390_psw(const char *line, const char *p, struct ms_logframe *f)
{
	static const char lead[] = "Krnl PSW : ";
	const size_t n = 16, at = (size_t)(p - line), pre = sizeof(lead) - 1;

	if (at < pre + n + 1 || p[-1] != ' ' || xdigits(p - n - 1) != n ||
	    !word_at(line, at - n - 1 - pre, lead) || xdigits(p) != n ||
	    (p[n] && p[n] != ' '))
		return false;
	f->address = strtoull(p, NULL, 16);
	f->kind = MS_LOGFRAME_ADDRESS;
	f->has_address = true;
	f->start = at;
	f->end = at + n;
	return true;
}

int ms_log_frame(const char *line, size_t from, struct ms_logframe *f)
{
	size_t len = strlen(line);

	memset(f, 0, sizeof(*f));
	for (size_t i = from; i < len; i++) {
		const char *p = line + i;
		bool word = i == 0 || !symchar(line[i - 1]);
		enum site site;

		if (!word)
			continue;
		if (raw(line, p, f) || s390_psw(line, p, f))
			join(line, f);
		else if (!(symchar(*p) && symbolic(line, p, f)) &&
			 !bare(line, p, f))
			continue;
		site = site_of(line, f->start);
		f->exact = site != SITE_RETURN;
		f->regs_pc = site == SITE_PC;
		/*
		 * __warn prints the trapping instruction where the WARN is a
		 * trap (report_bug: x86 since 4.11, arm64), the caller's
		 * return address where it calls warn_slowpath_fmt (32-bit
		 * ARM, which the caller knows; x86 before that, whose
		 * "at %s:%d %pS()" says so itself).
		 */
		if (site == SITE_WARN) {
			f->warning = true;
			f->exact = strncmp(line + f->end, "()", 2) != 0;
		}
		source_suffix(line, f);
		return 1;
	}
	return 0;
}

/*
 * s390's show_stack header, "Call Trace:" as on x86: its first entry is
 * the PSW address where the trace is of a register dump (see above).
 * That the first entry is exact only when it is the dump's program
 * counter (decode.c) keeps x86's traces, which print no regs->ip
 * (dumpstack.c show_trace_log_lvl skips it), as they were.
 */
static bool s390_trace_start(const char *line)
{
	const char *p = strstr(line, "Call Trace:");

	return p && (p == line || !isalnum((unsigned char)p[-1]));
}

bool ms_log_trace_start(const char *line)
{
	const char *p = strstr(line, "Call trace:");

	return (p && (p == line || !isalnum((unsigned char)p[-1]))) ||
	       s390_trace_start(line);
}

/*
 * 32-bit ARM's trace entry since 5.x without BACKTRACE_VERBOSE, "%ps from
 * %pS" (arch/arm/kernel/traps.c dump_backtrace_entry): " where from
 * caller+0x40/0x1f0", "where [mod] from caller+...", which no other
 * architecture prints.
 */
static bool arm_from(const char *line)
{
	for (const char *p = strstr(line, " from "); p;
	     p = strstr(p + 1, " from ")) {
		struct ms_logframe f;

		if (p > line && (symchar(p[-1]) || p[-1] == ']') &&
		    symchar(p[6]) && symbolic(line, p + 6, &f))
			return true;
	}
	return false;
}

/* Whether the bit list "<A,B,...>" from p holds the name bit. */
static bool msr_bit(const char *p, const char *end, const char *bit)
{
	size_t n = strlen(bit);

	for (p++; p < end; p++) {
		if (strncmp(p, bit, n) == 0 && (p[n] == ',' || p[n] == '>'))
			return true;
		while (p < end && *p != ',')
			p++;
	}
	return false;
}

/*
 * powerpc show_regs prints "MSR:  "REG" " and print_msr_bits' names of the
 * set bits, "<SF,EE,ME,IR,DR,RI,LE>" (arch/powerpc/kernel/process.c): SF
 * is 64-bit mode, LE little-endian, which no other line of a report says
 * (NIP and LR lines are alike on ppc64 and ppc64le). 32-bit powerpc (no
 * SF) is a machine modsect does not know: NULL, nothing compared.
 */
static const char *ppc_msr_machine(const char *line)
{
	const char *p = strstr(line, "MSR: "), *lt, *gt;

	if (!p || (p != line && symchar(p[-1])))
		return NULL;
	lt = strchr(p, '<');
	gt = lt ? strchr(lt, '>') : NULL;
	if (!gt || !msr_bit(lt, gt, "SF"))
		return NULL;
	return msr_bit(lt, gt, "LE") ? "ppc64le" : "ppc64";
}

/*
 * The architecture a line shows, as uname -m names it, or NULL: arm64's
 * "pstate: " and "Call trace:" (x86 prints "Call Trace:"), 32-bit ARM's
 * "psr: " and "[<%08lx>] (%ps) from [<%08lx>] (%pS)" (arch/arm/kernel:
 * process.c __show_regs, traps.c dump_backtrace_entry), i386's "EIP: ",
 * x86-64's "RIP: ", powerpc's "MSR: " (ppc_msr_machine).
 */
const char *ms_log_machine(const char *line)
{
	const char *ppc = ppc_msr_machine(line);

	if (ppc)
		return ppc;
	static const struct {
		const char *text, *machine;
	} shows[] = {
		{ "pstate: ", "aarch64" },
		{ "Call trace:", "aarch64" },
		{ "psr: ", "armv7l" },
		{ ") from [<", "armv7l" },
		{ "Krnl PSW : ", "s390x" }, /* s390 show_registers */
		{ "Krnl GPRS: ", "s390x" },
		{ "Last Breaking-Event-Address:", "s390x" },
		{ "EIP: ", "i686" },
		{ "RIP: ", "x86_64" },
	};

	for (size_t i = 0; i < sizeof(shows) / sizeof(*shows); i++) {
		const char *p = strstr(line, shows[i].text);

		/* A word of its own: "amd_pstate: " is an x86 driver's. */
		if (p && (p == line || !symchar(p[-1]) ||
			  !symchar(shows[i].text[0])))
			return shows[i].machine;
	}
	return arm_from(line) ? "armv7l" : NULL;
}

/*
 * arm64 pointer authentication (ARMv8.3 PAC, CONFIG_ARM64_PTR_AUTH_KERNEL)
 * signs return addresses: a signed kernel instruction address keeps bit
 * 55 (which half of the address space) and carries the code in the bits
 * above the VA size, 63:56 and 54:VA_BITS. The kernel strips it with
 * ptr | GENMASK(63, vabits_actual) (arch/arm64/include/asm/compiler.h,
 * ptrauth_kernel_pac_mask), which the text does not tell us. We set bits
 * 63:48, and that is sound for every configuration:
 *  - kernel text (the image, modules, and their vmalloc fallback) lies at
 *    or above MODULES_VADDR = _PAGE_END(VA_BITS_MIN) = -2^(VA_BITS_MIN-1)
 *    (arch/arm64/include/asm/memory.h), and VA_BITS_MIN is at most 48,
 *    so bits 63:47 of every kernel text address are ones: setting 63:48
 *    never changes a real text address;
 *  - VA_BITS 48 (Debian's arm64 kernels) and 52 (whose text still has
 *    bits 51:48 set): the code lies wholly in 63:48, the result is exact;
 *  - VA_BITS 39, 42 or 47: code bits below 48 remain; if one is zero the
 *    result is below -2^(VA_BITS_MIN-1), in no module and no kernel text,
 *    and stays un-annotated. It can never name another function.
 * A user address (bit 55 clear) and one with bits 63:48 all set are
 * returned as they are. Callers apply this to arm64 reports only: on
 * x86-64 such an address is non-canonical and must stay unresolved.
 */
uint64_t ms_arm64_strip_pac(uint64_t addr)
{
	const uint64_t top = UINT64_C(0xffff000000000000);

	if (!(addr & (UINT64_C(1) << 55)) || (addr & top) == top)
		return addr;
	return addr | top;
}

bool ms_machine_arm64(const char *machine)
{
	return machine && (strcmp(machine, "aarch64") == 0 ||
			   strcmp(machine, "aarch64_be") == 0 ||
			   strcmp(machine, "arm64") == 0);
}

bool ms_log_last_break(const char *line)
{
	struct ms_logframe f;
	const char *p = strstr(line, "Last Breaking-Event-Address:");

	return p && !ms_log_frame(line, (size_t)(p - line), &f);
}
