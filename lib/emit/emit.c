// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Debugger commands from a layout. Names and paths come from files and
 * captures we do not control: names are checked (ms_check_name), paths
 * are quoted for the parser of each debugger, and nothing with a control
 * character is ever written into a script.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static int check_path(const char *s, struct ms_err *err)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return ms_err_set(
				err, EINVAL,
				"path contains a control character (byte 0x%02x); refusing to write it into a debugger script",
				*c);
	return 0;
}

static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("/._+-,:@%=", c);
}

static int quote(const char *s, const char *specials, bool wrap, char **ret,
		 struct ms_err *err)
{
	char *out = malloc(2 * strlen(s) + 3), *o = out;
	int r = check_path(s, err);

	if (r || !out) {
		free(out);
		return r ? r : ms_err_errno(err, ENOMEM, "quoting");
	}
	if (wrap)
		*o++ = '"';
	for (const char *c = s; *c; c++) {
		if (wrap ? strchr(specials, *c) != NULL :
			   !plain((unsigned char)*c))
			*o++ = '\\';
		*o++ = *c;
	}
	if (wrap)
		*o++ = '"';
	*o = '\0';
	*ret = out;
	return 0;
}

/*
 * gdb splits add-symbol-file's arguments with libiberty's buildargv, where
 * a backslash outside quotes makes the next character literal.
 */
int ms_quote_gdb(const char *s, char **ret, struct ms_err *err)
{
	return quote(s, NULL, false, ret, err);
}

/*
 * lldb's Args parser: inside double quotes a backslash escapes " \ and `
 * (a bare backtick would start expression substitution); "\$" would stay
 * two characters (lldb 14).
 */
int ms_quote_lldb(const char *s, char **ret, struct ms_err *err)
{
	return quote(s, "\"\\`", true, ret, err);
}

static int check_names(const struct ms_layout *l, struct ms_err *err)
{
	int r = ms_check_name("module", l->mod->name, err);

	for (size_t i = 0; !r && i < l->nsecs; i++)
		if (l->secs[i].place != MS_PLACE_NOT_ALLOC)
			r = ms_check_name("section", l->secs[i].name, err);
	if (r)
		ms_err_prefix(err, "module %.64s", l->mod->name);
	return r;
}

static bool given(const struct ms_lsec *s)
{
	return s->place != MS_PLACE_NOT_ALLOC;
}

/* Lists names of sections placed as `place` in one comment line. */
static void comment_list(FILE *out, const struct ms_layout *l,
			 enum ms_place place, const char *text)
{
	bool any = false;

	for (size_t i = 0; i < l->nsecs; i++) {
		if (l->secs[i].place != place)
			continue;
		fprintf(out, "%s%s", any ? ", " : "# ", l->secs[i].name);
		any = true;
	}
	if (any)
		fprintf(out, ": %s\n", text);
}

static void debug_comment(FILE *out, const struct ms_layout *l)
{
	const struct ms_debuginfo *d = l->debug;

	if (!d)
		return;
	if (!d->file) {
		fprintf(out,
			"# debug info: none found (symbols only, no source lines)\n");
		return;
	}
	fprintf(out, "# debug info: %s (%s, %s)\n", ms_modfile_path(d->file),
		ms_dsource_str(d->source),
		d->verify == MS_VERIFIED_BUILD_ID   ? "verified by build-id" :
		d->verify == MS_VERIFIED_SRCVERSION ? "verified by srcversion" :
		d->verify == MS_FORCED		    ? "NOT VERIFIED, forced" :
						      "unverified");
}

static void header(FILE *out, const struct ms_layout *l)
{
	const struct ms_module *m = l->mod;
	const char *bid = ms_modfile_build_id(l->file);

	fprintf(out, "# %s (%s) from %s", m->name,
		m->initstate ? m->initstate : "initstate unknown",
		ms_modfile_path(l->file));
	if (ms_modfile_compression(l->file))
		fprintf(out, ", %s-decompressed",
			ms_modfile_compression(l->file));
	fputc('\n', out);
	if (l->verify == MS_VERIFIED_BUILD_ID)
		fprintf(out,
			"# verified: build-id %s matches the loaded module\n",
			bid);
	else if (l->verify == MS_VERIFIED_SRCVERSION)
		fprintf(out,
			"# verified: srcversion %s matches the loaded module\n",
			m->srcversion);
	else if (l->verify == MS_FORCED)
		fprintf(out, "# NOT VERIFIED, forced: %s\n", l->note);
	else
		fprintf(out, "# unverified: %s\n", l->note ? l->note : "");
	bool live = m->initstate && !strcmp(m->initstate, "live");
	bool wide = ms_modfile_elfclass(l->file) == ELFCLASS64;
	const char *where =
		wide ? "parked in the non-canonical hole so no real address resolves to them" :
		       "parked in user space from 0x0bad0000, where no kernel address is (a 32-bit kernel has no unused range)";
	char text[512];

	snprintf(
		text, sizeof(text),
		"%s; %s (--init keeps their stale addresses)",
		live ? "freed after init (the module is live) and maybe reused" :
		       "initstate not known to be coming, so treated as freed after init",
		where);
	debug_comment(out, l);
	comment_list(out, l, MS_PLACE_INIT_FREED, text);
	if (l->init_included)
		fprintf(out,
			"# .init sections included at their load addresses (%s)\n",
			m->initstate && !strcmp(m->initstate, "coming") ?
				"the module is still initializing" :
				"--init; they may be freed and reused");
	snprintf(text, sizeof(text),
		 "not loaded by the kernel or address unknown; %s", where);
	comment_list(out, l, MS_PLACE_PARKED, text);
	comment_list(
		out, l, MS_PLACE_PERCPU,
		"per-cpu base from kallsyms: &var is the per-cpu pointer; CPU n's copy is at &var + __per_cpu_offset[n]");
}

/* .text first and positional (gdb before 9 requires it), -s for the rest. */
static void gdb_lines(FILE *out, const struct ms_layout *l, const char *path)
{
	const struct ms_lsec *text = NULL;

	for (size_t i = 0; i < l->nsecs; i++)
		if (!strcmp(l->secs[i].name, ".text") &&
		    l->secs[i].place == MS_PLACE_LOADED)
			text = &l->secs[i];
	fprintf(out, "add-symbol-file %s", path);
	if (text)
		fprintf(out, " 0x%" PRIx64, text->addr);
	for (size_t i = 0; i < l->nsecs; i++)
		if (given(&l->secs[i]) && &l->secs[i] != text)
			fprintf(out, " -s %s 0x%" PRIx64, l->secs[i].name,
				l->secs[i].addr);
	fputc('\n', out);
}

static void lldb_lines(FILE *out, const struct ms_layout *l, const char *path)
{
	if (ms_layout_dwarf_hidden(l))
		fprintf(out,
			"# lldb gets a copy without the DWARF (symbols only): lldb 14 does not apply its REL relocations (i386's R_386_32, ARM's R_ARM_ABS32) to it; gdb reads it right\n");
	fprintf(out, "target modules add %s\n", path);
	fprintf(out, "target modules load --file %s", path);
	/* lldb leaves sections it is not told about unloaded: no parking. */
	for (size_t i = 0; i < l->nsecs; i++)
		if (l->secs[i].place == MS_PLACE_LOADED ||
		    l->secs[i].place == MS_PLACE_PERCPU)
			fprintf(out, " %s 0x%" PRIx64, l->secs[i].name,
				l->secs[i].addr);
	fputc('\n', out);
}

/*
 * One module's commands for either debugger: its names checked, the file
 * the debugger reads quoted for it, the comments, then its lines.
 */
static int emit_module(FILE *out, const struct ms_layout *l, bool lldb,
		       struct ms_err *err)
{
	char *path;
	int r = check_names(l, err);

	if (!r)
		r = lldb ? ms_quote_lldb(ms_layout_lldb_path(l), &path, err) :
			   ms_quote_gdb(ms_layout_debugger_path(l), &path, err);
	if (r)
		return r;
	header(out, l);
	if (lldb)
		lldb_lines(out, l, path);
	else
		gdb_lines(out, l, path);
	free(path);
	return ferror(out) ? ms_err_errno(err, EIO, "output") : 0;
}

int ms_emit_gdb(FILE *out, const struct ms_layout *l, struct ms_err *err)
{
	return emit_module(out, l, false, err);
}

int ms_emit_lldb(FILE *out, const struct ms_layout *l, struct ms_err *err)
{
	return emit_module(out, l, true, err);
}

/*
 * gdb without a target or a vmlinux starts as i386 and shows 64-bit
 * addresses cut to 32 bits (x/i, p of an address). A connected target's
 * own architecture must stay: `set architecture i386` on a 32-bit kernel
 * in qemu-system-x86_64 is refused with a warning (gdb 13), and set before
 * `target remote` to a stub of another width it breaks the connection
 * ("Remote 'g' packet reply is too long"). So it is set only while gdb has
 * no thread, i.e. no target.
 */
void ms_emit_gdb_arch(FILE *out, const struct ms_arch *arch, const char *why)
{
	if (!arch) {
		fprintf(out,
			"# architecture: unknown (%s); if gdb cuts addresses, set architecture NAME before a target\n",
			why);
		return;
	}
	fprintf(out,
		"# architecture %s (%s), set when gdb has no target (a target keeps its own)",
		arch->gdb, why);
	if (arch->em != EM_X86_64 && arch->em != EM_386)
		fprintf(out,
			"; a gdb without it (Debian's gdb on x86-64) stops here with Undefined item: use gdb-multiarch");
	if (arch->em == EM_386)
		fprintf(out,
			"; for a 32-bit kernel in qemu-system-x86_64, set architecture auto before target remote");
	fprintf(out, "\nif $_thread == 0\n  set architecture %s\nend\n",
		arch->gdb);
	/*
	 * gdb-multiarch takes its byte order from its default target
	 * (little) until a file says otherwise, and a stub's target.xml
	 * does not say it: on QEMU's s390x gdbstub gdb 13 reads every
	 * register byte-swapped. Set with or without a target.
	 */
	if (arch->data == ELFDATA2MSB)
		fprintf(out, "set endian big\n");
}

/*
 * lldb takes an architecture from its target and adds modules to the
 * selected target only: with none, `target modules add` fails ("invalid
 * target"), and a target of another architecture refuses the file ("does
 * not exist"). `settings set target.default-arch` does not help: it is
 * not used for `target create ""`. lldb commands have no conditionals
 * (and lldb 14's Python is missing on Debian), so an empty target of the
 * kernel's triple is always made, and target 0 selected: the new one in
 * an lldb that had none, the user's (vmlinux, gdb-remote) otherwise.
 */
void ms_emit_lldb_arch(FILE *out, const struct ms_arch *arch, const char *why)
{
	if (!arch) {
		fprintf(out,
			"# architecture: unknown (%s); lldb needs a target first: target create VMLINUX, or gdb-remote\n",
			why);
		return;
	}
	fprintf(out,
		"# architecture %s (%s): an empty target of it for an lldb with none; with one already (vmlinux, gdb-remote), target 0 is selected again and the empty one is left unused\n",
		arch->lldb, why);
	fprintf(out, "target create --arch %s \"\"\ntarget select 0\n",
		arch->lldb);
	/*
	 * arm64 kernels sign return addresses where the CPU has PAC; lldb
	 * 14 on QEMU's gdbstub knows no mask for them and would take a
	 * signed one for a pc. Kernel text lies where bits 63..48 are set
	 * (KIMAGE_VADDR is in the 48-bit range, modules beside it), so 48
	 * gives the kernel's own ptrauth_strip_kernel_insn_pac() for them.
	 */
	if (arch->em == EM_AARCH64)
		fprintf(out,
			"# arm64: return addresses with their PAC bits set, as the kernel's unwinder does\nsettings set target.process.virtual-addressable-bits 48\n");
}
