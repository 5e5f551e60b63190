// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the task walk (lib/kernel/ktask.c) and the server
 * (lib/serve/) on the fake kernel with tasks of tests/tools/faketask.h.
 *
 * The input: a byte of flags (bit 0: the 6.1 layout, else the small
 * one; bit 1: the good kernel's arena, none in the input; bit 2: no CPU
 * registers, as /proc/kcore), then, without bit 1, a 16-bit little-endian
 * length and that many bytes of arena (mapped at FK_BASE, zeros to a
 * page's end; the symbols, stacks and registers are the good kernel's);
 * the rest is what a debugger sends, fed to ms_serve through a memfd
 * (its replies to /dev/null). Seeds: fuzz/seeds.sh, from `taskwalk
 * --dump-seed` and packets of a gdb session.
 *
 * Every task is listed and its registers asked for; every failure of
 * the walk, the registers or the server has a message.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tests/tools/faketask.h"
#include "serve/serve.h"

static struct ft goods[2];
static struct btf *btfs[2];
static struct ms_kernel mks[2]; /* their layouts, read once, kept */
/* One source with CPU registers, one without, over view: kept too. */
static struct ft_view view;
static struct ms_mem *mems[2];
static int devnull = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ft_init(&goods[0], &ft_layout_small);
	ft_init(&goods[1], &ft_layout_61);
	for (int i = 0; i < 2; i++) {
		ft_good(&goods[i]);
		btfs[i] = ft_btf(goods[i].ly);
		if (!btfs[i] || goods[i].fk.nomem)
			abort();
		ft_kernel_init(&mks[i], &goods[i], NULL, btfs[i]);
	}
	for (int i = 0; i < 2; i++) {
		struct ms_err err = { 0 };

		view = ft_view(&goods[0], !i);
		if (ft_mem_open(&view, &mems[i], &err))
			abort();
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		abort();
	return 0;
}

/* Every failure says what failed. */
static void said(int r, const struct ms_err *err)
{
	if (r < 0 && (!err->msg[0] || err->code <= 0))
		abort();
}

static void walk(struct ms_kernel *mk)
{
	struct ms_err err = { 0 };
	struct ms_tasks ts;
	int r = ms_kernel_tasks(mk, &ts, &err);

	said(r, &err);
	for (size_t i = 0; !r && i < ts.n; i++) {
		struct ms_regs regs;
		struct ms_err e = { 0 };

		said(ms_kernel_task_regs(mk, &ts.v[i], &regs, &e), &e);
	}
	if (!r)
		ms_tasks_clear(&ts);
}

static void serve(struct ms_kernel *mk, const unsigned char *p, size_t n)
{
	struct ms_serve_opts o = { .out_fd = devnull, .what = "vmcore fuzz" };
	struct ms_err err = { 0 };
	int fd = memfd_create("packets", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (n && write(fd, p, n) != (ssize_t)n) {
		close(fd);
		return;
	}
	lseek(fd, 0, SEEK_SET);
	o.in_fd = fd;
	said(ms_serve(mk, &o, &err), &err);
	close(fd);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *arena = NULL;
	struct ms_kernel *mk;
	int flags;

	if (!size)
		return 0;
	flags = data[0];
	mk = &mks[flags & 1];
	view = ft_view(&goods[flags & 1], !(flags & 4));
	data++;
	size--;
	if (!(flags & 2)) {
		size_t alen = size < 2 ? 0 : (size_t)(data[0] | data[1] << 8);

		data += size < 2 ? size : 2;
		size -= size < 2 ? size : 2;
		alen = alen < size ? alen : size;
		/* Memory is mapped by pages: the bytes, then zeros. */
		view.arena.len = (alen + FK_PAGE - 1) & ~(size_t)(FK_PAGE - 1);
		arena = calloc(1, view.arena.len ? view.arena.len : 1);
		if (!arena)
			return 0;
		memcpy(arena, data, alen);
		view.arena.arena = arena;
		data += alen;
		size -= alen;
	}
	/* the source's cache holds the last input's memory */
	mk->k.mem = mems[(flags & 4) != 0];
	ms_mem_invalidate(mk->k.mem);
	walk(mk);
	serve(mk, data, size);
	free(arena);
	return 0;
}
