// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Debug info that provably belongs to the loaded module. Distributions
 * ship modules stripped and put the DWARF elsewhere; a wrong build gives
 * plausible, wrong answers, so every candidate is checked against the
 * loaded module before it is used, and every one passed over is recorded
 * with the reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"

struct search {
	const struct ms_ctx *ctx;
	struct ms_finder *fi;
	const struct ms_module *mod;
	const struct ms_modfile *modfile;
	const char *want_bid; /* the build-id a candidate must have, or NULL */
	enum ms_verify chain; /* how want_bid itself was verified */
	struct ms_debuginfo *d;
	struct ms_err *err;
};

const char *ms_dsource_str(enum ms_dsource s)
{
	static const char *const names[] = {
		[MS_DS_NONE] = "-",
		[MS_DS_DEBUG_FILE] = "debug-file",
		[MS_DS_DEBUG_DIR] = "debug-dir",
		[MS_DS_SYSTEM] = "system",
		[MS_DS_MODULE] = "module",
		[MS_DS_DEBUGINFOD] = "debuginfod",
	};

	return names[s];
}

void ms_debuginfo_free(struct ms_debuginfo *d)
{
	if (!d)
		return;
	if (d->owned)
		ms_modfile_free(d->file);
	for (size_t i = 0; i < d->nskipped; i++) {
		free(d->skipped[i].path);
		free(d->skipped[i].reason);
	}
	free(d->skipped);
	free(d);
}

static int skip(struct search *s, const char *path, const char *reason)
{
	struct ms_debuginfo *d = s->d;
	struct ms_skip *n = realloc(d->skipped, (d->nskipped + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	d->skipped = n;
	n[d->nskipped].path = strdup(path);
	n[d->nskipped].reason = strdup(reason);
	if (!n[d->nskipped].path || !n[d->nskipped].reason)
		return -ENOMEM;
	d->nskipped++;
	return 0;
}

/*
 * Whether f is debug info of the loaded module. The map's build-id is the
 * proof; without one, the module file's build-id ties the debug file to
 * a file that was itself checked, else srcversion.
 */
static int check(struct search *s, const struct ms_modfile *f,
		 enum ms_verify *ret, struct ms_err *why)
{
	const char *bid = ms_modfile_build_id(f);

	if (!ms_modfile_has_dwarf(f))
		return ms_err_kind(why, MS_E_REFUSED, ENODATA,
				   "no DWARF (.debug_info)");
	if (s->want_bid && s->mod->build_id)
		return ms_verify_file(s->mod, f, ret, why);
	if (s->want_bid) {
		if (!bid || strcmp(bid, s->want_bid))
			return ms_err_kind(
				why, MS_E_REFUSED, EBADMSG,
				"build-id %s, but module file %s has %s",
				bid ? bid : "(none)",
				ms_modfile_path(s->modfile), s->want_bid);
		*ret = s->chain;
		return 0;
	}
	return ms_verify_file(s->mod, f, ret, why);
}

/* 1: taken, 0: not there or skipped, <0: error. */
static int try_path(struct search *s, const char *path, enum ms_dsource src)
{
	struct ms_modfile *f;
	struct ms_err ferr = { 0 };
	enum ms_verify v = MS_UNVERIFIED;
	struct stat st;
	int r;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ms_finder_open_file(s->fi, path, &f, &ferr) < 0)
		return skip(s, path, ferr.msg);
	r = check(s, f, &v, &ferr);
	if (r) {
		ms_modfile_free(f);
		return skip(s, path, ferr.msg);
	}
	s->d->file = f;
	s->d->owned = true;
	s->d->source = src;
	s->d->verify = v;
	return 1;
}

/* DIR/.build-id/xx/rest.debug, then DIR/[lib/modules/REL/]RELPATH[.debug]. */
static int try_dir(struct search *s, const char *dir, const char *relpath,
		   const char *release, enum ms_dsource src)
{
	const char *bid = s->want_bid;
	char *path;
	int r = 0;

	if (bid && strlen(bid) > 2) {
		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", dir, bid,
			     bid + 2) < 0)
			return -ENOMEM;
		r = try_path(s, path, src);
		free(path);
	}
	for (int i = 0; relpath && r == 0 && i < 4; i++) {
		bool in_tree = i < 2, dbg = i % 2;

		if (in_tree && !release)
			continue;
		if (asprintf(&path, "%s%s%s%s%s%s", dir,
			     in_tree ? "/lib/modules/" : "",
			     in_tree ? release : "", "/", relpath,
			     dbg ? ".debug" : "") < 0)
			return -ENOMEM;
		r = try_path(s, path, src);
		free(path);
	}
	return r;
}

/* The module's path below the module directory, without compression. */
static char *relative_path(const struct ms_modfile *f, const char *moddir)
{
	const char *p = ms_modfile_path(f);
	size_t n = moddir ? strlen(moddir) : 0;
	char *rel, *dot;

	if (n && strncmp(p, moddir, n) == 0 && p[n] == '/')
		rel = strdup(p + n + 1);
	else
		rel = strdup(strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
	if (rel && (dot = strstr(rel, ".ko.")))
		dot[3] = '\0';
	return rel;
}

static int try_debuginfod(struct search *s)
{
	struct ms_err derr = { 0 };
	unsigned char id[64];
	size_t len = s->want_bid ? strlen(s->want_bid) / 2 : 0;
	char *path = NULL;
	int r;

	if (!len || len > sizeof(id) || ms_ctx_offline(s->ctx))
		return 0;
	if (ms_hex_decode(s->want_bid, 2 * len, id))
		return 0;
	r = ms_finder_debuginfod(s->fi, id, len, &path, &derr);
	if (r < 0) {
		char why[256];

		if (r == -ENOSYS)
			return 0; /* no DEBUGINFOD_URLS */
		snprintf(why, sizeof(why), "build-id %s: %s", s->want_bid,
			 r == -ENOENT ? "not on the servers" : strerror(-r));
		return skip(s, "debuginfod", why);
	}
	r = try_path(s, path, MS_DS_DEBUGINFOD);
	free(path);
	return r;
}

static int find(struct search *s, const char *moddir, const char *release,
		const char *debug_file, unsigned int flags)
{
	const struct ms_ctx *ctx = s->ctx;
	char *rel = s->modfile ? relative_path(s->modfile, moddir) : NULL;
	char sysdir[4096];
	int r = 0;

	if (debug_file) {
		struct ms_modfile *f;
		struct ms_err why = { 0 };
		enum ms_verify v = MS_UNVERIFIED;

		r = ms_modfile_open(ctx, debug_file, &f, s->err);
		if (r) {
			/* A file the user named is refused, not "not found". */
			ms_err_prefix(s->err, "--debug-file");
			ms_err_rekind(s->err, MS_E_REFUSED);
			r = -EINVAL; /* not the -ENOENT of "none found" */
			goto out;
		}
		if (check(s, f, &v, &why)) {
			if (!(flags & MS_DEBUG_FORCE)) {
				ms_modfile_free(f);
				r = ms_err_kind(
					s->err, MS_E_REFUSED, EBADMSG,
					"--debug-file %s: %s; give the right file, or --force",
					debug_file, why.msg);
				goto out;
			}
			v = MS_FORCED;
		}
		s->d->file = f;
		s->d->owned = true;
		s->d->source = MS_DS_DEBUG_FILE;
		s->d->verify = v;
		r = 1;
	}
	for (size_t i = 0; r == 0 && i < ms_ctx_debug_dir_count(ctx); i++)
		r = try_dir(s, ms_ctx_debug_dir(ctx, i), rel, release,
			    MS_DS_DEBUG_DIR);
	snprintf(sysdir, sizeof(sysdir), "%s/usr/lib/debug", ms_ctx_root(ctx));
	if (r == 0)
		r = try_dir(s, sysdir, rel, release, MS_DS_SYSTEM);
	if (r == 0 && s->modfile && ms_modfile_has_dwarf(s->modfile)) {
		struct ms_err why = { 0 };

		s->d->file = (struct ms_modfile *)s->modfile;
		s->d->owned = false;
		s->d->source = MS_DS_MODULE;
		/* The layout refuses a mismatch unless --force. */
		if (ms_verify_file(s->mod, s->modfile, &s->d->verify, &why))
			s->d->verify = MS_FORCED;
		r = 1;
	}
	if (r == 0)
		r = try_debuginfod(s);
out:
	free(rel);
	if (r == -ENOMEM)
		return ms_err_errno(s->err, ENOMEM, "debug info");
	return r < 0 ? r : 0;
}

int ms_debuginfo_find(struct ms_finder *fi, const struct ms_module *mod,
		      const struct ms_modfile *modfile, const char *release,
		      const char *debug_file, unsigned int flags,
		      struct ms_debuginfo **ret, struct ms_err *err)
{
	const char *moddir = ms_finder_moddir(fi);
	struct search s = { .ctx = ms_finder_ctx(fi),
			    .fi = fi,
			    .mod = mod,
			    .modfile = modfile,
			    .err = err };
	struct ms_err why = { 0 }; /* a mismatch the layout says itself */
	int r;

	s.d = calloc(1, sizeof(*s.d));
	if (!s.d)
		return ms_err_errno(err, ENOMEM, "debug info");
	s.d->verify = MS_UNVERIFIED;
	if (mod->build_id) {
		s.want_bid = mod->build_id;
		s.chain = MS_VERIFIED_BUILD_ID;
	} else if (modfile && ms_modfile_build_id(modfile)) {
		s.want_bid = ms_modfile_build_id(modfile);
		if (ms_verify_file(mod, modfile, &s.chain, &why))
			s.chain = MS_FORCED;
	} else if (modfile) {
		if (ms_verify_file(mod, modfile, &s.chain, &why))
			s.chain = MS_FORCED;
	}
	r = find(&s, moddir, release, debug_file, flags);
	if (r) {
		ms_debuginfo_free(s.d);
		return r;
	}
	*ret = s.d;
	return 0;
}
