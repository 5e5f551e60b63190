// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A layout joins a module's map with its file: it proves the file is the
 * loaded build, and gives every allocatable section of the file an
 * address a debugger can be told, real or parked.
 *
 * Why parking: gdb lays out every SHF_ALLOC section of a relocatable file
 * that add-symbol-file does not name at made-up low addresses (gdb 13
 * put __versions at 0x0, .data..percpu at 0x10, .modinfo at 0x18), so a
 * NULL-ish pointer would be symbolized as a module variable. Sections
 * the kernel did not load (.modinfo, __versions, zero-sized ones), those
 * it freed after init (ms_section_is_init) and a per-cpu section whose
 * base is unknown are named explicitly at an address in the non-canonical
 * hole instead: no kernel pointer can be there, so no real address ever
 * resolves to them, and a read from there fails rather than showing wrong
 * data.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

/*
 * Non-canonical on x86-64 (48- and 57-bit) and outside arm64's VA ranges;
 * unlike 0xdead000000000000 (the kernel's POISON_POINTER_DELTA) no kernel
 * poison value lives here.
 */
#define PARK_BASE_64 UINT64_C(0x0bad000000000000)
/*
 * A 32-bit kernel has no hole: every address is real somewhere. User space
 * (below 0x40000000 with any VMSPLIT of i386 and arm) holds no kernel or
 * module address, and 0x0bad0000 is far from the NULL-plus-offset
 * addresses of oopses, which parking at 0 would name as module symbols.
 */
#define PARK_BASE_32 UINT64_C(0x0bad0000)

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * The loader's module_init_section(): the sections it lays out in the
 * init region and frees once init has run (layout_sections() through
 * module_init_layout_section(), kernel/module/main.c; Debian's kernels
 * have CONFIG_MODULE_UNLOAD, so .exit.* stays). The generic rule is a
 * weak function ("module: allow arch overrides for .init section names",
 * Vincent Whitchurch, May 2020); two architectures override it, in 6.1
 * as in 6.12:
 *  - 64-bit powerpc returns false (arch/powerpc/kernel/module_64.c,
 *    commit d4be60fe66b7 "powerpc/module_64: use module_init_section
 *    instead of patching names", v5.15, which replaced renaming .init to
 *    _init): its .init.* stay in the core, live and in kallsyms. 32-bit
 *    powerpc (module_32.c) keeps the generic rule.
 *  - 32-bit arm adds the unwind tables of init code, .ARM.extab.init.*
 *    and .ARM.exidx.init.* (arch/arm/kernel/module.c, "ARM: module: fix
 *    handling of unwind init sections", the same series).
 */
bool ms_section_is_init(int em, const char *name)
{
	switch (em) {
	case EM_PPC64:
		return false;
	case EM_ARM:
		return starts(name, ".init") ||
		       starts(name, ".ARM.extab.init") ||
		       starts(name, ".ARM.exidx.init");
	default:
		return starts(name, ".init");
	}
}

const char *ms_verify_str(enum ms_verify v)
{
	switch (v) {
	case MS_VERIFIED_BUILD_ID:
		return "build-id";
	case MS_VERIFIED_SRCVERSION:
		return "srcversion";
	case MS_FORCED:
		return "forced";
	default:
		return "unverified";
	}
}

int ms_check_name(const char *what, const char *name, struct ms_err *err)
{
	if (!*name)
		return ms_err_set(err, EINVAL, "empty %s name", what);
	if (name[0] == '-')
		return ms_err_set(
			err, EINVAL,
			"%s name \"%.64s\" starts with '-', which a debugger would take for an option; refusing it",
			what, name);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f || *c == '"' || *c == '\'' ||
		    *c == '`' || *c == '\\')
			return ms_err_set(
				err, EINVAL,
				"%s name contains %s (byte 0x%02x); refusing to pass it to a debugger",
				what,
				*c <= 0x20 || *c == 0x7f ?
					"whitespace or a control character" :
				*c >= 0x80 ? "a non-ASCII byte" :
					     "a quote or backslash",
				*c);
	return 0;
}

const char *ms_layout_debugger_path(const struct ms_layout *l)
{
	if (l->debug && l->debug->file)
		return ms_modfile_debugger_path(l->debug->file);
	return ms_modfile_debugger_path(l->file);
}

/* The file lldb reads (modcopy.c), its DWARF maybe hidden. */
static const struct ms_modfile *symfile(const struct ms_layout *l)
{
	return l->debug && l->debug->file ? l->debug->file : l->file;
}

const char *ms_layout_lldb_path(const struct ms_layout *l)
{
	return ms_modfile_lldb_path(symfile(l));
}

bool ms_layout_dwarf_hidden(const struct ms_layout *l)
{
	return ms_modfile_dwarf_hidden(symfile(l));
}

void ms_layout_free(struct ms_layout *l)
{
	if (!l)
		return;
	free(l->secs);
	free(l->note);
	free(l);
}

int ms_verify_file(const struct ms_module *m, const struct ms_modfile *f,
		   enum ms_verify *ret, struct ms_err *why)
{
	const char *path = ms_modfile_path(f);
	const char *fbid = ms_modfile_build_id(f);
	const char *fsrc = ms_modfile_srcversion(f);
	const char *fname = ms_modfile_modname(f);

	*ret = MS_UNVERIFIED;
	if (fname && !ms_modname_eq(fname, m->name))
		return ms_err_kind(why, MS_E_REFUSED, EBADMSG,
				   "%s is module %s, not %s", path, fname,
				   m->name);
	if (m->build_id && fbid && strcmp(m->build_id, fbid))
		return ms_err_kind(
			why, MS_E_REFUSED, EBADMSG,
			"build-id of loaded module %s is %s but %s has %s: it is not the loaded build",
			m->name, m->build_id, path, fbid);
	if (m->build_id && fbid) {
		*ret = MS_VERIFIED_BUILD_ID;
		return 0;
	}
	if (m->srcversion && fsrc && strcmp(m->srcversion, fsrc))
		return ms_err_kind(
			why, MS_E_REFUSED, EBADMSG,
			"srcversion of loaded module %s is %s but %s has %s: it is not the loaded build",
			m->name, m->srcversion, path, fsrc);
	if (m->srcversion && fsrc) {
		*ret = MS_VERIFIED_SRCVERSION;
		return 0;
	}
	if (m->build_id)
		return ms_err_kind(
			why, MS_E_REFUSED, EBADMSG,
			"loaded module %s has build-id %s but %s has none, and no srcversion to compare",
			m->name, m->build_id, path);
	return 0;
}

static int verify(struct ms_layout *l, unsigned int flags, struct ms_err *err)
{
	const struct ms_module *m = l->mod;
	struct ms_err why = { 0 };

	if (!ms_verify_file(m, l->file, &l->verify, &why)) {
		if (l->verify == MS_UNVERIFIED)
			l->note = strdup(
				m->build_id || m->srcversion ?
					"the file has no build-id or srcversion to compare" :
					"the map has no build-id or srcversion to compare");
		return 0;
	}
	if (!(flags & MS_LAYOUT_FORCE))
		return ms_err_kind(err, MS_E_REFUSED, EBADMSG,
				   "%s; give the right file, or --force",
				   why.msg);
	l->verify = MS_FORCED;
	l->note = strdup(why.msg);
	return 0;
}

struct percpu {
	const struct ms_module *mod;
	uint64_t base;
	size_t agree, disagree;
};

static int percpu_sym(const char *name, uint64_t value, void *arg)
{
	struct percpu *pc = arg;

	for (size_t i = 0; i < pc->mod->nksyms; i++) {
		const struct ms_ksym *k = &pc->mod->ksyms[i];

		if (strcmp(k->name, name))
			continue;
		if (pc->agree == 0 || k->addr - value == pc->base) {
			pc->base = k->addr - value;
			pc->agree++;
		} else {
			pc->disagree++;
		}
		break;
	}
	return 0;
}

/*
 * The loader allocates .data..percpu apart and never lists it; kallsyms
 * (CONFIG_KALLSYMS_ALL) shows its symbols at base + offset, so the base
 * is derived when every such symbol agrees.
 */
static bool percpu_base(const struct ms_layout *l, uint64_t *base)
{
	struct percpu pc = { .mod = l->mod };

	if (!l->mod->nksyms)
		return false;
	ms_modfile_foreach_symbol(l->file, ".data..percpu", percpu_sym, &pc);
	*base = pc.base;
	return pc.agree > 0 && pc.disagree == 0;
}

/*
 * Per-cpu pointers that fall on the module's own loaded sections: seen
 * with Debian's 6.1 armmp, where kallsyms shows a module's per-cpu
 * variables inside its .text. As addresses they would name its code for
 * the debuggers (lldb's image lookup), so there is no base to give.
 */
static bool overlaps_loaded(const struct ms_layout *l, uint64_t base,
			    uint64_t size)
{
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place == MS_PLACE_LOADED && s->size &&
		    base < s->addr + s->size && s->addr < base + size)
			return true;
	}
	return false;
}

static struct ms_lsec *add(struct ms_layout *l, const struct ms_filesec *fs,
			   const char *name)
{
	struct ms_lsec *s = &l->secs[l->nsecs++];
	int em, cls, data;

	ms_modfile_machine(l->file, &em, &cls, &data);
	*s = (struct ms_lsec){ .name = name,
			       .init = ms_section_is_init(em, name) };
	if (fs) {
		s->size = fs->size;
		s->flags = fs->flags;
	}
	return s;
}

static int cmp_lsec(const void *a, const void *b)
{
	const struct ms_lsec *x = *(const struct ms_lsec *const *)a;
	const struct ms_lsec *y = *(const struct ms_lsec *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The map's addresses with the file's sizes must make sense: no section
 * past the end of the address space (or of 32 bits for a 32-bit module),
 * and no two loaded sections on the same bytes. Either means the map and
 * the file do not belong together.
 */
static int check_placement(const struct ms_layout *l, int elfclass,
			   struct ms_err *err)
{
	uint64_t limit = elfclass == ELFCLASS32 ? UINT32_MAX : UINT64_MAX;
	const struct ms_lsec **v = calloc(l->nsecs + 1, sizeof(*v));
	size_t n = 0;
	int r = 0;

	if (!v)
		return ms_err_errno(err, ENOMEM, "layout");
	for (size_t i = 0; !r && i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place != MS_PLACE_LOADED || !s->size)
			continue;
		if (s->addr > limit || s->size - 1 > limit - s->addr)
			r = ms_err_set(
				err, EINVAL,
				"module %s: section %s at 0x%" PRIx64
				" with %" PRIu64
				" bytes runs past the end of the address space (%s)",
				l->mod->name, MS_ESC(s->name), s->addr, s->size,
				elfclass == ELFCLASS32 ? "32-bit" : "64-bit");
		v[n++] = s;
	}
	if (!r && n > 1)
		qsort(v, n, sizeof(*v), cmp_lsec);
	for (size_t i = 1; !r && i < n; i++)
		if (v[i - 1]->addr + v[i - 1]->size > v[i]->addr)
			r = ms_err_set(
				err, EINVAL,
				"module %s: sections %s and %s overlap in the map (0x%" PRIx64
				" + %" PRIu64 " > 0x%" PRIx64
				"); the map and the file do not belong together",
				l->mod->name, MS_ESC(v[i - 1]->name),
				MS_ESC(v[i]->name), v[i - 1]->addr,
				v[i - 1]->size, v[i]->addr);
	free(v);
	return r;
}

/* The map's sections, each with what the file says of it. */
static int map_sections(struct ms_layout *l, unsigned int flags,
			struct ms_err *err)
{
	const struct ms_module *mod = l->mod;
	bool coming = mod->initstate && strcmp(mod->initstate, "coming") == 0;
	bool keep_init = coming || (flags & MS_LAYOUT_INIT);

	for (size_t i = 0; i < mod->nsections; i++) {
		const struct ms_section *ms = &mod->sections[i];
		const struct ms_filesec *fs =
			ms_modfile_section_by_name(l->file, ms->name);
		struct ms_lsec *s;

		if (!fs && !(flags & MS_LAYOUT_FORCE))
			return ms_err_set(
				err, EBADMSG,
				"module %s has section %s loaded, but %s has no such section: it is not the loaded build; give the right file, or --force",
				mod->name, MS_ESC(ms->name),
				ms_modfile_path(l->file));
		s = add(l, fs, ms->name);
		s->in_map = true;
		s->addr = s->map_addr = ms->addr;
		if (!fs || !(fs->flags & SHF_ALLOC)) {
			s->place = MS_PLACE_NOT_ALLOC;
		} else if (s->init && !keep_init) {
			s->place = MS_PLACE_INIT_FREED;
			l->init_freed = true;
		} else {
			s->place = MS_PLACE_LOADED;
			l->init_included |= s->init;
		}
	}
	return 0;
}

/* The file's allocatable sections the map does not list. */
static void file_sections(struct ms_layout *l)
{
	size_t nfile = ms_modfile_section_count(l->file);

	for (size_t i = 0; i < nfile; i++) {
		const struct ms_filesec *fs = ms_modfile_section(l->file, i);
		uint64_t base;

		if (!(fs->flags & SHF_ALLOC) ||
		    ms_module_section(l->mod, fs->name))
			continue;
		add(l, fs, fs->name)->place = MS_PLACE_PARKED;
		if (strcmp(fs->name, ".data..percpu") == 0 && fs->size &&
		    percpu_base(l, &base) &&
		    !overlaps_loaded(l, base, fs->size)) {
			l->secs[l->nsecs - 1].place = MS_PLACE_PERCPU;
			l->secs[l->nsecs - 1].addr = base;
		}
	}
}

static int any_loaded(const struct ms_layout *l, struct ms_err *err)
{
	for (size_t i = 0; i < l->nsecs; i++)
		if (l->secs[i].place == MS_PLACE_LOADED)
			return 0;
	return ms_err_set(
		err, ENOENT,
		"module %s: none of the sections of %s is in the map; the module is not (or no longer) loaded",
		l->mod->name, ms_modfile_path(l->file));
}

/* Park what has no real address, one after another, aligned. */
static void park(struct ms_layout *l)
{
	uint64_t at = ms_modfile_elfclass(l->file) == ELFCLASS64 ?
			      PARK_BASE_64 :
			      PARK_BASE_32;

	for (size_t i = 0; i < l->nsecs; i++) {
		struct ms_lsec *s = &l->secs[i];
		const struct ms_filesec *fs =
			ms_modfile_section_by_name(l->file, s->name);
		uint64_t align = fs && fs->align > 1 ? fs->align : 1;

		if (s->place != MS_PLACE_PARKED &&
		    s->place != MS_PLACE_INIT_FREED)
			continue;
		if (align > 4096)
			align = 4096;
		at = (at + align - 1) & ~(align - 1);
		s->addr = at;
		at += s->size ? s->size : 1;
	}
}

int ms_layout_build(const struct ms_module *mod, const struct ms_modfile *f,
		    unsigned int flags, struct ms_layout **ret,
		    struct ms_err *err)
{
	size_t nfile = ms_modfile_section_count(f);
	struct ms_layout *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return ms_err_errno(err, ENOMEM, "layout");
	l->mod = mod;
	l->file = f;
	l->secs = calloc(mod->nsections + nfile + 1, sizeof(*l->secs));
	if (!l->secs) {
		free(l);
		return ms_err_errno(err, ENOMEM, "layout");
	}
	l->verify = MS_UNVERIFIED;
	r = verify(l, flags, err);
	if (!r)
		r = map_sections(l, flags, err);
	if (!r)
		file_sections(l);
	if (!r)
		r = check_placement(l, ms_modfile_elfclass(f), err);
	if (!r)
		r = any_loaded(l, err);
	if (r) {
		ms_layout_free(l);
		return r;
	}
	park(l);
	*ret = l;
	return 0;
}
