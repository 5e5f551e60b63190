// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live section map, from /sys/module/<m>/sections/ (since 2.6.8),
 * /sys/module/<m>/notes/ and /proc/kallsyms, all under the context's root.
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

#include "map.h"

/* A module that keeps changing while we read it is given up after this. */
#define MAX_TRIES 20
/* Rounds of sections, kallsyms, sections before a module is left out. */
#define RECHECK_TRIES 2

/*
 * Section files must be read with one read() at offset 0: the kernel's
 * module_sect_read() returns -EINVAL for any other offset (6.1,
 * kernel/module/sysfs.c), so stdio's buffered reads would lose data.
 */
static int read_small(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	return (int)n;
}

static char *strip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static int parse_addr(const char *s, uint64_t *ret)
{
	char *end;

	errno = 0;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -EINVAL;
	*ret = strtoull(s, &end, 16);
	if (errno || end == s + 2 || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static void free_sections(struct ms_section *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

/* One pass over sections/; returns -ENOENT if the module went away. */
static int read_sections_once(int secfd, const char *mod,
			      struct ms_section **ret, size_t *n_ret,
			      struct ms_err *err)
{
	struct ms_section *secs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0, dfd;
	DIR *d;

	dfd = openat(secfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char buf[64];
		uint64_t addr;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		r = read_small(secfd, de->d_name, buf, sizeof(buf));
		if (r == -EACCES || r == -EPERM) {
			ms_err_errno(
				err, -r,
				"cannot read /sys/module/%s/sections/%s (reading section addresses needs root)",
				mod, de->d_name);
			break;
		}
		if (r < 0)
			break;
		if (parse_addr(buf, &addr) < 0) {
			r = ms_err_set(
				err, EINVAL,
				"/sys/module/%s/sections/%s: not an address: \"%.40s\"",
				mod, de->d_name, strip(buf));
			break;
		}
		if (n == cap) {
			struct ms_section *ns;

			cap = cap ? 2 * cap : 32;
			ns = realloc(secs, cap * sizeof(*ns));
			if (!ns) {
				r = -ENOMEM;
				break;
			}
			secs = ns;
		}
		secs[n].addr = addr;
		if (!(secs[n].name = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		n++;
		r = 0;
	}
	closedir(d);
	if (r < 0) {
		free_sections(secs, n);
		return r;
	}
	*ret = secs;
	*n_ret = n;
	return 0;
}

static int cmp_sec(const void *a, const void *b)
{
	return strcmp(((const struct ms_section *)a)->name,
		      ((const struct ms_section *)b)->name);
}

static bool same_sections(struct ms_section *a, size_t na, struct ms_section *b,
			  size_t nb)
{
	if (na != nb)
		return false;
	if (na == 0)
		return true;
	qsort(a, na, sizeof(*a), cmp_sec);
	qsort(b, nb, sizeof(*b), cmp_sec);
	for (size_t i = 0; i < na; i++)
		if (a[i].addr != b[i].addr || strcmp(a[i].name, b[i].name))
			return false;
	return true;
}

static char *read_text(int modfd, const char *name)
{
	char buf[256];

	if (read_small(modfd, name, buf, sizeof(buf)) < 0)
		return NULL;
	return strdup(strip(buf));
}

/* notes/.note.gnu.build-id and /sys/kernel/notes hold raw ELF notes. */
static char *read_build_id_file(int dirfd, const char *name)
{
	char buf[4096];
	int n = read_small(dirfd, name, buf, sizeof(buf));

	return n > 0 ? ms_notes_build_id(buf, (size_t)n) : NULL;
}

/*
 * Reads one module until two passes agree: -ENOENT if it has no sections/
 * (built in, or not loaded), -ESRCH if it was unloaded while we read it.
 */
static int read_module(int sysmod, const char *name, struct ms_module *m,
		       struct ms_err *err)
{
	int modfd, secfd, r = -EAGAIN;
	struct stat st;

	memset(m, 0, sizeof(*m));
	modfd = openat(sysmod, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (modfd < 0)
		return -errno;
	secfd = openat(modfd, "sections", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (secfd < 0 || fstat(secfd, &st) < 0) {
		r = -errno;
		if (secfd >= 0)
			close(secfd);
		close(modfd);
		return r;
	}
	for (int tries = 0; tries < MAX_TRIES && r == -EAGAIN; tries++) {
		struct ms_section *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		char *st1 = read_text(modfd, "initstate");
		char *bid =
			read_build_id_file(modfd, "notes/.note.gnu.build-id");
		char *src = read_text(modfd, "srcversion");
		char *st2;

		r = read_sections_once(secfd, name, &a, &na, err);
		if (!r)
			r = read_sections_once(secfd, name, &b, &nb, err);
		/* Its sections/ was there a moment ago: it was unloaded. */
		if (r == -ENOENT || r == -ENODEV)
			r = -ESRCH;
		st2 = read_text(modfd, "initstate");
		/* initstate is missing on old kernels: NULL twice is the same. */
		if (!r && ((!st1 != !st2) || (st1 && strcmp(st1, st2)) ||
			   !same_sections(a, na, b, nb)))
			r = -EAGAIN;
		free_sections(b, nb);
		free(st2);
		if (r) {
			free_sections(a, na);
			free(st1);
			free(bid);
			free(src);
			continue;
		}
		if (na == 0) {
			/* An empty sections/ is a module being torn down. */
			free(a);
			free(st1);
			free(bid);
			free(src);
			r = -ESRCH;
			break;
		}
		m->initstate = st1;
		m->build_id = bid;
		m->srcversion = src;
		m->sections = a;
		m->nsections = na;
		m->load_id = st.st_ino;
	}
	close(secfd);
	close(modfd);
	if (r == -EAGAIN)
		return ms_err_set(
			err, EAGAIN,
			"module %s kept changing while it was read (loaded and unloaded %d times); try again",
			name, MAX_TRIES);
	if (r)
		return r;
	if (!(m->name = strdup(name)))
		return -ENOMEM;
	return 0;
}

/* Release and machine from /proc, the kernel's build-id from /sys/kernel/notes. */
static void read_kernel(const char *root, struct ms_map *map)
{
	char path[4096], buf[256];
	int dfd;

	snprintf(path, sizeof(path), "%s/sys/kernel", root);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		map->kernel_build_id = read_build_id_file(dfd, "notes");
		close(dfd);
	}

	snprintf(path, sizeof(path), "%s/proc/sys/kernel", root);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (read_small(dfd, "osrelease", buf, sizeof(buf)) > 0)
			map->release = strdup(strip(buf));
		if (read_small(dfd, "arch", buf, sizeof(buf)) > 0)
			map->machine = strdup(strip(buf));
		close(dfd);
	}
	if (!*root && (!map->release || !map->machine)) {
		struct utsname u;

		if (uname(&u) == 0) {
			if (!map->release)
				map->release = strdup(u.release);
			if (!map->machine)
				map->machine = strdup(u.machine);
		}
	}
}

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
			if (core && ms_map_add_core(map, name, addr, type) < 0)
				r = -ENOMEM;
		} else if ((m = ms_map_find(map, mod))) {
			r = ms_module_add_ksym(&into[m - map->modules], name, addr, type);
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
 * The inode of /sys/module/NAME/sections: kernfs gives every new directory
 * a new inode number, so it names one load of the module. -errno if gone.
 */
static int sections_ino(int sysmod, const char *name, uint64_t *ino)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sections", name);
	if (fstatat(sysmod, path, &st, 0) < 0)
		return -errno;
	*ino = st.st_ino;
	return 0;
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
static int read_kallsyms(const char *root, int sysmod, struct ms_map *map,
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

static int add_vanished(struct ms_map *map, const char *name)
{
	char **n;

	if (ms_grow(&map->vanished, map->nvanished, sizeof(*n), 4))
		return -ENOMEM;
	n = map->vanished;
	if (!(n[map->nvanished] = strdup(name)))
		return -ENOMEM;
	map->nvanished++;
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
static int recheck(const char *root, int sysmod, struct ms_map *map,
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
				r = read_module(sysmod, m->name, &fresh, err);
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

static int add_module(struct ms_map *map, int sysmod, const char *name,
		      size_t *cap, struct ms_err *err)
{
	int r;

	if (map->nmodules == *cap) {
		struct ms_module *n;

		*cap = *cap ? 2 * *cap : 64;
		n = realloc(map->modules, *cap * sizeof(*n));
		if (!n)
			return ms_err_errno(err, ENOMEM, "reading modules");
		map->modules = n;
	}
	r = read_module(sysmod, name, &map->modules[map->nmodules], err);
	if (r == 0)
		map->nmodules++;
	return r;
}

static void normalize(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

int ms_map_read_live(const struct ms_ctx *ctx, const char *only_module,
		     unsigned int flags, struct ms_map **ret,
		     struct ms_err *err)
{
	const char *root = ms_ctx_root(ctx);
	struct ms_map *map = calloc(1, sizeof(*map));
	char path[4096];
	size_t cap = 0;
	int sysmod, r = 0;

	if (!map || !(map->origin = strdup(*root ? root : "live system"))) {
		free(map);
		return ms_err_errno(err, ENOMEM, "reading modules");
	}
	snprintf(path, sizeof(path), "%s/sys/module", root);
	sysmod = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sysmod < 0) {
		r = ms_err_errno(err, errno, "cannot open %s", path);
		goto out;
	}
	read_kernel(root, map);
	if (only_module) {
		char *name = strdup(only_module);

		if (!name) {
			r = -ENOMEM;
			goto out;
		}
		/* /sys/module names use KBUILD_MODNAME, with underscores. */
		normalize(name);
		r = add_module(map, sysmod, name, &cap, err);
		if (r == -ENOENT || r == -ENOTDIR)
			r = ms_err_set(
				err, ENOENT,
				"module %s is not loaded (no %s/%s/sections)",
				only_module, path, name);
		else if (r == -ESRCH)
			r = add_vanished(map, name); /* said below */
		else if (r && !err->msg[0])
			r = ms_err_errno(err, -r, "reading module %s", name);
		free(name);
	} else {
		DIR *d = fdopendir(dup(sysmod));
		struct dirent *de;
		char sec[NAME_MAX + sizeof("/sections")];

		if (!d) {
			r = ms_err_errno(err, errno, "cannot read %s", path);
			goto out;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			err->msg[0] = '\0';
			/*
			 * Most directories are built-in modules', with no
			 * sections/: two checks each, not an open of each
			 * directory (a third of decode's system calls).
			 */
			if (snprintf(sec, sizeof(sec), "%s/sections",
				     de->d_name) < (int)sizeof(sec) &&
			    faccessat(sysmod, sec, F_OK, 0) != 0 &&
			    errno == ENOENT &&
			    faccessat(sysmod, de->d_name, F_OK, 0) == 0)
				continue;
			r = add_module(map, sysmod, de->d_name, &cap, err);
			/*
			 * No sections/ is a built-in module; no directory at
			 * all any more, one unloaded since readdir(). A module
			 * unloaded while we read is left out whole, never
			 * half-listed, and named in map->vanished.
			 */
			if ((r == -ENOENT || r == -ENOTDIR) &&
			    faccessat(sysmod, de->d_name, F_OK, 0) == 0)
				r = 0;
			else if (r == -ENOENT || r == -ESRCH)
				r = add_vanished(map, de->d_name);
			if (r) {
				if (!err->msg[0])
					ms_err_errno(err, -r,
						     "reading module %s",
						     de->d_name);
				break;
			}
		}
		closedir(d);
	}
	if (!r)
		r = ms_map_finish(map, err);
	if (!r)
		r = read_kallsyms(root, sysmod, map, flags & MS_READ_CORE, err);
	if (!r)
		r = recheck(root, sysmod, map, only_module, err);
	if (!r && only_module && map->nvanished)
		r = ms_err_set(
			err, ENOENT,
			"module %s was unloaded while it was read; try again if it is loaded again",
			only_module);
	if (!r)
		r = ms_map_finish(map, err); /* sorts core symbols, sections */
out:
	if (sysmod >= 0)
		close(sysmod);
	if (r) {
		ms_map_free(map);
		return r;
	}
	*ret = map;
	return 0;
}
