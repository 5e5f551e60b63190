// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsect decode: kernel log text with every module frame annotated with
 * file:line and its inlined callers; lines without frames pass through.
 *
 * "func+0x1a/0x60 [mod]" frames need only the module file: a module the
 * map does not have (or with no map at all) is laid out from its file at
 * an address of our own, since only offsets within it matter. Raw
 * addresses need the map (--capture, or the live system).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "modsect.h"

/* Where modules without a map are laid out: user space, never a module. */
#define PLACE_BASE UINT64_C(0x00007f0000000000)
#define PLACE_STEP UINT64_C(0x0000000100000000)

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
	uint64_t base = PLACE_BASE;
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
			r = ms_map_add_placed(map, f.module, mf, base, err);
			base += PLACE_STEP;
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

/*
 * The frame's line gets the function's location; each inlined callee
 * comes first on a line of its own with the same prefix, innermost first,
 * as in gdb's backtrace.
 */
static void annotate(FILE *out, const char *line, const struct ms_logframe *f,
		     const struct ms_symres *r)
{
	size_t last = r->nframes - 1;

	for (size_t k = 0; k < last; k++) {
		fprintf(out, "%.*s%s (inlined) ", (int)f->start, line,
			r->frames[k].func);
		print_loc(out, &r->frames[k]);
		fputc('\n', out);
	}
	fprintf(out, "%.*s ", (int)f->end, line);
	print_loc(out, &r->frames[last]);
	fprintf(out, "%s\n", line + f->end);
}

/*
 * Annotates the first frame of the line that resolves to a source line;
 * "func+off [mod]" frames are tried before raw addresses, so old-style
 * "[<addr>] func+off/size [mod]" lines are annotated at the symbol.
 */
static int decode_line(struct lazy *z, FILE *out, const char *line,
		       struct ms_err *err)
{
	struct ms_logframe f;
	struct ms_symres r;

	for (int pass = 0; pass < 2; pass++) {
		enum ms_logframe_kind want = pass ? MS_LOGFRAME_ADDRESS :
						    MS_LOGFRAME_SYMBOL;

		for (size_t at = 0; ms_log_frame(line, at, &f); at = f.end) {
			uint64_t addr = f.address;
			int rc = 0;

			if (f.kind != want)
				continue;
			if (f.kind == MS_LOGFRAME_ADDRESS)
				rc = lazy_by_addr(z, addr, err);
			else if (f.module[0])
				rc = lazy_by_name(z, f.module, err);
			if (rc)
				return rc;
			if (f.kind == MS_LOGFRAME_SYMBOL) {
				if (!f.module[0] ||
				    ms_symbolizer_lookup(z->sym, f.module,
							 f.symbol, &addr) < 0)
					continue;
				addr += f.offset;
			}
			/* Without a source line there is nothing to add. */
			if (ms_symbolize(z->sym, addr,
					 f.exact ? 0 : MS_SYM_RETURN, &r) < 0 ||
			    r.nframes == 0 || !r.frames[r.nframes - 1].file)
				continue;
			annotate(out, line, &f, &r);
			return 0;
		}
	}
	fprintf(out, "%s\n", line);
	return 0;
}

int do_decode(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct lazy z = { 0 };
	struct ms_buf b = { 0 };
	char *text = NULL, **lines = NULL;
	size_t len, n = 0;
	struct utsname u;
	int r = setup_ctx(o, &ctx, &err);

	/*
	 * No core kernel symbols: a core frame has no source line, so it is
	 * never annotated, and reading them was half the run time.
	 */
	if (!r)
		r = ms_read_file(o->nargs ? o->args[0] : "-", 64u << 20, &text,
				 &len, &err);
	if (!r && !(lines = split_lines(text, &n)))
		r = ms_err_errno(&err, ENOMEM, "decode");
	/* Without --capture the live map helps with what it has. */
	if (!r && load_map(ctx, o, NULL, &map, &err) < 0) {
		if (o->capture)
			r = -err.code;
		else if (!(map = calloc(1, sizeof(*map))) ||
			 !(map->origin = strdup("no map")))
			r = ms_err_errno(&err, ENOMEM, "decode");
		else if (!o->root && uname(&u) == 0)
			map->release =
				strdup(u.release); /* this host's modules */
	}
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = place_missing(map, fi, lines, n, &err);
	if (!r)
		r = lazy_init(&z, ctx, fi, o, map, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	for (size_t i = 0; !r && i < n; i++)
		r = decode_line(&z, b.f, lines[i], &err);
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
	return r ? report(&err, r) : EXIT_OK;
}
