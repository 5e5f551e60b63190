// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running kernel's memory through /proc/kcore, as drgn's live mode
 * reads it: an ELF core of the machine it runs on, whose PT_LOADs are at
 * kernel virtual addresses (fs/proc/kcore.c: the kernel image, modules,
 * vmalloc, the direct map), with a VMCOREINFO note since 4.19
 * (23c85094fe18, "proc/kcore: add vmcoreinfo note to /proc/kcore").
 *
 * It is read-only and holds no CPU's registers (its NT_PRSTATUS is
 * empty): a task running on a CPU has none to give. The kernel fills
 * what it cannot read of vmalloc space with zeros (vread_iter), so only
 * a range outside every PT_LOAD is a read error here.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

#define KCORE_MAX_PHDRS 4096
#define KCORE_MAX_NOTES (1u << 20)

struct kload {
	uint64_t vaddr, size, off;
};

struct kcore {
	int fd;
	struct kload *loads;
	size_t nloads;
	char *vmcoreinfo;
};

static void kcore_free(struct kcore *kc)
{
	if (!kc)
		return;
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc->loads);
	free(kc->vmcoreinfo);
	free(kc);
}

static int kcore_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		      struct ms_err *err)
{
	struct kcore *kc = m->priv;
	unsigned char *out = buf;

	m->nrequests++;
	while (len) {
		const struct kload *l = NULL;
		size_t n;
		ssize_t got;

		for (size_t i = 0; i < kc->nloads && !l; i++)
			if (addr >= kc->loads[i].vaddr &&
			    addr - kc->loads[i].vaddr < kc->loads[i].size)
				l = &kc->loads[i];
		if (!l)
			return ms_err_set(err, EFAULT,
					  "0x%" PRIx64 " is in no segment of %s",
					  addr, m->origin);
		n = l->size - (addr - l->vaddr) < len ?
			    (size_t)(l->size - (addr - l->vaddr)) :
			    len;
		got = pread(kc->fd, out, n, (off_t)(l->off + (addr - l->vaddr)));
		if (got < 0 && (errno == EFAULT || errno == EIO ||
				errno == ENXIO))
			return ms_err_set(err, EFAULT,
					  "0x%" PRIx64 " cannot be read: %s",
					  addr, strerror(errno));
		if (got < 0)
			return ms_err_kind(err, MS_E_IO, errno,
					   "reading 0x%" PRIx64 ": %s", addr,
					   strerror(errno));
		if (got == 0)
			return ms_err_set(err, EFAULT,
					  "0x%" PRIx64 " is past the end of %s",
					  addr, m->origin);
		out += got;
		addr += (uint64_t)got;
		len -= (size_t)got;
	}
	return 0;
}

static const char *kcore_vmcoreinfo(struct ms_mem *m)
{
	return ((struct kcore *)m->priv)->vmcoreinfo;
}

static void kcore_close(struct ms_mem *m)
{
	kcore_free(m->priv);
	m->priv = NULL;
}

static const struct ms_mem_ops kcore_ops = {
	.read = kcore_read,
	.vmcoreinfo = kcore_vmcoreinfo,
	.close = kcore_close,
};

/* The VMCOREINFO note of a PT_NOTE's bytes, if there is one. */
static int kcore_notes(struct kcore *kc, const unsigned char *p, size_t n)
{
	struct ms_notes it;
	struct ms_note nt;

	/* the running kernel's: this machine's byte order */
	ms_notes_init(&it, p, n, MS_HOST_BIG_ENDIAN);
	while (ms_notes_next(&it, &nt) > 0)
		if (nt.namesz == sizeof("VMCOREINFO") &&
		    !memcmp(nt.name, "VMCOREINFO", sizeof("VMCOREINFO"))) {
			kc->vmcoreinfo =
				strndup((const char *)nt.desc, nt.descsz);
			return kc->vmcoreinfo ? 0 : -ENOMEM;
		}
	return 0;
}

static int kcore_phdrs(struct kcore *kc, const char *path, struct ms_err *err)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	int r = 0;

	if (pread(kc->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum ||
	    eh.e_phnum > KCORE_MAX_PHDRS)
		return ms_err_kind(err, MS_E_INPUT, EINVAL,
				   "--kcore %s: not a 64-bit ELF core with program headers",
				   path);
	ph = calloc(eh.e_phnum, sizeof(*ph));
	kc->loads = calloc(eh.e_phnum, sizeof(*kc->loads));
	if (!ph || !kc->loads) {
		free(ph);
		return ms_err_errno(err, ENOMEM, "--kcore %s", path);
	}
	if (pread(kc->fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		free(ph);
		return ms_err_kind(err, MS_E_INPUT, EINVAL,
				   "--kcore %s: its program headers cannot be read",
				   path);
	}
	for (unsigned int i = 0; i < eh.e_phnum && !r; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_filesz)
			kc->loads[kc->nloads++] = (struct kload){
				ph[i].p_vaddr, ph[i].p_filesz, ph[i].p_offset
			};
		if (ph[i].p_type == PT_NOTE && !kc->vmcoreinfo &&
		    ph[i].p_filesz && ph[i].p_filesz <= KCORE_MAX_NOTES) {
			unsigned char *p = malloc(ph[i].p_filesz);

			if (!p)
				r = -ENOMEM;
			else if (pread(kc->fd, p, ph[i].p_filesz,
				       (off_t)ph[i].p_offset) ==
				 (ssize_t)ph[i].p_filesz)
				r = kcore_notes(kc, p, ph[i].p_filesz);
			free(p);
		}
	}
	free(ph);
	if (r)
		return ms_err_errno(err, ENOMEM, "--kcore %s", path);
	return 0;
}

int ms_kcore_open(const char *path, struct ms_mem **ret, struct ms_err *err)
{
	struct kcore *kc = calloc(1, sizeof(*kc));
	char origin[4200];
	struct ms_mem *m;
	int r;

	if (!path)
		path = "/proc/kcore";
	if (!kc)
		return ms_err_errno(err, ENOMEM, "--kcore %s", path);
	kc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0) {
		r = ms_err_errno(err, errno, "--kcore %s", path);
		kcore_free(kc);
		return r;
	}
	r = kcore_phdrs(kc, path, err);
	if (!r) {
		snprintf(origin, sizeof(origin), "kcore %s", path);
		r = ms_mem_new(&kcore_ops, kc, origin, &m, err);
	}
	if (r) {
		kcore_free(kc);
		return r;
	}
#if defined(__x86_64__)
	m->elf_machine = EM_X86_64;
#elif defined(__aarch64__)
	m->elf_machine = EM_AARCH64;
#endif
	m->elf_class = ELFCLASS64;
	*ret = m;
	return 0;
}
