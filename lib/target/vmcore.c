// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmcores through libkdumpfile: ELF cores (/proc/vmcore saved under
 * kdump, QEMU's dump-guest-memory) and makedumpfile's compressed kdump
 * format (QEMU's dump-guest-memory -z/-l/-s), read at kernel virtual
 * addresses.
 *
 * A dump holds physical memory; libkdumpfile translates virtual
 * addresses with libaddrxlat once told the dump is of Linux, from what
 * VMCOREINFO says (page table root, KASLR offset, phys_base). This is
 * how drgn opens a kdump file too (libdrgn/kdump.c).
 */
#include <dlfcn.h>
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include "base/dlib.h"
#include "vmcore-int.h"

/*
 * libkdumpfile's functions we call, named and typed as kdumpfile.h has
 * them. Its kdump_set_*_attr and kdump_get_*_attr are inline wrappers that
 * call kdump_set_attr and kdump_get_typed_attr by name, which would need
 * the library linked: vc_set_number and the others below stand in.
 */
struct kdump_fns {
	__typeof__(&kdump_new) kdump_new;
	__typeof__(&kdump_free) kdump_free;
	__typeof__(&kdump_read) kdump_read;
	__typeof__(&kdump_set_attr) kdump_set_attr;
	__typeof__(&kdump_get_typed_attr) kdump_get_typed_attr;
	__typeof__(&kdump_get_err) kdump_get_err;
	__typeof__(&kdump_clear_err) kdump_clear_err;
	__typeof__(&kdump_strerror) kdump_strerror;
	__typeof__(&kdump_vmcoreinfo_raw) kdump_vmcoreinfo_raw;
};

struct vmcore {
	void *lib; /* libkdumpfile */
	struct kdump_fns kd;
	kdump_ctx_t *ctx;
	int fd;
	char *vmcoreinfo; /* NULL if the dump carries none */
	bool upper_half_kernel; /* kernel addresses have bit 63 set */
	/* CPUs' registers read from a compressed kdump's notes */
	uint64_t (*prs)[VMCORE_NREGS];
	size_t nprs;
};

static void vmcore_free(struct vmcore *vc)
{
	if (!vc)
		return;
	/* libkdumpfile does not own the descriptor it was given. */
	if (vc->ctx)
		vc->kd.kdump_free(vc->ctx);
	if (vc->lib)
		dlclose(vc->lib);
	if (vc->fd >= 0)
		close(vc->fd);
	free(vc->vmcoreinfo);
	free(vc->prs);
	free(vc);
}

/* The errno a libkdumpfile status stands for, for callers that branch. */
static int kdump_errno(kdump_status ks)
{
	switch (ks) {
	case KDUMP_ERR_SYSTEM:
		return errno ? errno : EIO;
	case KDUMP_ERR_NOTIMPL:
		return ENOTSUP;
	case KDUMP_ERR_NODATA:
	case KDUMP_ERR_ADDRXLAT:
		return EFAULT;
	case KDUMP_ERR_CORRUPT:
	case KDUMP_ERR_EOF:
		return EBADMSG;
	case KDUMP_ERR_NOKEY:
		return ENOENT;
	case KDUMP_ERR_BUSY:
		return EBUSY;
	default:
		return EINVAL;
	}
}

/* libkdumpfile's own message, or the generic one for the status. */
static const char *kdump_msg(const struct vmcore *vc, kdump_status ks)
{
	const char *s = vc->kd.kdump_get_err(vc->ctx);

	return s && *s ? s : vc->kd.kdump_strerror(ks);
}

static kdump_status vc_set_number(struct vmcore *vc, const char *key,
				  kdump_num_t num)
{
	kdump_attr_t attr = { .type = KDUMP_NUMBER, .val.number = num };

	return vc->kd.kdump_set_attr(vc->ctx, key, &attr);
}

static kdump_status vc_set_string(struct vmcore *vc, const char *key,
				  const char *str)
{
	kdump_attr_t attr = { .type = KDUMP_STRING, .val.string = str };

	return vc->kd.kdump_set_attr(vc->ctx, key, &attr);
}

static kdump_status vc_get_string(struct vmcore *vc, const char *key,
				  const char **ret)
{
	kdump_attr_t attr = { .type = KDUMP_STRING };
	kdump_status ks = vc->kd.kdump_get_typed_attr(vc->ctx, key, &attr);

	if (ks == KDUMP_OK)
		*ret = attr.val.string;
	return ks;
}

static kdump_status vc_get_number(struct vmcore *vc, const char *key,
				  kdump_num_t *ret)
{
	kdump_attr_t attr = { .type = KDUMP_NUMBER };
	kdump_status ks = vc->kd.kdump_get_typed_attr(vc->ctx, key, &attr);

	if (ks == KDUMP_OK)
		*ret = attr.val.number;
	return ks;
}

static int vmcore_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		       struct ms_err *err)
{
	struct vmcore *vc = m->priv;
	size_t done = len;
	kdump_status ks;

	m->nrequests++;
	/*
	 * QEMU's dump-guest-memory with paging off writes every PT_LOAD at
	 * virtual address 0, and libkdumpfile looks virtual addresses up in
	 * the PT_LOADs before the page tables: a low address would read
	 * physical memory. On x86_64 and arm64 the kernel is in the upper
	 * half, so a lower-half address is no kernel address at all.
	 */
	if (vc->upper_half_kernel && !(addr >> 63))
		return ms_err_set(err, EFAULT,
				  "0x%" PRIx64 " is not a kernel address (user space)",
				  addr);
	ks = vc->kd.kdump_read(vc->ctx, KDUMP_KVADDR, addr, buf, &done);
	if (ks == KDUMP_OK)
		return 0;
	/*
	 * On failure done counts the bytes read before the page that
	 * failed: name that address, not only the start of the range.
	 */
	if (done > len)
		done = 0;
	if (ks == KDUMP_ERR_NODATA)
		return ms_err_set(err, EFAULT,
				  "0x%" PRIx64
				  " is not in the dump (a page left out of it, e.g. excluded by makedumpfile): %s",
				  addr + done, kdump_msg(vc, ks));
	/*
	 * Without VMCOREINFO libaddrxlat has no page table root: every
	 * read fails, and the cause is how the dump was made.
	 */
	if (ks == KDUMP_ERR_ADDRXLAT && !vc->vmcoreinfo)
		return ms_err_set(err, EFAULT,
				  "0x%" PRIx64
				  " cannot be translated: the dump has no VMCOREINFO (for QEMU: -device vmcoreinfo, and the guest's qemu_fw_cfg driver loaded before the dump): %s",
				  addr + done, kdump_msg(vc, ks));
	if (ks == KDUMP_ERR_ADDRXLAT)
		return ms_err_set(err, EFAULT,
				  "0x%" PRIx64 " is not mapped in the dumped kernel: %s",
				  addr + done, kdump_msg(vc, ks));
	/*
	 * The file ends before the data of the page (a compressed kdump
	 * cut short: its size is in no header) or cannot be read: an I/O
	 * failure, which ends a scan instead of passing for a hole.
	 */
	if (ks == KDUMP_ERR_EOF || ks == KDUMP_ERR_SYSTEM)
		return ms_err_kind(err, MS_E_IO, ks == KDUMP_ERR_EOF ? EIO : kdump_errno(ks),
				   "at 0x%" PRIx64 ": the file ends before the page's data, or cannot be read (truncated?): %s",
				   addr + done, kdump_msg(vc, ks));
	return ms_err_set(err, kdump_errno(ks), "at 0x%" PRIx64 ": %s",
			  addr + done, kdump_msg(vc, ks));
}

static const char *vmcore_vmcoreinfo(struct ms_mem *m)
{
	return ((struct vmcore *)m->priv)->vmcoreinfo;
}

static void vmcore_close(struct ms_mem *m)
{
	vmcore_free(m->priv);
	m->priv = NULL;
}

/* CPUs with registers in the dump: its NT_PRSTATUS notes. */
static unsigned int vmcore_ncpus(struct ms_mem *m)
{
	struct vmcore *vc = m->priv;
	kdump_num_t n = 0;

	if (vc->nprs)
		return (unsigned int)vc->nprs;
	if (vc_get_number(vc, KDUMP_ATTR_NUM_CPUS, &n) != KDUMP_OK) {
		vc->kd.kdump_clear_err(vc->ctx);
		return 0;
	}
	return n > 65536 ? 65536 : (unsigned int)n;
}

/*
 * libkdumpfile names x86-64's registers as struct user_regs_struct does
 * (its arch/x86_64.c, from the ELF prstatus note), "cpu.N.reg.NAME".
 */
static const char *const x86_64_regs[MS_X86_64_NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "rflags", "cs", "ss", "ds", "es", "fs", "gs",
};

/* struct user_regs_struct's order (vmcore-int.h) to gdb's. */
static int prstatus_regs(const uint64_t *u, struct ms_regs *regs)
{
	static const signed char from[MS_X86_64_NREGS] = {
		10, 5, 11, 12, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0,
		16, 18, 17, 20, 23, 24, 25, 26,
	};

	for (unsigned int i = 0; i < MS_X86_64_NREGS; i++)
		ms_regs_set(regs, i, u[from[i]]);
	return 0;
}

static int vmcore_cpu_regs(struct ms_mem *m, unsigned int cpu,
			   struct ms_regs *regs, struct ms_err *err)
{
	struct vmcore *vc = m->priv;
	char key[64];

	if (m->elf_machine != EM_X86_64)
		return ms_err_set(err, ENOTSUP,
				  "%s: reading CPU registers is done for x86-64 dumps only",
				  m->origin);
	if (vc->nprs)
		return prstatus_regs(vc->prs[cpu], regs);
	for (unsigned int i = 0; i < MS_X86_64_NREGS; i++) {
		kdump_num_t v;

		snprintf(key, sizeof(key), "cpu.%u.reg.%s", cpu, x86_64_regs[i]);
		if (vc_get_number(vc, key, &v) == KDUMP_OK)
			ms_regs_set(regs, i, v);
		else
			vc->kd.kdump_clear_err(vc->ctx);
	}
	if (!(regs->valid & (1u << MS_X86_64_RIP)) ||
	    !(regs->valid & (1u << MS_X86_64_RSP)))
		return ms_err_set(err, ENOENT,
				  "%s: CPU %u's note has no rip and rsp",
				  m->origin, cpu);
	return 0;
}

static const struct ms_mem_ops vmcore_ops = {
	.read = vmcore_read,
	.vmcoreinfo = vmcore_vmcoreinfo,
	.ncpus = vmcore_ncpus,
	.cpu_regs = vmcore_cpu_regs,
	.close = vmcore_close,
};

/* libkdumpfile's canonical arch.name, as the ELF machine and class. */
static const struct {
	const char *arch;
	int machine, class;
} vmcore_arches[] = {
	{ KDUMP_ARCH_X86_64, EM_X86_64, ELFCLASS64 },
	{ KDUMP_ARCH_IA32, EM_386, ELFCLASS32 },
	{ KDUMP_ARCH_AARCH64, EM_AARCH64, ELFCLASS64 },
	{ KDUMP_ARCH_ARM, EM_ARM, ELFCLASS32 },
	{ KDUMP_ARCH_PPC64, EM_PPC64, ELFCLASS64 },
	{ KDUMP_ARCH_PPC, EM_PPC, ELFCLASS32 },
	{ KDUMP_ARCH_S390X, EM_S390, ELFCLASS64 },
	{ KDUMP_ARCH_S390, EM_S390, ELFCLASS32 },
};

static void vmcore_set_arch(struct vmcore *vc, struct ms_mem *m)
{
	const char *arch;

	/* Unknown stays 0: the kernel image or BTF can still tell. */
	if (vc_get_string(vc, KDUMP_ATTR_ARCH_NAME, &arch) != KDUMP_OK)
		return;
	for (size_t i = 0; i < sizeof(vmcore_arches) / sizeof(vmcore_arches[0]);
	     i++) {
		if (!strcmp(arch, vmcore_arches[i].arch)) {
			m->elf_machine = vmcore_arches[i].machine;
			m->elf_class = vmcore_arches[i].class;
			vc->upper_half_kernel = m->elf_machine == EM_X86_64 ||
						m->elf_machine == EM_AARCH64;
			return;
		}
	}
}

/*
 * libkdumpfile is loaded for each vmcore opened, not linked: it brings
 * libstdc++ and five more libraries, 1.4 ms of every start-up, for the
 * few runs that read a vmcore. The table is the vmcore's own, as the
 * project keeps no global state; a second dlopen of a library already
 * loaded costs a lookup.
 */
static int vmcore_load(struct vmcore *vc, const char *path,
		       struct ms_err *err)
{
	const struct ms_dlsym syms[] = {
		MS_DLSYM(&vc->kd, kdump_new),
		MS_DLSYM(&vc->kd, kdump_free),
		MS_DLSYM(&vc->kd, kdump_read),
		MS_DLSYM(&vc->kd, kdump_set_attr),
		MS_DLSYM(&vc->kd, kdump_get_typed_attr),
		MS_DLSYM(&vc->kd, kdump_get_err),
		MS_DLSYM(&vc->kd, kdump_clear_err),
		MS_DLSYM(&vc->kd, kdump_strerror),
		MS_DLSYM(&vc->kd, kdump_vmcoreinfo_raw),
	};
	int r = ms_dlib_open("libkdumpfile.so.10", "libkdumpfile10", syms,
			     sizeof(syms) / sizeof(syms[0]), &vc->lib, err);

	return r ? ms_err_prefix(err, "--vmcore %s", path) : 0;
}

/*
 * Opens the file and lets libkdumpfile recognise its format; setting the
 * descriptor is what probes it, so a file that is no dump fails here.
 */
static int vmcore_probe(struct vmcore *vc, const char *path,
			struct ms_err *err)
{
	kdump_status ks;
	struct stat st;
	int r;

	vc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (vc->fd < 0)
		return ms_err_errno(err, errno, "--vmcore %s", path);
	/* libkdumpfile would only say it cannot read a header. */
	if (fstat(vc->fd, &st) == 0 && S_ISDIR(st.st_mode))
		return ms_err_errno(err, EISDIR, "--vmcore %s", path);
	/* Before unflattening, which copies the whole dump. */
	r = vmcore_load(vc, path, err);
	if (r)
		return r;
	if (vmcore_is_flat(vc->fd)) {
		r = vmcore_unflatten(&vc->fd, path, err);
		if (r)
			return r;
	}
	r = vmcore_check_elf_size(vc->fd, path, err);
	if (!r)
		r = vmcore_check_elf_shstrtab(vc->fd, path, err);
	if (r)
		return r;
	vc->ctx = vc->kd.kdump_new();
	if (!vc->ctx)
		return ms_err_errno(err, ENOMEM, "--vmcore %s", path);
	ks = vc_set_number(vc, KDUMP_ATTR_FILE_FD, vc->fd);
	if (ks != KDUMP_OK)
		return ms_err_set(err, ks == KDUMP_ERR_SYSTEM ? kdump_errno(ks) : ENOEXEC,
				  "--vmcore %s: not a vmcore libkdumpfile can read (ELF core or compressed kdump): %s",
				  path, kdump_msg(vc, ks));
	return 0;
}

/*
 * QEMU's compressed kdump files (dump-guest-memory -z/-l/-s, through at
 * least 7.2) fill in only utsname.machine of the diskdump header, which
 * libkdumpfile 0.5.1 takes as no utsname at all: the architecture stays
 * unknown and no virtual address translates ("No way to translate").
 * Give it the machine from the header; libkdumpfile maps the uname
 * machine to its architecture itself. Offsets: signature[8],
 * header_version (4 bytes), then struct new_utsname, six fields of 65
 * bytes, machine the fifth.
 */
#define DISKDUMP_UTS_LEN 65
#define DISKDUMP_MACHINE_OFF (8 + 4 + 4 * DISKDUMP_UTS_LEN)
#define KDUMP_SUB_VMCOREINFO_OFF 32 /* kdump_sub_header, 64-bit, v3+ */
#define VMCOREINFO_MAX (1u << 20)

/*
 * QEMU says "Unknown" for a guest with no ELF_MACHINE_UNAME (arm64: its
 * 7.2 writes only x86's). The dump's VMCOREINFO (kdump_sub_header's
 * offset_vmcoreinfo, which QEMU fills from the guest's vmcoreinfo
 * device) still tells arm64 by the value only it exports,
 * NUMBER(kimage_voffset) (arch/arm64/kernel/crash_core.c).
 */
static const char *machine_from_vmcoreinfo(int fd)
{
	uint32_t version, block = vmcore_diskdump_block(fd);
	uint64_t sub[2];
	char *vi;
	const char *m = NULL;

	if (pread(fd, &version, 4, 8) != 4 || version < 3 || !block ||
	    pread(fd, sub, sizeof(sub), (off_t)block + KDUMP_SUB_VMCOREINFO_OFF) !=
		    (ssize_t)sizeof(sub) ||
	    !sub[1] || sub[1] > VMCOREINFO_MAX || sub[0] > INT64_MAX ||
	    !(vi = calloc(1, sub[1] + 1)))
		return NULL;
	if (pread(fd, vi, sub[1], (off_t)sub[0]) == (ssize_t)sub[1] &&
	    strstr(vi, "NUMBER(kimage_voffset)="))
		m = "aarch64";
	free(vi);
	return m;
}

static int vmcore_fix_arch(struct vmcore *vc, const char *path,
			   struct ms_err *err)
{
	char machine[DISKDUMP_UTS_LEN + 1] = "";
	const char *s;
	kdump_status ks;

	if (vc_get_string(vc, KDUMP_ATTR_ARCH_NAME, &s) == KDUMP_OK)
		return 0;
	vc->kd.kdump_clear_err(vc->ctx);
	if (vc_get_string(vc, KDUMP_ATTR_FILE_FORMAT, &s) != KDUMP_OK ||
	    strcmp(s, "diskdump") ||
	    pread(vc->fd, machine, DISKDUMP_UTS_LEN, DISKDUMP_MACHINE_OFF) !=
		    DISKDUMP_UTS_LEN ||
	    !machine[0]) {
		/* Nothing to go on: setting the OS type will say so. */
		vc->kd.kdump_clear_err(vc->ctx);
		return 0;
	}
	machine[DISKDUMP_UTS_LEN] = '\0';
	/*
	 * QEMU writes its target's ELF_MACHINE_UNAME, which for s390x is
	 * "S390X" (target/s390x/cpu.h, 7.2); uname -m, and libkdumpfile,
	 * say "s390x".
	 */
	if (!strcmp(machine, "S390X"))
		memcpy(machine, "s390x", sizeof("s390x"));
	if (!strcmp(machine, "Unknown")) {
		const char *m = machine_from_vmcoreinfo(vc->fd);

		if (!m) {
			vc->kd.kdump_clear_err(vc->ctx);
			return 0;
		}
		snprintf(machine, sizeof(machine), "%s", m);
	}
	ks = vc_set_string(vc, "linux.uts.machine", machine);
	if (ks != KDUMP_OK)
		return ms_err_set(err, kdump_errno(ks),
				  "--vmcore %s: machine \"%s\" of the kdump header: %s",
				  path, MS_ESC(machine), kdump_msg(vc, ks));
	return 0;
}

/*
 * QEMU 7.2 writes an arm64 guest's compressed kdump in 64 KiB blocks
 * (target/arm/arch_dump.c: page_size 1 << 16, whatever the guest's), an
 * s390x guest's in 1 MiB ones (seen with Debian's 6.1), and
 * libkdumpfile 0.5.1 then numbers the blocks by the kernel's 4 KiB pages:
 * every read is an "Out-of-bounds PFN". Say so, and what works.
 */
static int vmcore_check_blocks(struct vmcore *vc, const char *path,
			       struct ms_err *err)
{
	const char *fmt, *arch, *ps = vc->vmcoreinfo ?
				       strstr(vc->vmcoreinfo, "PAGESIZE=") :
				       NULL;
	uint32_t block = vmcore_diskdump_block(vc->fd);
	unsigned long page;
	bool s390;

	if (vc_get_string(vc, KDUMP_ATTR_FILE_FORMAT, &fmt) != KDUMP_OK ||
	    strcmp(fmt, "diskdump") || !ps ||
	    (ps != vc->vmcoreinfo && ps[-1] != '\n')) {
		vc->kd.kdump_clear_err(vc->ctx);
		return 0;
	}
	page = strtoul(ps + strlen("PAGESIZE="), NULL, 10);
	if (!block || !page || block == page)
		return 0;
	/* QEMU 7.2's s390x ELF dumps are no better (vmfile.c) */
	s390 = vc_get_string(vc, KDUMP_ATTR_ARCH_NAME, &arch) == KDUMP_OK &&
	       !strcmp(arch, KDUMP_ARCH_S390X);
	vc->kd.kdump_clear_err(vc->ctx);
	return ms_err_set(err, ENOTSUP,
			  "--vmcore %s: a compressed kdump in %" PRIu32 "-byte blocks of a kernel with %lu-byte pages (QEMU's dump-guest-memory -z/-l/-s of an arm64 or s390x guest), which libkdumpfile cannot read; %s",
			  path, block, page,
			  s390 ? "give --remote to the live target (QEMU 7.2's s390x ELF dumps are malformed)" :
				 "dump it in ELF format (dump-guest-memory without -z), or give --kernel-image and --remote to the live target");
}

/*
 * Virtual addresses need the OS type: with it, libaddrxlat builds the
 * kernel's translation from VMCOREINFO (page table root, KASLR offset,
 * phys_base). libkdumpfile parses VMCOREINFO only once the OS type is
 * set ("OS type is not set" before), so it is read after.
 */
static int vmcore_setup_xlat(struct vmcore *vc, const char *path,
			     struct ms_err *err)
{
	kdump_status ks;
	char *raw = NULL;

	ks = vc_set_string(vc, KDUMP_ATTR_OSTYPE, "linux");
	if (ks != KDUMP_OK)
		return ms_err_set(err, kdump_errno(ks),
				  "--vmcore %s: cannot set up Linux address translation: %s",
				  path, kdump_msg(vc, ks));
	/* No VMCOREINFO is no error: the dump may still translate. */
	ks = vc->kd.kdump_vmcoreinfo_raw(vc->ctx, &raw);
	if (ks == KDUMP_OK && raw && *raw)
		vc->vmcoreinfo = raw;
	else
		free(raw);
	if (ks == KDUMP_ERR_SYSTEM)
		return ms_err_errno(err, kdump_errno(ks), "--vmcore %s: VMCOREINFO",
				    path);
	return vmcore_check_blocks(vc, path, err);
}

/* Where libkdumpfile gives no CPU registers: a compressed kdump's notes. */
static void vmcore_load_prstatus(struct vmcore *vc, const struct ms_mem *m)
{
	enum { MAX_CPUS = 8192 };
	kdump_num_t n;

	if (m->elf_machine != EM_X86_64)
		return;
	if (vc_get_number(vc, KDUMP_ATTR_NUM_CPUS, &n) == KDUMP_OK && n)
		return;
	vc->kd.kdump_clear_err(vc->ctx);
	vc->prs = calloc(MAX_CPUS, sizeof(*vc->prs));
	if (vc->prs)
		vc->nprs = vmcore_diskdump_prstatus(vc->fd, vc->prs, MAX_CPUS);
}

int ms_vmcore_open(const char *path, struct ms_mem **ret, struct ms_err *err)
{
	struct vmcore *vc = calloc(1, sizeof(*vc));
	struct ms_mem *m;
	char *origin;
	int r;

	if (!vc)
		return ms_err_errno(err, ENOMEM, "--vmcore %s", path);
	vc->fd = -1;
	r = vmcore_probe(vc, path, err);
	if (!r)
		r = vmcore_fix_arch(vc, path, err);
	if (!r)
		r = vmcore_setup_xlat(vc, path, err);
	if (r) {
		vmcore_free(vc);
		return r;
	}
	if (asprintf(&origin, "vmcore %s", path) < 0) {
		vmcore_free(vc);
		return ms_err_errno(err, ENOMEM, "--vmcore %s", path);
	}
	r = ms_mem_new(&vmcore_ops, vc, origin, &m, err);
	free(origin);
	if (r) {
		vmcore_free(vc);
		return r;
	}
	vmcore_set_arch(vc, m);
	vmcore_load_prstatus(vc, m);
	*ret = m;
	return 0;
}
