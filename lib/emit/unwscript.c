// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a gdb script needs at its end to unwind as the kernel does: the
 * modules' unwind tables (and types) and a frame filter (see emit.h).
 *
 * The filter also gives a function with a prototype from BTF but no
 * line table (the kallsyms ELF's) its arguments in `bt`: gdb's own
 * FrameDecorator shows none for a frame without a symtab.
 *
 * gdb takes a frame whose FDE has the "S" augmentation for a signal
 * frame: it looks up its caller at the exact ip, as the kernel does after
 * a REGS entry, and lets the stack switch to another stack there. But
 * it prints such a frame as "<signal handler called>"; the filter puts
 * the function's name back (entry_SYSCALL_64_after_hwframe,
 * asm_exc_invalid_op, ...), as the kernel's own trace names it: a
 * return address by the byte before it (i386's handle_exception calls
 * the handler last, and its return address is handle_exception_return,
 * a symbol of its own). A last frame at pc 0 is no frame: the zeroed
 * frame record that ends an arm64
 * task's stack (see init_unwinder), where gdb stops too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "emit.h"

static const char frame_filter[] =
	"python\n"
	"import gdb\n"
	"from gdb.FrameDecorator import FrameDecorator, SymValueWrapper\n"
	"class ModsectEntryFrame(FrameDecorator):\n"
	"    def function(self):\n"
	"        f = self.inferior_frame()\n"
	"        n = f.newer()\n"
	"        if f.type() == gdb.SIGTRAMP_FRAME and n is not None and \\\n"
	"                n.type() == gdb.NORMAL_FRAME:\n"
	"            try:\n"
	"                w = gdb.execute('info symbol 0x%x' % (f.pc() - 1),\n"
	"                                to_string=True).split()\n"
	"                if len(w) > 2 and w[1] in ('in', '+'):\n"
	"                    return w[0]\n"
	"            except gdb.error:\n"
	"                pass\n"
	"        if f.type() == gdb.SIGTRAMP_FRAME or not f.name():\n"
	"            return f.name() or '?\?'\n"
	"        return FrameDecorator.function(self)\n"
	"    def frame_args(self):\n"
	"        f = self.inferior_frame()\n"
	"        if f.type() == gdb.SIGTRAMP_FRAME or f.find_sal().symtab:\n"
	"            return FrameDecorator.frame_args(self)\n"
	"        try:\n"
	"            b = f.block()\n"
	"        except RuntimeError:\n"
	"            return None\n"
	"        while b is not None and b.function is None:\n"
	"            b = b.superblock\n"
	"        if b is None:\n"
	"            return None\n"
	"        return [SymValueWrapper(s, None) for s in b if s.is_argument]\n"
	"class ModsectEntryFilter:\n"
	"    name = 'modsect-kernel-entry'\n"
	"    priority = 100\n"
	"    enabled = True\n"
	"    def filter(self, frames):\n"
	"        return (ModsectEntryFrame(f) for f in frames if not\n"
	"                (f.inferior_frame().pc() == 0 and\n"
	"                 f.inferior_frame().older() is None))\n"
	"gdb.frame_filters[ModsectEntryFilter.name] = ModsectEntryFilter()\n"
	"end\n";

/*
 * arm64: a frame whose pc is in the init text the kernel has freed and
 * unmapped (free_initmem()): start_kernel under the boot CPU's idle
 * task. gdb's aarch64 "stub" unwinder takes every frame whose pc it
 * cannot read, before any DWARF, and finds its caller identical to it;
 * a Python unwinder comes first. It takes the kernel's own rule, the
 * frame record at x29 (arch/arm64/kernel/stacktrace.c), the return
 * address with its PAC bits set as the kernel's unwinder does; the
 * record of the first frame of a task is zero, and gdb ends a walk at
 * a zero pc.
 */
const char ms_script_unwinder_head[] =
	"python\n"
	"import gdb, struct\n"
	"from gdb.unwinder import Unwinder, register_unwinder\n"
	"class ModsectFrameId:\n"
	"    def __init__(self, sp, pc):\n"
	"        self.sp, self.pc = sp, pc\n";

static const char init_unwinder[] =
	"class ModsectFreedInit(Unwinder):\n"
	"    def __init__(self, lo, hi):\n"
	"        super().__init__('modsect-freed-init')\n"
	"        self.lo, self.hi = lo, hi\n"
	"    def __call__(self, pf):\n"
	"        if pf.architecture().name() != 'aarch64':\n"
	"            return None\n"
	"        m = 0xffffffffffffffff\n"
	"        pcv = pf.read_register('pc')\n"
	"        pc = int(pcv) & m\n"
	"        if not self.lo <= pc < self.hi:\n"
	"            return None\n"
	"        inf = gdb.selected_inferior()\n"
	"        try:\n"
	"            inf.read_memory(pc, 4)\n"
	"            return None\n"
	"        except gdb.MemoryError:\n"
	"            pass\n"
	"        fp = int(pf.read_register('x29')) & m\n"
	"        try:\n"
	"            pfp, lr = struct.unpack('<QQ', bytes(inf.read_memory(fp, 16)))\n"
	"        except gdb.MemoryError:\n"
	"            return None\n"
	"        ret = lr | 0xffff000000000000 if lr else 0\n"
	"        t = pcv.type\n"
	"        ui = pf.create_unwind_info(ModsectFrameId(\n"
	"            gdb.Value(fp + 16).cast(t), pcv))\n"
	"        for r, v in (('pc', ret), ('x30', ret), ('sp', fp + 16), ('x29', pfp)):\n"
	"            ui.add_saved_register(r, gdb.Value(v).cast(t))\n"
	"        return ui\n";

/* path as a Python string literal (cache paths; quotes escaped anyway). */
static void py_str(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('\'', out);
}

/* The module's file of debug sections: unwind tables, types, or both. */
static int module_elf(const struct ms_unwinds *u, size_t i, char **buf,
		      size_t *len, struct ms_err *err)
{
	const struct ms_dwarf *t = &u->mods[i].types;
	struct ms_dbgsec secs[4];
	struct ms_dbgelf d = { u->em, u->cls, u->data, secs, 0 };
	void *cfi = NULL;
	size_t cfi_len = 0;
	int r = 0;

	if (u->mods[i].orc || u->mods[i].a64 || u->mods[i].x86) {
		r = u->mods[i].orc ?
			    ms_orc_to_debug_frame(u->mods[i].orc, 0, NULL, 0,
						  &cfi, &cfi_len, NULL, err) :
		    u->mods[i].a64 ?
			    ms_a64_to_debug_frame(u->mods[i].a64, 0, &cfi,
						  &cfi_len, err) :
			    ms_x86_to_debug_frame(u->mods[i].x86, 0, &cfi,
						  &cfi_len, err);
		secs[d.nsecs++] = (struct ms_dbgsec){ ".debug_frame", cfi,
						      cfi_len };
	}
	if (!r && t->info) {
		secs[d.nsecs++] = (struct ms_dbgsec){ ".debug_info", t->info,
						      t->info_len };
		secs[d.nsecs++] = (struct ms_dbgsec){ ".debug_abbrev",
						      t->abbrev,
						      t->abbrev_len };
		secs[d.nsecs++] = (struct ms_dbgsec){ ".debug_str", t->str,
						      t->str_len };
	}
	if (!r)
		r = ms_debug_elf_bytes(&d, buf, len, err);
	free(cfi);
	return r;
}

/* Module i's file, written to the cache; its path quoted for a debugger. */
static int module_file(const struct ms_ctx *ctx, const struct ms_unwinds *u,
		       size_t i, bool lldb, char **quoted, struct ms_err *err)
{
	char *buf = NULL, *path = NULL;
	size_t len;
	int r = module_elf(u, i, &buf, &len, err);

	if (!r)
		r = ms_cache_store(ctx, buf, len, ".debug.elf", &path, err);
	if (!r)
		r = lldb ? ms_quote_lldb(path, quoted, err) :
			   ms_quote_gdb(path, quoted, err);
	free(path);
	free(buf);
	return r;
}

/*
 * One file per module, so that `modsect follow` can take a module's away
 * when it is unloaded (remove-symbol-file by name: it has no section).
 */
static int add_module(const struct ms_ctx *ctx, FILE *out,
		      const struct ms_unwinds *u, size_t i, struct ms_err *err)
{
	static const char *const what[] = { "", "its unwind tables",
					     "its types",
					     "its unwind tables and types" };
	char *q = NULL;
	int r = module_file(ctx, u, i, false, &q, err);

	if (!r) {
		/* Quietly: the file has no symbols, and gdb would say so. */
		fprintf(out, "# %s: %s\npython gdb.execute(", u->mods[i].name,
			what[(u->mods[i].orc || u->mods[i].a64 ||
					      u->mods[i].x86 ?
				      1 :
				      0) +
			     (u->mods[i].types.info ? 2 : 0)]);
		py_str(out, "add-symbol-file ");
		fputs(" + ", out);
		py_str(out, q);
		fputs(" + ' -o 0', to_string=True)\n", out);
	}
	free(q);
	return r;
}

int ms_script_lldb_types(const struct ms_ctx *ctx, FILE *out,
			 const struct ms_unwinds *u, struct ms_err *err)
{
	int r = 0;

	for (size_t i = 0; !r && i < u->n; i++) {
		char *q = NULL;

		if (!u->mods[i].types.info)
			continue;
		r = module_file(ctx, u, i, true, &q, err);
		if (!r)
			fprintf(out, "# %s: its types\ntarget modules add %s\n",
				u->mods[i].name, q);
		free(q);
	}
	return r;
}

void ms_unwinds_clear(struct ms_unwinds *u)
{
	for (size_t i = 0; i < u->n; i++) {
		ms_orc_free(u->mods[i].orc);
		ms_a64_free(u->mods[i].a64);
		ms_x86_free(u->mods[i].x86);
		ms_dwarf_free(&u->mods[i].types);
	}
	free(u->mods);
	btf__free(u->base);
	memset(u, 0, sizeof(*u));
}

int ms_script_unwind_tail(const struct ms_ctx *ctx, FILE *out, bool core,
			  const uint64_t *init, const struct ms_unwinds *u,
			  struct ms_err *err)
{
	bool any = core;
	int r = 0;

	for (size_t i = 0; !r && i < u->n; i++) {
		r = add_module(ctx, out, u, i, err);
		any |= u->mods[i].orc || u->mods[i].a64 || u->mods[i].x86;
	}
	if (!r && any)
		fputs(frame_filter, out);
	if (!r && init) {
		fputs(ms_script_unwinder_head, out);
		fputs(init_unwinder, out);
		fprintf(out,
			"register_unwinder(None, ModsectFreedInit(0x%llx, 0x%llx), replace=True)\nend\n",
			(unsigned long long)init[0],
			(unsigned long long)init[1]);
	}
	return r;
}
