// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsect decode: kernel log text with every module frame annotated
 * (lib/emit/decode.c). Here: which map a report is decoded with, and the
 * stream: the first lines read ahead, then each line as it comes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"

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
	char *scratch; /* a line with its NULs made parseable */
	size_t scratch_cap;
	size_t n, vcap, pcap;
};

static bool ahead_put(struct ahead *a, const char *p, size_t n)
{
	if (ms_reserve(&a->data, &a->cap, a->len + n, 1, 65536))
		return false;
	memcpy(a->data + a->len, p, n);
	a->data[a->len + n] = '\0';
	a->len += n + 1;
	return true;
}

/* Reads lines until READ_AHEAD bytes or the end of the input. */
static int read_ahead(struct ms_lines *in, struct ahead *a,
		      struct ms_err *err)
{
	struct ms_line ln;
	int r;

	while (a->len < READ_AHEAD && (r = ms_lines_next(in, &ln, err)) == 1) {
		const char *pt = ln.piece ? "" : ms_decode_text(&ln, &a->scratch, &a->scratch_cap);
		size_t off = a->len;

		if (ms_reserve(&a->v, &a->vcap, a->n, sizeof(*a->v), 256) ||
		    ms_reserve(&a->parse_off, &a->pcap, a->n,
			       sizeof(*a->parse_off), 256))
			return ms_err_errno(err, ENOMEM, "decode");
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
	free(a->scratch);
	free(a->data);
	free(a->v);
	free(a->parse_off);
	free(a->parse);
}

/*
 * The map the report is decoded with: the one the options name; without
 * --capture, the live one, unless there is none or it is of another
 * machine than the report shows; then none.
 */
static int choose_map(struct run *run, const char *shown)
{
	const struct opts *o = run->o;

	if (read_map(run->ctx, o, NULL, 0, &run->map, &run->err) < 0) {
		run->map = NULL;
		if (o->capture)
			return -run->err.code;
		return no_map(o, shown, &run->map, &run->err);
	}
	if (!foreign(o, run->map, shown))
		return 0;
	ms_map_free(run->map);
	run->map = NULL;
	return no_map(o, shown, &run->map, &run->err);
}

/*
 * The decoder for what the first lines show, after its map and finder.
 * No core kernel symbols: a core frame has no source line, so it is never
 * annotated, and reading them was half the run time.
 */
static int decoder(struct run *run, const struct ahead *a,
		   struct ms_decoder **ret)
{
	const char *shown = NULL;
	struct ms_decode_opts dopt = { .layout_flags = layout_flags(run->o),
				       .no_index = run->o->no_index,
				       .note = warn_note };
	int r;

	/* The architecture the report shows: its first line that shows one. */
	for (size_t i = 0; !shown && i < a->n; i++)
		shown = ms_log_machine(a->parse[i]);
	dopt.machine = shown;
	r = choose_map(run, shown);
	if (!r)
		r = ms_finder_new(run->ctx, run->map->release, &run->fi,
				  &run->err);
	if (!r)
		r = ms_decoder_new(run->map, run->fi, &dopt, a->parse, a->n,
				   ret, &run->err);
	return r;
}

/*
 * The first lines, read ahead, decoded into a buffer; then the output
 * opened, and they are written.
 */
static int decode_first(struct run *run, struct ms_decoder *d, struct ahead *a,
			struct ms_out **out)
{
	struct ms_err *err = &run->err;
	struct ms_buf b = { 0 };
	int r = ms_buf_open(&b, err);

	for (size_t i = 0; !r && i < a->n; i++)
		r = ms_decoder_line(d, b.f, &a->v[i], a->parse[i], false, err);
	if (!r)
		r = ms_buf_close(&b, err);
	if (!r)
		r = ms_out_open(run->o->output, out, err);
	if (!r && b.len &&
	    fwrite(b.data, 1, b.len, ms_out_file(*out)) != b.len)
		r = ms_err_errno(err, EIO, "writing output");
	ms_buf_free(&b);
	return r;
}

/* Each line after the first ones, decoded as it comes. */
static int decode_rest(struct run *run, struct ms_decoder *d,
		       struct ms_lines *in, struct ms_out *out)
{
	char *scratch = NULL;
	size_t cap = 0;
	struct ms_line ln;
	int r;

	while ((r = ms_lines_next(in, &ln, &run->err)) == 1) {
		const char *text = ln.piece ? "" :
					      ms_decode_text(&ln, &scratch, &cap);

		r = text ? ms_decoder_line(d, ms_out_file(out), &ln, text, true,
					   &run->err) :
			   ms_err_errno(&run->err, ENOMEM, "decode");
		if (r)
			break;
		/* From a pipe (dmesg -w), each line as soon as it is decoded. */
		if (!ms_lines_regular(in))
			fflush(ms_out_file(out));
	}
	free(scratch);
	return r;
}

int do_decode(struct run *run)
{
	const struct opts *o = run->o;
	struct ms_err *err = &run->err;
	struct ms_decoder *d = NULL;
	struct ms_lines *in = NULL;
	struct ms_out *out = NULL;
	struct ahead a = { 0 };
	int r = ms_lines_open(o->nargs ? o->args[0] : "-", PIECE_MAX, &in, err);

	if (!r)
		r = read_ahead(in, &a, err);
	if (!r)
		r = decoder(run, &a, &d);
	if (!r)
		r = decode_first(run, d, &a, &out);
	ahead_free(&a);
	if (!r)
		r = decode_rest(run, d, in, out);
	if (!r)
		r = ms_out_commit(out, err);
	else if (out)
		ms_out_abort(out);
	if (!r)
		warn_index(ms_decoder_index_error(d, err), err);
	ms_lines_free(in);
	ms_decoder_free(d);
	return r;
}
