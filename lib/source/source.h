/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one entry to every source of a section map: what the user named
 * (the live system under a root, a capture, a GDB remote target, a
 * vmcore) to a checked struct ms_map. The sources themselves are
 * siblings below (map/ for sysfs and captures, kernel/ over target/ for
 * memory); nothing above this folder knows which one a map came from.
 */
#ifndef MODSECT_SOURCE_H
#define MODSECT_SOURCE_H

#include "map/map.h"
#ifndef MODSECT_STATIC
#include "kernel/kernel.h"
#endif

struct ms_source {
	const char *capture; /* a capture file, or NULL */
	const char *remote; /* HOST:PORT, a tty or fd:N, or NULL */
	const char *vmcore; /* a vmcore file, or NULL */
	unsigned int baud, timeout_ms; /* with remote */
	const char *kernel_image; /* with remote or vmcore: vmlinuz/vmlinux */
	uint64_t module_at; /* with remote or vmcore: one struct module */
	bool force; /* accept a kernel image of another build */
	/* Print memory requests and bytes on stderr (bench/). */
	bool mem_stats;
#ifndef MODSECT_STATIC
	/*
	 * With remote or vmcore, a kernel without BTF: where its layouts'
	 * DWARF is (module/'s ms_layout_file_find), and a note naming it.
	 */
	ms_layout_find_fn find_layout;
	void *find_arg;
	void (*note)(void *arg, const char *msg);
	void *note_arg;
#endif
};

/*
 * Reads the map from the source src names (none of capture, remote and
 * vmcore: the live system under ctx's root). flags: MS_READ_CORE for the
 * core kernel's symbols too. With only_module, that module alone, and
 * -ENOENT (not found) if the source has none of that name. Addresses
 * hidden by the kernel (all zero) are refused. Modules unloaded while
 * they were read are left out and named in map->vanished.
 */
int ms_source_read(const struct ms_ctx *ctx, const struct ms_source *src,
		   const char *only_module, unsigned int flags,
		   struct ms_map **ret, struct ms_err *err);

#ifndef MODSECT_STATIC
/*
 * The kernel in src->vmcore or at src->remote (a live stub), or with kcore
 * in /proc/kcore, kept open for
 * what changes while it runs (its tasks, for `serve`): *mem_ret is the
 * memory, *ret the kernel found on it (src->kernel_image, src->force as
 * for the map); the caller frees both, the kernel first.
 */
int ms_source_kernel(const struct ms_ctx *ctx, const struct ms_source *src,
		     bool kcore, struct ms_mem **mem_ret,
		     struct ms_kernel **ret, struct ms_err *err);
#endif

#endif
