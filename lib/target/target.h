/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory sources: reading a target's kernel memory.
 *
 * A memory source (struct ms_mem) reads kernel virtual addresses: over
 * the GDB remote serial protocol (gdbremote.c), from a vmcore through
 * libkdumpfile (vmcore.c), or from a memory image file for tests and
 * fuzzing (memimg.c). The kernel's symbols and types come from a kernel
 * image (kimage.c: vmlinuz or vmlinux) or from memory itself; kallsyms
 * tables are found and decoded by ksymtab.c; kmem.c walks the module
 * list with BTF and gives an ordinary struct ms_map, so nothing
 * downstream knows the map came from memory.
 *
 * Memory is hostile: every read is bounded and checked, every list walk
 * bounded and cycle-checked, every count sanity-checked.
 */
#ifndef MODSECT_TARGET_H
#define MODSECT_TARGET_H

#include "base/base.h"

/* ---- memory sources (mem.c, gdbremote.c, vmcore.c, memimg.c) ---- */

struct ms_mem;

/*
 * Registers in gdb's numbering for the target's architecture, each known
 * or not. x86-64 (MS_X86_64_*): rax rbx rcx rdx rsi rdi rbp rsp r8-r15
 * rip eflags cs ss ds es fs gs, as gdb's amd64 target description and
 * QEMU's 'g' packet order them.
 */
#define MS_REGS_MAX 32
enum {
	MS_X86_64_RAX, MS_X86_64_RBX, MS_X86_64_RCX, MS_X86_64_RDX,
	MS_X86_64_RSI, MS_X86_64_RDI, MS_X86_64_RBP, MS_X86_64_RSP,
	MS_X86_64_R8, MS_X86_64_R15 = MS_X86_64_R8 + 7, MS_X86_64_RIP,
	MS_X86_64_EFLAGS, MS_X86_64_CS, MS_X86_64_SS, MS_X86_64_DS,
	MS_X86_64_ES, MS_X86_64_FS, MS_X86_64_GS, MS_X86_64_NREGS
};
struct ms_regs {
	uint64_t v[MS_REGS_MAX];
	uint32_t valid; /* bit n: v[n] is known */
};

static inline void ms_regs_set(struct ms_regs *r, unsigned int n, uint64_t v)
{
	r->v[n] = v;
	r->valid |= 1u << n;
}

struct ms_mem_ops {
	/*
	 * Reads len bytes at kernel virtual address addr, all or nothing.
	 * On failure the message says what failed (stub error, unmapped,
	 * timeout); ms_mem_read puts what was being read in front of it.
	 * Memory that is not there is -EFAULT; a failure of the source
	 * itself (timeout, closed connection, truncated file) is of kind
	 * MS_E_IO (see ms_mem_io_failure).
	 */
	int (*read)(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		    struct ms_err *err);
	/* Optional (NULL): the whole VMCOREINFO text, NUL-terminated. */
	const char *(*vmcoreinfo)(struct ms_mem *m);
	/*
	 * Optional: a program counter of a stopped CPU (gdb remote: the
	 * stop reply / 'g'), a hint for finding the kernel; -ENOTSUP.
	 */
	int (*pc)(struct ms_mem *m, uint64_t *pc_ret, struct ms_err *err);
	/*
	 * Optional: how many CPUs the source has registers of (a dump's
	 * NT_PRSTATUS notes, in their order), and CPU cpu's registers.
	 */
	unsigned int (*ncpus)(struct ms_mem *m);
	int (*cpu_regs)(struct ms_mem *m, unsigned int cpu, struct ms_regs *regs,
			struct ms_err *err);
	void (*close)(struct ms_mem *m);
};

struct ms_mem {
	const struct ms_mem_ops *ops;
	void *priv;
	char *origin; /* "remote 127.0.0.1:1234", "vmcore FILE": for messages */
	/* ELF machine and class of the target if the source knows, else 0 */
	int elf_machine, elf_class;
	bool big_endian; /* the target's byte order, if the source knows */
	/* Counters for bench/: requests sent (round trips) and bytes read. */
	uint64_t nrequests, nbytes;
	struct ms_mem_cache *cache; /* small reads, see mem.c */
};

/* Allocates a source with its ops; origin is copied. */
int ms_mem_new(const struct ms_mem_ops *ops, void *priv, const char *origin,
	       struct ms_mem **ret, struct ms_err *err);
/*
 * Forgets cached memory: call it when the target may have run since the
 * last read (the cache assumes a stopped target or a dump).
 */
void ms_mem_invalidate(struct ms_mem *m);
/* Closes the source (ops->close) and frees it; NULL is a no-op. */
void ms_mem_free(struct ms_mem *m);
/*
 * Reads len bytes at addr; on failure the message is
 * "reading WHAT at 0xADDR (LEN bytes) from ORIGIN: why".
 */
int ms_mem_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		const char *what, struct ms_err *err);
/* A NUL-terminated string of at most max bytes (with the NUL) at addr. */
int ms_mem_read_string(struct ms_mem *m, uint64_t addr, size_t max,
		       const char *what, char **ret, struct ms_err *err);
/*
 * The registers of the source's CPU cpu (a dump's NT_PRSTATUS notes):
 * -ENOTSUP if the source has none (/proc/kcore, a memory image), -ENOENT
 * past the last, each said in err.
 */
unsigned int ms_mem_ncpus(struct ms_mem *m);
int ms_mem_cpu_regs(struct ms_mem *m, unsigned int cpu, struct ms_regs *regs,
		    struct ms_err *err);
/*
 * Value of KEY=value in VMCOREINFO text in *ret (a copy, caller frees):
 * 0; -ENOENT if the source has no VMCOREINFO or no such key; -ENOMEM.
 */
int ms_mem_vmcoreinfo_get(struct ms_mem *m, const char *key, char **ret,
			  struct ms_err *err);
/*
 * Whether a failed read (r, err) is an I/O failure: the target stopped
 * answering, the connection closed, the vmcore is cut short. Code that
 * scans memory passes over what is not there (unmapped, left out of a
 * dump: an answer) but stops at this and gives it up unchanged, so the
 * run ends saying what failed, never with a diagnosis made from reads
 * that were never answered.
 */
bool ms_mem_io_failure(const struct ms_err *err, int r);

/*
 * GDB remote serial protocol (gdbremote.c). spec is HOST:PORT (":1234"
 * means 127.0.0.1:1234), [IPv6]:PORT, a path to a tty (baud applies,
 * 0 for 115200), or fd:N, a connected stream socket that becomes the
 * source's (closed with it). timeout_ms bounds each request (0: 5000).
 */
struct ms_remote_opts {
	unsigned int baud;
	unsigned int timeout_ms;
};
int ms_remote_open(const char *spec, const struct ms_remote_opts *o,
		   struct ms_mem **ret, struct ms_err *err);

/*
 * Running a live stub (rsprun.c), for `serve --remote`: the descriptor of
 * a --remote source (-1 for any other); one request passed on and its
 * reply (expanded, at most cap bytes); a resume ("c", "s", or "\x03" for
 * Ctrl-C) sent without waiting; then the stub's next packet (a stop
 * reply, console output) within wait_ms: 0 with it, 1 if none came.
 * The source's cache is forgotten at each, as the target may change.
 */
int ms_remote_fd(const struct ms_mem *m);
int ms_remote_pass(struct ms_mem *m, const char *req, char *reply, size_t cap,
		   size_t *len, struct ms_err *err);
int ms_remote_resume(struct ms_mem *m, const char *req, struct ms_err *err);
int ms_remote_wait(struct ms_mem *m, unsigned int wait_ms, char *reply,
		   size_t cap, size_t *len, struct ms_err *err);
/* The CPU (ms_mem_cpu_regs' number) whose stub thread id is tid, or -1. */
int ms_remote_cpu_of(struct ms_mem *m, uint64_t tid);

/* A vmcore: ELF or compressed kdump, through libkdumpfile (vmcore.c). */
int ms_vmcore_open(const char *path, struct ms_mem **ret, struct ms_err *err);

/*
 * The running kernel's memory through /proc/kcore (kcore.c), an ELF core
 * whose PT_LOADs are at kernel virtual addresses; read-only, no CPU
 * registers. path NULL is /proc/kcore.
 */
int ms_kcore_open(const char *path, struct ms_mem **ret, struct ms_err *err);

/*
 * A memory image for tests and fuzzing (memimg.c). Text format, one
 * block a line: "ADDR HEXBYTES" (ADDR hex without 0x), '#' comments;
 * "vmcoreinfo KEY=VALUE" lines form the VMCOREINFO text; "pc ADDR" gives
 * the pc. Anything else, overlapping blocks or odd hex is an error.
 */
int ms_memimg_parse(const char *text, size_t len, const char *origin,
		    struct ms_mem **ret, struct ms_err *err);
int ms_memimg_open(const char *path, struct ms_mem **ret, struct ms_err *err);

#endif
