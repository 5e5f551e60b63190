// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a gdb script needs at its end to unwind as the kernel does: the
 * modules' unwind tables and a frame filter (see emit.h).
 *
 * gdb takes a frame whose FDE has the "S" augmentation for a signal
 * frame: it looks up its caller at the exact ip, as the kernel does after
 * a REGS entry, and lets the stack switch to another stack there. But
 * it prints such a frame as "<signal handler called>"; the filter puts
 * the function's name back (entry_SYSCALL_64_after_hwframe,
 * asm_exc_invalid_op, ...), as the kernel's own trace names it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static const char frame_filter[] =
	"python\n"
	"import gdb\n"
	"from gdb.FrameDecorator import FrameDecorator\n"
	"class ModsectEntryFrame(FrameDecorator):\n"
	"    def function(self):\n"
	"        f = self.inferior_frame()\n"
	"        if f.type() == gdb.SIGTRAMP_FRAME or not f.name():\n"
	"            return f.name() or '?\?'\n"
	"        return FrameDecorator.function(self)\n"
	"class ModsectEntryFilter:\n"
	"    name = 'modsect-kernel-entry'\n"
	"    priority = 100\n"
	"    enabled = True\n"
	"    def filter(self, frames):\n"
	"        return map(ModsectEntryFrame, frames)\n"
	"gdb.frame_filters[ModsectEntryFilter.name] = ModsectEntryFilter()\n"
	"end\n";

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

/*
 * One file per module, so that `modsect follow` can take a module's away
 * when it is unloaded (remove-symbol-file by name: it has no section).
 */
static int add_module(const struct ms_ctx *ctx, FILE *out, const char *name,
		      const struct ms_orc *orc, struct ms_err *err)
{
	char *buf = NULL, *path = NULL, *q = NULL;
	size_t len;
	int r = ms_unwind_elf_bytes(orc, &buf, &len, err);

	if (!r)
		r = ms_cache_store(ctx, buf, len, ".unwind.elf", &path, err);
	if (!r)
		r = ms_quote_gdb(path, &q, err);
	if (!r) {
		/* Quietly: the file has CFI only, and gdb would say so. */
		fprintf(out, "# %s: its unwind tables\npython gdb.execute(",
			name);
		py_str(out, "add-symbol-file ");
		fputs(" + ", out);
		py_str(out, q);
		fputs(" + ' -o 0', to_string=True)\n", out);
	}
	free(q);
	free(path);
	free(buf);
	return r;
}

int ms_script_unwind_tail(const struct ms_ctx *ctx, FILE *out,
			  const struct ms_orc *core,
			  const struct ms_unwinds *u, struct ms_err *err)
{
	int r = 0;

	for (size_t i = 0; !r && i < u->n; i++)
		r = add_module(ctx, out, u->mods[i].name, u->mods[i].orc, err);
	if (!r && (u->n || core))
		fputs(frame_filter, out);
	return r;
}
