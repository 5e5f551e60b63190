// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A whole debugger script for a map: the architecture, the core kernel's
 * symbols, then each module's commands (emit.c), or what kept a module
 * out. gdb and lldb differ only in the lines emit.c writes.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"

/*
 * The architecture a script sets is the map's machine line; without one
 * that modsect knows, the module files', which must then agree.
 */
struct arch_vote {
	int em, cls, data;
	char *path; /* the first module file, NULL before it */
};

static int vote(struct arch_vote *v, const struct ms_modfile *f,
		struct ms_err *err)
{
	int em, cls, data;
	char a[96], b[96];

	ms_modfile_machine(f, &em, &cls, &data);
	if (!v->path) {
		*v = (struct arch_vote){ em, cls, data,
					 strdup(ms_modfile_path(f)) };
		return v->path ? 0 : ms_err_errno(err, ENOMEM, "architecture");
	}
	if (em == v->em && cls == v->cls && data == v->data)
		return 0;
	return ms_err_set(
		err, EBADMSG,
		"%s is for %s but %s is for %s: without a machine line in the map, the module files must say which machine the kernel is, and they disagree",
		ms_modfile_path(f), ms_elf_machine_str(em, cls, a, sizeof(a)),
		v->path, ms_elf_machine_str(v->em, v->cls, b, sizeof(b)));
}

/* The architecture lines of the script, and why that architecture. */
static void emit_arch(FILE *out, const struct ms_map *map,
		      const struct arch_vote *v, bool lldb)
{
	const struct ms_arch *a =
		map->machine ? ms_arch_of_machine(map->machine) : NULL;
	char why[160], m[96];

	if (a)
		snprintf(why, sizeof(why), "machine %s in the map",
			 map->machine);
	else if (v->path && (a = ms_arch_of_elf(v->em, v->cls, v->data)))
		snprintf(why, sizeof(why), "%s module files; %s%s%s",
			 a->machine, map->machine ? "the map's machine " : "",
			 map->machine ? map->machine :
					"the map has no machine line",
			 map->machine ? " is not one modsect knows" : "");
	else if (v->path)
		snprintf(why, sizeof(why),
			 "module files for %s, map machine %s",
			 ms_elf_machine_str(v->em, v->cls, m, sizeof(m)),
			 map->machine ? map->machine : "not given");
	else
		snprintf(why, sizeof(why), "map machine %s",
			 map->machine ? map->machine : "not given");
	if (lldb)
		ms_emit_lldb_arch(out, a, why);
	else
		ms_emit_gdb_arch(out, a, why);
}

/* The slot in u for l's module, made on first use; NULL without memory. */
static struct ms_unwinds *slot_for(struct ms_unwinds *u,
				   const struct ms_layout *l)
{
	if (u->n && u->mods[u->n - 1].name == l->mod->name)
		return u;
	if (ms_grow(&u->mods, u->n, sizeof(*u->mods), 8))
		return NULL;
	memset(&u->mods[u->n], 0, sizeof(u->mods[u->n]));
	u->mods[u->n++].name = l->mod->name;
	return u;
}

/* i386: the rules made from the module's code, as for the core kernel. */
static int gather_x86(const struct ms_layout *l, FILE *out,
		      struct ms_unwinds *u, struct ms_err *err)
{
	struct ms_x86 *a = NULL;
	struct ms_err why = { 0 };
	int r = ms_layout_x86(l, &a, &why);

	if (r == -ENOMEM) {
		*err = why;
		return r;
	}
	if (r)
		return 0;
	fprintf(out, "# %s: unwind tables from its code: %zu functions\n",
		l->mod->name, a->nfuncs);
	if (!slot_for(u, l)) {
		ms_x86_free(a);
		return ms_err_errno(err, ENOMEM, "unwind tables");
	}
	u->mods[u->n - 1].x86 = a;
	return 0;
}

/* arm64: the rules made from the module's code, as for the core kernel. */
static int gather_a64(const struct ms_layout *l, FILE *out,
		      struct ms_unwinds *u, struct ms_err *err)
{
	struct ms_a64 *a = NULL;
	struct ms_err why = { 0 };
	int r = ms_layout_a64(l, &a, &why);

	if (r == -ENOMEM) {
		*err = why;
		return r;
	}
	if (r == -ENOENT)
		return gather_x86(l, out, u, err);
	if (r)
		return 0;
	fprintf(out, "# %s: unwind tables from its code: %zu functions\n",
		l->mod->name, a->nfuncs);
	if (!slot_for(u, l)) {
		ms_a64_free(a);
		return ms_err_errno(err, ENOMEM, "unwind tables");
	}
	u->mods[u->n - 1].a64 = a;
	return 0;
}

/*
 * gdb: the module's ORC tables, kept in u for a file of its own at the
 * end (unwscript.c). A module without them (another architecture, a
 * kernel without ORC) adds nothing: gdb unwinds it as it always did.
 * lldb gets them in its copy of the module file instead (lldb_unwind).
 */
static int gather_unwind(const struct ms_map *map, const struct ms_layout *l,
			 FILE *out, struct ms_unwinds *u, struct ms_err *err)
{
	struct ms_orc *orc = NULL;
	struct ms_err why = { 0 };
	int r = ms_layout_orc(l, map->release, &orc, &why);

	if (r == -ENOENT)
		return gather_a64(l, out, u, err);
	if (r == -ENOMEM) {
		*err = why;
		return r;
	}
	/* Tables it cannot read are said, not guessed around. */
	if (r && r != -ENOENT)
		fprintf(out, "# %s: no unwind tables: %s\n", l->mod->name,
			why.msg);
	if (r)
		return 0;
	fprintf(out, "# %s: unwind tables from its ORC: %zu entries%s\n",
		l->mod->name, orc->n,
		orc->nbad ? ", some the kernel would refuse" : "");
	if (!slot_for(u, l)) {
		ms_orc_free(orc);
		return ms_err_errno(err, ENOMEM, "unwind tables");
	}
	u->mods[u->n - 1].orc = orc;
	return 0;
}

/*
 * A module without DWARF (every stock .ko) gets its types from its split
 * BTF, on the core kernel's: for gdb in the same file as its tables, for
 * lldb in a file of their own.
 */
static int gather_types(const struct ms_map *map, const struct ms_layout *l,
			FILE *out, struct ms_unwinds *u, struct ms_err *err)
{
	const struct ms_modfile *dbg = l->debug ? l->debug->file : NULL;
	struct ms_dwarf d;
	struct ms_err why = { 0 };
	int r;

	if (!map->core_btf || !u->em || ms_modfile_has_dwarf(l->file) ||
	    (dbg && ms_modfile_has_dwarf(dbg)))
		return 0;
	r = ms_module_types(map, &u->base, l->file,
			    u->cls == ELFCLASS64 ? 8 : 4,
			    u->data == ELFDATA2MSB, &d, &why);
	if (r == -ENOMEM) {
		*err = why;
		return r;
	}
	if (r && r != -ENOENT)
		fprintf(out, "# %s: no types: %s\n", l->mod->name, why.msg);
	if (r)
		return 0;
	fprintf(out, "# %s: types from its BTF: %zu\n", l->mod->name, d.ntypes);
	if (!slot_for(u, l)) {
		ms_dwarf_free(&d);
		return ms_err_errno(err, ENOMEM, "types");
	}
	u->mods[u->n - 1].types = d;
	return 0;
}

/*
 * lldb: the module's ORC tables, or an i386 module's rules from its code,
 * as CFI in the copy of the file it loads (lldbcopy.c), as lldb reads an
 * address's unwind tables only from the file that holds it. Without them
 * lldb unwinds as it always did.
 */
static int lldb_unwind(const struct ms_ctx *ctx, const struct ms_map *map,
		       struct ms_resolved *res, FILE *out, struct ms_err *err)
{
	struct ms_modfile *sym =
		res->debug && res->debug->file ? res->debug->file : res->file;
	const struct ms_layout *l = res->layout;
	struct ms_err why = { 0 };
	size_t n = 0;
	int r = ms_modfile_lldb_unwind(ctx, sym, l, map->release, &n, &why);
	int em, cls, data;
	bool i386;

	ms_modfile_machine(l->file, &em, &cls, &data);
	i386 = em == EM_386;

	if (r == -ENOMEM) {
		*err = why;
		return r;
	}
	if (r && r != -ENOENT)
		fprintf(out, "# %s: no unwind tables: %s\n", l->mod->name,
			why.msg);
	else if (!r)
		fprintf(out,
			"# %s: unwind tables from its %s (%zu %s) in lldb's copy of its file\n",
			l->mod->name, i386 ? "code" : "ORC", n,
			i386 ? "functions" : "entries");
	return 0;
}

/* gdb reads modsect's CFI of an arm64 module, not the module's own. */
static int gdb_own_cfi(const struct ms_ctx *ctx, struct ms_resolved *r,
		       struct ms_err *err)
{
	int rc = ms_modfile_gdb_own_cfi(ctx, r->file, err);

	if (!rc && r->debug && r->debug->file && r->debug->file != r->file)
		rc = ms_modfile_gdb_own_cfi(ctx, r->debug->file, err);
	return rc;
}

/* One module's commands into out; -ENOENT if its file is not found. */
static int emit_one(struct ms_finder *fi, const struct ms_script_opts *so,
		    const struct ms_map *map, const struct ms_module *mod,
		    FILE *out, struct arch_vote *v, struct ms_unwinds *u,
		    struct ms_err *err)
{
	struct ms_resolved r = { 0 };
	int rc = ms_module_resolve(fi, map, mod, so->path, so->debug_file,
				   so->layout_flags, &r, err);

	if (!rc && !(map->machine && ms_arch_of_machine(map->machine)))
		rc = vote(v, r.file, err);
	if (!rc && so->lldb)
		rc = lldb_unwind(ms_finder_ctx(fi), map, &r, out, err);
	if (!rc && !so->lldb)
		rc = gdb_own_cfi(ms_finder_ctx(fi), &r, err);
	if (!rc)
		rc = so->lldb ? ms_emit_lldb(out, r.layout, err) :
				ms_emit_gdb(out, r.layout, err);
	if (!rc && !so->lldb)
		rc = gather_unwind(map, r.layout, out, u, err);
	if (!rc)
		rc = gather_types(map, r.layout, out, u, err);
	ms_resolved_clear(&r);
	return rc;
}

/* A debug vmlinux instead of kallsyms: checked, and moved by KASLR. */
static int emit_vmlinux(const struct ms_script_opts *o,
			const struct ms_map *map, bool lldb, FILE *out,
			struct ms_err *err)
{
	char *note = NULL, *q = NULL;
	int64_t off;
	int r = ms_vmlinux_offset(o->vmlinux, map, o->force, &off, &note, err);
	uint64_t mag;

	if (!r)
		r = lldb ? ms_quote_lldb(o->vmlinux, &q, err) :
			   ms_quote_gdb(o->vmlinux, &q, err);
	if (!r) {
		mag = off < 0 ? -(uint64_t)off : (uint64_t)off;
		fprintf(out,
			"# core kernel: %s, KASLR offset %s0x%" PRIx64 "; %s\n",
			o->vmlinux, off < 0 ? "-" : "", mag, note);
		if (lldb)
			fprintf(out,
				"target modules add %s\ntarget modules load --file %s --slide %" PRId64
				"\n",
				q, q, off);
		else
			fprintf(out, "add-symbol-file %s -o %s0x%" PRIx64 "\n",
				q, off < 0 ? "-" : "", mag);
	}
	free(q);
	free(note);
	return r;
}

/*
 * The core kernel first, so module symbols come after it: the kallsyms
 * ELF, kept in the cache under the hash of what it is made from.
 */
static int emit_kernel(const struct ms_ctx *ctx, const struct ms_script_opts *o,
		       const struct ms_map *map, bool lldb, FILE *out,
		       struct ms_err *err)
{
	char *path = NULL, *q = NULL;
	int r;

	if (o->vmlinux)
		return emit_vmlinux(o, map, lldb, out, err);
	r = ms_kallsyms_elf_cached(ctx, map, lldb, &path, err);
	if (!r)
		r = lldb ? ms_quote_lldb(path, &q, err) :
			   ms_quote_gdb(path, &q, err);
	if (!r) {
		fprintf(out,
			"# core kernel: %zu symbols from kallsyms at their runtime addresses\n",
			map->ncore);
		if (map->core_orc)
			fprintf(out,
				"# and unwind tables from its ORC: %zu entries%s\n",
				map->core_orc->n,
				map->core_orc->nbad ?
					", some the kernel would refuse" :
					"");
		else if (map->core_a64)
			fprintf(out,
				"# and unwind tables from its code: %zu functions, %zu rows\n",
				map->core_a64->nfuncs, map->core_a64->n);
		else if (map->core_x86)
			fprintf(out,
				"# and unwind tables from its code: %zu functions, %zu rows\n",
				map->core_x86->nfuncs, map->core_x86->n);
		else if (map->why_no_orc)
			fprintf(out, "# no unwind tables: %s\n",
				map->why_no_orc);
		if (map->core_btf)
			fprintf(out, "# and types from its BTF\n");
		else if (map->why_no_btf)
			fprintf(out, "# no types: %s\n", map->why_no_btf);
		if (lldb)
			fprintf(out,
				"target modules add %s\ntarget modules load --file %s --slide 0\n",
				q, q);
		else
			fprintf(out, "add-symbol-file %s\n", q);
	}
	free(q);
	free(path);
	return r;
}

/* With --all, what is there to do: a release to find files by, modules. */
static int check_all(const struct ms_script_opts *so, const struct ms_map *map,
		     struct ms_err *err)
{
	/*
	 * With no release, no --moddir and no --search there is nowhere to
	 * look: one line saying what to give, not one warning per module.
	 */
	if (!map->release && !so->where_given)
		return ms_err_set(
			err, ENOENT,
			"%s does not say which kernel it is from (no release line), so module files cannot be found: give --moddir DIR or --search DIR",
			map->origin);
	if (!map->nmodules)
		return ms_err_set(err, ENOENT, "%s has no modules",
				  map->origin);
	return 0;
}

/* A module --all passes over, said in the script and to the caller. */
static int skip(FILE *out, const struct ms_module *mod,
		struct ms_script_result *res, const struct ms_err *why)
{
	fprintf(out, "# %s: skipped, %s\n", mod->name, why->msg);
	if (ms_grow(&res->skipped, res->nskipped, sizeof(*res->skipped), 8) ||
	    !(res->skipped[res->nskipped] = strdup(why->msg)))
		return -ENOMEM;
	res->nskipped++;
	return 0;
}

/* The core kernel and each module, into body. */
/* arm64's init text, when the script gives its frames (see unwscript.c). */
static bool freed_init(const struct ms_map *map,
		       const struct ms_script_opts *so, uint64_t init[2])
{
	return so->kernel && !so->vmlinux && map->core_a64 &&
	       ms_map_core_symbol(map, "_sinittext", &init[0]) &&
	       ms_map_core_symbol(map, "_einittext", &init[1]) &&
	       init[0] < init[1];
}

static int script_body(FILE *body, struct ms_finder *fi,
		       const struct ms_map *map,
		       const struct ms_script_opts *so, struct arch_vote *v,
		       struct ms_script_result *res, struct ms_err *err)
{
	struct ms_unwinds u = { 0 };
	uint64_t init[2];
	size_t done = 0;
	bool walk = false;
	int r = 0;

	/* Machines the kallsyms ELF refuses get no types file either. */
	if (ms_machine_elf(map->machine ? map->machine : "x86_64", &u.em,
			   &u.cls, &u.data))
		u.em = 0;

	if (so->kernel)
		r = emit_kernel(ms_finder_ctx(fi), so, map, so->lldb, body,
				err);
	for (size_t i = 0; i < map->nmodules && !r; i++) {
		const struct ms_module *mod = &map->modules[i];

		if (so->only && !ms_modname_eq(mod->name, so->only))
			continue;
		r = emit_one(fi, so, map, mod, body, v, &u, err);
		/* --all covers what it can; the rest is said, not hidden. */
		if (r == -ENOENT && !so->only)
			r = skip(body, mod, res, err) ?
				    ms_err_errno(err, ENOMEM, "script") :
				    0;
		else if (!r)
			done++;
	}
	if (!r && !so->only && done == 0)
		r = ms_err_set(
			err, ENOENT,
			"no module file found for any of the %zu modules in %s",
			map->nmodules, map->origin);
	if (!r && so->lldb)
		r = ms_script_lldb_types(ms_finder_ctx(fi), body, &u, err);
	/* s390x, ppc64, ARM: the kernel's walk (stkscript.c) */
	if (!r && !so->lldb && so->kernel && !so->vmlinux)
		walk = ms_script_kernel_stack(body, map);
	if (!r && !so->lldb)
		r = ms_script_unwind_tail(
			ms_finder_ctx(fi), body,
			walk || (so->kernel && !so->vmlinux &&
				 (map->core_orc || map->core_a64 ||
				  map->core_x86 || map->core_btf)),
			freed_init(map, so, init) ? init : NULL, &u, err);
	ms_unwinds_clear(&u);
	return r;
}

int ms_script_write(FILE *out, struct ms_finder *fi, const struct ms_map *map,
		    const struct ms_script_opts *so,
		    struct ms_script_result *res, struct ms_err *err)
{
	struct ms_buf b = { 0 };
	struct arch_vote v = { 0 };
	int r = so->only ? 0 : check_all(so, map, err);

	memset(res, 0, sizeof(*res));
	if (!r)
		r = ms_buf_open(&b, err);
	/* b holds what follows the header, which may need the files. */
	if (!r)
		r = script_body(b.f, fi, map, so, &v, res, err);
	if (!r)
		r = ms_buf_close(&b, err);
	if (!r) {
		fprintf(out, "# %s, by %s from %s (kernel %s)\n",
			so->lldb ?
				"lldb commands; load with: command source FILE" :
				"gdb commands; load with: source FILE",
			so->producer, map->origin,
			map->release ? map->release : "release unknown");
		emit_arch(out, map, &v, so->lldb);
		fwrite(b.data, 1, b.len, out);
	}
	free(v.path);
	ms_buf_free(&b);
	return r;
}

void ms_script_result_clear(struct ms_script_result *res)
{
	for (size_t i = 0; i < res->nskipped; i++)
		free(res->skipped[i]);
	free(res->skipped);
	memset(res, 0, sizeof(*res));
}
