// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel log text with every module frame annotated with file:line and
 * its inlined callers; lines without frames pass through, byte for byte.
 *
 * "func+0x1a/0x60 [mod]" frames need only the module file: a module the
 * map does not have (or with no map at all) is laid out from its file at
 * an address of our own, since only offsets within it matter. Raw
 * addresses need the map.
 *
 * Reports of x86-64, i386, arm64 and 32-bit ARM kernels (logparse.c has
 * their formats): every frame of a line is annotated, return addresses at
 * address - 1, program counters exactly; in an arm64 report a raw address
 * is looked up without its pointer authentication code.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* Frames annotated on one line at most; the rest pass through. */
#define LINE_FRAMES 16

/* A frame of the line and where it is. */
struct hit {
	struct ms_logframe f;
	struct ms_symres r;
};

/* A report's decoding: what the lines so far have said, for those after. */
struct ms_decoder {
	struct ms_map *map; /* the caller's; modules are placed into it */
	struct ms_finder *fi;
	struct ms_lazy *z; /* the caller's, over map (ms_decoder_attach) */
	struct ms_placing pl;
	struct ms_decode_opts o;
	struct ms_strset looked; /* "module build-id" of modules looked for */
	struct ms_strset printed; /* modules whose build-id a frame printed */
	bool pac; /* arm64: raw addresses may carry a PAC */
	bool warn_returns; /* a WARNING's "at" is a return address (32-bit ARM) */
	bool have_pc; /* pc holds the last register dump's pc */
	bool trace_first; /* the next frame is a "Call trace:"'s first */
	bool last_break; /* the next line's frame is s390's last branch */
	struct ms_logframe pc;
	struct hit hits[LINE_FRAMES]; /* the current line's, off the stack */
};

/* 1 the first time a report names (module, build-id), else 0; -ENOMEM. */
static int first_look(struct ms_decoder *d, const struct ms_logframe *f)
{
	char key[sizeof(f->module) + sizeof(f->build_id) + 1];

	snprintf(key, sizeof(key), "%s %s", f->module, f->build_id);
	for (char *c = key; *c != ' '; c++)
		if (*c == '-')
			*c = '_';
	return ms_strset_add(&d->looked, key);
}

static bool has_printed(const struct ms_decoder *d, const char *module)
{
	for (size_t i = 0; i < d->printed.n; i++)
		if (ms_modname_eq(d->printed.v[i], module))
			return true;
	return false;
}

/*
 * Adds modules named in frames that the map lacks, placed from their
 * files; each module (and build-id) is looked at once. The lines are
 * read twice: frames with build-ids, then the others.
 */
static int place_missing(struct ms_decoder *d, char *const *lines, size_t n,
			 struct ms_err *err)
{
	int r = 0;

	/*
	 * Frames that print a build-id first: the file they find also
	 * serves those of the same module that print none.
	 */
	for (size_t k = 0; !r && k < 2 * n; k++) {
		const char *line = lines[k % n];
		struct ms_logframe f;
		struct ms_err note = { 0 };

		for (size_t at = 0; !r && ms_log_frame(line, at, &f);
		     at = f.end) {
			if (f.kind != MS_LOGFRAME_SYMBOL || !f.module[0] ||
			    !f.build_id[0] != (k >= n))
				continue;
			r = first_look(d, &f);
			/*
			 * The report says which build the module is: a file
			 * found by name alone is not trusted for it.
			 */
			if (r > 0 && f.build_id[0])
				r = ms_strset_add(&d->printed, f.module) < 0 ?
					    -ENOMEM :
					    1;
			else if (r > 0 && has_printed(d, f.module))
				r = 0;
			if (r < 0)
				return ms_err_errno(err, ENOMEM, "decode");
			r = r ? ms_map_place(d->map, d->fi, &d->pl, f.module,
					     f.build_id, &note, err) :
				0;
			if (r == 1) {
				if (d->o.note)
					d->o.note(d->o.note_arg, note.msg);
				r = 0;
			}
		}
	}
	return r;
}

static void print_loc(FILE *out, const struct ms_frame *f)
{
	fprintf(out, "%s:%d", f->file ? f->file : "??", f->line);
	if (f->col)
		fprintf(out, ":%d", f->col);
}

/*
 * Each frame's line gets the function's location after the frame; each
 * inlined callee comes first on a line of its own with the frame's
 * prefix, innermost first, as in gdb's backtrace. The line's own bytes
 * are written as they came, NULs included.
 */
static void annotate(FILE *out, const struct ms_line *ln, const struct hit *h,
		     size_t n)
{
	size_t at = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i + 1 < h[k].r.nframes; i++) {
			fwrite(ln->text, 1, h[k].f.start, out);
			fprintf(out, "%s (inlined) ", h[k].r.frames[i].func);
			print_loc(out, &h[k].r.frames[i]);
			fputc('\n', out);
		}
	for (size_t k = 0; k < n; k++) {
		fwrite(ln->text + at, 1, h[k].f.end - at, out);
		fputc(' ', out);
		print_loc(out, &h[k].r.frames[h[k].r.nframes - 1]);
		at = h[k].f.end;
	}
	fwrite(ln->text + at, 1, ln->len - at, out);
	if (ln->newline)
		fputc('\n', out);
}

/* 1 if addr has a source line (into r), else 0. */
static int located(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		   struct ms_symres *r)
{
	struct ms_err err; /* unread: a failure is no line */

	return ms_symbolize(s, addr, flags, r, &err) == 0 && r->nframes > 0 &&
	       r->frames[r->nframes - 1].file;
}

/*
 * Call traces print return addresses with %pB, which names the symbol of
 * address - 1 and adds the 1 back (kernel/kallsyms.c sprint_backtrace,
 * for calls to noreturn functions that end their caller), so it never
 * prints "func+0x0": such a frame comes from a printer that looked up the
 * address itself (%pS, older kernels), and the address is func's first
 * byte, not a byte of the function before it. "prev+0x40/0x40", a return
 * address just past a noreturn call, keeps the - 1.
 */
static bool at_entry(const struct ms_logframe *f)
{
	return f->kind == MS_LOGFRAME_SYMBOL && f->offset == 0;
}

/*
 * Loads the module of a frame that names one: 1 if it may be looked up
 * there, 0 if the frame prints a build-id (CONFIG_STACKTRACE_BUILD_ID)
 * and the module modsect has by that name is another build, the map's
 * build-id or, without one, the file's (place_missing said so once).
 */
static int load_same_build(struct ms_lazy *z, const struct ms_map *map,
			   const struct ms_logframe *f, struct ms_err *err)
{
	const struct ms_module *m = ms_map_find(map, f->module);
	const struct ms_modfile *file;
	int rc;

	/* The map's module of another build is never loaded for it. */
	if (f->build_id[0] && m && m->build_id &&
	    strcmp(m->build_id, f->build_id))
		return 0;
	rc = ms_lazy_by_name(z, f->module, err);
	if (rc)
		return rc;
	if (!f->build_id[0] || !m || m->build_id)
		return 1;
	file = ms_lazy_file(z, f->module);
	return !file || (ms_modfile_build_id(file) &&
			 strcmp(ms_modfile_build_id(file), f->build_id) == 0);
}

/*
 * Where a frame is: 1 if it has a source line, 0 if not, or an error.
 * "func+off [mod]" is tried before the raw address printed with it, so
 * old-style "[<addr>] func+off/size [mod]" lines need no map. In an
 * arm64 report a raw address loses its PAC first (ms_arm64_strip_pac):
 * what is left is either the address or in no module.
 */
static int locate(struct ms_lazy *z, const struct ms_map *map, bool pac,
		  const struct ms_logframe *f, struct ms_symres *r,
		  struct ms_err *err)
{
	struct ms_symbolizer *s = ms_lazy_symbolizer(z);
	unsigned int flags = f->exact || at_entry(f) ? 0 : MS_SYM_RETURN;
	struct ms_err lerr; /* unread: a name not found tries the address */
	uint64_t addr;
	int rc;

	if (f->kind == MS_LOGFRAME_SYMBOL && f->module[0]) {
		rc = load_same_build(z, map, f, err);
		if (rc <= 0)
			return rc;
		rc = ms_symbolizer_lookup(s, f->module, f->symbol, &addr, &lerr);
		if (rc == 0 && located(s, addr + f->offset, flags, r))
			return 1;
	}
	if (!f->has_address)
		return 0;
	addr = pac ? ms_arm64_strip_pac(f->address) : f->address;
	rc = ms_lazy_by_addr(z, addr, err);
	if (rc)
		return rc;
	return located(s, addr, flags, r);
}

static bool same_frame(const struct ms_logframe *a, const struct ms_logframe *b)
{
	if (a->kind == MS_LOGFRAME_SYMBOL && b->kind == MS_LOGFRAME_SYMBOL)
		return a->offset == b->offset &&
		       strcmp(a->symbol, b->symbol) == 0 &&
		       strcmp(a->module, b->module) == 0;
	return a->has_address && b->has_address && a->address == b->address;
}

/*
 * arm64's unwinder starts from the regs it is given, so the first entry
 * of a "Call trace:" after a register dump is the dump's pc, where
 * execution was, not a return address (arch/arm64/kernel/stacktrace.c:
 * unwind_init_from_regs; 6.13 and later mark it " (P)" themselves).
 */
static void track(struct ms_decoder *rep, struct ms_logframe *f, bool *first)
{
	if (*first) {
		if (rep->have_pc && same_frame(f, &rep->pc))
			f->exact = true;
		*first = rep->trace_first = rep->have_pc = false;
	}
	if (f->regs_pc) {
		rep->pc = *f;
		rep->have_pc = true;
	}
}

const char *ms_decode_text(const struct ms_line *ln, char **scratch,
			   size_t *cap)
{
	if (!memchr(ln->text, '\0', ln->len))
		return ln->text;
	if (ms_reserve(scratch, cap, ln->len, 1, 256))
		return NULL;
	for (size_t i = 0; i < ln->len; i++)
		(*scratch)[i] = ln->text[i] ? ln->text[i] : '\x01';
	(*scratch)[ln->len] = '\0';
	return *scratch;
}

/*
 * Annotates every frame of the line that resolves to a source line; the
 * pieces of a line too long for any report pass through as they are.
 */
static int decode_line(struct ms_decoder *rep, FILE *out,
		       const struct ms_line *ln, const char *line,
		       struct ms_err *err)
{
	struct ms_logframe f;
	bool first = rep->trace_first, last_break = rep->last_break;
	size_t n = 0;

	if (ln->piece) {
		fwrite(ln->text, 1, ln->len, out);
		if (ln->newline)
			fputc('\n', out);
		return 0;
	}
	if (ms_log_trace_start(line))
		rep->trace_first = true;
	rep->last_break = ms_log_last_break(line);
	for (size_t at = 0; n < LINE_FRAMES && ms_log_frame(line, at, &f);
	     at = f.end) {
		struct hit *h = &rep->hits[n];
		int rc;

		track(rep, &f, &first);
		if (f.warning && rep->warn_returns)
			f.exact = false;
		if (last_break)
			f.exact = true;
		h->f = f;
		rc = locate(rep->z, rep->map, rep->pac, &h->f, &h->r, err);
		if (rc < 0)
			return rc;
		n += (size_t)rc;
	}
	annotate(out, ln, rep->hits, n);
	return 0;
}

int ms_decode_lazy(const struct ms_map *map, struct ms_finder *fi,
		   const struct ms_decode_opts *o, struct ms_lazy **ret,
		   struct ms_err *err)
{
	struct ms_lazy_opts lo = { .layout_flags = o->layout_flags,
				   .no_index = o->no_index,
				   .refused_noted = true,
				   .ix_pool = o->ix_pool,
				   .note = o->note,
				   .note_arg = o->note_arg };

	return ms_lazy_new(fi, map, &lo, ret, err);
}

int ms_decoder_new(struct ms_map *map, struct ms_finder *fi,
		   const struct ms_decode_opts *o, char *const *first,
		   size_t nfirst, struct ms_decoder **ret, struct ms_err *err)
{
	struct ms_decoder *d = calloc(1, sizeof(*d));
	const char *m = map->machine ? map->machine : o->machine;
	int em = 0, cls, data, r;

	if (!d)
		return ms_err_errno(err, ENOMEM, "decode");
	d->map = map;
	d->fi = fi;
	d->o = *o;
	ms_place_init(&d->pl);
	r = place_missing(d, first, nfirst, err);
	if (r) {
		ms_decoder_free(d);
		return r;
	}
	/* Raw addresses of an arm64 report may carry a PAC. */
	d->pac = ms_machine_arm64(m);
	/*
	 * 32-bit ARM has no __WARN_FLAGS: WARN() calls warn_slowpath_fmt,
	 * and __warn prints its return address (arch/arm/include/asm/bug.h,
	 * kernel/panic.c).
	 */
	d->warn_returns = m && ms_machine_elf(m, &em, &cls, &data) == 0 &&
			  em == EM_ARM;
	*ret = d;
	return 0;
}

struct ms_map *ms_decoder_map(const struct ms_decoder *d)
{
	return d->map;
}

void ms_decoder_attach(struct ms_decoder *d, struct ms_map *map,
		       struct ms_lazy *z)
{
	d->map = map;
	d->z = z;
}

int ms_decoder_line(struct ms_decoder *d, FILE *out, const struct ms_line *ln,
		    const char *text, bool place, struct ms_err *err)
{
	char *one = (char *)text;
	int r = 0;

	if (place && !ln->piece) {
		r = place_missing(d, &one, 1, err);
		if (!r)
			r = ms_lazy_sync(d->z, err);
	}
	return r ? r : decode_line(d, out, ln, text, err);
}

void ms_decoder_free(struct ms_decoder *d)
{
	if (!d)
		return;
	ms_strset_free(&d->looked);
	ms_strset_free(&d->printed);
	free(d);
}
