// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A vmcore file before libkdumpfile reads it (see vmcore-int.h): a
 * flattened kdump put back in place, an ELF core checked against its
 * program headers.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmcore-int.h"

/*
 * makedumpfile -F, and QEMU's dump-guest-memory kdump-zlib, -lzo and
 * -snappy (all of them before 8.2; its kdump-raw-* formats are plain),
 * write the kdump file "flattened", for pipes: a
 * 4096-byte header, then records of (file offset, size, bytes) in any
 * order, to an end marker. libkdumpfile 0.5.1 reads only the plain file,
 * so the records are put back in place in an anonymous file (what
 * makedumpfile -R does on disk); it costs memory the size of the dump.
 */
#define FLAT_SIGNATURE "makedumpfile"
#define FLAT_HEADER_SIZE 4096
#define FLAT_TYPE 1 /* TYPE_FLAT_HEADER */
#define FLAT_COPY_CHUNK (1u << 20)

bool vmcore_is_flat(int fd)
{
	unsigned char h[32];
	char sig[16] = FLAT_SIGNATURE;
	uint64_t type;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, sig, sizeof(sig)))
		return false;
	memcpy(&type, h + 16, sizeof(type));
	return be64toh(type) == FLAT_TYPE;
}

static int flat_copy(int from, off_t from_off, int to, off_t to_off,
		     uint64_t len, char *buf)
{
	while (len) {
		size_t n = len < FLAT_COPY_CHUNK ? (size_t)len :
						   FLAT_COPY_CHUNK;
		ssize_t r = pread(from, buf, n, from_off);

		if (r <= 0)
			return r < 0 ? -errno : -EBADMSG;
		if (pwrite(to, buf, (size_t)r, to_off) != r)
			return -errno;
		from_off += r;
		to_off += r;
		len -= (uint64_t)r;
	}
	return 0;
}

int vmcore_unflatten(int *fd, const char *path, struct ms_err *err)
{
	struct stat st;
	off_t off = FLAT_HEADER_SIZE;
	char *buf = NULL;
	int out, r = 0;

	if (fstat(*fd, &st))
		return ms_err_errno(err, errno, "--vmcore %s", path);
	out = memfd_create("modsect-vmcore", MFD_CLOEXEC);
	buf = malloc(FLAT_COPY_CHUNK);
	if (out < 0 || !buf) {
		r = ms_err_errno(err, out < 0 ? errno : ENOMEM,
				 "--vmcore %s: unflattening", path);
		goto out;
	}
	for (;;) {
		uint64_t rec[2];
		int64_t to, len;

		if (pread(*fd, rec, sizeof(rec), off) != (ssize_t)sizeof(rec)) {
			r = ms_err_set(
				err, EBADMSG,
				"--vmcore %s: flattened kdump file ends at offset %jd without its end marker",
				path, (intmax_t)off);
			goto out;
		}
		to = (int64_t)be64toh(rec[0]);
		len = (int64_t)be64toh(rec[1]);
		if (to == -1)
			break;
		off += (off_t)sizeof(rec);
		/* Every record stays inside the file: the loop is bounded. */
		if (to < 0 || len < 0 || len > st.st_size - off ||
		    to > INT64_MAX - len) {
			r = ms_err_set(
				err, EBADMSG,
				"--vmcore %s: flattened kdump record at offset %jd is out of bounds (to %jd, %jd bytes)",
				path, (intmax_t)(off - (off_t)sizeof(rec)),
				(intmax_t)to, (intmax_t)len);
			goto out;
		}
		r = flat_copy(*fd, off, out, (off_t)to, (uint64_t)len, buf);
		if (r) {
			r = ms_err_errno(err, -r, "--vmcore %s: unflattening",
					 path);
			goto out;
		}
		off += (off_t)len;
	}
	close(*fd);
	*fd = out;
	out = -1;
out:
	if (out >= 0)
		close(out);
	free(buf);
	return r;
}

/* An ELF field of n bytes at p in the file's byte order. */
static uint64_t elf_get(const unsigned char *p, unsigned int n, bool msb)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The ELF header's program header table: offset, count, entry size. */
struct elf_phtab {
	bool c64, msb;
	uint64_t off;
	unsigned int num, entsize;
};

static bool elf_phtab(int fd, struct elf_phtab *t)
{
	unsigned char h[64];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, ELFMAG, SELFMAG) ||
	    (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64))
		return false;
	t->c64 = h[EI_CLASS] == ELFCLASS64;
	t->msb = h[EI_DATA] == ELFDATA2MSB;
	if (elf_get(h + 16, 2, t->msb) != ET_CORE)
		return false;
	t->off = t->c64 ? elf_get(h + 32, 8, t->msb) :
			  elf_get(h + 28, 4, t->msb);
	t->entsize = (unsigned int)elf_get(h + (t->c64 ? 54 : 42), 2, t->msb);
	t->num = (unsigned int)elf_get(h + (t->c64 ? 56 : 44), 2, t->msb);
	return t->entsize >= (t->c64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
}

/* A program header's type, file range and physical address. */
static void elf_phdr(const struct elf_phtab *t, const unsigned char *p,
		     uint32_t *type, uint64_t *off, uint64_t *filesz,
		     uint64_t *paddr)
{
	*type = (uint32_t)elf_get(p, 4, t->msb);
	if (t->c64) {
		*off = elf_get(p + 8, 8, t->msb);
		*paddr = elf_get(p + 24, 8, t->msb);
		*filesz = elf_get(p + 32, 8, t->msb);
	} else {
		*off = elf_get(p + 4, 4, t->msb);
		*paddr = elf_get(p + 12, 4, t->msb);
		*filesz = elf_get(p + 16, 4, t->msb);
	}
}

/*
 * libkdumpfile maps the file: a read past its end would be SIGBUS, and
 * the page tables every address goes through may be in the part that is
 * missing, so a truncated core is refused whole rather than read into
 * misleading answers ("not the running kernel", "page not present").
 */
int vmcore_check_elf_size(int fd, const char *path, struct ms_err *err)
{
	struct elf_phtab t;
	unsigned char *ph;
	uint64_t need = 0, lost = UINT64_MAX;
	char phys[64] = "";
	struct stat st;
	size_t len;

	if (fstat(fd, &st) || !elf_phtab(fd, &t))
		return 0;
	len = (size_t)t.num * t.entsize;
	ph = malloc(len ? len : 1);
	if (!ph)
		return ms_err_errno(err, ENOMEM, "--vmcore %s", path);
	if (pread(fd, ph, len, (off_t)t.off) != (ssize_t)len)
		len = 0; /* the headers themselves are cut: say so below */
	need = t.off + (uint64_t)t.num * t.entsize;
	for (size_t i = 0; i + t.entsize <= len; i += t.entsize) {
		uint32_t type;
		uint64_t off, filesz, paddr;

		elf_phdr(&t, ph + i, &type, &off, &filesz, &paddr);
		if (type == PT_NULL || !filesz || off + filesz < off)
			continue;
		if (off + filesz > need)
			need = off + filesz;
		/* the first physical address whose bytes are not in the file */
		if (type == PT_LOAD && off + filesz > (uint64_t)st.st_size) {
			uint64_t a =
				paddr + ((uint64_t)st.st_size > off ?
						 (uint64_t)st.st_size - off :
						 0);

			if (a < lost)
				lost = a;
		}
	}
	free(ph);
	if ((uint64_t)st.st_size >= need)
		return 0;
	if (lost != UINT64_MAX)
		snprintf(phys, sizeof(phys),
			 " (physical memory from 0x%" PRIx64 " on)", lost);
	return ms_err_kind(
		err, MS_E_IO, EIO,
		"vmcore %s is truncated: %jd bytes, its program headers need %" PRIu64
		" (%.1f%% missing: an interrupted copy, a full disk?); memory past offset %jd%s cannot be read, and modsect reads no part of it (the page tables may be in what is missing)",
		path, (intmax_t)st.st_size, need,
		100.0 * (double)(need - (uint64_t)st.st_size) / (double)need,
		(intmax_t)st.st_size, phys);
}

/*
 * libkdumpfile 0.5.1 allocates the section-header string table at the
 * size the file says before reading it, so a size from a corrupt header
 * is a failed (or, under a sanitizer, fatal) allocation of up to 2^64
 * bytes. QEMU 7.2 writes such a dump of a little-endian ppc64 guest: its
 * header says big-endian, and the table's size reads as
 * 0x0b00000000000000. Such a table is refused before libkdumpfile sees it.
 */
int vmcore_check_elf_shstrtab(int fd, const char *path, struct ms_err *err)
{
	struct elf_phtab t;
	unsigned char h[64], sh[64];
	uint64_t shoff, off, size, shsize;
	unsigned int entsize, shnum, strndx;
	struct stat st;

	if (fstat(fd, &st) || !elf_phtab(fd, &t) ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return 0;
	shoff = t.c64 ? elf_get(h + 40, 8, t.msb) : elf_get(h + 32, 4, t.msb);
	entsize = (unsigned int)elf_get(h + (t.c64 ? 58 : 46), 2, t.msb);
	shnum = (unsigned int)elf_get(h + (t.c64 ? 60 : 48), 2, t.msb);
	strndx = (unsigned int)elf_get(h + (t.c64 ? 62 : 50), 2, t.msb);
	shsize = t.c64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (!shoff || strndx == SHN_UNDEF || strndx >= shnum ||
	    entsize < shsize ||
	    pread(fd, sh, shsize,
		  (off_t)(shoff + (uint64_t)strndx * entsize)) !=
		    (ssize_t)shsize)
		return 0;
	off = t.c64 ? elf_get(sh + 24, 8, t.msb) : elf_get(sh + 16, 4, t.msb);
	size = t.c64 ? elf_get(sh + 32, 8, t.msb) : elf_get(sh + 20, 4, t.msb);
	if (off <= (uint64_t)st.st_size && size <= (uint64_t)st.st_size - off)
		return 0;
	return ms_err_kind(
		err, MS_E_INPUT, EINVAL,
		"vmcore %s: its section-header string table (%" PRIu64
		" bytes at offset %" PRIu64
		") is not inside the file of %jd bytes: a corrupt ELF header (QEMU 7.2's dumps of ppc64le and s390x guests say big-endian but write their section header little-endian)",
		path, size, off, (intmax_t)st.st_size);
}

/* The diskdump header's block_size, after the timestamp and status. */
#define DISKDUMP_BLOCK_SIZE_OFF 428

uint32_t vmcore_diskdump_block(int fd)
{
	uint32_t block;

	return pread(fd, &block, 4, DISKDUMP_BLOCK_SIZE_OFF) == 4 ? block : 0;
}

/*
 * The x86-64 NT_PRSTATUS notes of a compressed kdump (QEMU's
 * dump-guest-memory -z/-l/-s, makedumpfile), which libkdumpfile 0.5.1
 * gives no cpu.N.reg attributes for: the notes are where the
 * kdump_sub_header says (offset_note, size_note, version 4 on), each an
 * elf_prstatus whose pr_reg (at 112, include/uapi/linux/elfcore.h) is a
 * struct user_regs_struct, in file order.
 */
#define SUB_NOTE_OFF 48 /* kdump_sub_header: offset_note, size_note */
#define PRSTATUS_SIZE 336
#define PRSTATUS_REG 112
#define MAX_NOTES ((uint64_t)16 << 20)

static size_t prstatus_notes(const unsigned char *p, size_t n,
			     uint64_t (*regs)[VMCORE_NREGS], size_t max)
{
	struct ms_notes it;
	struct ms_note nt;
	size_t got = 0;

	/* x86-64's: little-endian */
	ms_notes_init(&it, p, n, false);
	while (got < max && ms_notes_next(&it, &nt) > 0)
		if (nt.type == NT_PRSTATUS && nt.namesz == 5 &&
		    !memcmp(nt.name, "CORE", 5) && nt.descsz >= PRSTATUS_SIZE)
			memcpy(regs[got++], nt.desc + PRSTATUS_REG,
			       (size_t)VMCORE_NREGS * 8);
	return got;
}

size_t vmcore_diskdump_prstatus(int fd, uint64_t (*regs)[VMCORE_NREGS],
				size_t max)
{
	uint32_t version, block;
	uint64_t note[2];
	unsigned char *p;
	size_t got = 0;

	if (pread(fd, &version, 4, 8) != 4 || version < 4 ||
	    !(block = vmcore_diskdump_block(fd)) ||
	    pread(fd, note, sizeof(note), (off_t)block + SUB_NOTE_OFF) !=
		    (ssize_t)sizeof(note) ||
	    !note[1] || note[1] > MAX_NOTES || note[0] > INT64_MAX ||
	    !(p = malloc(note[1])))
		return 0;
	if (pread(fd, p, note[1], (off_t)note[0]) == (ssize_t)note[1])
		got = prstatus_notes(p, note[1], regs, max);
	free(p);
	return got;
}
