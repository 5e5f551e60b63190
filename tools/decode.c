// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsect decode: kernel log text with every module frame annotated with
 * file:line and its inlined callers; lines without frames pass through.
 *
 * "func+0x1a/0x60 [mod]" frames need only the module file: a module the
 * map does not have (or with no map at all) is laid out from its file at
 * an address of our own, since only offsets within it matter. Raw
 * addresses need the map (--capture, or the live system).
 *
 * Reports of x86-64, i386 and arm64 kernels (lib/logparse.c has their
 * formats): every frame of a line is annotated, return addresses at
 * address - 1, program counters exactly; in an arm64 report a raw address
 * is looked up without its pointer authentication code.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "modsect.h"

/* Where modules without a map are laid out: user space, never a module. */
#define PLACE_BASE UINT64_C(0x00007f0000000000)
#define PLACE_STEP UINT64_C(0x0000000100000000)
/*
 * 32-bit modules (i386, arm) need 32-bit addresses: user space with any
 * VMSPLIT lies below 0x40000000; from 0x10000000, above where
 * lib/layout.c parks what is not loaded (0x0bad0000), one after another.
 */
#define PLACE_BASE_32 UINT64_C(0x10000000)
#define PLACE_GAP_32 UINT64_C(0x10000)

/* The bytes ms_map_add_placed lays f out in, and a gap. */
static uint64_t placed_span(const struct ms_modfile *f)
{
	uint64_t n = PLACE_GAP_32;

	for (size_t i = 0; i < ms_modfile_section_count(f); i++) {
		const struct ms_filesec *s = ms_modfile_section(f, i);

		if (s->flags & SHF_ALLOC)
			n += s->size + (s->align > 1 ? s->align : 1);
	}
	return (n + PLACE_GAP_32 - 1) & ~(PLACE_GAP_32 - 1);
}

/* The text as lines, split in place. */
static char **split_lines(char *text, size_t *n)
{
	size_t cap = 64;
	char **lines = malloc(cap * sizeof(*lines));

	*n = 0;
	if (!lines)
		return NULL;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');

		if (*n == cap) {
			char **nlines =
				realloc(lines, 2 * cap * sizeof(*lines));

			if (!nlines) {
				free(lines);
				return NULL;
			}
			lines = nlines;
			cap *= 2;
		}
		lines[(*n)++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return lines;
}

/* Adds modules named in frames that the map lacks, placed from their files. */
static int place_missing(struct ms_map *map, struct ms_finder *fi, char **lines,
			 size_t n, struct ms_err *err)
{
	uint64_t base = PLACE_BASE, base32 = PLACE_BASE_32;
	int r = 0;

	for (size_t i = 0; !r && i < n; i++) {
		struct ms_logframe f;

		for (size_t at = 0; !r && ms_log_frame(lines[i], at, &f);
		     at = f.end) {
			struct ms_modfile *mf;
			struct ms_err ferr = { 0 };

			if (f.kind != MS_LOGFRAME_SYMBOL || !f.module[0] ||
			    ms_map_find(map, f.module))
				continue;
			if (ms_finder_open(fi, f.module, NULL, &mf, &ferr) <
			    0) {
				/* Unknown module: its frames pass through. */
				continue;
			}
			if (ms_modfile_elfclass(mf) == ELFCLASS32) {
				r = ms_map_add_placed(map, f.module, mf, base32,
						      err);
				base32 += placed_span(mf);
			} else {
				r = ms_map_add_placed(map, f.module, mf, base,
						      err);
				base += PLACE_STEP;
			}
			ms_modfile_free(mf);
			if (!r)
				r = ms_map_finish(map, err);
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

/* Frames annotated on one line at most; the rest pass through. */
#define LINE_FRAMES 16

/* A frame of the line and where it is. */
struct hit {
	struct ms_logframe f;
	struct ms_symres r;
};

/* What the lines so far have said, for the lines after them. */
struct report {
	bool pac; /* arm64: raw addresses may carry a PAC */
	bool have_pc; /* pc holds the last register dump's pc */
	bool trace_first; /* the next frame is a "Call trace:"'s first */
	struct ms_logframe pc;
	struct hit hits[LINE_FRAMES]; /* the current line's, off the stack */
};

/*
 * Each frame's line gets the function's location after the frame; each
 * inlined callee comes first on a line of its own with the frame's
 * prefix, innermost first, as in gdb's backtrace.
 */
static void annotate(FILE *out, const char *line, const struct hit *h, size_t n)
{
	size_t at = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i + 1 < h[k].r.nframes; i++) {
			fprintf(out, "%.*s%s (inlined) ", (int)h[k].f.start,
				line, h[k].r.frames[i].func);
			print_loc(out, &h[k].r.frames[i]);
			fputc('\n', out);
		}
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "%.*s ", (int)(h[k].f.end - at), line + at);
		print_loc(out, &h[k].r.frames[h[k].r.nframes - 1]);
		at = h[k].f.end;
	}
	fprintf(out, "%s\n", line + at);
}

/* 1 if addr has a source line (into r), else 0. */
static int located(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		   struct ms_symres *r)
{
	return ms_symbolize(s, addr, flags, r) == 0 && r->nframes > 0 &&
	       r->frames[r->nframes - 1].file;
}

/*
 * Where a frame is: 1 if it has a source line, 0 if not, or an error.
 * "func+off [mod]" is tried before the raw address printed with it, so
 * old-style "[<addr>] func+off/size [mod]" lines need no map. In an
 * arm64 report a raw address loses its PAC first (ms_arm64_strip_pac):
 * what is left is either the address or in no module.
 */
static int locate(struct lazy *z, bool pac, const struct ms_logframe *f,
		  struct ms_symres *r, struct ms_err *err)
{
	unsigned int flags = f->exact ? 0 : MS_SYM_RETURN;
	uint64_t addr;
	int rc;

	if (f->kind == MS_LOGFRAME_SYMBOL && f->module[0]) {
		rc = lazy_by_name(z, f->module, err);
		if (rc)
			return rc;
		rc = ms_symbolizer_lookup(z->sym, f->module, f->symbol, &addr);
		if (rc == 0 && located(z->sym, addr + f->offset, flags, r))
			return 1;
	}
	if (!f->has_address)
		return 0;
	addr = pac ? ms_arm64_strip_pac(f->address) : f->address;
	rc = lazy_by_addr(z, addr, err);
	if (rc)
		return rc;
	return located(z->sym, addr, flags, r);
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
static void track(struct report *rep, struct ms_logframe *f, bool *first)
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

/* Annotates every frame of the line that resolves to a source line. */
static int decode_line(struct lazy *z, struct report *rep, FILE *out,
		       const char *line, struct ms_err *err)
{
	struct ms_logframe f;
	bool first = rep->trace_first;
	size_t n = 0;

	if (ms_log_trace_start(line))
		rep->trace_first = true;
	for (size_t at = 0; n < LINE_FRAMES && ms_log_frame(line, at, &f);
	     at = f.end) {
		struct hit *h = &rep->hits[n];
		int rc;

		track(rep, &f, &first);
		h->f = f;
		rc = locate(z, rep->pac, &h->f, &h->r, err);
		if (rc < 0)
			return rc;
		n += (size_t)rc;
	}
	if (n)
		annotate(out, line, rep->hits, n);
	else
		fprintf(out, "%s\n", line);
	return 0;
}

/* The architecture the report shows: its first line that shows one. */
static const char *text_machine(char **lines, size_t n)
{
	const char *m = NULL;

	for (size_t i = 0; !m && i < n; i++)
		m = ms_log_machine(lines[i]);
	return m;
}

/* Whether two machines (uname -m) are known and of different ELF. */
static bool other_arch(const char *a, const char *b)
{
	int em, cls, data, bem, bcls, bdata;

	return a && b && ms_machine_elf(a, &em, &cls, &data) == 0 &&
	       ms_machine_elf(b, &bem, &bcls, &bdata) == 0 &&
	       (em != bem || cls != bcls);
}

/*
 * The live map is this machine's: an oops of another architecture's
 * kernel (an arm64 one read on an x86-64 host) is none of its modules,
 * and their files are refused as not of this kernel. Such a report is
 * decoded as with no map.
 */
static bool foreign(const struct opts *o, const struct ms_map *map,
		    const char *shown)
{
	return !o->capture && !o->remote && !o->vmcore &&
	       other_arch(map->machine, shown);
}

/*
 * With no map, modules are looked for under this host's release, unless
 * --root stands for another system or the report is of another
 * architecture than the host's: then only --moddir and --search find
 * them. The machine the report shows is the map's, so that a module file
 * of another is refused rather than read for the wrong kernel.
 */
static int no_map(const struct opts *o, const char *shown, struct ms_map **ret,
		  struct ms_err *err)
{
	struct ms_map *map = calloc(1, sizeof(*map));
	struct utsname u;
	bool host = !o->root && uname(&u) == 0;

	if (!map || !(map->origin = strdup("no map")) ||
	    (shown && !(map->machine = strdup(shown))) ||
	    (host && !other_arch(u.machine, shown) &&
	     !(map->release = strdup(u.release)))) {
		ms_map_free(map);
		return ms_err_errno(err, ENOMEM, "decode");
	}
	*ret = map;
	return 0;
}

int do_decode(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct lazy z = { 0 };
	struct report *rep = calloc(1, sizeof(*rep));
	struct ms_buf b = { 0 };
	char *text = NULL, **lines = NULL;
	size_t len, n = 0;
	const char *shown = NULL;
	int r = setup_ctx(o, &ctx, &err);

	if (!r && !rep)
		r = ms_err_errno(&err, ENOMEM, "decode");
	/*
	 * No core kernel symbols: a core frame has no source line, so it is
	 * never annotated, and reading them was half the run time.
	 */
	if (!r)
		r = ms_read_file(o->nargs ? o->args[0] : "-", 64u << 20, &text,
				 &len, &err);
	if (!r && !(lines = split_lines(text, &n)))
		r = ms_err_errno(&err, ENOMEM, "decode");
	if (!r)
		shown = text_machine(lines, n);
	/* Without --capture the live map helps with what it has. */
	if (!r && load_map(ctx, o, NULL, &map, &err) < 0) {
		map = NULL;
		r = o->capture ? -err.code : no_map(o, shown, &map, &err);
	}
	if (!r && foreign(o, map, shown)) {
		ms_map_free(map);
		map = NULL;
		r = no_map(o, shown, &map, &err);
	}
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = place_missing(map, fi, lines, n, &err);
	if (!r)
		r = lazy_init(&z, ctx, fi, o, map, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	/* Raw addresses of an arm64 report may carry a PAC. */
	if (!r)
		rep->pac =
			ms_machine_arm64(map->machine ? map->machine : shown);
	for (size_t i = 0; !r && i < n; i++)
		r = decode_line(&z, rep, b.f, lines[i], &err);
	if (!r)
		r = write_buf(o, &b, &err);
	ms_buf_free(&b);
	if (z.map)
		lazy_clear(&z);
	warn_debuginfod(fi);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	free(lines);
	free(text);
	free(rep);
	return r ? report(&err, r) : EXIT_OK;
}
