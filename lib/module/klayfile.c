// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file whose DWARF gives struct module's layout when the kernel has
 * no BTF (kernel/kdwarf.c reads it and checks it again): chosen here,
 * above kernel/, because the finder knows where files are. In order:
 *  - a module file of the --search trees with DWARF, the kernel's
 *    machine and a vermagic naming the kernel's release (a module built
 *    with debug info against its headers: small, read in milliseconds);
 *  - the kernel's debug vmlinux by its build-id in each --debug-dir and
 *    /usr/lib/debug (DIR/.build-id/xx/rest.debug), or by its release
 *    (DIR/boot/vmlinux-RELEASE, DIR/lib/modules/RELEASE/vmlinux: Debian's
 *    linux-image-*-dbg);
 *  - debuginfod by the kernel's build-id (not with --offline).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "finder-int.h"

/* Has the ELF file at path .debug_info, machine and vermagic's release? */
static bool usable(const char *path, const char *release, int machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	bool dwarf = false, rel = false;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;

	if (elf && gelf_getehdr(elf, &eh) && eh.e_machine == machine &&
	    !elf_getshdrstrndx(elf, &shstrndx))
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n =
				gelf_getshdr(scn, &sh) ?
					elf_strptr(elf, shstrndx, sh.sh_name) :
					NULL;
			Elf_Data *d;

			if (n && !strcmp(n, ".debug_info") &&
			    sh.sh_type != SHT_NOBITS)
				dwarf = true;
			if (!n || strcmp(n, ".modinfo") ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < d->d_size;) {
				const char *s = (const char *)d->d_buf + i;
				size_t len = strnlen(s, d->d_size - i);
				size_t rl = strlen(release);

				if (len > 9 + rl &&
				    !memcmp(s, "vermagic=", 9) &&
				    !memcmp(s + 9, release, rl) &&
				    s[9 + rl] == ' ')
					rel = true;
				i += len + 1;
			}
		}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return dwarf && rel;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A debug vmlinux in dir: by build-id, then by release. */
static int in_debug_dir(const char *dir, const char *release,
			const char *build_id, char **ret)
{
	const char *fmt[] = { "%s/.build-id/%.2s/%s.debug",
			      "%s/boot/vmlinux-%s",
			      "%s/lib/modules/%s/vmlinux" };

	for (size_t i = 0; i < 3; i++) {
		int n = i == 0 ? (build_id && strlen(build_id) > 2 ?
					  asprintf(ret, fmt[0], dir, build_id,
						   build_id + 2) :
					  0) :
				 asprintf(ret, fmt[i], dir, release);

		if (n < 0)
			return -ENOMEM;
		if (!n)
			continue;
		if (regular(*ret))
			return 0;
		free(*ret);
		*ret = NULL;
	}
	return -ENOENT;
}

static int debug_dirs(struct ms_finder *fi, const char *release,
		      const char *build_id, char **ret)
{
	size_t n = ms_ctx_debug_dir_count(fi->ctx);
	int r = -ENOENT;

	for (size_t i = 0; r == -ENOENT && i <= n; i++) {
		char *dir = NULL;

		if (i == n && asprintf(&dir, "%s/usr/lib/debug",
				       ms_ctx_root(fi->ctx)) < 0)
			return -ENOMEM;
		r = in_debug_dir(i < n ? ms_ctx_debug_dir(fi->ctx, i) : dir,
				 release, build_id, ret);
		free(dir);
	}
	return r;
}

static int from_debuginfod(struct ms_finder *fi, const char *build_id,
			   char **ret)
{
	unsigned char id[64];
	size_t len = build_id ? strlen(build_id) / 2 : 0;
	struct ms_err e = { 0 };

	if (!len || len > sizeof(id) || ms_ctx_offline(fi->ctx))
		return -ENOENT;
	for (size_t i = 0; i < len; i++)
		if (sscanf(build_id + 2 * i, "%2hhx", &id[i]) != 1)
			return -ENOENT;
	return ms_finder_debuginfod(fi, id, len, ret, &e) ? -ENOENT : 0;
}

int ms_layout_file_find(void *arg, const char *release, int elf_machine,
			const char *build_id, char **path_ret,
			struct ms_err *err)
{
	struct ms_finder *fi;
	size_t looked = 0;
	int r;

	elf_version(EV_CURRENT);
	r = ms_finder_new(arg, release, &fi, err);

	if (r)
		return r;
	r = index_search(fi, err);
	for (size_t i = 0; !r && i < fi->nentries; i++) {
		if (!usable(fi->entries[i].path, release, elf_machine)) {
			looked++;
			continue;
		}
		*path_ret = strdup(fi->entries[i].path);
		ms_finder_free(fi);
		return *path_ret ? 0 : ms_err_errno(err, ENOMEM, "layout file");
	}
	if (!r)
		r = debug_dirs(fi, release, build_id, path_ret);
	if (r == -ENOENT)
		r = from_debuginfod(fi, build_id, path_ret);
	ms_finder_free(fi);
	if (r == -ENOENT)
		return ms_err_set(
			err, ENOENT,
			"none of the %zu module files of the --search trees has DWARF and vermagic %s, no debug vmlinux is in --debug-dir or /usr/lib/debug%s",
			looked, release,
			build_id && !ms_ctx_offline(arg) ?
				", and debuginfod has none" :
				"");
	return r == -ENOMEM ? ms_err_errno(err, ENOMEM, "layout file") : r;
}
