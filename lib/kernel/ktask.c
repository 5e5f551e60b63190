// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's tasks, read from its memory with BTF layouts, and the
 * registers each one last ran with: what a debugger needs to show every
 * task as a thread (the server, lib/serve/). The model is the kernel's own
 * scripts/gdb/linux/tasks.py (for_each_process_thread) and drgn's
 * linux_kernel_get_initial_registers_x86_64().
 *
 * Memory is hostile: the walk is bounded (MS_MAX_TASKS), every task is
 * seen once (a cycle ends the walk with an error naming where), and a
 * saved stack pointer outside its task's stack is refused.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kmem-int.h"

/* include/linux/sched.h, stable since 4.14 (06eb61844d84 for P and I). */
#define TASK_REPORT 0x7fu
#define TASK_IDLE_BITS 0x402u /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT 0x1000u
#define PF_KTHREAD 0x00200000u

static int task_fields(struct ms_kernel *mk, struct ms_err *err)
{
	struct tlayout *l = &mk->tl;
	const char *rel = mk->k.release ? mk->k.release : "unknown";
	struct kstruct t = { 0 }, sig = { 0 }, rq = { 0 };
	int r = kstruct_find(mk->k.btf, "task_struct", rel, false, &t, err);

	if (!r)
		r = kstruct_find(mk->k.btf, "signal_struct", rel, false, &sig,
				 err);
	if (!r)
		r = kstruct_find(mk->k.btf, "rq", rel, false, &rq, err);
	if (r || (r = kstruct_field(&t, "tasks", false, &l->t_tasks, err)) ||
	    (r = kstruct_field(&t, "pid", false, &l->t_pid, err)) ||
	    (r = kstruct_field(&t, "tgid", false, &l->t_tgid, err)) ||
	    (r = kstruct_field(&t, "comm", false, &l->t_comm, err)) ||
	    (r = kstruct_field(&t, "exit_state", false, &l->t_exit_state,
			       err)) ||
	    (r = kstruct_field(&t, "signal", false, &l->t_signal, err)) ||
	    (r = kstruct_field(&t, "thread_node", false, &l->t_thread_node,
			       err)) ||
	    (r = kstruct_field(&t, "stack", false, &l->t_stack, err)) ||
	    (r = kstruct_field(&t, "flags", false, &l->t_flags, err)) ||
	    (r = kstruct_field(&sig, "thread_head", false, &l->sig_thread_head,
			       err)) ||
	    (r = kstruct_field(&rq, "curr", false, &l->rq_curr, err)) ||
	    (r = kstruct_field(&rq, "idle", false, &l->rq_idle, err)))
		return r;
	/* __state since 2f064a59a11f (5.14), state before. */
	if ((r = kstruct_field(&t, "__state", true, &l->t_state, err)) ||
	    (!l->t_state.found &&
	     (r = kstruct_field(&t, "state", false, &l->t_state, err))))
		return r;
	/*
	 * The CPU: thread_info.cpu since bcf9033e5449 (5.16) where
	 * THREAD_INFO_IN_TASK, task_struct.cpu before.
	 */
	if ((r = kstruct_field(&t, "thread_info.cpu", true, &l->t_cpu, err)) ||
	    (!l->t_cpu.found &&
	     (r = kstruct_field(&t, "cpu", false, &l->t_cpu, err))))
		return r;
	if (l->t_comm.size > sizeof(((struct ms_task *)0)->comm))
		l->t_comm.size = sizeof(((struct ms_task *)0)->comm);
	return kstruct_field(&t, "thread.sp", true, &l->t_sp, err);
}

/* x86's struct inactive_task_frame: what __switch_to_asm pushed. */
static int switch_frame(struct ms_kernel *mk, struct ms_err *err)
{
	static const char *const names[7] = { "r15", "r14", "r13", "r12",
					      "bx",  "bp",  "ret_addr" };
	struct tlayout *l = &mk->tl;
	struct kstruct f;
	int r;

	if (mk->k.elf_machine != EM_X86_64)
		return 0;
	r = kstruct_find(mk->k.btf, "inactive_task_frame",
			 mk->k.release ? mk->k.release : "unknown",
			 false, &f, err);
	for (int i = 0; !r && i < 7; i++)
		r = kstruct_field(&f, names[i], false, &l->itf[i], err);
	if (!r && !l->t_sp.found)
		r = ms_err_set(err, ENOENT,
			       "struct task_struct has no thread.sp in the kernel's BTF (kernel %s)",
			       mk->k.release);
	l->itf_size = f.size;
	return r;
}

static int task_symbols(struct ms_kernel *mk, struct ms_err *err)
{
	struct tlayout *l = &mk->tl;
	struct ms_err e = { 0 };
	uint64_t a;
	int r = kern_sym(&mk->k, "init_task", &l->init_task, err);

	if (!r)
		r = kern_sym(&mk->k, "runqueues", &l->runqueues, err);
	if (r)
		return r;
	/* A kernel built without SMP has neither: one CPU, offset 0. */
	l->have_per_cpu_offset =
		!kern_sym(&mk->k, "__per_cpu_offset", &l->per_cpu_offset, &e);
	l->have_nr_cpu_ids = !kern_sym(&mk->k, "nr_cpu_ids", &l->nr_cpu_ids,
				       &e);
	l->have_panic_cpu = !kern_sym(&mk->k, "panic_cpu", &l->panic_cpu, &e);
	/*
	 * THREAD_SIZE (arch/x86/include/asm/page_64_types.h): 16 KiB, twice
	 * that with KASAN; other architectures are bounded by the larger.
	 */
	l->thread_size = 16384;
	if (mk->k.elf_machine != EM_X86_64 ||
	    !kern_sym(&mk->k, "__asan_load8", &a, &e))
		l->thread_size = 32768;
	return 0;
}

static int tlayout_init(struct ms_kernel *mk, struct ms_err *err)
{
	int r;

	if (mk->tl.done)
		return 0;
	if (!mk->k.btf)
		return ms_err_set(err, ENOTSUP,
				  "%s: the kernel has no BTF, which reading its tasks needs",
				  mk->k.origin);
	r = task_fields(mk, err);
	if (!r)
		r = switch_frame(mk, err);
	if (!r)
		r = task_symbols(mk, err);
	if (r)
		return r;
	mk->tl.done = true;
	return 0;
}

static int read_word(const struct kern *k, uint64_t addr, size_t size,
		     const char *what, uint64_t *ret, struct ms_err *err)
{
	unsigned char buf[8];
	int r;

	if (size > sizeof(buf))
		size = sizeof(buf);
	r = ms_mem_read(k->mem, addr, buf, size, what, err);
	if (!r)
		*ret = kget(k, buf, 0, size);
	return r;
}

static int read_field(const struct kern *k, uint64_t base,
		      const struct kfield *f, const char *what, uint64_t *ret,
		      struct ms_err *err)
{
	return read_word(k, base + f->off, f->size, what, ret, err);
}

/* ---- a set of addresses, for cycles ---- */

struct aset {
	uint64_t *v;
	size_t cap, n;
};

static int aset_add(struct aset *s, uint64_t a)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct aset b = { calloc(s->cap ? 2 * s->cap : 1024,
					 sizeof(uint64_t)),
				  s->cap ? 2 * s->cap : 1024, 0 };

		if (!b.v)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++)
			if (s->v[j])
				aset_add(&b, s->v[j]);
		free(s->v);
		*s = b;
	}
	for (i = (size_t)(a * 0x9e3779b97f4a7c15ull >> 20) % s->cap; s->v[i];
	     i = (i + 1) % s->cap)
		if (s->v[i] == a)
			return 1;
	s->v[i] = a;
	s->n++;
	return 0;
}

/* ---- one task ---- */

static char state_letter(uint64_t state, uint64_t exit_state)
{
	static const char letters[] = "RSDTtXZPI";
	unsigned int s = (unsigned int)((state | exit_state) & TASK_REPORT);
	int idx = 0;

	if ((state & TASK_IDLE_BITS) == TASK_IDLE_BITS)
		s = TASK_REPORT + 1;
	if (state == TASK_RTLOCK_WAIT)
		s = 2;
	while (s) {
		idx++;
		s >>= 1;
	}
	return idx < (int)sizeof(letters) - 1 ? letters[idx] : '?';
}

static int read_task(struct ms_kernel *mk, uint64_t addr, struct ms_task *t,
		     struct ms_err *err)
{
	const struct kern *k = &mk->k;
	const struct tlayout *l = &mk->tl;
	uint64_t pid, tgid, state, exit_state, cpu, flags;
	int r;

	memset(t, 0, sizeof(*t));
	t->addr = addr;
	if ((r = read_field(k, addr, &l->t_pid, "task_struct.pid", &pid, err)) ||
	    (r = read_field(k, addr, &l->t_tgid, "task_struct.tgid", &tgid,
			    err)) ||
	    (r = read_field(k, addr, &l->t_state, "task_struct.__state",
			    &state, err)) ||
	    (r = read_field(k, addr, &l->t_exit_state,
			    "task_struct.exit_state", &exit_state, err)) ||
	    (r = read_field(k, addr, &l->t_cpu, "task_struct's cpu", &cpu,
			    err)) ||
	    (r = read_field(k, addr, &l->t_flags, "task_struct.flags", &flags,
			    err)) ||
	    (r = ms_mem_read(k->mem, addr + l->t_comm.off, t->comm,
			     l->t_comm.size, "task_struct.comm", err)))
		return r;
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->pid = (uint32_t)pid;
	t->tgid = (uint32_t)tgid;
	t->tid = t->pid;
	t->cpu = (int)(uint32_t)cpu;
	t->state = state_letter(state, exit_state);
	t->kthread = flags & PF_KTHREAD;
	return 0;
}

static int add_task(struct ms_kernel *mk, struct ms_tasks *ts,
		    struct aset *seen, uint64_t addr, struct ms_err *err)
{
	struct ms_task *v;
	int r = aset_add(seen, addr);

	if (r < 0)
		return ms_err_errno(err, ENOMEM, "tasks");
	if (r)
		return 0; /* an idle task also on the list: init_task */
	if (ts->n >= MS_MAX_TASKS)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: more than %u tasks (corrupted task list?)",
				   mk->k.origin, MS_MAX_TASKS);
	/*
	 * Room for 16, then doubled whenever n is a power of two: a realloc
	 * per task made a walk to the bound quadratic (ASan's realloc always
	 * copies).
	 */
	if (ts->n < 16 ? !ts->n : !(ts->n & (ts->n - 1))) {
		v = realloc(ts->v, (ts->n ? 2 * ts->n : 16) * sizeof(*v));
		if (!v)
			return ms_err_errno(err, ENOMEM, "tasks");
		ts->v = v;
	}
	return read_task(mk, addr, &ts->v[ts->n++], err);
}

/* ---- the walk ---- */

/*
 * Why a list walk stopped, in the words of where: the link in the node
 * at prev is NULL, node came round again, or more than the bound.
 */
static int list_broken(const struct kern *k, const char *what, uint64_t head,
		       uint64_t prev, uint64_t node, bool again,
		       struct ms_err *err)
{
	if (!node)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: %s at 0x%" PRIx64
				   " does not come back to its head: the link at 0x%" PRIx64
				   " is NULL (corrupted memory?)",
				   k->origin, what, head, prev);
	if (again)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: %s at 0x%" PRIx64
				   " does not come back to its head: it loops at 0x%" PRIx64
				   " (corrupted memory?)",
				   k->origin, what, head, node);
	return ms_err_kind(err, MS_E_INPUT, EBADMSG,
			   "%s: %s at 0x%" PRIx64
			   " has more than %u entries (corrupted memory?)",
			   k->origin, what, head, MS_MAX_TASKS);
}

/*
 * One list_head list: calls back each entry (its node's address), up to
 * max; a node seen twice before the head comes back is a cycle.
 */
static int walk_list(struct ms_kernel *mk, uint64_t head, const char *what,
		     int (*fn)(struct ms_kernel *, uint64_t, void *, struct ms_err *),
		     void *arg, struct ms_err *err)
{
	const struct kern *k = &mk->k;
	struct aset nodes = { 0 };
	uint64_t node, prev = head;
	int r = read_word(k, head, (size_t)k->ptr_size, what, &node, err);

	while (!r && node != head) {
		if (!node || (r = aset_add(&nodes, node)) > 0 ||
		    nodes.n > MS_MAX_TASKS) {
			r = list_broken(k, what, head, prev, node, r > 0, err);
			break;
		}
		if (r < 0) {
			r = ms_err_errno(err, ENOMEM, "tasks");
			break;
		}
		r = fn(mk, node, arg, err);
		prev = node;
		if (!r)
			r = read_word(k, node, (size_t)k->ptr_size, what, &node,
				      err);
	}
	free(nodes.v);
	return r;
}

struct walk {
	struct ms_tasks *ts;
	struct aset *seen;
	size_t threads; /* thread_node entries walked, in all groups */
};

static int one_thread(struct ms_kernel *mk, uint64_t node, void *arg,
		      struct ms_err *err)
{
	struct walk *w = arg;

	/*
	 * A task is in one thread group: groups that share threads (every
	 * process's signal the same) would make the walk processes x
	 * threads long, each group's walk bounded but not their sum.
	 */
	if (++w->threads > MS_MAX_TASKS)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: the thread groups hold more than %u threads in all (groups that share threads: corrupted memory?)",
				   mk->k.origin, MS_MAX_TASKS);
	return add_task(mk, w->ts, w->seen, node - mk->tl.t_thread_node.off,
			err);
}

static int one_process(struct ms_kernel *mk, uint64_t node, void *arg,
		       struct ms_err *err)
{
	uint64_t task = node - mk->tl.t_tasks.off, sig;
	int r = read_field(&mk->k, task, &mk->tl.t_signal, "task_struct.signal",
			   &sig, err);

	if (!r && !sig)
		r = ms_err_kind(err, MS_E_INPUT, EBADMSG,
				"%s: task 0x%" PRIx64 " has no signal_struct",
				mk->k.origin, task);
	if (!r)
		r = walk_list(mk, sig + mk->tl.sig_thread_head.off,
			      "signal_struct.thread_head", one_thread, arg, err);
	return r;
}

static int cpu_rq(struct ms_kernel *mk, unsigned int cpu, uint64_t *rq,
		  struct ms_err *err)
{
	const struct tlayout *l = &mk->tl;
	uint64_t off = 0;
	int r = 0;

	if (l->have_per_cpu_offset)
		r = read_word(&mk->k,
			      l->per_cpu_offset + (uint64_t)cpu * mk->k.ptr_size,
			      (size_t)mk->k.ptr_size, "__per_cpu_offset", &off,
			      err);
	*rq = l->runqueues + off;
	return r;
}

/* Each CPU's idle task first, and which task runs where. */
static int cpus(struct ms_kernel *mk, struct ms_tasks *ts, struct aset *seen,
		uint64_t *curr, struct ms_err *err)
{
	const struct tlayout *l = &mk->tl;
	uint64_t n = 1, pc;
	int r = 0;

	if (l->have_nr_cpu_ids && l->have_per_cpu_offset)
		r = read_word(&mk->k, l->nr_cpu_ids, 4, "nr_cpu_ids", &n, err);
	if (!r && (n == 0 || n > MS_MAX_CPUS))
		r = ms_err_kind(err, MS_E_INPUT, EBADMSG,
				"%s: nr_cpu_ids is %" PRIu64 " (corrupted memory?)",
				mk->k.origin, n);
	ts->ncpus = (unsigned int)n;
	ts->panic_cpu = -1;
	if (!r && l->have_panic_cpu &&
	    !read_word(&mk->k, l->panic_cpu, 4, "panic_cpu", &pc, err) &&
	    (uint32_t)pc < n)
		ts->panic_cpu = (int)(uint32_t)pc;
	for (unsigned int c = 0; !r && c < n; c++) {
		uint64_t rq, idle = 0;
		size_t n_before;

		r = cpu_rq(mk, c, &rq, err);
		if (!r)
			r = read_field(&mk->k, rq, &l->rq_curr, "rq.curr",
				       &curr[c], err);
		if (!r)
			r = read_field(&mk->k, rq, &l->rq_idle, "rq.idle", &idle,
				       err);
		if (r || !idle)
			continue;
		n_before = ts->n;
		r = add_task(mk, ts, seen, idle, err);
		/* not if seen already: another CPU's idle task, relabelled */
		if (!r && ts->n > n_before) {
			ts->v[ts->n - 1].idle = true;
			ts->v[ts->n - 1].tid = MS_IDLE_TID + c;
			ts->v[ts->n - 1].cpu = (int)c;
		}
	}
	return r;
}

int ms_kernel_tasks(struct ms_kernel *mk, struct ms_tasks *ts,
		    struct ms_err *err)
{
	struct aset seen = { 0 };
	struct walk w = { NULL, &seen };
	uint64_t *curr = calloc(MS_MAX_CPUS, sizeof(*curr));
	int r = curr ? tlayout_init(mk, err) :
		       ms_err_errno(err, ENOMEM, "tasks");

	memset(ts, 0, sizeof(*ts));
	w.ts = ts;
	if (!r)
		r = cpus(mk, ts, &seen, curr, err);
	/* init_task's own thread group, then every other process. */
	if (!r)
		r = one_process(mk, mk->tl.init_task + mk->tl.t_tasks.off, &w,
				err);
	if (!r)
		r = walk_list(mk, mk->tl.init_task + mk->tl.t_tasks.off,
			      "init_task.tasks", one_process, &w, err);
	for (size_t i = 0; !r && i < ts->n; i++) {
		struct ms_task *t = &ts->v[i];

		t->running = t->cpu >= 0 && (unsigned int)t->cpu < ts->ncpus &&
			     curr[t->cpu] == t->addr;
	}
	free(seen.v);
	free(curr);
	if (r)
		ms_tasks_clear(ts);
	return r;
}

void ms_tasks_clear(struct ms_tasks *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* x86-64: what __switch_to_asm saved, and rsp and rip after its ret. */
static int switched_x86_64(struct ms_kernel *mk, const struct ms_task *t,
			   struct ms_regs *regs, struct ms_err *err)
{
	static const unsigned int regno[7] = {
		MS_X86_64_R15,	   MS_X86_64_R15 - 1, MS_X86_64_R15 - 2,
		MS_X86_64_R15 - 3, MS_X86_64_RBX,     MS_X86_64_RBP,
		MS_X86_64_RIP
	};
	const struct tlayout *l = &mk->tl;
	unsigned char frame[256];
	uint64_t sp, stack;
	int r;

	if ((r = read_field(&mk->k, t->addr, &l->t_sp, "task_struct.thread.sp",
			    &sp, err)) ||
	    (r = read_field(&mk->k, t->addr, &l->t_stack, "task_struct.stack",
			    &stack, err)))
		return r;
	if (l->itf_size > sizeof(frame) || sp < stack ||
	    sp - stack > l->thread_size - l->itf_size)
		return ms_err_kind(err, MS_E_INPUT, ERANGE,
				   "task %u (%s): its saved stack pointer 0x%" PRIx64
				   " is outside its stack 0x%" PRIx64 "-0x%" PRIx64,
				   t->pid, MS_ESC(t->comm), sp, stack,
				   stack + l->thread_size);
	r = ms_mem_read(mk->k.mem, sp, frame, l->itf_size,
			"struct inactive_task_frame", err);
	if (r && !ms_mem_io_failure(err, r))
		ms_err_prefix(err, "task %u (%s)", t->pid, MS_ESC(t->comm));
	for (int i = 0; !r && i < 7; i++)
		ms_regs_set(regs, regno[i], kget(&mk->k, frame, l->itf[i].off,
						  l->itf[i].size));
	if (!r)
		ms_regs_set(regs, MS_X86_64_RSP, sp + l->itf_size);
	return r;
}

int ms_kernel_task_regs(struct ms_kernel *mk, const struct ms_task *t,
			struct ms_regs *regs, struct ms_err *err)
{
	int r = tlayout_init(mk, err);

	memset(regs, 0, sizeof(*regs));
	if (r)
		return r;
	if (t->running) {
		r = ms_mem_cpu_regs(mk->k.mem, (unsigned int)t->cpu, regs, err);
		if (r)
			return ms_err_prefix(err,
					     "task %u (%s) was running on CPU %d",
					     t->pid, MS_ESC(t->comm), t->cpu);
		return 0;
	}
	if (mk->k.elf_machine != EM_X86_64)
		return ms_err_set(err, ENOTSUP,
				  "task %u (%s): the registers of a sleeping task are read on x86-64 only",
				  t->pid, MS_ESC(t->comm));
	return switched_x86_64(mk, t, regs, err);
}
