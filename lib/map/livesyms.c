// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live map's kallsyms lines, read so that no module mixes two loads:
 * /proc/kallsyms against snapshots of /sys/module, and modules that
 * changed meanwhile read again (sysmod.c).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sysfs-int.h"

/*
 * A line in the kernel's own shape, "ffffffffc0a14000 t name\t[mod]\n"
 * (s_show() in kernel/kallsyms.c), split in place: the fields and count
 * that sscanf("%" SCNx64 " %c %511s [%255[^]]]") gives, which was most of
 * the time of reading 120k lines. -1, and the line untouched, for any
 * other shape, which is left to sscanf.
 */
static int parse_ksym(char *line, uint64_t *addr, char *type, char **name,
		      char **mod)
{
	const char *ws = " \t\n\v\f\r";
	char *p = line, *end, *close;
	uint64_t v = 0;
	size_t len;

	for (; ms_hexval(*p) >= 0 && p - line <= 16; p++)
		v = v << 4 | (uint64_t)ms_hexval(*p);
	if (p == line || p - line > 16 || p[0] != ' ' || p[1] <= ' ' ||
	    p[1] > '~' || p[2] != ' ')
		return -1;
	len = strcspn(p + 3, ws);
	end = p + 3 + len;
	if (len == 0 || len > 511)
		return -1;
	if (end[0] == '\n' && end[1] == '\0') {
		*end = '\0';
		*addr = v, *type = p[1], *name = p + 3;
		return 3;
	}
	if (end[0] != '\t' || end[1] != '[')
		return -1;
	close = strchr(end + 2, ']');
	if (!close || close == end + 2 || close - (end + 2) > 255 ||
	    strcmp(close, "]\n"))
		return -1;
	*end = *close = '\0';
	*addr = v, *type = p[1], *name = p + 3, *mod = end + 2;
	return 4;
}

/*
 * One read of /proc/kallsyms: core symbols into the map if core, module
 * symbols into into[i] for the map's module i. 1 if there is nothing to
 * read (no file, or hidden: all addresses zero).
 */
static int kallsyms_pass(const char *root, struct ms_map *map, bool core,
			 struct ms_module *into)
{
	char path[4096], line[1024];
	struct ms_err e = { 0 }; /* the caller says what failed */
	int r = 1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/kallsyms", root);
	f = fopen(path, "re");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		char sname[512], smod[256], *name = sname, *mod = smod, type;
		uint64_t addr;
		const struct ms_module *m;
		int n = parse_ksym(line, &addr, &type, &name, &mod);

		if (n < 0)
			n = sscanf(line, "%" SCNx64 " %c %511s [%255[^]]]",
				   &addr, &type, sname, smod);
		if (n < 3)
			continue;
		if (addr == 0 && type != 'A' && type != 'a') {
			r = 1; /* hidden: all are zero */
			break;
		}
		r = 0;
		if (n == 3) {
			if (core)
				r = ms_map_add_core(map, name, addr, type, &e);
		} else if ((m = ms_map_find(map, mod))) {
			r = ms_module_add_ksym(&into[m - map->modules], name,
					       addr, type, &e);
		}
		if (r)
			break;
	}
	fclose(f);
	return r;
}

static bool same_ksyms(const struct ms_module *a, const struct ms_module *b)
{
	if (a->nksyms != b->nksyms)
		return false;
	for (size_t i = 0; i < a->nksyms; i++)
		if (a->ksyms[i].addr != b->ksyms[i].addr ||
		    a->ksyms[i].type != b->ksyms[i].type ||
		    strcmp(a->ksyms[i].name, b->ksyms[i].name))
			return false;
	return true;
}

static void clear_ksyms(struct ms_module *m)
{
	for (size_t i = 0; i < m->nksyms; i++)
		free(m->ksyms[i].name);
	free(m->ksyms);
	m->ksyms = NULL;
	m->nksyms = 0;
}

/*
 * Which modules are loaded, as "name inode" lines of their sections/: two
 * equal snapshots mean no module with a sections/ came or went between
 * them, even one unloaded and loaded again. NULL on error.
 */
static char *loaded_snapshot(int sysmod)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	DIR *d = NULL;
	int fd = dup(sysmod);
	struct dirent *de;

	if (fd >= 0 && !(d = fdopendir(fd)))
		close(fd);
	while (out && d && (de = readdir(d))) {
		uint64_t ino;

		if (de->d_name[0] != '.' &&
		    sections_ino(sysmod, de->d_name, &ino) == 0)
			fprintf(out, "%s %" PRIu64 "\n", de->d_name, ino);
	}
	if (d)
		closedir(d);
	if (!out || fclose(out) != 0 || !d) {
		free(out ? buf : NULL);
		return NULL;
	}
	return buf;
}

/*
 * Module symbols from kallsyms give the per-cpu base, which sysfs does not
 * list (the loader clears SHF_ALLOC on .data..percpu before it creates the
 * section attributes). Unreadable or hidden kallsyms is not an error.
 *
 * The kernel finds each line of the module part by its position in the
 * module list: a module loaded or unloaded during the read shifts the
 * lines of every module after it, which are then skipped or listed twice.
 * So a read counts only if no module came or went during it (snapshots
 * before and after), and a module's lines only once two such reads in a
 * row agree (a module loaded and unloaded within one read leaves no trace
 * in the snapshots).
 */
int read_kallsyms(const char *root, int sysmod, struct ms_map *map,
			 bool core, struct ms_err *err)
{
	bool *settled = NULL, prev_clean = false;
	size_t left = map->nmodules;
	int r = 0;

	/* Nothing to collect: reading the file is 60 ms of kernel time. */
	if (!core && !map->nmodules)
		return 0;
	if (left && !(settled = calloc(left, sizeof(*settled))))
		return ms_err_errno(err, ENOMEM, "reading kallsyms");
	for (size_t i = 0; i < map->nmodules; i++)
		clear_ksyms(&map->modules[i]);
	for (int tries = 0; !r && tries <= MAX_TRIES; tries++) {
		struct ms_module *cur = NULL;
		char *before = loaded_snapshot(sysmod), *after;
		bool clean;

		if (tries == 0)
			r = kallsyms_pass(root, map, core, map->modules);
		else if (!(cur = calloc(map->nmodules, sizeof(*cur))))
			r = -ENOMEM;
		else
			r = kallsyms_pass(root, map, false, cur);
		after = loaded_snapshot(sysmod);
		clean = before && after && !strcmp(before, after);
		free(before);
		free(after);
		for (size_t i = 0; !r && cur && i < map->nmodules; i++) {
			struct ms_module *m = &map->modules[i];

			if (settled[i])
				continue;
			if (clean && prev_clean && same_ksyms(m, &cur[i])) {
				settled[i] = true;
				left--;
				continue;
			}
			clear_ksyms(m);
			m->ksyms = cur[i].ksyms;
			m->nksyms = cur[i].nksyms;
			cur[i].ksyms = NULL;
			cur[i].nksyms = 0;
		}
		for (size_t i = 0; cur && i < map->nmodules; i++)
			clear_ksyms(&cur[i]);
		free(cur);
		prev_clean = clean;
		if (!left)
			break;
	}
	/* 1: no kallsyms (unreadable or hidden): only what agreed stays. */
	for (size_t i = 0; r == 1 && i < map->nmodules; i++)
		if (!settled[i])
			clear_ksyms(&map->modules[i]);
	free(settled);
	if (r < 0)
		return ms_err_errno(err, -r, "reading kallsyms");
	if (r == 0 && left)
		return ms_err_set(
			err, EAGAIN,
			"/proc/kallsyms kept changing while it was read (modules loaded and unloaded during %d reads); try again",
			MAX_TRIES + 1);
	return 0;
}

/* Module i is gone: out of the map, into the list of vanished ones. */
static int drop_module(struct ms_map *map, size_t i)
{
	int r = add_vanished(map, map->modules[i].name);

	ms_module_clear(&map->modules[i]);
	memmove(&map->modules[i], &map->modules[i + 1],
		(map->nmodules - i - 1) * sizeof(*map->modules));
	map->nmodules--;
	return r;
}

/*
 * Is module m still the load we read (its sections/ the same directory)?
 * kallsyms was read after its sections: a module unloaded and loaded
 * again in between, even at the same addresses (A, B, A), has another
 * sections/. Returns 0 if the same, 1 if another load, -ESRCH if gone.
 */
static int still_same(int sysmod, const struct ms_module *m)
{
	uint64_t ino;

	if (sections_ino(sysmod, m->name, &ino) < 0)
		return -ESRCH;
	return ino == m->load_id ? 0 : 1;
}

/*
 * After kallsyms: modules that changed are read again, with kallsyms,
 * until a pass finds none changed; modules that went away, or were still
 * changing after RECHECK_TRIES rounds, are left out and named in
 * map->vanished. No module mixes two loads.
 */
int recheck(const char *root, int sysmod, struct ms_map *map,
		   bool single, struct ms_err *err)
{
	for (int tries = 0;; tries++) {
		bool changed = false;
		int r = 0;

		for (size_t i = map->nmodules; !r && i-- > 0;) {
			struct ms_module *m = &map->modules[i], fresh;

			r = still_same(sysmod, m);
			/*
			 * One that is loaded and unloaded all the time is left
			 * out after a few rounds, not the whole map.
			 */
			if (r == 1 && tries == RECHECK_TRIES && single) {
				return ms_err_set(
					err, EAGAIN,
					"module %s kept changing while it was read (loaded and unloaded %d times); try again",
					m->name, RECHECK_TRIES + 1);
			} else if (r == 1 && tries == RECHECK_TRIES) {
				r = -ESRCH;
			} else if (r == 1) {
				changed = true;
				r = read_module(sysmod, m->name,
						sysfs_big_endian(map), &fresh,
						err);
				if (!r) {
					ms_module_clear(m);
					*m = fresh;
				}
			}
			if (r == -ESRCH || r == -ENOENT || r == -ENOTDIR)
				r = drop_module(map, i);
		}
		if (r || !changed)
			return r;
		r = ms_map_finish(map, err);
		if (!r)
			r = read_kallsyms(root, sysmod, map, false, err);
		if (r)
			return r;
	}
}
