// SPDX-License-Identifier: GPL-2.0
/*
 * modsect_test - a small module that puts symbols in many kinds of sections,
 * used by tests/vm to check modsect's section maps against a real kernel.
 *
 *   .text                modsect_test_poke(), modsect_test_warn(), ...
 *   .data                modsect_test_data (initialised global)
 *   .bss                 modsect_test_bss
 *   .rodata              modsect_test_table (const table)
 *   .init.text           modsect_test_init()
 *   .exit.text           modsect_test_exit()
 *   .data..percpu        modsect_test_pcpu (DEFINE_PER_CPU, set by init)
 *   .modsect.odd$name    modsect_test_odd (data in an oddly named section)
 *   .modsect.text$odd    modsect_test_odd_fn() (code in an oddly named section)
 *
 * Parameters (in /sys/module/modsect_test/parameters/):
 *   poke   write N -> modsect_test_poke(N)  (gdb breakpoint target)
 *   warn   write N -> modsect_test_warn(N) -> inline helper doing WARN(1, ...)
 *   stack  write N -> modsect_test_stack_fn(N) -> dump_stack()
 *   timer  write N -> a timer_list N ms later (at least a jiffy) whose
 *          modsect_test_timer_fn() calls dump_stack() (softirq, IRQ stack)
 *   hrtimer  write N -> an hrtimer N ms later whose modsect_test_hrtimer_fn()
 *          calls dump_stack() (hard interrupt)
 *   work   write N -> schedule_work(); modsect_test_work_fn() calls
 *          dump_stack() in a kworker
 *   tasks  write 1 -> kernel threads blocked in known places
 *          (tests/vm/serve.sh): "modsect_wait" sleeps in
 *          modsect_test_wait_fn(), "modsect_hold" holds a mutex in
 *          modsect_test_hold_fn(), "modsect_lock" waits for it in
 *          modsect_test_lock_fn(); write 0 -> all of them end
 * Each prints "modsect_test: <what> N" just before its dump_stack(), so a
 * test finds the kernel's own trace of that stop (tests/vm/unwind.sh).
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/delay.h>

int modsect_test_data = 0x5ec7;		/* .data */
int modsect_test_bss;			/* .bss */
int modsect_test_last_warn;		/* .bss */

const unsigned int modsect_test_table[8] = {	/* .rodata */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
};

DEFINE_PER_CPU(int, modsect_test_pcpu);	/* .data..percpu */

/* Data in a legal but unusual section name (contains '$'). */
int modsect_test_odd __attribute__((section(".modsect.odd$name"), used)) = 42;

/* Code in an unusual section name, too. */
noinline __attribute__((section(".modsect.text$odd"), used))
int modsect_test_odd_fn(int value)
{
	modsect_test_odd += value;
	return modsect_test_odd;
}

/* The gdb breakpoint target: hit on `echo N > .../parameters/poke`. */
noinline int modsect_test_poke(int value)
{
	int old = modsect_test_data;

	modsect_test_data = value;
	modsect_test_bss += modsect_test_table[value & 7];
	modsect_test_odd_fn(1);
	this_cpu_add(modsect_test_pcpu, value);
	pr_info("modsect_test: poke %d (was %d)\n", value, old);
	return old;
}

/* Always inlined into modsect_test_warn(), so WARN's address decodes to an
 * inlined frame inside modsect_test_warn(). */
static inline __always_inline void modsect_test_warn_inline(int value)
{
	modsect_test_last_warn = value;
	WARN(1, "modsect_test: warn %d\n", value);
}

noinline int modsect_test_warn(int value)
{
	modsect_test_warn_inline(value);
	return value + 1;
}

static int poke_set(const char *val, const struct kernel_param *kp)
{
	int v, ret;

	ret = kstrtoint(strim((char *)val), 0, &v);
	if (ret)
		return ret;
	modsect_test_poke(v);
	return 0;
}

static int poke_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", modsect_test_data);
}

static const struct kernel_param_ops poke_ops = {
	.set = poke_set,
	.get = poke_get,
};
module_param_cb(poke, &poke_ops, NULL, 0644);
MODULE_PARM_DESC(poke, "write N: calls modsect_test_poke(N)");

static int warn_set(const char *val, const struct kernel_param *kp)
{
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		v = -1;
	modsect_test_warn(v);
	return 0;
}

static int warn_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", modsect_test_last_warn);
}

static const struct kernel_param_ops warn_ops = {
	.set = warn_set,
	.get = warn_get,
};
module_param_cb(warn, &warn_ops, NULL, 0644);
MODULE_PARM_DESC(warn, "write N: triggers a WARN() from an inlined helper");

/*
 * Stops for unwinding tests: each a noinline module function that calls
 * dump_stack(), so the kernel prints its own trace from the same point a
 * debugger's breakpoint on the function stops at.
 */
int modsect_test_last_stack;		/* .bss */

noinline int modsect_test_stack_fn(int value)
{
	modsect_test_last_stack = value;
	pr_info("modsect_test: stack %d\n", value);
	dump_stack();
	return value + 1;
}

static int stack_set(const char *val, const struct kernel_param *kp)
{
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		v = -1;
	modsect_test_stack_fn(v);
	return 0;
}

static int stack_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", modsect_test_last_stack);
}

static const struct kernel_param_ops stack_ops = {
	.set = stack_set,
	.get = stack_get,
};
module_param_cb(stack, &stack_ops, NULL, 0644);
MODULE_PARM_DESC(stack, "write N: modsect_test_stack_fn(N) calls dump_stack()");

static struct timer_list modsect_test_timer;
static struct hrtimer modsect_test_hrtimer;
static int modsect_test_timer_arg;
/* Counted after dump_stack(): without it gcc makes dump_stack() a tail
 * call (jmp) of the void callbacks, whose frames then are in no trace. */
int modsect_test_stops;			/* .bss */

noinline void modsect_test_timer_fn(struct timer_list *t)
{
	pr_info("modsect_test: timer %d\n", modsect_test_timer_arg);
	dump_stack();
	WRITE_ONCE(modsect_test_stops, modsect_test_stops + 1);
}

noinline enum hrtimer_restart modsect_test_hrtimer_fn(struct hrtimer *t)
{
	pr_info("modsect_test: hrtimer %d\n", modsect_test_timer_arg);
	dump_stack();
	WRITE_ONCE(modsect_test_stops, modsect_test_stops + 1);
	return HRTIMER_NORESTART;
}

static int timer_set(const char *val, const struct kernel_param *kp)
{
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		return -EINVAL;
	modsect_test_timer_arg = v;
	mod_timer(&modsect_test_timer, jiffies + 1 + msecs_to_jiffies(max(v, 0)));
	return 0;
}

static int timer_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", modsect_test_timer_arg);
}

static const struct kernel_param_ops timer_ops = {
	.set = timer_set,
	.get = timer_get,
};
module_param_cb(timer, &timer_ops, NULL, 0644);
MODULE_PARM_DESC(timer, "write N: a timer N ms later whose callback calls dump_stack()");

static int hrtimer_set(const char *val, const struct kernel_param *kp)
{
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		return -EINVAL;
	modsect_test_timer_arg = v;
	hrtimer_start(&modsect_test_hrtimer, ms_to_ktime(max(v, 1)),
		      HRTIMER_MODE_REL);
	return 0;
}

static const struct kernel_param_ops hrtimer_ops = {
	.set = hrtimer_set,
	.get = timer_get,
};
module_param_cb(hrtimer, &hrtimer_ops, NULL, 0644);
MODULE_PARM_DESC(hrtimer, "write N: an hrtimer N ms later whose callback calls dump_stack()");

static int modsect_test_work_arg;

noinline void modsect_test_work_fn(struct work_struct *w)
{
	pr_info("modsect_test: work %d\n", modsect_test_work_arg);
	dump_stack();
	WRITE_ONCE(modsect_test_stops, modsect_test_stops + 1);
}

static DECLARE_WORK(modsect_test_work, modsect_test_work_fn);

static int work_set(const char *val, const struct kernel_param *kp)
{
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		v = -1;
	modsect_test_work_arg = v;
	schedule_work(&modsect_test_work);
	return 0;
}

static int work_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", modsect_test_work_arg);
}

static const struct kernel_param_ops work_ops = {
	.set = work_set,
	.get = work_get,
};
module_param_cb(work, &work_ops, NULL, 0644);
MODULE_PARM_DESC(work, "write N: schedule_work(); modsect_test_work_fn() calls dump_stack()");

static DECLARE_WAIT_QUEUE_HEAD(modsect_test_wq);
static DEFINE_MUTEX(modsect_test_mutex);
static bool modsect_test_stop_tasks;
static struct task_struct *modsect_test_tasks[3];

noinline int modsect_test_wait_fn(void *arg)
{
	wait_event_interruptible(modsect_test_wq,
				 READ_ONCE(modsect_test_stop_tasks));
	while (!kthread_should_stop())
		msleep(10);
	return 0;
}

noinline int modsect_test_hold_fn(void *arg)
{
	mutex_lock(&modsect_test_mutex);
	wait_event_interruptible(modsect_test_wq,
				 READ_ONCE(modsect_test_stop_tasks));
	mutex_unlock(&modsect_test_mutex);
	while (!kthread_should_stop())
		msleep(10);
	return 0;
}

noinline int modsect_test_lock_fn(void *arg)
{
	/* modsect_hold is started first and holds the mutex by now. */
	msleep(100);
	mutex_lock(&modsect_test_mutex);
	mutex_unlock(&modsect_test_mutex);
	while (!kthread_should_stop())
		msleep(10);
	return 0;
}

static void modsect_test_end_tasks(void)
{
	WRITE_ONCE(modsect_test_stop_tasks, true);
	wake_up_all(&modsect_test_wq);
	for (int i = 0; i < 3; i++) {
		if (modsect_test_tasks[i])
			kthread_stop(modsect_test_tasks[i]);
		modsect_test_tasks[i] = NULL;
	}
}

static int tasks_set(const char *val, const struct kernel_param *kp)
{
	static int (*const fns[3])(void *) = {
		modsect_test_wait_fn, modsect_test_hold_fn, modsect_test_lock_fn
	};
	static const char *const names[3] = { "modsect_wait", "modsect_hold",
					      "modsect_lock" };
	int v = 0;

	if (kstrtoint(strim((char *)val), 0, &v))
		return -EINVAL;
	modsect_test_end_tasks();
	if (!v)
		return 0;
	WRITE_ONCE(modsect_test_stop_tasks, false);
	for (int i = 0; i < 3; i++) {
		struct task_struct *t = kthread_run(fns[i], NULL, names[i]);

		if (IS_ERR(t))
			return PTR_ERR(t);
		modsect_test_tasks[i] = t;
		if (i == 1)
			msleep(20);
	}
	msleep(300);
	return 0;
}

static const struct kernel_param_ops tasks_ops = {
	.set = tasks_set,
	.get = param_get_int,
};
static int modsect_test_tasks_param;
module_param_cb(tasks, &tasks_ops, &modsect_test_tasks_param, 0644);
MODULE_PARM_DESC(tasks, "write 1: kernel threads blocked in module functions; 0: they end");

static int __init modsect_test_init(void)
{
	int cpu;

	timer_setup(&modsect_test_timer, modsect_test_timer_fn, 0);
	hrtimer_init(&modsect_test_hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	modsect_test_hrtimer.function = modsect_test_hrtimer_fn;
	for_each_possible_cpu(cpu)
		per_cpu(modsect_test_pcpu, cpu) = 100 + cpu;
	this_cpu_inc(modsect_test_pcpu);
	modsect_test_bss = modsect_test_table[1];
	pr_info("modsect_test: loaded data=%d bss=%d odd=%d pcpu=%d\n",
		modsect_test_data, modsect_test_bss, modsect_test_odd,
		this_cpu_read(modsect_test_pcpu));
	return 0;
}

static void __exit modsect_test_exit(void)
{
	del_timer_sync(&modsect_test_timer);
	hrtimer_cancel(&modsect_test_hrtimer);
	cancel_work_sync(&modsect_test_work);
	modsect_test_end_tasks();
	pr_info("modsect_test: unloaded data=%d\n", modsect_test_data);
}

module_init(modsect_test_init);
module_exit(modsect_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modsect test module: symbols in many section kinds");
MODULE_AUTHOR("modsect project");
