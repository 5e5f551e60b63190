// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's index found in the cache and placed in the module's layout:
 * each index section's runtime address, and the loaded ones by address.
 *
 * The index is of the file libdwfl would read (the debug file, else the
 * module), named by its build-id and size. An index missing or damaged
 * is made by ixmake.c, above the symbolizer, which is then handed it
 * here (ix_adopt). An ms_ixpool keeps the indexes a run has opened and
 * checked for the symbolizers after (each report of a stream has its own).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbolize-int.h"

const struct ms_modfile *ix_source(const struct ms_layout *l)
{
	return l->debug && l->debug->file ? l->debug->file : l->file;
}

char *ix_path(const struct ms_layout *l, const char *dir, uint64_t *size_ret)
{
	const struct ms_modfile *f = ix_source(l);
	const char *bid = ms_modfile_build_id(f);
	struct stat st;
	char *path;

	if (!bid || stat(ms_modfile_debugger_path(f), &st) < 0)
		return NULL;
	*size_ret = (uint64_t)st.st_size;
	if (asprintf(&path, "%s/%s-%" PRIu64 ".ix", dir, bid, *size_ret) < 0)
		return NULL;
	return path;
}

int ix_adopt(struct smod *sm, struct ix *ix)
{
	const struct ms_layout *l = sm->l;

	sm->ix_base = malloc((ix->n[IX_SECS] + 1) * sizeof(*sm->ix_base));
	sm->ix_secs.v = calloc(ix->n[IX_SECS] + 1, sizeof(*sm->ix_secs.v));
	if (!sm->ix_base || !sm->ix_secs.v ||
	    ixlookup_init(ix, &sm->ix_lines) < 0) {
		ix_close(ix);
		ix_detach(sm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ix->n[IX_SECS]; i++) {
		const char *name = ix_str(ix, ix->secs[i].name);

		sm->ix_base[i] = IX_UNPLACED;
		for (size_t j = 0; j < l->nsecs; j++) {
			const struct ms_lsec *s = &l->secs[j];

			if (strcmp(s->name, name) ||
			    s->place != MS_PLACE_LOADED)
				continue;
			sm->ix_base[i] = s->addr;
			sm->ix_secs.v[sm->ix_secs.n++] = (struct ixsec){
				s->addr, ix->secs[i].size, (uint16_t)i
			};
			break;
		}
	}
	ixsecs_sort(&sm->ix_secs);
	sm->ix = ix;
	return 0;
}

/* An index file opened and checked, kept for the symbolizers after. */
struct pooled {
	char *path;
	struct stat id; /* the file's identity when it was checked */
	struct ix *ix; /* one reference the pool's */
};

struct ms_ixpool {
	struct pooled *v;
	size_t n, cap;
};

int ms_ixpool_new(struct ms_ixpool **ret, struct ms_err *err)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : ms_err_errno(err, ENOMEM, "index pool");
}

void ms_ixpool_free(struct ms_ixpool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].path);
		ix_close(p->v[i].ix);
	}
	free(p->v);
	free(p);
}

/*
 * The index at path, from the pool if it holds this very file (checked
 * once a run: a stream's reports name the same modules again), else
 * opened, checked and pooled. A reference for the caller.
 */
static int ix_get(struct ms_ixpool *pool, const char *path, const char *bid,
		  uint64_t size, struct ix **ret, struct ms_err *err)
{
	struct stat st;
	int r;

	if (!pool)
		return ix_open(path, bid, size, ret, err);
	if (stat(path, &st) < 0)
		return ms_err_errno(err, errno, "index %s", path);
	for (size_t i = 0; i < pool->n; i++)
		if (strcmp(pool->v[i].path, path) == 0 &&
		    ms_stat_same(&pool->v[i].id, &st)) {
			pool->v[i].ix->refs++;
			*ret = pool->v[i].ix;
			return 0;
		}
	r = ix_open(path, bid, size, ret, err);
	if (r || ms_reserve(&pool->v, &pool->cap, pool->n, sizeof(*pool->v),
			    16))
		return r;
	pool->v[pool->n].path = strdup(path);
	if (!pool->v[pool->n].path)
		return 0; /* not pooled, still the caller's */
	pool->v[pool->n].id = st;
	pool->v[pool->n++].ix = *ret;
	(*ret)->refs++;
	return 0;
}

int ix_attach(struct smod *sm, const char *dir, struct ms_ixpool *pool)
{
	const char *bid = ms_modfile_build_id(ix_source(sm->l));
	struct ms_err err = { 0 };
	uint64_t size;
	char *path = ix_path(sm->l, dir, &size);
	struct ix *ix = NULL;
	int r;

	if (!path)
		return 0;
	/* Missing or damaged: made anew on first use. */
	r = ix_get(pool, path, bid, size, &ix, &err);
	free(path);
	sm->ix_want = r != 0;
	if (r)
		return 0;
	r = ix_adopt(sm, ix);
	return r < 0 ? r : 1;
}

void ix_detach(struct smod *sm)
{
	ix_close(sm->ix);
	free(sm->ix_base);
	ixsecs_free(&sm->ix_secs);
	ixlookup_free(&sm->ix_lines);
	sm->ix = NULL;
	sm->ix_base = NULL;
}
