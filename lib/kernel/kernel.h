/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a kernel image or the kernel's memory says: kallsyms tables
 * (ksymtab.c), kernel images (kimage.c), where the running kernel is
 * and its BTF layouts (kfind.c, kbtf.c, kdata.c), and the module walk
 * (kmem.c) that gives an ordinary struct ms_map.
 */
#ifndef MODSECT_KERNEL_H
#define MODSECT_KERNEL_H

#include "map/map.h"
#include "target/target.h"

/* ---- kallsyms tables (ksymtab.c) ---- */

/*
 * The kernel's compressed symbol table, found in a blob of kernel
 * read-only data (the image's .rodata, or memory read from the target)
 * without any symbol telling where it is, and decoded. Symbols are at
 * the addresses the blob holds (link-time in an image, runtime in
 * memory), in kallsyms order (by address), types as /proc/kallsyms
 * prints them.
 */
struct ms_ksymtab {
	struct ms_ksym *syms;
	size_t nsyms;
	/* where the tables were found, as offsets into the blob (for tests) */
	size_t names_off, token_table_off;
};

/*
 * buf holds len bytes that are at address base in the kernel; ptr_size
 * is 4 or 8, big_endian for the target's byte order.
 */
int ms_ksymtab_find(const void *buf, size_t len, uint64_t base,
		    int ptr_size, bool big_endian, struct ms_ksymtab **ret,
		    struct ms_err *err);
void ms_ksymtab_free(struct ms_ksymtab *t);
/*
 * Address of the first symbol called name (any type). Its only failure
 * is that there is none: -ENOENT, no message (callers say what they
 * looked for).
 */
int ms_ksymtab_lookup(const struct ms_ksymtab *t, const char *name,
		      uint64_t *addr_ret);

/* ---- kernel images (kimage.c) ---- */

/*
 * A kernel image: bzImage (gzip, xz, zstd, lz4 payload), a raw
 * compressed Image (arm64 vmlinuz is gzip'ed), a plain or debug vmlinux.
 * What it gives: the ELF (or raw) kernel bytes, the build-id, the
 * linux_banner string and its link address, BTF, and kallsyms.
 */
struct ms_kimage;

int ms_kimage_open(const char *path, struct ms_kimage **ret,
		   struct ms_err *err);
/*
 * ms_kimage_open, through ctx's cache: a compressed image's kernel is kept
 * there, decompressed, under the file's SHA-256, and read from there
 * the next time.
 */
int ms_kimage_open_cached(const struct ms_ctx *ctx, const char *path,
			  struct ms_kimage **ret, struct ms_err *err);
void ms_kimage_free(struct ms_kimage *k);
const char *ms_kimage_path(const struct ms_kimage *k);
/* "bzImage+xz", "vmlinux", "Image+gzip" ...: for messages */
const char *ms_kimage_kind(const struct ms_kimage *k);
int ms_kimage_elf_machine(const struct ms_kimage *k); /* EM_* */
int ms_kimage_elf_class(const struct ms_kimage *k); /* ELFCLASS32/64 */
/* Lower-case hex of the GNU build-id note, or NULL. */
const char *ms_kimage_build_id(const struct ms_kimage *k);
/* Link address of the build-id note's descriptor (0 if none). */
uint64_t ms_kimage_build_id_addr(const struct ms_kimage *k);
/* "Linux version 6.1.0-27-amd64 (...) ...\n" and its link address. */
const char *ms_kimage_banner(const struct ms_kimage *k);
uint64_t ms_kimage_banner_addr(const struct ms_kimage *k);
/* The .BTF section, or NULL with *len 0 (kernel built without BTF). */
const void *ms_kimage_btf(const struct ms_kimage *k, size_t *len_ret);
/* kallsyms at link addresses, found on first call; owned by k. */
int ms_kimage_ksymtab(struct ms_kimage *k, const struct ms_ksymtab **ret,
		      struct ms_err *err);
/*
 * The image's bytes at link address addr (len bytes), for comparing with
 * memory; -ENOENT (said in err) if the range is not all in the image's
 * loaded data.
 */
int ms_kimage_bytes(const struct ms_kimage *k, uint64_t addr, size_t len,
		    const void **ret, struct ms_err *err);
/* Link-time address range of the loaded image: _text .. _end. */
void ms_kimage_range(const struct ms_kimage *k, uint64_t *start,
		     uint64_t *end);
/*
 * A section of an ELF image by name: its link address and bytes; -ENOENT
 * (no message) if there is none, it has no bytes, or the image is raw.
 */
int ms_kimage_section(const struct ms_kimage *k, const char *name,
		      uint64_t *addr_ret, const void **data_ret,
		      size_t *len_ret);

/* ---- the core kernel's ORC tables (korc.c) ---- */

/*
 * The image's ORC tables, moved by offset (runtime minus link address):
 * -ENOENT if it has none (not x86-64, or built without
 * CONFIG_UNWINDER_ORC), said in err; release tells the format of tables
 * without an .orc_header.
 */
int ms_kimage_orc(const struct ms_kimage *k, const char *release,
		  int64_t offset, struct ms_orc **ret, struct ms_err *err);
/*
 * An arm64 image's frame rules, made from its code (ka64.c), moved by
 * offset; btf (may be NULL) the kernel's, for struct pt_regs.
 */
struct btf;
int ms_kimage_a64(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_a64 **ret, struct ms_err *err);
/* An i386 image's frame rules, made from its code (ki386.c), likewise. */
int ms_kimage_x86(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_x86 **ret, struct ms_err *err);
/*
 * Gives map what flags ask for (MS_READ_ORC, MS_READ_BTF) and it lacks
 * from the kernel image at path (kfacts.c; checked against the map's
 * build-id, unless force; the KASLR offset from kallsyms), or says in
 * map->why_no_orc, why_no_btf why not. Fails only for want of memory.
 */
int ms_map_add_image(const struct ms_ctx *ctx, struct ms_map *map,
		     const char *path, bool force, unsigned int flags,
		     struct ms_err *err);

/* ---- the map from memory (kmem.c) ---- */

/*
 * Where a kernel without BTF has its struct layouts: the path (the
 * caller's to free) of an ELF file with DWARF of struct module built for
 * kernel release (a module with debug info, or its debug vmlinux, whose
 * build-id is build_id if not NULL); -ENOENT with a message saying what
 * was looked at. The choice is made above (module/ has the finder).
 */
typedef int (*ms_layout_find_fn)(void *arg, const char *release,
				 int elf_machine, const char *build_id,
				 char **path_ret, struct ms_err *err);

struct ms_mem_src {
	const struct ms_ctx *ctx; /* its cache keeps decompressed images */
	struct ms_mem *mem;
	const char *kernel_image; /* path, or NULL: find all in memory */
	bool force; /* accept an image whose build-id differs */
	/*
	 * Nonzero: only the module whose struct module is at this address,
	 * which must be on the module list (a debugger stopped in
	 * do_init_module knows the address, not the name).
	 */
	uint64_t module_at;
	/* A kernel without BTF: its layouts from the file this finds. */
	ms_layout_find_fn find_layout;
	void *find_arg;
	/* Told which file the layouts came from, if not BTF (or NULL). */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

/*
 * Reads the section map from kernel memory: finds the kernel (KASLR
 * offset), checks the image is the running build, reads BTF and
 * kallsyms, walks the module list. flags: MS_READ_CORE for the core
 * kernel's symbols. only_module NULL means all.
 */
int ms_map_read_memory(const struct ms_mem_src *src, const char *only_module,
		       unsigned int flags, struct ms_map **ret,
		       struct ms_err *err);

/* ---- the kernel kept open: its tasks (kmap.c, ktask.c) ---- */

/*
 * A kernel found in memory as ms_map_read_memory finds it, kept for
 * repeated reads of what changes while it runs: its tasks.
 */
struct ms_kernel;

int ms_kernel_open(const struct ms_mem_src *src, struct ms_kernel **ret,
		   struct ms_err *err);
void ms_kernel_free(struct ms_kernel *k);
const char *ms_kernel_release(const struct ms_kernel *k);
int ms_kernel_elf_machine(const struct ms_kernel *k);
struct ms_mem *ms_kernel_mem(const struct ms_kernel *k);

/*
 * The idle task of CPU n (pid 0 in the kernel) has thread id
 * MS_IDLE_TID + n: above PID_MAX_LIMIT (4194304, include/linux/threads.h),
 * so no pid has it.
 */
#define MS_IDLE_TID 4194304u
#define MS_MAX_TASKS 1000000u /* bounds the walk of hostile memory */
#define MS_MAX_CPUS 8192u /* CONFIG_NR_CPUS's largest */

struct ms_task {
	uint64_t addr; /* the task_struct */
	uint32_t pid, tgid;
	uint32_t tid; /* thread id for a debugger: pid, or MS_IDLE_TID + cpu */
	int cpu; /* task_cpu() */
	bool running; /* rq->curr of its CPU */
	bool idle; /* a CPU's idle task */
	bool kthread; /* PF_KTHREAD */
	char state; /* as /proc/PID/stat: R S D T t X Z P I */
	char comm[16];
};

struct ms_tasks {
	struct ms_task *v;
	size_t n;
	unsigned int ncpus; /* nr_cpu_ids */
	int panic_cpu; /* the CPU that called panic(), or -1 */
};

/*
 * Every task: each CPU's idle task, then init_task.tasks and each thread
 * group (signal->thread_head), as for_each_process_thread() walks them;
 * bounded and cycle-checked. Layouts from BTF.
 */
int ms_kernel_tasks(struct ms_kernel *k, struct ms_tasks *ret,
		    struct ms_err *err);
void ms_tasks_clear(struct ms_tasks *t);

/*
 * A task's registers: a running task's are its CPU's, if the source has
 * them (a dump's notes); a sleeping task's those its last context switch
 * saved (x86-64: task->thread.sp points to struct inactive_task_frame).
 * When they cannot be known, an error saying why (-ENOTSUP for a task
 * running under a source without CPU registers).
 */
int ms_kernel_task_regs(struct ms_kernel *k, const struct ms_task *t,
			struct ms_regs *regs, struct ms_err *err);

#endif
