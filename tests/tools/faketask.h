/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faketask.h: a fake kernel with tasks for the task walk
 * (lib/kernel/ktask.c) and the server on it (lib/serve/), shared by
 * tests/tools/taskwalk.c and fuzz/fuzz_serve.c. Built on fakekern.h's
 * arena and BTF writer.
 *
 * - BTF of what ktask.c reads: task_struct, signal_struct, rq,
 *   thread_struct, thread_info, list_head, inactive_task_frame; at the
 *   offsets of Debian's 6.1 x86-64 kernel (pahole of its BTF), or small
 *   ones with the names of kernels before 5.14 (`state`, a long) and
 *   5.16 (task_struct.cpu), so that a fuzzer's input holds a whole
 *   kernel and the walk's fallbacks are used.
 * - Memory: the arena at FK_BASE holds __per_cpu_offset, nr_cpu_ids,
 *   panic_cpu, init_task (at the same addresses in every fake kernel),
 *   then two CPUs' runqueues and the tasks; their stacks are apart, at
 *   FT_STACKS, each with the frame __switch_to_asm left.
 * - A memory source over both, with the CPUs' registers (as a dump's
 *   NT_PRSTATUS notes) or without (as /proc/kcore), and a struct
 *   ms_kernel whose kallsyms has the five symbols.
 */
#ifndef MODSECT_FAKETASK_H
#define MODSECT_FAKETASK_H

#include "fakekern.h"

#define FT_STACKS 0xffffc90000000000ull /* vmalloc'ed stacks */
#define FT_THREAD_SIZE 16384u /* x86-64 without KASAN */
#define FT_MAX_STACKS 16u
#define FT_SP_OFF 0x3f00u /* thread.sp from the stack's base */
#define FT_NCPUS 2u /* the fake machine's CPUs */
#define FT_NR_CPUS 8u /* CONFIG_NR_CPUS: __per_cpu_offset[]'s length */
#define FT_RUNQUEUES 0x31cc0ull /* per-cpu: an offset, as kallsyms says */
#define FT_SCHED_RET 0xffffffff81c29a13ull /* __schedule+0x303 */
#define FT_PF_IDLE 0x2u
#define FT_PF_KTHREAD 0x00200000u

/* What a fake kernel's task_struct and its neighbours look like. */
struct ft_layout {
	const char *name;
	bool old; /* `state` (long) and task_struct.cpu, not __state, thread_info.cpu */
	size_t task_size, ti_size, t_state, state_size, t_stack, t_flags, t_cpu,
		t_tasks, t_exit_state, t_pid, t_tgid, t_thread_node, t_comm,
		t_signal, t_thread;
	size_t thr_size, thr_sp; /* struct thread_struct and its sp */
	size_t sig_size, sig_thread_head, rq_size, rq_curr, rq_idle;
};

static const struct ft_layout ft_layout_61 = {
	.name = "6.1", .task_size = 9792, .ti_size = 24, .t_cpu = 20,
	.t_state = 24, .state_size = 4, .t_stack = 32, .t_flags = 44,
	.t_tasks = 2192, .t_exit_state = 2308, .t_pid = 2416, .t_tgid = 2420,
	.t_thread_node = 2608, .t_comm = 2976, .t_signal = 3072,
	.t_thread = 5376, .thr_size = 4416, .thr_sp = 24, .sig_size = 1112,
	.sig_thread_head = 16, .rq_size = 3264, .rq_curr = 2400, .rq_idle = 2408,
};

static const struct ft_layout ft_layout_small = {
	.name = "small", .old = true, .task_size = 144, .ti_size = 16,
	.t_state = 16, .state_size = 8, .t_stack = 24, .t_flags = 32,
	.t_cpu = 36, .t_tasks = 40, .t_exit_state = 56, .t_pid = 60,
	.t_tgid = 64, .t_thread_node = 72, .t_comm = 88, .t_signal = 104,
	.t_thread = 112, .thr_size = 32, .thr_sp = 24, .sig_size = 32,
	.sig_thread_head = 16, .rq_size = 32, .rq_curr = 16, .rq_idle = 24,
};

/* ---- BTF ---- */

static inline int ftb_task(struct btf *b, int *err, const struct ft_layout *ly,
			   const struct fkb_types *t)
{
	int pid_t_ = fkb(err, btf__add_typedef(b, "pid_t", t->sint));
	int comm = fkb(err, btf__add_array(b, t->uint, t->chr, 16));
	int sig = fkb_composite(b, err, false, "signal_struct", ly->sig_size,
				FK_FIELDS({ "thread_head", t->lh,
					    ly->sig_thread_head }));
	int sigp = fkb(err, btf__add_ptr(b, sig));
	int thr = fkb_composite(b, err, false, "thread_struct", ly->thr_size,
				FK_FIELDS({ "sp", t->ulong, ly->thr_sp }));
	int ti, state;

	if (ly->old) {
		ti = fkb_composite(b, err, false, "thread_info", ly->ti_size,
				   FK_FIELDS({ "flags", t->ulong, 0 },
					     { "status", t->uint, 8 }));
		state = fkb(err, btf__add_int(b, "long int", 8, BTF_INT_SIGNED));
	} else {
		ti = fkb_composite(b, err, false, "thread_info", ly->ti_size,
				   FK_FIELDS({ "flags", t->ulong, 0 },
					     { "cpu", t->uint, ly->t_cpu }));
		state = t->uint;
	}
	/*
	 * task_struct.cpu in the old layout only; 6.1 has on_cpu, and
	 * task_cpu() is thread_info.cpu.
	 */
	return fkb_composite(b, err, false, "task_struct", ly->task_size,
			     FK_FIELDS({ "thread_info", ti, 0 },
				       { ly->old ? "state" : "__state", state,
					 ly->t_state },
				       { "stack", t->voidp, ly->t_stack },
				       { "flags", t->uint, ly->t_flags },
				       { ly->old ? "cpu" : "on_cpu", t->sint,
					 ly->old ? ly->t_cpu : ly->t_flags + 8 },
				       { "tasks", t->lh, ly->t_tasks },
				       { "exit_state", t->sint, ly->t_exit_state },
				       { "pid", pid_t_, ly->t_pid },
				       { "tgid", pid_t_, ly->t_tgid },
				       { "thread_node", t->lh, ly->t_thread_node },
				       { "comm", comm, ly->t_comm },
				       { "signal", sigp, ly->t_signal },
				       { "thread", thr, ly->t_thread }));
}

/* The fake kernel's BTF, or NULL with errno. */
static inline struct btf *ft_btf(const struct ft_layout *ly)
{
	static const char *const frame[7] = { "r15", "r14", "r13", "r12",
					      "bx",  "bp",  "ret_addr" };
	struct btf *b = btf__new_empty();
	struct fkb_types t;
	int err = 0, taskp, itf;

	if (!b)
		return NULL;
	fkb_base(b, &err, &t);
	taskp = fkb(&err, btf__add_ptr(b, ftb_task(b, &err, ly, &t)));
	fkb_composite(b, &err, false, "rq", ly->rq_size,
		      FK_FIELDS({ "curr", taskp, ly->rq_curr },
				{ "idle", taskp, ly->rq_idle }));
	itf = fkb(&err, btf__add_struct(b, "inactive_task_frame", 56));
	for (int i = 0; itf >= 0 && i < 7; i++)
		fkb(&err, btf__add_field(b, frame[i], t.ulong, (__u32)(64 * i), 0));
	return fkb_parse(b, err);
}

/* ---- the tasks ---- */

struct ft_spec {
	uint32_t pid, tgid;
	const char *comm; /* up to 15 bytes */
	uint64_t state;
	uint32_t exit_state, cpu, flags;
};

/* The good kernel's tasks, in this order (the indexes of ft->task). */
enum {
	FT_SWAPPER0, /* init_task: CPU 0's idle task */
	FT_SWAPPER1, /* CPU 1's idle task, running: on no list */
	FT_SYSTEMD,
	FT_KTHREADD,
	FT_KWORKER,
	FT_LOCK,
	FT_APP, /* running on CPU 0 */
	FT_WORKER,
	FT_STOPPED, /* its comm holds what packets and XML escape */
	FT_ZOMBIE,
	FT_NGOOD
};

/* TASK_INTERRUPTIBLE 1, UNINTERRUPTIBLE 2, __TASK_STOPPED 4, TASK_IDLE
 * 0x402, TASK_DEAD 0x80 with EXIT_ZOMBIE 0x20 (include/linux/sched.h). */
static const struct ft_spec ft_good_tasks[FT_NGOOD] = {
	{ 0, 0, "swapper/0", 0, 0, 0, FT_PF_IDLE | FT_PF_KTHREAD },
	{ 0, 0, "swapper/1", 0, 0, 1, FT_PF_IDLE | FT_PF_KTHREAD },
	{ 1, 1, "systemd", 1, 0, 1, 0 },
	{ 2, 2, "kthreadd", 1, 0, 0, FT_PF_KTHREAD },
	{ 30, 30, "kworker/0:1", 0x402, 0, 0, FT_PF_KTHREAD },
	{ 300, 300, "modsect_lock", 2, 0, 1, 0 },
	{ 400, 400, "app", 0, 0, 0, 0 },
	{ 401, 400, "app-worker", 1, 0, 1, 0 },
	{ 402, 400, "t$#}*<&>'\"\x7f", 4, 0, 1, 0 },
	{ 500, 500, "defunct", 0x80, 0x20, 0, 0 },
};

struct ft {
	struct fk fk; /* the arena */
	const struct ft_layout *ly;
	unsigned char *stacks; /* FT_MAX_STACKS stacks at FT_STACKS */
	unsigned int nstacks;
	uint64_t per_cpu_offset, nr_cpu_ids, panic_cpu, init_task;
	uint64_t rq[FT_NCPUS];
	uint64_t task[FT_NGOOD], sig[FT_NGOOD];
	struct ms_regs cpu[FT_NCPUS]; /* what a dump's notes would say */
	struct ms_ksym syms[5];
	struct ms_ksymtab ksyms;
};

/* A saved register's value in the frames of the good kernel's tasks. */
#define FT_FRAME_REG(tag, pid) (((uint64_t)(tag) << 56) | (pid))
/* CPU c's register n (gdb's number). */
#define FT_CPU_REG(c, n) (0xc0de000000000000ull | ((uint64_t)(c) << 8) | (n))

static inline void ft_list_init(struct fk *fk, uint64_t head)
{
	fk_w64(fk, head, head);
	fk_w64(fk, head + 8, head);
}

/* list_add_tail(node, head) */
static inline void ft_list_add_tail(struct fk *fk, uint64_t node, uint64_t head)
{
	uint64_t prev = fk_r64(fk, head + 8);

	fk_w64(fk, node, head);
	fk_w64(fk, node + 8, prev);
	fk_w64(fk, prev, node);
	fk_w64(fk, head + 8, node);
}

/*
 * The next stack, with the frame __switch_to_asm pushed at thread.sp
 * (the values say which register and pid), in task t.
 */
static inline void ft_stack(struct ft *ft, uint64_t t, uint32_t pid)
{
	static const unsigned char tag[6] = { 0x15, 0x14, 0x13, 0x12, 0xbb };
	uint64_t base = FT_STACKS + (uint64_t)ft->nstacks * FT_THREAD_SIZE;
	uint64_t sp = base + FT_SP_OFF, v;

	if (ft->nstacks >= FT_MAX_STACKS || !ft->stacks)
		return;
	ft->nstacks++;
	fk_w64(&ft->fk, t + ft->ly->t_stack, base);
	fk_w64(&ft->fk, t + ft->ly->t_thread + ft->ly->thr_sp, sp);
	for (size_t i = 0; i < 7; i++) {
		v = i < 5 ? FT_FRAME_REG(tag[i], pid) :
		    i == 5 ? sp + 0x80 : FT_SCHED_RET; /* bp, ret_addr */
		for (size_t j = 0; j < 8; j++)
			ft->stacks[sp - FT_STACKS + 8 * i + j] =
				(unsigned char)(v >> (8 * j));
	}
}

/* A task_struct (init_task's place for the first) with its stack. */
static inline uint64_t ft_task(struct ft *ft, const struct ft_spec *s,
			       uint64_t sig, bool first)
{
	const struct ft_layout *ly = ft->ly;
	struct fk *fk = &ft->fk;
	uint64_t t = first ? ft->init_task : fk_alloc(fk, ly->task_size, 64);
	size_t n = strlen(s->comm);

	fk_wint(fk, t + ly->t_state, s->state, ly->state_size);
	fk_w32(fk, t + ly->t_flags, s->flags);
	fk_w32(fk, t + ly->t_cpu, s->cpu);
	fk_w32(fk, t + ly->t_exit_state, s->exit_state);
	fk_w32(fk, t + ly->t_pid, s->pid);
	fk_w32(fk, t + ly->t_tgid, s->tgid);
	fk_wbytes(fk, t + ly->t_comm, s->comm, n < 15 ? n : 15);
	fk_w64(fk, t + ly->t_signal, sig);
	ft_list_init(fk, t + ly->t_tasks);
	ft_list_init(fk, t + ly->t_thread_node);
	ft_stack(ft, t, s->pid);
	return t;
}

static inline uint64_t ft_signal(struct ft *ft)
{
	uint64_t sig = fk_alloc(&ft->fk, ft->ly->sig_size, 64);

	ft_list_init(&ft->fk, sig + ft->ly->sig_thread_head);
	return sig;
}

/*
 * An empty kernel: the symbols' variables first, at the same addresses
 * in both layouts (a fuzzer's arena is read with the good kernel's
 * symbols), init_task's place, two CPUs' runqueues, the CPU registers.
 */
static inline void ft_init(struct ft *ft, const struct ft_layout *ly)
{
	static char n_init[] = "init_task", n_rq[] = "runqueues",
		    n_off[] = "__per_cpu_offset", n_nr[] = "nr_cpu_ids",
		    n_panic[] = "panic_cpu";
	struct fk *fk = &ft->fk;

	memset(ft, 0, sizeof(*ft));
	fk_init(fk, &fk_layout_61); /* `modules` at FK_BASE: unused */
	ft->ly = ly;
	ft->stacks = calloc(FT_MAX_STACKS, FT_THREAD_SIZE);
	ft->per_cpu_offset = fk_alloc(fk, 8 * FT_NR_CPUS, 8);
	ft->nr_cpu_ids = fk_alloc(fk, 4, 4);
	ft->panic_cpu = fk_alloc(fk, 4, 4);
	ft->init_task = fk_alloc(fk, ly->task_size, 64);
	fk_w32(fk, ft->nr_cpu_ids, FT_NCPUS);
	fk_w32(fk, ft->panic_cpu, 0xffffffff); /* PANIC_CPU_INVALID */
	for (unsigned int c = 0; c < FT_NCPUS; c++) {
		ft->rq[c] = fk_alloc(fk, ly->rq_size, 64);
		fk_w64(fk, ft->per_cpu_offset + 8 * c, ft->rq[c] - FT_RUNQUEUES);
		for (unsigned int n = 0; n < MS_X86_64_NREGS; n++)
			ms_regs_set(&ft->cpu[c], n, FT_CPU_REG(c, n));
	}
	ft->syms[0] = (struct ms_ksym){ n_init, ft->init_task, 'D' };
	ft->syms[1] = (struct ms_ksym){ n_rq, FT_RUNQUEUES, 'A' };
	ft->syms[2] = (struct ms_ksym){ n_off, ft->per_cpu_offset, 'D' };
	ft->syms[3] = (struct ms_ksym){ n_nr, ft->nr_cpu_ids, 'D' };
	ft->syms[4] = (struct ms_ksym){ n_panic, ft->panic_cpu, 'D' };
	ft->ksyms = (struct ms_ksymtab){ ft->syms, 5, 0, 0 };
	if (!ft->stacks)
		fk->nomem = true;
}

static inline void ft_free(struct ft *ft)
{
	fk_free(&ft->fk);
	free(ft->stacks);
	ft->stacks = NULL;
}

/*
 * The good kernel: ft_good_tasks, each process on init_task.tasks and
 * each thread on its group's signal->thread_head as copy_process() puts
 * them; CPU 0 runs app, CPU 1 its idle task.
 */
static inline void ft_good(struct ft *ft)
{
	const struct ft_layout *ly = ft->ly;
	struct fk *fk = &ft->fk;

	for (size_t i = 0; i < FT_NGOOD; i++) {
		const struct ft_spec *s = &ft_good_tasks[i];
		size_t lead = i;

		for (size_t j = 0; j < i; j++)
			if (ft_good_tasks[j].pid == s->tgid && s->pid != s->tgid)
				lead = j;
		ft->sig[i] = lead == i ? ft_signal(ft) : ft->sig[lead];
		ft->task[i] = ft_task(ft, s, ft->sig[i], i == FT_SWAPPER0);
		/* fork_idle(): pid 0, on no list */
		if (i != FT_SWAPPER1)
			ft_list_add_tail(fk, ft->task[i] + ly->t_thread_node,
					 ft->sig[i] + ly->sig_thread_head);
		if (s->pid && s->pid == s->tgid)
			ft_list_add_tail(fk, ft->task[i] + ly->t_tasks,
					 ft->init_task + ly->t_tasks);
	}
	fk_w64(fk, ft->rq[0] + ly->rq_idle, ft->task[FT_SWAPPER0]);
	fk_w64(fk, ft->rq[0] + ly->rq_curr, ft->task[FT_APP]);
	fk_w64(fk, ft->rq[1] + ly->rq_idle, ft->task[FT_SWAPPER1]);
	fk_w64(fk, ft->rq[1] + ly->rq_curr, ft->task[FT_SWAPPER1]);
}

/* ---- the memory source and struct ms_kernel ---- */

/* The arena (fk_mem_read's view: first), the stacks, CPU registers. */
struct ft_view {
	struct fk_view arena;
	const unsigned char *stacks; /* FT_MAX_STACKS * FT_THREAD_SIZE */
	const struct ms_regs *cpu;
	unsigned int ncpus; /* 0: none (/proc/kcore) */
};

static inline int ft_mem_read(struct ms_mem *m, uint64_t addr, void *buf,
			      size_t len, struct ms_err *err)
{
	const struct ft_view *v = m->priv;

	if (!fk_in(FT_STACKS, (size_t)FT_MAX_STACKS * FT_THREAD_SIZE, addr, len))
		return fk_mem_read(m, addr, buf, len, err);
	memcpy(buf, v->stacks + (addr - FT_STACKS), len);
	return 0;
}

static inline unsigned int ft_mem_ncpus(struct ms_mem *m)
{
	return ((const struct ft_view *)m->priv)->ncpus;
}

/* ms_mem_cpu_regs() has checked cpu against ft_mem_ncpus() */
static inline int ft_mem_cpu_regs(struct ms_mem *m, unsigned int cpu,
				  struct ms_regs *regs, struct ms_err *err)
{
	(void)err;
	*regs = ((const struct ft_view *)m->priv)->cpu[cpu];
	return 0;
}

static const struct ms_mem_ops ft_mem_ops = { .read = ft_mem_read,
					      .ncpus = ft_mem_ncpus,
					      .cpu_regs = ft_mem_cpu_regs };
static const struct ms_mem_ops ft_mem_ops_noregs = { .read = ft_mem_read };

/* The good kernel's view, or its stacks and registers with arena a. */
static inline struct ft_view ft_view(const struct ft *ft, bool regs)
{
	return (struct ft_view){ fk_view(&ft->fk), ft->stacks, ft->cpu,
				 regs ? FT_NCPUS : 0 };
}

/* v must outlive the source. */
static inline int ft_mem_open(const struct ft_view *v, struct ms_mem **ret,
			      struct ms_err *err)
{
	return ms_mem_new(v->ncpus ? &ft_mem_ops : &ft_mem_ops_noregs,
			  (void *)v, FK_ORIGIN, ret, err);
}

/* A kernel as ms_kernel_open() would leave it (x86-64, no KASLR). */
static inline void ft_kernel_init(struct ms_kernel *mk, const struct ft *ft,
				  struct ms_mem *mem, struct btf *btf)
{
	static char release[] = FK_RELEASE;

	memset(mk, 0, sizeof(*mk));
	mk->k = (struct kern){
		.mem = mem,
		.origin = FK_ORIGIN,
		.ksyms = &ft->ksyms,
		.btf = btf,
		.ptr_size = 8,
		.elf_machine = EM_X86_64,
		.release = release,
	};
}

#endif
