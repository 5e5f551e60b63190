/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the live map: sysmod.c reads one module's directory,
 * livesyms.c the kallsyms lines and the checks that no module changed,
 * sysfs.c the whole map (ms_map_read_live) with both.
 */
#ifndef MODSECT_SYSFS_INT_H
#define MODSECT_SYSFS_INT_H

#include "map.h"

/* A module that keeps changing while we read it is given up after this. */
#define MAX_TRIES 20
/* Rounds of sections, kallsyms, sections before a module is left out. */
#define RECHECK_TRIES 2

/*
 * Reads one module until two passes agree: -ENOENT or -ENOTDIR if it has
 * no sections/ (built in, or not loaded), -ESRCH if it was unloaded while
 * we read it; those say nothing in err, any other failure does.
 */
int read_module(int sysmod, const char *name, bool big_endian,
		struct ms_module *m, struct ms_err *err);
/*
 * The byte order of the notes under /sys: the machine's in /proc (read
 * first: a tree of another machine's, --root, has that machine's), else
 * this machine's, which the running kernel's always is.
 */
bool sysfs_big_endian(const struct ms_map *map);
/* The inode of NAME/sections under sysmod (one load of it); -errno. */
int sections_ino(int sysmod, const char *name, uint64_t *ino);
/* The kernel's release, machine and build-id (/proc, /sys/kernel/notes). */
void read_kernel(const char *root, struct ms_map *map);
/* Names a module in map->vanished: unloaded while it was read. */
int add_vanished(struct ms_map *map, const char *name);
/* The modules' kallsyms lines (and the core's if core), consistent. */
int read_kallsyms(const char *root, int sysmod, struct ms_map *map, bool core,
		  struct ms_err *err);
/*
 * Modules that changed since they were read, read again until none did;
 * those that went away or kept changing are left out (map->vanished), or
 * for a single module, an error.
 */
int recheck(const char *root, int sysmod, struct ms_map *map, bool single,
	    struct ms_err *err);

#endif
