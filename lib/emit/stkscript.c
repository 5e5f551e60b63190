// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's own stack walk on s390x, ppc64 and 32-bit ARM, as a gdb
 * Python unwinder at the end of a script (see emit.h).
 *
 * gdb's prologue analysis is right for the stopped frame, and the
 * script leaves that frame to it; it fails where the kernel's code is
 * not what it expects (measured in docs/benchmarks.md: ppc64el's
 * functions that save the lr late, s390x's entry code, ARM's svc_entry
 * pt_regs, where it printed garbage). Above the stopped frame the
 * unwinder walks as the kernel's own unwinder does:
 *
 *   s390x: the back chain (Debian's kernels are built with -mbackchain
 *     -mpacked-stack): the caller's frame is the word at sp + 152, the
 *     return address the r14 slot of the caller's frame (sp' + 136);
 *     a zero back chain has a pt_regs at sp + 160
 *     (arch/s390/kernel/unwind_bc.c unwind_next_frame(), 6.1).
 *   ppc64: the back chain at sp + 0, the return address at sp' + 16;
 *     a frame marked STACK_FRAME_REGS_MARKER ("regshere", or "REGS"
 *     since it shows as such in memory dumps: Debian's 6.1.192 has
 *     it) has a pt_regs: 6.1 puts the marker at sp + 96 and the regs
 *     at sp + 112, kernels with the ELFv2 minimal interrupt frames
 *     (STACK_INT_FRAME_MARKER) at sp + 32 and sp + 48
 *     (arch/powerpc/kernel/process.c show_stack()).
 *   ARM: gdb's own walk, but through the svc entries (__irq_svc, ...):
 *     their unwind tables say .save {r0 - pc}, the pt_regs at sp
 *     (arch/arm/kernel/entry-armv.S svc_entry, 6.1); and it ends where
 *     the kernel's unwinder has no tables (ret_fast_syscall,
 *     ret_from_fork: UNWIND(.cantunwind); the init text freed).
 *
 * A pt_regs from user mode ends the walk: the unwinder gives a frame at
 * pc 0, where gdb stops and which the frame filter hides. The frame a
 * pt_regs gives is the interrupted one: gdb's analysis again (it may be
 * in a prologue or a leaf), but at a function's first instruction gdb
 * would analyze the function before it (it looks a caller's pc up at
 * pc - 1), so there nothing has run and the caller is the link
 * register's; so too on ppc64 where the lr is the return from a call
 * of the function (a bl to its entry) and its prologue stored no frame
 * before the pc (no stdu r1): a leaf such as plpar_hcall_norets_notrace
 * under the idle loop. pt_regs are checked against the frame they are
 * in; one that does not fit ends the walk instead of giving garbage.
 *
 * Frame ids are gdb's own for those frames (the CFA: the caller's sp, on
 * s390x + 160; the function's start), so that `finish` finds the frame
 * again when gdb's analysis has it at level 0. One exception: gdb stops
 * a walk whose next frame's id is below this one's ("previous frame
 * inner to this frame"), and ppc64's softirq stack lies above the task
 * stack it returns to (do_softirq_own_stack); past such a switch each
 * id is one above the one before, so `finish` from a frame there does
 * not stop.
 */
#include <stdio.h>
#include <string.h>

#include "emit.h"

static const char walker[] =
	"modsect_interrupted = set()\n"
	"modsect_ids = {}\n"
	"def modsect_forget(ev):\n"
	"    modsect_interrupted.clear()\n"
	"    modsect_ids.clear()\n"
	"if not getattr(gdb, 'modsect_forget_on', False):\n"
	"    gdb.events.stop.connect(lambda ev: modsect_forget(ev))\n"
	"    gdb.modsect_forget_on = True\n"
	"class ModsectKernelStack(Unwinder):\n"
	"    REGS = {'s390x': ('pc', 'r15', 'r14', 16, ('pswm',)),\n"
	"            'ppc64': ('pc', 'r1', 'lr', 32, ('msr', 'ctr')),\n"
	"            'arm': ('pc', 'sp', 'lr', 13, ('cpsr',))}\n"
	"    MARKERS = (0x7265677368657265, 0x53474552, 0x52454753)\n"
	"    def __init__(self, kind, fmt, entries=(), ends=(), init=None):\n"
	"        super().__init__('modsect-kernel-stack')\n"
	"        self.kind, self.fmt, self.entries = kind, fmt, entries\n"
	"        self.ends, self.init = ends, init\n"
	"        self.word = struct.calcsize(fmt)\n"
	"        self.mask = (1 << (8 * self.word)) - 1\n"
	"        self.pcr, self.spr, self.lrr, self.ngpr, self.more = self.REGS[kind]\n"
	"    def rd(self, a, n=1):\n"
	"        b = bytes(gdb.selected_inferior().read_memory(a, self.word * n))\n"
	"        return struct.unpack(self.fmt[0] + self.fmt[1] * n, b)\n"
	"    def func(self, pc):\n"
	"        try:\n"
	"            w = gdb.execute('info symbol 0x%x' % pc, to_string=True).split()\n"
	"        except gdb.error:\n"
	"            return pc\n"
	"        if len(w) > 4 and w[1] == '+' and w[3] == 'in':\n"
	"            return pc - int(w[2])\n"
	"        return pc\n"
	"    def frame(self, pf, cfa, regs):\n"
	"        pcv = pf.read_register(self.pcr)\n"
	"        t = pcv.type\n"
	"        key = (gdb.selected_thread().ptid, pf.level())\n"
	"        inner = modsect_ids.get((key[0], key[1] - 1))\n"
	"        if inner is not None and cfa < inner:\n"
	"            cfa = inner + 1\n"
	"        modsect_ids[key] = cfa\n"
	"        pc = int(pcv) & self.mask\n"
	"        ui = pf.create_unwind_info(ModsectFrameId(gdb.Value(cfa).cast(t),\n"
	"            gdb.Value(self.func(pc - 1)).cast(t)))\n"
	"        for r, v in regs:\n"
	"            ui.add_saved_register(r, gdb.Value(v & self.mask).cast(t))\n"
	"            if r == 'pc' and self.kind == 's390x':\n"
	"                ui.add_saved_register('pswa', gdb.Value(v & self.mask).cast(t))\n"
	"        return ui\n"
	"    def end(self, pf, sp):\n"
	"        return self.frame(pf, sp + (160 if self.kind == 's390x' else 0),\n"
	"                          [(self.pcr, 0), (self.spr, sp)])\n"
	"    def gprs(self, g):\n"
	"        return [('r%d' % i, v) for i, v in enumerate(g)]\n"
	"    def at_start(self, pc):\n"
	"        try:\n"
	"            w = gdb.execute('info symbol 0x%x' % pc, to_string=True).split()\n"
	"        except gdb.error:\n"
	"            return False\n"
	"        return len(w) > 2 and w[1] == 'in'\n"
	"    def entered(self, pf, pc, sp):\n"
	"        lr = int(pf.read_register(self.lrr)) & self.mask\n"
	"        regs = [(r, int(pf.read_register(r))) for r in self.more]\n"
	"        if self.kind == 'arm':\n"
	"            regs = [('cpsr', (regs[0][1] & ~0x20) | (0x20 if lr & 1 else 0))]\n"
	"            lr &= ~1\n"
	"        g = [int(pf.read_register(r)) for r, _ in self.gprs([0] * self.ngpr)]\n"
	"        return self.frame(pf, sp, self.gprs(g) + regs + [(self.pcr, lr), (self.lrr, lr)])\n"
	"    def insn(self, a):\n"
	"        return struct.unpack(self.fmt[0] + 'I', bytes(gdb.selected_inferior().read_memory(a, 4)))[0]\n"
	"    def frameless(self, pf, pc):\n"
	"        if self.kind != 'ppc64':\n"
	"            return False\n"
	"        lr = int(pf.read_register('lr')) & self.mask\n"
	"        start, w = self.func(pc), self.insn(lr - 4)\n"
	"        off = (w & 0x03fffffc) - (0x04000000 if w & 0x02000000 else 0)\n"
	"        if w & 0xfc000003 != 0x48000001 or not start <= lr - 4 + off <= start + 8:\n"
	"            return False\n"
	"        a = start\n"
	"        while a < pc and a < start + 256:\n"
	"            w = self.insn(a)\n"
	"            if w & 0xffff0003 == 0xf8210001 or w & 0xffff07ff == 0x7c21016a:\n"
	"                return False\n"
	"            if w >> 26 in (16, 18, 19):\n"
	"                break\n"
	"            a += 4\n"
	"        return True\n"
	"    def interrupted(self, pf, cfa, pc, sp, regs):\n"
	"        modsect_interrupted.add((sp, pc))\n"
	"        return self.frame(pf, cfa, regs)\n"
	"    def s390x(self, pf, pc, sp):\n"
	"        bc, = self.rd(sp + 152)\n"
	"        if bc:\n"
	"            ra, = self.rd(bc + 136)\n"
	"            return self.frame(pf, bc + 160, [('pc', ra), ('r14', ra), ('r15', bc)])\n"
	"        mask, addr = self.rd(sp + 168, 2)\n"
	"        g = self.rd(sp + 184, 16)\n"
	"        if mask & (1 << 48) or not addr or g[15] <= sp:\n"
	"            return self.end(pf, sp)\n"
	"        return self.interrupted(pf, sp + 160, addr, g[15], self.gprs(g) +\n"
	"                                [('pswm', mask), ('pc', addr)])\n"
	"    def ppc64(self, pf, pc, sp):\n"
	"        bc, = self.rd(sp)\n"
	"        regs = None\n"
	"        for at, r in ((96, 112), (32, 48)):\n"
	"            if regs is None and self.rd(sp + at)[0] in self.MARKERS:\n"
	"                regs = sp + r\n"
	"        if regs is None:\n"
	"            if not bc or bc == sp:\n"
	"                return self.end(pf, sp)\n"
	"            ra, = self.rd(bc + 16)\n"
	"            return self.frame(pf, bc, [('pc', ra), ('lr', ra), ('r1', bc)])\n"
	"        g = self.rd(regs, 32)\n"
	"        nip, msr, _, ctr, link = self.rd(regs + 256, 5)\n"
	"        if msr & (1 << 14) or not nip or g[1] != bc:\n"
	"            return self.end(pf, sp)\n"
	"        return self.interrupted(pf, regs, nip, g[1], self.gprs(g) +\n"
	"                                [('pc', nip), ('msr', msr), ('ctr', ctr), ('lr', link)])\n"
	"    def freed(self, pc):\n"
	"        if not self.init or not self.init[0] <= pc < self.init[1]:\n"
	"            return False\n"
	"        return self.insn((pc - 4) & ~3) == 0xe7fddef0\n"
	"    def arm(self, pf, pc, sp):\n"
	"        if any(lo <= pc < hi for lo, hi in self.ends) or self.freed(pc):\n"
	"            return self.end(pf, sp)\n"
	"        if not any(lo <= pc < hi for lo, hi in self.entries):\n"
	"            return None\n"
	"        u = self.rd(sp, 17)\n"
	"        if u[16] & 0x1f != 0x13 or not sp + 72 <= u[13] <= sp + 80:\n"
	"            return self.end(pf, sp)\n"
	"        return self.interrupted(pf, sp + 72, u[15], u[13], self.gprs(u[:13]) +\n"
	"            [('sp', u[13]), ('lr', u[14]), ('pc', u[15]), ('cpsr', u[16])])\n"
	"    def __call__(self, pf):\n"
	"        if pf.level() == 0:\n"
	"            return None\n"
	"        try:\n"
	"            pc = int(pf.read_register(self.pcr)) & self.mask\n"
	"            sp = int(pf.read_register(self.spr)) & self.mask\n"
	"        except (gdb.error, ValueError):\n"
	"            return None\n"
	"        try:\n"
	"            if (sp, pc) in modsect_interrupted:\n"
	"                return self.entered(pf, pc, sp) if self.at_start(pc) or \\\n"
	"                    self.frameless(pf, pc) else None\n"
	"            return getattr(self, self.kind)(pf, pc, sp)\n"
	"        except (gdb.MemoryError, gdb.error, ValueError):\n"
	"            return None\n";

/* The svc entries whose frame holds a pt_regs at sp (entry-armv.S). */
static const char *const arm_entries[] = { "__dabt_svc", "__irq_svc",
					   "__und_svc",	 "__pabt_svc",
					   "__fiq_svc",	 NULL };
/*
 * Where ARM's kernel unwinder ends a walk: the code it has no unwind
 * tables for (UNWIND(.cantunwind) in entry-common.S, 6.1), under the
 * user's pt_regs at the top of the stack.
 */
static const char *const arm_ends[] = { "ret_fast_syscall",	"ret_from_fork",
					"vector_swi",		"ret_to_user",
					"ret_to_user_from_irq", NULL };

/* The ranges of the core symbols called names, as a Python tuple. */
static void ranges(FILE *out, const struct ms_map *map,
		   const char *const *names)
{
	fputs("(", out);
	for (size_t i = 0; i < map->ncore; i++) {
		const struct ms_ksym *s = &map->core[i];
		uint64_t size, end;

		for (size_t k = 0; names[k]; k++) {
			if (strcmp(s->name, names[k]) != 0)
				continue;
			size = ms_map_core_size(map, i);
			end = s->addr + size;
			if (size)
				fprintf(out, "(0x%llx, 0x%llx), ",
					(unsigned long long)s->addr,
					(unsigned long long)end);
		}
	}
	fputs(")", out);
}

/*
 * ARM's init text: the kernel's trace of the boot task ends there, in
 * start_kernel's code that free_initmem() poisoned with 0xe7fddef0
 * (arch/arm/mm/init.c poison_init_mem(), 6.1), as its unwinder has no
 * tables there any more.
 */
static void init_text(FILE *out, const struct ms_map *map)
{
	uint64_t lo, hi;

	if (ms_map_core_symbol(map, "_sinittext", &lo) &&
	    ms_map_core_symbol(map, "_einittext", &hi) && lo < hi)
		fprintf(out, "(0x%llx, 0x%llx)", (unsigned long long)lo,
			(unsigned long long)hi);
	else
		fputs("None", out);
}

bool ms_script_kernel_stack(FILE *out, const struct ms_map *map)
{
	const char *m = map->machine ? map->machine : "";
	const char *kind, *fmt;

	if (strcmp(m, "s390x") == 0)
		kind = "s390x", fmt = ">Q";
	else if (strcmp(m, "ppc64le") == 0)
		kind = "ppc64", fmt = "<Q";
	else if (strcmp(m, "ppc64") == 0)
		kind = "ppc64", fmt = ">Q";
	else if (strcmp(m, "armv7l") == 0)
		kind = "arm", fmt = "<I";
	else
		return false;
	fprintf(out, "# the kernel's own stack walk (%s)\n", kind);
	fputs(ms_script_unwinder_head, out);
	fputs(walker, out);
	fprintf(out, "register_unwinder(None, ModsectKernelStack('%s', '%s'",
		kind, fmt);
	if (strcmp(kind, "arm") == 0) {
		fputs(", ", out);
		ranges(out, map, arm_entries);
		fputs(", ", out);
		ranges(out, map, arm_ends);
		fputs(", ", out);
		init_text(out, map);
	}
	fputs("), replace=True)\nend\n", out);
	return true;
}
