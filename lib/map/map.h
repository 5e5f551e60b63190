/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The section map (struct ms_map): which module's sections sit at which
 * address, and its text sources: live sysfs and capture files. The memory
 * sources (kernel/) give the same struct.
 */
#ifndef MODSECT_MAP_H
#define MODSECT_MAP_H

#include "base/base.h"
#include "unwind/unwind.h"

/* ---- the section map (map.c, sysfs.c, capture.c) ---- */

struct ms_section {
	char *name; /* as the kernel listed it; untrusted */
	uint64_t addr;
};

/* A module's symbol as /proc/kallsyms lists it. */
struct ms_ksym {
	char *name;
	uint64_t addr;
	char type;
	uint32_t seq; /* core: order in the source, which breaks address ties */
};

struct ms_module {
	char *name; /* as in /sys/module: underscores */
	char *initstate; /* "live", "coming", "going" or NULL if unknown */
	char *srcversion; /* NULL if unknown */
	char *build_id; /* lower-case hex, NULL if unknown */
	struct ms_section *sections;
	size_t nsections;
	struct ms_ksym *ksyms; /* from kallsyms, may be empty */
	size_t nksyms;
	uint64_t load_id; /* live: inode of its sections/, new on every load */
};

struct ms_map {
	char *origin; /* "live" or the capture's path, for messages */
	char *release; /* kernel release, NULL if the source did not say */
	char *machine; /* uname -m of the target, NULL if unknown */
	struct ms_module *modules;
	size_t nmodules;
	struct ms_ksym *core; /* core kernel kallsyms, by address; optional */
	size_t ncore;
	char *kernel_build_id; /* from /sys/kernel/notes, NULL if unknown */
	/*
	 * The core kernel's ORC tables at runtime addresses (MS_READ_ORC),
	 * or NULL with why_no_orc saying why (no image given, not x86-64, a
	 * format modsect does not know).
	 */
	struct ms_orc *core_orc;
	/* arm64: the rules made from the core kernel's code, instead */
	struct ms_a64 *core_a64;
	/* i386: the rules made from the core kernel's code, instead */
	struct ms_x86 *core_x86;
	char *why_no_orc;
	/*
	 * The core kernel's BTF, raw (MS_READ_BTF): from the live
	 * /sys/kernel/btf/vmlinux, the kernel's memory, a capture or the
	 * kernel image; NULL with why_no_btf saying why. Unchecked bytes:
	 * libbpf validates them where they are parsed.
	 */
	void *core_btf;
	size_t core_btf_len;
	char *why_no_btf;
	char **vanished; /* live: modules unloaded while read, left out */
	size_t nvanished;
};

void ms_map_free(struct ms_map *map);
/*
 * A copy of the map's modules, origin, release, machine and build-id,
 * without its core symbols, ORC or BTF: what decoding one report changes
 * (the modules it places) stays in the copy. -ENOMEM.
 */
int ms_map_dup_modules(const struct ms_map *map, struct ms_map **ret,
		       struct ms_err *err);
/*
 * Whether two maps (finished) have the same machine, release and modules,
 * each of the same build and state with the same sections at the same
 * addresses: what is read through one holds for the other.
 */
bool ms_map_same(const struct ms_map *a, const struct ms_map *b);
/* Frees what a module owns (for sources building a map). */
void ms_module_clear(struct ms_module *m);
const struct ms_module *ms_map_find(const struct ms_map *map, const char *name);
const struct ms_section *ms_module_section(const struct ms_module *mod,
					   const char *name);
/* The address of the first core kernel symbol called name, if any. */
bool ms_map_core_symbol(const struct ms_map *map, const char *name,
			uint64_t *addr_ret);
/* A kallsyms type letter of code: t, T, and w, W (weak functions). */
bool ms_ksym_is_text(char type);
/*
 * The size of core symbol i: to the next symbol at a higher address,
 * whatever its kind, as the kernel counts it; absolute symbols (per-cpu
 * offsets) do not count. 0 for the last.
 */
uint64_t ms_map_core_size(const struct ms_map *map, size_t i);
/* Gives map a copy of the core kernel's BTF (why_no_btf cleared). */
int ms_map_set_btf(struct ms_map *map, const void *btf, size_t len,
		   struct ms_err *err);
/* Module names compare with '-' and '_' as the same character. */
bool ms_modname_eq(const char *a, const char *b);
/* Checks a map's addresses are not hidden (all zero). */
int ms_map_check_visible(const struct ms_map *map, struct ms_err *err);
/* Sorts modules by name and sections by address; finds duplicates. */
int ms_map_finish(struct ms_map *map, struct ms_err *err);



#define MS_READ_CORE 0x1 /* also the core kernel's kallsyms */
#define MS_READ_ORC 0x2 /* and its ORC unwind tables (x86-64) */
#define MS_READ_BTF 0x4 /* and its BTF (types) */
/* More than any kernel's BTF (6.1: 4.4 MB, 6.12: 5.5 MB). */
#define MS_MAX_BTF (64u << 20)

/* Reads the live map under ctx's root; only_module NULL means all. */
int ms_map_read_live(const struct ms_ctx *ctx, const char *only_module,
		     unsigned int flags, struct ms_map **ret,
		     struct ms_err *err);
/*
 * Adds a section or a kallsyms line (name copied) to a module a source is
 * building, before ms_map_finish: 0 or -ENOMEM.
 */
int ms_module_add_section(struct ms_module *m, const char *name,
			  uint64_t addr, struct ms_err *err);
int ms_module_add_ksym(struct ms_module *m, const char *name, uint64_t addr,
		       char type, struct ms_err *err);
/* Adds a core kernel symbol (before ms_map_finish). */
int ms_map_add_core(struct ms_map *map, const char *name, uint64_t addr,
		    char type, struct ms_err *err);
/* Reads a capture in any format ms_capture_write or the README's sh loops write. */
int ms_map_read_capture(const char *path, struct ms_map **ret,
			struct ms_err *err);
int ms_map_parse_capture(const char *text, size_t len, const char *origin,
			 struct ms_map **ret, struct ms_err *err);
/* Writes the map in capture format version 1. */
int ms_capture_write(FILE *out, const struct ms_map *map, struct ms_err *err);

#endif
