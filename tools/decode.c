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

#include "cli.h"

/*
 * Adds modules named in frames that the map lacks, placed from their
 * files; each module (and build-id) is looked at once (ms_finder_note).
 */
static int place_missing(struct ms_map *map, struct ms_finder *fi,
			 struct ms_placing *pl, char **lines, size_t n,
			 struct ms_err *err)
{
	int r = 0;

	for (size_t i = 0; !r && i < n; i++) {
		struct ms_logframe f;
		struct ms_err note = { 0 };

		for (size_t at = 0; !r && ms_log_frame(lines[i], at, &f);
		     at = f.end) {
			if (f.kind != MS_LOGFRAME_SYMBOL || !f.module[0])
				continue;
			r = ms_finder_note(fi, f.module, f.build_id);
			if (r < 0)
				return ms_err_errno(err, ENOMEM, "decode");
			r = r ? ms_map_place(map, fi, pl, f.module, f.build_id,
					     &note, err) :
				0;
			if (r == 1) {
				warn("%s", note.msg);
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
	bool warn_returns; /* a WARNING's "at" is a return address (32-bit ARM) */
	bool have_pc; /* pc holds the last register dump's pc */
	bool trace_first; /* the next frame is a "Call trace:"'s first */
	struct ms_logframe pc;
	struct hit hits[LINE_FRAMES]; /* the current line's, off the stack */
	char *scratch; /* a line with its NULs made parseable */
	size_t scratch_cap;
};

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
static int load_same_build(struct lazy *z, const struct ms_logframe *f,
			   struct ms_err *err)
{
	const struct ms_module *m = ms_map_find(z->map, f->module);
	const struct ms_modfile *file;
	int rc;

	/* The map's module of another build is never loaded for it. */
	if (f->build_id[0] && m && m->build_id &&
	    strcmp(m->build_id, f->build_id))
		return 0;
	rc = lazy_by_name(z, f->module, err);
	if (rc)
		return rc;
	if (!f->build_id[0] || !m || m->build_id)
		return 1;
	file = z->res[m - z->map->modules].file;
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
static int locate(struct lazy *z, bool pac, const struct ms_logframe *f,
		  struct ms_symres *r, struct ms_err *err)
{
	unsigned int flags = f->exact || at_entry(f) ? 0 : MS_SYM_RETURN;
	struct ms_err lerr; /* unread: a name not found tries the address */
	uint64_t addr;
	int rc;

	if (f->kind == MS_LOGFRAME_SYMBOL && f->module[0]) {
		rc = load_same_build(z, f, err);
		if (rc <= 0)
			return rc;
		rc = ms_symbolizer_lookup(z->sym, f->module, f->symbol, &addr,
					  &lerr);
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

/*
 * The line as the parser reads it: a C string, so a NUL byte (a crashed
 * program's output on the console) becomes 0x01, which no frame or
 * marker holds, and the bytes after it are still read. NULL: no memory.
 */
static const char *parse_text(struct report *rep, const struct ms_line *ln)
{
	if (!memchr(ln->text, '\0', ln->len))
		return ln->text;
	if (rep->scratch_cap < ln->len + 1) {
		char *p = realloc(rep->scratch, ln->len + 1);

		if (!p)
			return NULL;
		rep->scratch = p;
		rep->scratch_cap = ln->len + 1;
	}
	for (size_t i = 0; i < ln->len; i++)
		rep->scratch[i] = ln->text[i] ? ln->text[i] : '\x01';
	rep->scratch[ln->len] = '\0';
	return rep->scratch;
}

/*
 * Annotates every frame of the line that resolves to a source line; the
 * pieces of a line too long for any report pass through as they are.
 */
static int decode_line(struct lazy *z, struct report *rep, FILE *out,
		       const struct ms_line *ln, const char *line,
		       struct ms_err *err)
{
	struct ms_logframe f;
	bool first = rep->trace_first;
	size_t n = 0;

	if (ln->piece) {
		fwrite(ln->text, 1, ln->len, out);
		if (ln->newline)
			fputc('\n', out);
		return 0;
	}
	if (ms_log_trace_start(line))
		rep->trace_first = true;
	for (size_t at = 0; n < LINE_FRAMES && ms_log_frame(line, at, &f);
	     at = f.end) {
		struct hit *h = &rep->hits[n];
		int rc;

		track(rep, &f, &first);
		if (f.warning && rep->warn_returns)
			f.exact = false;
		h->f = f;
		rc = locate(z, rep->pac, &h->f, &h->r, err);
		if (rc < 0)
			return rc;
		n += (size_t)rc;
	}
	annotate(out, ln, rep->hits, n);
	return 0;
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

/*
 * The first lines are read before anything is decoded or written: the
 * architecture the report shows and the modules it names decide the map,
 * and an error in them leaves no output. Past them, lines are decoded as
 * they come, so no input is too large (a console log of days, or many
 * reports in one stream, each module opened once).
 */
#define READ_AHEAD (1u << 20)
/* A line longer than this passes through in pieces (printk's are < 1 KiB). */
#define PIECE_MAX (64u << 10)

struct ahead {
	char *data; /* each line's bytes and NUL, then its parse copy if other */
	size_t len, cap;
	struct ms_line *v;
	size_t *parse_off; /* where each line's parse copy is in data */
	char **parse; /* made from parse_off once data stops moving */
	size_t n, vcap;
};

static bool ahead_put(struct ahead *a, const char *p, size_t n)
{
	if (a->len + n + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 65536;
		char *d;

		while (cap < a->len + n + 1)
			cap *= 2;
		d = realloc(a->data, cap);
		if (!d)
			return false;
		a->data = d;
		a->cap = cap;
	}
	memcpy(a->data + a->len, p, n);
	a->data[a->len + n] = '\0';
	a->len += n + 1;
	return true;
}

/* Reads lines until READ_AHEAD bytes or the end of the input. */
static int read_ahead(struct ms_lines *in, struct report *rep,
		      struct ahead *a, struct ms_err *err)
{
	struct ms_line ln;
	int r;

	while (a->len < READ_AHEAD && (r = ms_lines_next(in, &ln, err)) == 1) {
		const char *pt = ln.piece ? "" : parse_text(rep, &ln);
		size_t off = a->len;

		if (a->n == a->vcap) {
			size_t cap = a->vcap ? 2 * a->vcap : 256;
			struct ms_line *v = realloc(a->v, cap * sizeof(*v));
			size_t *po = v ? realloc(a->parse_off,
						 cap * sizeof(*po)) :
					 NULL;

			if (v)
				a->v = v;
			if (!po)
				return ms_err_errno(err, ENOMEM, "decode");
			a->parse_off = po;
			a->vcap = cap;
		}
		if (!pt || !ahead_put(a, ln.text, ln.len) ||
		    (pt != ln.text && !ahead_put(a, pt, strlen(pt))))
			return ms_err_errno(err, ENOMEM, "decode");
		a->parse_off[a->n] = pt == ln.text ? off : off + ln.len + 1;
		ln.text = (char *)(uintptr_t)off; /* made a pointer below */
		a->v[a->n++] = ln;
	}
	if (r < 0)
		return r;
	a->parse = calloc(a->n + 1, sizeof(*a->parse));
	if (!a->parse)
		return ms_err_errno(err, ENOMEM, "decode");
	for (size_t i = 0; i < a->n; i++) {
		a->v[i].text = a->data + (uintptr_t)a->v[i].text;
		a->parse[i] = a->data + a->parse_off[i];
	}
	return 0;
}

static void ahead_free(struct ahead *a)
{
	free(a->data);
	free(a->v);
	free(a->parse_off);
	free(a->parse);
}

/* What decode holds from the first line to the last. */
struct decoder {
	struct ms_ctx *ctx;
	struct ms_finder *fi;
	struct ms_map *map;
	struct lazy z;
	struct ms_placing pl;
	struct report rep;
};

/* The map, its finder and the modules the first lines name. */
static int decoder_init(struct decoder *d, struct opts *o,
			const struct ahead *a, struct ms_err *err)
{
	/* The architecture the report shows: its first line that shows one. */
	const char *shown = NULL;
	int r;

	for (size_t i = 0; !shown && i < a->n; i++)
		shown = ms_log_machine(a->parse[i]);
	/* Without --capture the live map helps with what it has. */
	if (load_map(d->ctx, o, NULL, &d->map, err) < 0) {
		d->map = NULL;
		if (o->capture)
			return -err->code;
		r = no_map(o, shown, &d->map, err);
		if (r)
			return r;
	}
	if (foreign(o, d->map, shown)) {
		ms_map_free(d->map);
		d->map = NULL;
		r = no_map(o, shown, &d->map, err);
		if (r)
			return r;
	}
	r = ms_finder_new(d->ctx, d->map->release, &d->fi, err);
	ms_place_init(&d->pl);
	if (!r)
		r = place_missing(d->map, d->fi, &d->pl, a->parse, a->n, err);
	if (!r)
		r = lazy_init(&d->z, d->ctx, d->fi, o, d->map, err);
	if (!r) {
		const char *m = d->map->machine ? d->map->machine : shown;
		int em = 0, cls, data;

		/* Raw addresses of an arm64 report may carry a PAC. */
		d->rep.pac = ms_machine_arm64(m);
		/*
		 * 32-bit ARM has no __WARN_FLAGS: WARN() calls
		 * warn_slowpath_fmt, and __warn prints its return address
		 * (arch/arm/include/asm/bug.h, kernel/panic.c).
		 */
		d->rep.warn_returns = m && ms_machine_elf(m, &em, &cls, &data) == 0 &&
				      em == EM_ARM;
	}
	return r;
}

/* One line after the first ones: its modules placed, then decoded. */
static int decode_next(struct decoder *d, FILE *out, const struct ms_line *ln,
		       struct ms_err *err)
{
	const char *pt = ln->piece ? "" : parse_text(&d->rep, ln);
	char *one = (char *)pt;
	int r;

	if (!pt)
		return ms_err_errno(err, ENOMEM, "decode");
	r = place_missing(d->map, d->fi, &d->pl, &one, 1, err);
	if (!r && d->map->nmodules != d->z.nmods)
		r = lazy_sync(&d->z, err);
	return r ? r : decode_line(&d->z, &d->rep, out, ln, pt, err);
}

static void decoder_clear(struct decoder *d)
{
	if (d->z.map)
		lazy_clear(&d->z);
	warn_debuginfod(d->fi);
	ms_finder_free(d->fi);
	ms_map_free(d->map);
	ms_ctx_free(d->ctx);
	free(d->rep.scratch);
}

int do_decode(struct opts *o)
{
	struct ms_err err = { 0 };
	struct decoder *d = calloc(1, sizeof(*d));
	struct ms_lines *in = NULL;
	struct ms_out *out = NULL;
	struct ahead a = { 0 };
	struct ms_buf b = { 0 };
	struct ms_line ln;
	int r = d ? 0 : ms_err_errno(&err, ENOMEM, "decode");

	/*
	 * No core kernel symbols: a core frame has no source line, so it is
	 * never annotated, and reading them was half the run time.
	 */
	if (!r)
		r = setup_ctx(o, &d->ctx, &err);
	if (!r)
		r = ms_lines_open(o->nargs ? o->args[0] : "-", PIECE_MAX, &in,
				  &err);
	if (!r)
		r = read_ahead(in, &d->rep, &a, &err);
	if (!r)
		r = decoder_init(d, o, &a, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	for (size_t i = 0; !r && i < a.n; i++)
		r = decode_line(&d->z, &d->rep, b.f, &a.v[i], a.parse[i], &err);
	if (!r)
		r = ms_buf_close(&b, &err);
	if (!r)
		r = ms_out_open(o->output, &out, &err);
	if (!r && b.len &&
	    fwrite(b.data, 1, b.len, ms_out_file(out)) != b.len)
		r = ms_err_errno(&err, EIO, "writing output");
	ms_buf_free(&b);
	ahead_free(&a);
	while (!r && (r = ms_lines_next(in, &ln, &err)) == 1) {
		r = decode_next(d, ms_out_file(out), &ln, &err);
		/* From a pipe (dmesg -w), each line as soon as it is decoded. */
		if (!r && !ms_lines_regular(in))
			fflush(ms_out_file(out));
	}
	if (!r)
		r = ms_out_commit(out, &err);
	else
		ms_out_abort(out);
	if (!r)
		lazy_index_warn(&d->z);
	ms_lines_free(in);
	if (d)
		decoder_clear(d);
	free(d);
	return r ? report(&err, r) : EXIT_OK;
}
