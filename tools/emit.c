// SPDX-License-Identifier: GPL-2.0-or-later
/* What gdb, lldb and sections share: opening and checking a module file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

unsigned int layout_flags(const struct opts *o)
{
	return (o->force ? MS_LAYOUT_FORCE : 0) |
	       (o->init ? MS_LAYOUT_INIT : 0);
}

int open_modfile(const struct ms_ctx *ctx, struct ms_finder *fi,
		 const struct ms_module *mod, const char *path,
		 struct ms_modfile **ret, struct ms_err *err)
{
	if (path)
		return ms_modfile_open(ctx, path, ret, err);
	return ms_finder_open(fi, mod->name, mod->build_id, ret, err);
}

void warn_debuginfod(const struct ms_finder *fi)
{
	int e = fi ? ms_finder_debuginfod_error(fi) : 0;

	if (e && e != -ENOENT)
		warn("debuginfod failed (%s); check DEBUGINFOD_URLS, or use --offline",
		     strerror(-e));
}

void resolved_clear(struct resolved *r)
{
	ms_debuginfo_free(r->debug);
	ms_layout_free(r->layout);
	ms_modfile_free(r->file);
	memset(r, 0, sizeof(*r));
}

/*
 * The module file proves where the sections are; the debug info says what
 * they mean. Without a module file, a debug file found by build-id serves
 * as both (its section headers are the module's).
 */
int resolve(const struct ms_ctx *ctx, struct ms_finder *fi,
	    const struct opts *o, const struct ms_map *map,
	    const struct ms_module *mod, const char *path, struct resolved *ret,
	    struct ms_err *err)
{
	struct resolved r = { 0 };
	struct ms_err ferr = { 0 };
	int rc = open_modfile(ctx, fi, mod, path, &r.file, &ferr);

	if (rc && rc != -ENOENT) {
		*err = ferr;
		return rc;
	}
	rc = ms_debuginfo_find(fi, mod, r.file, map->release, o->debug_file,
			       o->force ? MS_DEBUG_FORCE : 0, &r.debug, err);
	if (!rc && !r.file && r.debug->file && r.debug->owned) {
		r.file = r.debug->file; /* the layout reads its sections */
		r.debug->owned = false;
	}
	if (!rc && !r.file) {
		*err = ferr;
		rc = -ENOENT;
	}
	if (!rc)
		rc = ms_modfile_check_machine(r.file, map->machine, err);
	if (!rc)
		rc = ms_layout_build(mod, r.file, layout_flags(o), &r.layout,
				     err);
	if (!rc)
		r.layout->debug = r.debug;
	if (rc) {
		resolved_clear(&r);
		return rc;
	}
	*ret = r;
	return 0;
}

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

/* One module's commands into out; -ENOENT if its file is not found. */
static int
emit_one(const struct ms_ctx *ctx, struct ms_finder *fi, const struct opts *o,
	 const struct ms_map *map, const struct ms_module *mod,
	 int (*emit)(FILE *, const struct ms_layout *, struct ms_err *),
	 FILE *out, struct arch_vote *v, struct ms_err *err)
{
	struct resolved r = { 0 };
	int rc = resolve(ctx, fi, o, map, mod, o->nargs > 1 ? o->args[1] : NULL,
			 &r, err);

	if (!rc && !(map->machine && ms_arch_of_machine(map->machine)))
		rc = vote(v, r.file, err);
	if (!rc)
		rc = emit(out, r.layout, err);
	resolved_clear(&r);
	return rc;
}

/*
 * The core kernel first, so module symbols come after it: the kallsyms
 * ELF, kept in the cache under its content hash like a decompressed module.
 */
/* A debug vmlinux instead of kallsyms: checked, and moved by KASLR. */
static int emit_vmlinux(const struct opts *o, const struct ms_map *map,
			bool lldb, FILE *out, struct ms_err *err)
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

static int emit_kernel(const struct ms_ctx *ctx, const struct opts *o,
		       const struct ms_map *map, bool lldb, FILE *out,
		       struct ms_err *err)
{
	char *buf = NULL, *path = NULL, *q = NULL;
	size_t len;
	int r;

	if (o->vmlinux)
		return emit_vmlinux(o, map, lldb, out, err);
	r = kallsyms_elf_bytes(map, &buf, &len, err);

	if (!r)
		r = ms_cache_store(ctx, buf, len, ".kallsyms.elf", &path, err);
	if (!r)
		r = lldb ? ms_quote_lldb(path, &q, err) :
			   ms_quote_gdb(path, &q, err);
	if (!r) {
		fprintf(out,
			"# core kernel: %zu symbols from kallsyms at their runtime addresses\n",
			map->ncore);
		if (lldb)
			fprintf(out,
				"target modules add %s\ntarget modules load --file %s --slide 0\n",
				q, q);
		else
			fprintf(out, "add-symbol-file %s\n", q);
	}
	free(q);
	free(path);
	free(buf);
	return r;
}

int emit_modules(struct opts *o,
		 int (*emit)(FILE *, const struct ms_layout *, struct ms_err *),
		 const char *intro)
{
	const char *only = o->all ? NULL : o->args[0];

	o->kernel |= o->vmlinux != NULL;
	o->core = o->kernel;
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct ms_buf b = { 0 }, whole = { 0 };
	struct arch_vote v = { 0 };
	bool lldb = emit == ms_emit_lldb;
	size_t done = 0, missing = 0;
	int r;

	r = setup_ctx(o, &ctx, &err);
	if (!r)
		r = load_map(ctx, o, only, &map, &err);
	/*
	 * With no release, no --moddir and no --search there is nowhere to
	 * look: one line saying what to give, not one warning per module.
	 */
	if (!r && o->all && !map->release && !o->moddir && !o->nsearch)
		r = ms_err_set(
			&err, ENOENT,
			"%s does not say which kernel it is from (no release line), so module files cannot be found: give --moddir DIR or --search DIR",
			map->origin);
	if (!r && o->all && !map->nmodules)
		r = ms_err_set(&err, ENOENT, "%s has no modules", map->origin);
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	if (r)
		goto out;
	/* b holds what follows the header, which may need the files. */
	if (o->kernel)
		r = emit_kernel(ctx, o, map, lldb, b.f, &err);
	for (size_t i = 0; i < map->nmodules && !r; i++) {
		const struct ms_module *mod = &map->modules[i];

		if (only && !ms_modname_eq(mod->name, only))
			continue;
		r = emit_one(ctx, fi, o, map, mod, emit, b.f, &v, &err);
		if (r == -ENOENT && o->all) {
			/* --all covers what it can; the rest is said, not hidden. */
			fprintf(b.f, "# %s: skipped, %s\n", mod->name, err.msg);
			warn("%s", err.msg);
			missing++;
			r = 0;
		} else if (!r) {
			done++;
		}
	}
	if (!r && o->all && done == 0)
		r = ms_err_set(
			&err, ENOENT,
			"no module file found for any of the %zu modules in %s",
			map->nmodules, map->origin);
	if (!r)
		r = ms_buf_close(&b, &err);
	if (!r)
		r = ms_buf_open(&whole, &err);
	if (!r) {
		fprintf(whole.f, "# %s, by modsect %s from %s (kernel %s)\n",
			intro, MODSECT_VERSION, map->origin,
			map->release ? map->release : "release unknown");
		emit_arch(whole.f, map, &v, lldb);
		fwrite(b.data, 1, b.len, whole.f);
		r = write_buf(o, &whole, &err);
	}
	if (!r && missing)
		warn("%zu of %zu modules skipped: no file found", missing,
		     map->nmodules);
out:
	free(v.path);
	ms_buf_free(&whole);
	ms_buf_free(&b);
	warn_debuginfod(fi);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
