// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stream of kernel log text (a console log of days, or the reports of
 * a crash collector concatenated) decoded one report at a time, each on
 * its own (decode.c decodes one): its machine, the modules it names, and
 * its map, a copy of the one given or none. So a report of another
 * machine, or a module file refused for one, costs that report's frames
 * and a warning, never another report's, and nothing a later report
 * holds changes what an earlier one printed.
 *
 * A report's lines are held from its first frame (or the first line that
 * shows its machine) until it ends (symbolize/logreport.c says where),
 * and decoded then; lines outside a report pass through at once, so
 * `dmesg -w | modsect decode` shows them as they come. A report that
 * grows past CHUNK_MAX is decoded with what it has shown, and its later
 * lines as they come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define CHUNK_MAX (1u << 20)

/* The releases a stream's finders look under. */
enum { FI_MAP, FI_HOST, FI_NONE };

/*
 * A finder per release and machine the reports show: each walks the
 * --search trees once, and prefers its machine's files.
 */
struct finder {
	int which;
	const char *machine; /* see finder(), or NULL */
	struct ms_finder *fi;
};

/* ms_log_machine names a handful of machines. */
#define NFINDERS 32

/*
 * A report's map, its modules placed, and the lazy symbolizer over it,
 * kept for the reports after: one whose map comes out the same (the
 * same modules, of the same builds, at the same addresses) is decoded
 * through it, its modules' tables already built. The same answers as a
 * map and symbolizer of its own, at a fraction of the cost.
 */
struct loaded {
	struct ms_finder *fi;
	struct ms_map *map;
	struct ms_lazy *z;
	uint64_t used; /* the report that last used it: the oldest goes */
};

#define NLOADED 8

struct stream {
	const struct ms_ctx *ctx;
	const struct ms_stream_opts *o;
	FILE *out;
	struct finder fi[NFINDERS];
	size_t nfi;
	struct ms_strset said; /* the warnings given, each once */
	struct ms_ixpool *pool; /* indexes, checked once a stream */
	size_t nsaid;
	struct ms_err index_err; /* the first index not written */
	int index_rc;
	/* The report held: its lines, each's bytes and NUL, then its parse copy. */
	char *data;
	size_t len, cap;
	struct ms_line *v;
	size_t *parse_off;
	size_t n, vcap, pcap;
	bool body; /* it holds a frame on a line that does not open a report */
	bool lockdep; /* the last line was lockdep's "stack backtrace:" */
	const char *machine; /* the first one its lines show, or NULL */
	/* Past CHUNK_MAX: its decoder, for the lines still to come. */
	struct ms_decoder *d;
	struct loaded loaded[NLOADED];
	size_t nloaded;
	uint64_t nreports;
};

/* Each distinct warning once a stream, however many reports give it. */
static void say(void *arg, const char *msg)
{
	struct stream *st = arg;

	if (ms_strset_add(&st->said, msg) != 0 && st->o->d.note)
		st->o->d.note(st->o->d.note_arg, msg);
	st->nsaid++;
}

/*
 * Whether a report that shows no machine is the live map's: the map has
 * a module its frames name, or they name none (raw addresses).
 */
static bool names_mapped(const struct ms_map *map, char *const *lines,
			 size_t n)
{
	bool named = false;

	for (size_t i = 0; i < n; i++) {
		struct ms_logframe f;

		for (size_t at = 0; ms_log_frame(lines[i], at, &f); at = f.end) {
			if (f.kind != MS_LOGFRAME_SYMBOL || !f.module[0])
				continue;
			if (ms_map_find(map, f.module))
				return true;
			named = true;
		}
	}
	return !named;
}

/*
 * The map of a report that shows machine (NULL: none), whose lines are
 * these: a copy of the one given, unless that is the live one and not of
 * the report (see below); else none, with modules looked for under the
 * host's release only for a report of the host's machine.
 */
static int report_map(struct stream *st, const char *machine,
		      char *const *lines, size_t n, struct ms_map **ret,
		      int *fi, struct ms_err *err)
{
	const struct ms_stream_opts *o = st->o;
	struct ms_map *map;
	bool host;

	/*
	 * The live map is this machine's: a report that shows another
	 * machine is not of it, nor one that shows none and names only
	 * modules it lacks (a lone trace of another machine's module,
	 * whose file then says what it is).
	 */
	if (o->map &&
	    (o->map_for_all ||
	     (machine ? !ms_machine_other(o->map->machine, machine) :
			names_mapped(o->map, lines, n)))) {
		*fi = FI_MAP;
		return ms_map_dup_modules(o->map, ret, err);
	}
	host = o->host_release && !ms_machine_other(o->host_machine, machine);
	*fi = host ? FI_HOST : FI_NONE;
	map = calloc(1, sizeof(*map));
	if (!map || !(map->origin = strdup("no map")) ||
	    (machine && !(map->machine = strdup(machine))) ||
	    (host && !(map->release = strdup(o->host_release)))) {
		ms_map_free(map);
		return ms_err_errno(err, ENOMEM, "decode");
	}
	*ret = map;
	return 0;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * The finder for a map: its release's, preferring the files of machine
 * (its own, in a string that outlives the stream: the map given's, or
 * ms_log_machine's).
 */
static int finder(struct stream *st, int which, const struct ms_map *map,
		  const char *machine, struct ms_finder **ret,
		  struct ms_err *err)
{
	struct finder *f = NULL;
	int r;

	for (size_t i = 0; !f && i < st->nfi; i++)
		if (st->fi[i].which == which && same(st->fi[i].machine, machine))
			f = &st->fi[i];
	if (!f) {
		if (st->nfi == NFINDERS)
			return ms_err_set(err, E2BIG, "decode: more than %d machines",
					  NFINDERS);
		f = &st->fi[st->nfi];
		r = ms_finder_new(st->ctx, map->release, &f->fi, err);
		if (r)
			return r;
		f->which = which;
		f->machine = machine;
		ms_finder_prefer(f->fi, machine);
		st->nfi++;
	}
	*ret = f->fi;
	return 0;
}

static void unload(struct stream *st, struct loaded *l)
{
	if (!st->index_rc)
		st->index_rc = ms_lazy_index_error(l->z, &st->index_err);
	ms_lazy_free(l->z);
	ms_map_free(l->map);
	*l = st->loaded[--st->nloaded];
}

/*
 * The decoder's map and symbolizer: a loaded one of the same content, or
 * its own map (which st takes) with a symbolizer made for it.
 */
static int load(struct stream *st, struct ms_finder *fi, struct ms_map *map,
		const struct ms_decode_opts *o, struct ms_err *err)
{
	struct loaded *l = NULL;
	int r;

	st->nreports++;
	for (size_t i = 0; !l && i < st->nloaded; i++)
		if (st->loaded[i].fi == fi && ms_map_same(st->loaded[i].map, map))
			l = &st->loaded[i];
	if (l) {
		ms_map_free(map);
	} else {
		if (st->nloaded == NLOADED) {
			size_t old = 0;

			for (size_t i = 1; i < st->nloaded; i++)
				if (st->loaded[i].used < st->loaded[old].used)
					old = i;
			unload(st, &st->loaded[old]);
		}
		l = &st->loaded[st->nloaded];
		*l = (struct loaded){ .fi = fi, .map = map };
		r = ms_decode_lazy(map, fi, o, &l->z, err);
		if (r) {
			ms_map_free(map);
			return r;
		}
		st->nloaded++;
	}
	l->used = st->nreports;
	ms_decoder_attach(st->d, l->map, l->z);
	return 0;
}

/* The decoder of the report held, over its own map. */
static int open_report(struct stream *st, char **parse, struct ms_err *err)
{
	struct ms_decode_opts dopt = st->o->d;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	int which, r;

	dopt.machine = st->machine;
	dopt.ix_pool = st->pool;
	dopt.note = say;
	dopt.note_arg = st;
	r = report_map(st, st->machine, parse, st->n, &map, &which, err);
	if (!r)
		r = finder(st, which, map,
			   which == FI_MAP ? st->o->map->machine : st->machine,
			   &fi, err);
	if (!r)
		r = ms_decoder_new(map, fi, &dopt, parse, st->n, &st->d, err);
	if (r) {
		ms_map_free(map);
		return r;
	}
	return load(st, fi, map, &dopt, err);
}

/* Decodes the lines held into out, and keeps the decoder for more. */
static int decode_held(struct stream *st, struct ms_err *err)
{
	char **parse = calloc(st->n + 1, sizeof(*parse));
	int r = parse ? 0 : ms_err_errno(err, ENOMEM, "decode");

	for (size_t i = 0; !r && i < st->n; i++) {
		st->v[i].text = st->data + (uintptr_t)st->v[i].text;
		parse[i] = st->data + st->parse_off[i];
	}
	if (!r)
		r = open_report(st, parse, err);
	for (size_t i = 0; !r && i < st->n; i++)
		r = ms_decoder_line(st->d, st->out, &st->v[i], parse[i], false,
				    err);
	free(parse);
	st->n = st->len = 0;
	return r;
}

/* The report's decoder, done with. */
static void drop_report(struct stream *st)
{
	ms_decoder_free(st->d);
	st->d = NULL;
	st->n = st->len = 0;
	st->body = false;
	st->machine = NULL;
}

/* The report ends: what is held is decoded, and the next starts afresh. */
static int close_report(struct stream *st, struct ms_err *err)
{
	int r = st->n ? decode_held(st, err) : 0;

	drop_report(st);
	return r;
}

static bool put(struct stream *st, const char *p, size_t n)
{
	if (ms_reserve(&st->data, &st->cap, st->len + n, 1, 65536))
		return false;
	memcpy(st->data + st->len, p, n);
	st->data[st->len + n] = '\0';
	st->len += n + 1;
	return true;
}

/* Holds a line (its text an offset into data until decode_held). */
static int hold(struct stream *st, const struct ms_line *ln, const char *text,
		struct ms_err *err)
{
	struct ms_line l = *ln;
	size_t off = st->len;

	if (ms_reserve(&st->v, &st->vcap, st->n, sizeof(*st->v), 256) ||
	    ms_reserve(&st->parse_off, &st->pcap, st->n,
		       sizeof(*st->parse_off), 256) ||
	    !put(st, ln->text, ln->len) ||
	    (text != ln->text && !put(st, text, strlen(text))))
		return ms_err_errno(err, ENOMEM, "decode");
	st->parse_off[st->n] = text == ln->text ? off : off + ln->len + 1;
	l.text = (char *)(uintptr_t)off;
	st->v[st->n++] = l;
	return 0;
}

static void pass(struct stream *st, const struct ms_line *ln)
{
	fwrite(ln->text, 1, ln->len, st->out);
	if (ln->newline)
		fputc('\n', st->out);
}

/* One line of the stream: text is ln as the parser reads it. */
static int feed(struct stream *st, const struct ms_line *ln, const char *text,
		struct ms_err *err)
{
	struct ms_logframe f;
	bool start = !ln->piece && ms_log_report_start(text);
	bool frame = !ln->piece && ms_log_frame(text, 0, &f);
	const char *shows = ln->piece ? NULL : ms_log_machine(text);
	int r = 0;

	/* A report opens after one with frames: that one is done. */
	if (start && st->body && !st->lockdep)
		r = close_report(st, err);
	st->lockdep = !ln->piece && ms_log_lockdep_stack(text);
	if (r)
		return r;
	if (!st->machine)
		st->machine = shows;
	if (st->d) {
		r = ms_decoder_line(st->d, st->out, ln, text, true, err);
	} else if (st->n || frame || shows ||
		   (!ln->piece && ms_log_trace_start(text))) {
		r = hold(st, ln, text, err);
		if (!r && st->len > CHUNK_MAX)
			r = decode_held(st, err);
	} else {
		pass(st, ln);
	}
	st->body |= frame && !start;
	if (!r && !ln->piece && ms_log_report_end(text))
		r = close_report(st, err);
	return r;
}

int ms_decode_stream(const struct ms_ctx *ctx, struct ms_lines *in, FILE *out,
		     const struct ms_stream_opts *o, struct ms_stream_res *res,
		     struct ms_err *err)
{
	struct stream st = { .ctx = ctx, .o = o, .out = out };
	char *scratch = NULL;
	size_t cap = 0;
	struct ms_line ln;
	int r;

	r = ms_ixpool_new(&st.pool, err);
	while (!r && (r = ms_lines_next(in, &ln, err)) == 1) {
		const char *text = ln.piece ? "" :
					      ms_decode_text(&ln, &scratch, &cap);

		r = text ? feed(&st, &ln, text, err) :
			   ms_err_errno(err, ENOMEM, "decode");
		if (r)
			break;
		/* From a pipe (dmesg -w), each line as soon as it can be. */
		if (!ms_lines_regular(in) && !st.n)
			fflush(out);
	}
	if (!r)
		r = close_report(&st, err);
	drop_report(&st);
	while (st.nloaded)
		unload(&st, &st.loaded[0]);
	res->unannotated = st.nsaid;
	res->index_rc = st.index_rc;
	res->index_err = st.index_err;
	for (size_t i = 0; i < st.nfi; i++)
		ms_finder_free(st.fi[i].fi);
	ms_strset_free(&st.said);
	ms_ixpool_free(st.pool);
	free(scratch);
	free(st.data);
	free(st.v);
	free(st.parse_off);
	return r;
}
