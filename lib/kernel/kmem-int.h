/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the map from memory. Bottom up, each file calling only
 * those before it: struct kern and reading memory (kern.c), struct
 * layouts from DWARF where the kernel has no BTF (kdwtype.c) and the
 * file they come from (kdwarf.c), struct
 * layouts from BTF or that DWARF (kbtf.c), what kallsyms does not say
 * (kdata.c), a
 * module's symbols (kmsyms.c), the module walk (kmem.c), finding the
 * running kernel (kfind.c), the map (kmap.c).
 */
#ifndef MODSECT_KMEM_INT_H
#define MODSECT_KMEM_INT_H

#include "kernel.h"

struct btf;
struct kdwarf;

/* Bounds on what hostile memory can make us do. */
#define KMEM_MAX_MODULES 10000
#define KMEM_MAX_SECTIONS 4096
#define KMEM_MAX_NOTES 256
#define KMEM_MAX_SYMTAB (1u << 20)
#define KMEM_MAX_STRTAB (16u << 20)
#define KMEM_NAME_MAX 1024 /* section and note names */
#define KMEM_KSYM_NAME_LEN 512 /* KSYM_NAME_LEN since 6.1 (b8a94bfb3395) */

/* The running kernel, as the memory source found it. */
struct kern {
	const struct ms_ctx *ctx; /* for the cache of decompressed images */
	struct ms_mem *mem;
	const char *origin;
	char *own_origin; /* origin with where the layouts came from */
	struct ms_kimage *img; /* NULL: everything from memory */
	struct ms_ksymtab *own_ksyms; /* from memory, if no image */
	const struct ms_ksymtab *ksyms; /* the image's or own_ksyms */
	int64_t offset; /* runtime = ksyms address + offset (KASLR) */
	uint64_t link_start, link_end; /* the image, _text.._end */
	struct btf *btf;
	void *btf_data; /* read from memory, if no image */
	uint64_t btf_addr; /* where btf_data was read, if from memory */
	int ptr_size; /* 4 or 8 */
	bool big_endian;
	int elf_machine;
	char *release; /* init_uts_ns, else banner */
	char *banner_release; /* linux_banner's, from memory */
	char *machine;
	char *build_id; /* the running kernel's, hex */
	uint64_t only_at; /* read only the struct module there (0: all) */
	/*
	 * No BTF: why not, and the DWARF the layouts come from instead
	 * (kdwarf.c): layout_path if set (tests), else the kernel image if
	 * it has DWARF, else the file find_layout gives.
	 */
	char *why_no_btf;
	struct kdwarf *dw;
	const char *layout_path;
	ms_layout_find_fn find_layout;
	void *find_arg;
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

/* ---- kern.c ---- */

/* Runtime address of a link-time address of the kallsyms table. */
uint64_t kern_moved(const struct kern *k, uint64_t a);
/* Runtime address of a core kernel symbol; -ENOENT with a message. */
int kern_sym(const struct kern *k, const char *name, uint64_t *ret,
	     struct ms_err *err);
/* Reads n elements of size each at addr, refusing counts over max. */
int kern_read_array(const struct kern *k, uint64_t addr, size_t n,
		    size_t size, size_t max, const char *what, void **ret,
		    struct ms_err *err);
/*
 * A read whose failure may be an answer (probing, scanning): 0 if read;
 * 1 if not (unmapped, not in the dump, any failure but I/O), err
 * untouched; or an I/O failure (ms_mem_io_failure) in err, which ends
 * the scan and is passed up as it is.
 */
int kern_probe(const struct kern *k, uint64_t addr, void *buf, size_t len,
	       const char *what, struct ms_err *err);

/* A field of a struct, from BTF. */
struct kfield {
	size_t off, size;
	bool found;
};

/*
 * Offsets of what the walk reads, from BTF; fields marked optional in
 * kbtf.c may be missing (found false), the others are an error naming
 * struct, field and release.
 */
struct klayout {
	size_t mod_size;
	struct kfield mod_state, mod_list, mod_name, mod_srcversion,
		mod_kallsyms, mod_sect_attrs, mod_notes_attrs, mod_syms,
		mod_num_syms;
	int64_t st_live, st_coming, st_going, st_unformed;
	struct kfield list_next;
	/* module_sect_attrs: 6.1 has nsections and module_sect_attr[]. */
	size_t sas_size;
	struct kfield sas_nsections, sas_attrs, sas_grp_bin_attrs;
	size_t sa_size; /* module_sect_attr, or bin_attribute (6.14+) */
	struct kfield sa_battr, sa_address;
	size_t ba_size;
	struct kfield ba_name, ba_len, ba_private;
	size_t nas_size;
	struct kfield nas_notes, nas_attrs;
	size_t mk_size;
	struct kfield mk_symtab, mk_num_symtab, mk_strtab, mk_typetab;
	size_t ks_size;
	struct kfield ks_value, ks_name;
	bool ks_prel32;
	struct kfield uts_release, uts_machine;
};

/* Where layouts come from: the kernel's BTF, else a file's DWARF. */
struct ktypes {
	const struct btf *btf;
	struct kdwarf *dw;
	const char *release; /* for messages */
};

/* A struct of the kernel's BTF or of the DWARF, for kstruct_field. */
struct kstruct {
	const struct btf *btf;
	struct kdwarf *dw; /* set: DWARF (kdwarf.c) */
	const char *name, *release;
	int id; /* -1: not found (optional); BTF: its id */
	size_t size;
	uint64_t die; /* DWARF: the DIE's offset in .debug_info */
	int comp; /* DWARF: a struct of kernel/module/sysfs.c (kdwarf.c), or -1 */
};

/*
 * struct name from BTF into s; missing is an error naming it unless
 * optional (then s->id is -1). kstruct_find_in: from t's BTF or DWARF.
 */
int kstruct_find(const struct btf *btf, const char *name, const char *release,
		 bool optional, struct kstruct *s, struct ms_err *err);
int kstruct_find_in(const struct ktypes *t, const char *name, bool optional,
		    struct kstruct *s, struct ms_err *err);
/*
 * Member path ("thread.sp", looking into anonymous members) of s into f:
 * its offset and size, found false if missing and optional.
 */
int kstruct_field(const struct kstruct *s, const char *path, bool optional,
		  struct kfield *f, struct ms_err *err);

/* The walk's layouts from t (BTF, else DWARF). */
int klayout_read(const struct ktypes *t, struct klayout *l,
		 struct ms_err *err);

/* ---- kdwtype.c, kdwarf.c: layouts from a module's or vmlinux's DWARF ---- */

struct Dwfl;
struct Dwarf;
/* An ELF file's DWARF, opened and checked for a kernel (kdwarf.c). */
struct kdwarf {
	char *path;
	struct Dwfl *dwfl;
	struct Dwarf *dw;
	int machine, ptr_size, max_align;
	char *vermagic; /* the release .modinfo's vermagic names, or NULL */
	char *build_id;
	bool v614; /* the release has d8959b947a8d's sysfs structs */
};

/*
 * k->dw for a kernel without BTF, checked: the file's machine and class
 * are the kernel's, a module's vermagic names k's release, a vmlinux's
 * build-id is the kernel's. Errors say what to give.
 */
int kdwarf_for_kernel(struct kern *k, struct ms_err *err);
void kdwarf_free(struct kdwarf *d);
const char *kdwarf_path(const struct kdwarf *d);
/* kdwtype.c: as kstruct_find, kstruct_field and enum values do on BTF. */
int kdwarf_struct(struct kdwarf *d, const char *name, const char *release,
		  bool optional, struct kstruct *s, struct ms_err *err);
int kdwarf_field(const struct kstruct *s, const char *path, bool optional,
		 struct kfield *f, struct ms_err *err);
int kdwarf_enum(struct kdwarf *d, const char *type, const char *name,
		const char *release, int64_t *ret, struct ms_err *err);

/* An unsigned integer of size bytes at buf + off in the target's order. */
uint64_t kget(const struct kern *k, const void *buf, size_t off, size_t size);
static inline uint64_t kget_field(const struct kern *k, const void *buf,
				  const struct kfield *f)
{
	return f->found ? kget(k, buf, f->off, f->size) : 0;
}

/* ---- ktask.c: the tasks of a kernel kept open ---- */

/* What the task walk reads, from BTF and kallsyms, once per kernel. */
struct tlayout {
	bool done;
	struct kfield t_tasks, t_pid, t_tgid, t_comm, t_state, t_exit_state,
		t_signal, t_thread_node, t_sp, t_stack, t_cpu, t_flags;
	struct kfield sig_thread_head, rq_curr, rq_idle;
	size_t itf_size; /* struct inactive_task_frame (x86) */
	struct kfield itf[7]; /* r15 r14 r13 r12 bx bp ret_addr */
	uint64_t init_task, runqueues, per_cpu_offset, nr_cpu_ids, panic_cpu;
	bool have_per_cpu_offset, have_nr_cpu_ids, have_panic_cpu;
	uint64_t thread_size;
};

struct ms_kernel {
	struct kern k;
	struct tlayout tl;
};

/* ---- korc.c ---- */

/* The core kernel's ORC tables: from k's image, else from memory. */
int kern_read_orc(const struct kern *k, struct ms_orc **ret,
		  struct ms_err *err);

/* ---- kfuncs.c: the core kernel's functions, for rules made from code ---- */

/* The core kernel's text: where its functions are, and its bytes. */
struct ktext {
	uint64_t lo, hi; /* _stext.._etext, link addresses */
	const uint8_t *text; /* its bytes */
	uint64_t ilo, ihi; /* _sinittext.._einittext, or 0..0 */
	void *owned; /* the bytes read from memory: the caller frees them */
};

/* What an architecture's functions are (ka64.c, ki386.c). */
struct kfn_arch {
	uint16_t machine; /* EM_* of its images */
	const char *name; /* "arm64": "not an arm64 kernel" */
	uint64_t align, top; /* its text's size a multiple of, its end below */
	size_t size; /* of its struct ms_*_fn */
	unsigned int record; /* the flags of a function without its bytes */
	/* The flags of the function name (entry: in .entry.text), or 0. */
	unsigned int (*flags)(const char *name, bool entry, const void *names);
	/* Sets fn, a struct ms_*_fn. */
	void (*set)(void *fn, uint64_t addr, uint64_t size, const uint8_t *code,
		    unsigned int flags);
};

/*
 * The text of the image k, checked to be a's (ENOENT if not), with its
 * kallsyms table in *t; or of k's memory (g->owned the caller's).
 */
int ktext_image(struct ms_kimage *k, const struct kfn_arch *a,
		const struct ms_ksymtab **t, struct ktext *g,
		struct ms_err *err);
int ktext_memory(const struct kern *k, const struct kfn_arch *a,
		 struct ktext *g, struct ms_err *err);
/*
 * The functions of g (its init text found here) by the symbols of t (link
 * addresses, by address), at runtime addresses (+ offset): an array of
 * a->size bytes each, the caller's to free. 0 or -ENOMEM.
 */
int kern_functions(const struct ms_ksymtab *t, struct ktext *g, int64_t offset,
		   const struct kfn_arch *a, const void *names, void **ret,
		   size_t *n_ret);

/* ---- ka64.c ---- */

/* The core arm64 kernel's frame rules: from k's image, else memory. */
int kern_read_a64(const struct kern *k, struct ms_a64 **ret,
		  struct ms_err *err);
/* The offset of member name of BTF struct id (anonymous members looked into). */
bool kern_btf_member_off(const struct btf *btf, int id, const char *name,
			 uint32_t base, uint32_t *off);

/* ---- ki386.c ---- */

/* The core i386 kernel's frame rules: from k's image, else memory. */
int kern_read_x86(const struct kern *k, struct ms_x86 **ret,
		  struct ms_err *err);

/* ---- kfind.c: k's symbols, KASLR offset, BTF, build-id ---- */

/* From the kernel image at path, checked against memory. */
int kfind_from_image(struct kern *k, const char *path, bool force,
		     struct ms_err *err);
/* From memory alone. */
int kfind_from_memory(struct kern *k, struct ms_err *err);

/*
 * kmap.c: with k's memory, symbols and BTF set: init_uts_ns, the module list and
 * (MS_READ_CORE) the core symbols into an empty map, finished. Tests and
 * fuzzing call it on a fake kernel.
 */
int kern_fill_map(struct kern *k, const char *only_module, unsigned int flags,
		  struct ms_map *map, struct ms_err *err);

/*
 * Without CONFIG_KALLSYMS_ALL (kdata.c): the BTF found in memory from
 * address from on (sets k->btf, k->btf_data); the release in a
 * linux_banner in p; the module list head from print_modules()'s code.
 */
int kdata_find_btf(struct kern *k, uint64_t from, struct ms_err *err);
/* The build-id note before the BTF; only an I/O failure is an error. */
int kdata_notes_build_id(struct kern *k, struct ms_err *err);
int kdata_banner_release(const unsigned char *p, size_t len, char **ret);
int kdata_modules(const struct kern *k, const struct klayout *l,
		  uint64_t *head, struct ms_err *err);

/* A module's kallsyms lines into m (kmsyms.c). */
int kmem_read_ksyms(const struct kern *k, const struct klayout *l,
		    const unsigned char *mod, struct ms_module *m,
		    struct ms_err *err);

/* Walks the module list into map (kmem.c). */
int kmem_read_modules(const struct kern *k, const struct klayout *l,
		      const char *only_module, struct ms_map *map,
		      struct ms_err *err);

#endif
