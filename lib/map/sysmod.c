// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One module of the live map: /sys/module/<m>/sections/ (since 2.6.8) and
 * notes/, read until two reads agree.
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
/* A module's directory or file gone: it was not loaded, or unloaded. */
static bool gone(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -ENODEV;
}

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
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		return gone(r) ? r :
				 ms_err_errno(err, -r,
					      "cannot read /sys/module/%s/sections",
					      mod);
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
		if (r < 0) {
			if (!gone(r))
				ms_err_errno(err, -r,
					     "cannot read /sys/module/%s/sections/%s",
					     mod, de->d_name);
			break;
		}
		if (parse_addr(buf, &addr) < 0) {
			r = ms_err_set(
				err, EINVAL,
				"/sys/module/%s/sections/%s: not an address: \"%.40s\"",
				mod, de->d_name, strip(buf));
			break;
		}
		if (ms_reserve(&secs, &cap, n, sizeof(*secs), 32) ||
		    !(secs[n].name = strdup(de->d_name))) {
			r = ms_err_errno(err, ENOMEM, "reading module %s", mod);
			break;
		}
		secs[n].addr = addr;
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

bool sysfs_big_endian(const struct ms_map *map)
{
	const struct ms_arch *a =
		map->machine ? ms_arch_of_machine(map->machine) : NULL;

	return a ? a->data == ELFDATA2MSB : MS_HOST_BIG_ENDIAN;
}

/*
 * notes/.note.gnu.build-id and /sys/kernel/notes hold raw ELF notes, in
 * the kernel's byte order. NULL if none (or no memory: then the module
 * is checked by srcversion, as without one).
 */
static char *read_build_id_file(int dirfd, const char *name, bool big_endian)
{
	char buf[4096], *bid = NULL;
	int n = read_small(dirfd, name, buf, sizeof(buf));

	if (n > 0)
		ms_notes_build_id(buf, (size_t)n, big_endian, &bid);
	return bid;
}

/*
 * Reads one module until two passes agree: -ENOENT if it has no sections/
 * (built in, or not loaded), -ESRCH if it was unloaded while we read it.
 */
int read_module(int sysmod, const char *name, bool big_endian,
		struct ms_module *m, struct ms_err *err)
{
	int modfd, secfd, r = -EAGAIN;
	struct stat st;

	memset(m, 0, sizeof(*m));
	modfd = openat(sysmod, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (modfd < 0)
		return gone(-errno) ? -errno :
				      ms_err_errno(err, errno,
						   "cannot open /sys/module/%s",
						   name);
	secfd = openat(modfd, "sections", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (secfd < 0 || fstat(secfd, &st) < 0) {
		r = -errno;
		if (secfd >= 0)
			close(secfd);
		close(modfd);
		return gone(r) ? r :
				 ms_err_errno(err, -r,
					      "cannot open /sys/module/%s/sections",
					      name);
	}
	for (int tries = 0; tries < MAX_TRIES && r == -EAGAIN; tries++) {
		struct ms_section *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		char *st1 = read_text(modfd, "initstate");
		char *bid = read_build_id_file(
			modfd, "notes/.note.gnu.build-id", big_endian);
		char *src = read_text(modfd, "srcversion");
		char *st2;

		r = read_sections_once(secfd, name, &a, &na, err);
		if (!r)
			r = read_sections_once(secfd, name, &b, &nb, err);
		/* Its sections/ was there a moment ago: it was unloaded. */
		if (gone(r))
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
		return ms_err_errno(err, ENOMEM, "reading module %s", name);
	return 0;
}

/*
 * The inode of /sys/module/NAME/sections: kernfs gives every new directory
 * a new inode number, so it names one load of the module. -errno if gone.
 */
int sections_ino(int sysmod, const char *name, uint64_t *ino)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sections", name);
	if (fstatat(sysmod, path, &st, 0) < 0)
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int add_vanished(struct ms_map *map, const char *name)
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

/*
 * Release and machine from /proc, then the kernel's build-id from
 * /sys/kernel/notes, in that machine's byte order.
 */
void read_kernel(const char *root, struct ms_map *map)
{
	char path[4096], buf[256];
	int dfd;

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
	snprintf(path, sizeof(path), "%s/sys/kernel", root);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		map->kernel_build_id =
			read_build_id_file(dfd, "notes", sysfs_big_endian(map));
		close(dfd);
	}
}
