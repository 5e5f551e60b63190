// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * taskwalk: the task walk (lib/kernel/ktask.c) and the server
 * (lib/serve/serve.c) on a fake kernel with tasks (faketask.h), for
 * tests/t-tasks.sh.
 *
 *   taskwalk [--old] [--noregs] MODE          every task and its registers
 *   taskwalk [--old] [--noregs] --serve MODE  ms_serve on it, as gdb talks
 *   taskwalk [--old] --legend MODE            "ADDRESS NAME" of its parts
 *   taskwalk [--old] --dump-seed FILE MODE    the arena, for fuzz_serve
 *   taskwalk --list
 *
 * --old: the small layout with the field names of kernels before 5.14;
 * --noregs: a memory source without CPU registers (as /proc/kcore).
 * --serve reads the debugger's side from stdin, a packet a line ("!bad P":
 * P with a wrong checksum; "!big N": N bytes of 'q'), sends each as gdb
 * does and prints "-> P" and "<- REPLY", each reply's checksum and
 * acknowledgement checked. An error of the walk goes to stderr as
 * "taskwalk: MESSAGE", exit 1 if of kind not found, else 3 (as modsect
 * exits); usage errors exit 2.
 */
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "faketask.h"
#include "serve/serve.h"

#define UNMAPPED 0xffffffffc7000000ull /* nothing is mapped here */
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void w64(struct ft *ft, uint64_t at, uint64_t v)
{
	fk_w64(&ft->fk, at, v);
}

/* ---- the kernels ---- */

static void m_good(struct ft *ft)
{
	ft_good(ft);
}

/* app's tasks.next back to kthreadd's: the process list loops */
static void m_tasks_cycle(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_APP] + ft->ly->t_tasks,
	    ft->task[FT_KTHREADD] + ft->ly->t_tasks);
}

static void m_tasks_null(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_LOCK] + ft->ly->t_tasks, 0);
}

static void m_tasks_unmapped(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_KWORKER] + ft->ly->t_tasks, UNMAPPED);
}

/* app-worker's thread_node.next back to app's: the thread group loops */
static void m_threads_cycle(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_WORKER] + ft->ly->t_thread_node,
	    ft->task[FT_APP] + ft->ly->t_thread_node);
}

static void m_threads_null(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_STOPPED] + ft->ly->t_thread_node, 0);
}

static void m_signal_null(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->task[FT_LOCK] + ft->ly->t_signal, 0);
}

/*
 * Saved stack pointers: app-worker's frame would end 8 bytes past its
 * stack, the stopped thread's is below it, kworker's stack is where
 * nothing is mapped; systemd's frame ends at its stack's end and
 * modsect_lock's starts at its base: both taken.
 */
static void m_sp(struct ft *ft)
{
	const struct ft_layout *ly = ft->ly;
	uint64_t sp = ly->t_thread + ly->thr_sp, *t = ft->task;
	uint64_t top = FT_THREAD_SIZE - 56;

	ft_good(ft);
	w64(ft, t[FT_WORKER] + sp, fk_r64(&ft->fk, t[FT_WORKER] + ly->t_stack) +
					   top + 8);
	w64(ft, t[FT_STOPPED] + sp,
	    fk_r64(&ft->fk, t[FT_STOPPED] + ly->t_stack) - 8);
	w64(ft, t[FT_KWORKER] + ly->t_stack, 0x1000);
	w64(ft, t[FT_KWORKER] + sp, 0x1000);
	for (size_t i = FT_SYSTEMD; i <= FT_LOCK; i += FT_LOCK - FT_SYSTEMD) {
		uint64_t old = fk_r64(&ft->fk, t[i] + sp);
		uint64_t new = fk_r64(&ft->fk, t[i] + ly->t_stack) +
			       (i == FT_SYSTEMD ? top : 0);

		memmove(ft->stacks + (new - FT_STACKS),
			ft->stacks + (old - FT_STACKS), 56);
		w64(ft, t[i] + sp, new);
	}
}

static void m_cpus_absurd(struct ft *ft)
{
	ft_good(ft);
	fk_w32(&ft->fk, ft->nr_cpu_ids, 100000);
}

static void m_cpus_zero(struct ft *ft)
{
	ft_good(ft);
	fk_w32(&ft->fk, ft->nr_cpu_ids, 0);
}

/* CPU 1's per-cpu offset 0: its runqueue at `runqueues` itself */
static void m_percpu_unmapped(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->per_cpu_offset + 8, 0);
}

/* both CPUs' idle task is init_task */
static void m_idle_dup(struct ft *ft)
{
	ft_good(ft);
	w64(ft, ft->rq[1] + ft->ly->rq_idle, ft->init_task);
}

static void m_panic(struct ft *ft)
{
	ft_good(ft);
	fk_w32(&ft->fk, ft->panic_cpu, 1);
}

/* a comm of 16 bytes and no NUL */
static void m_comm_full(struct ft *ft)
{
	ft_good(ft);
	fk_wbytes(&ft->fk, ft->task[FT_KWORKER] + ft->ly->t_comm,
		  "AAAAAAAAAAAAAAAA", 16);
}

/*
 * n threads on the thread_head at head: task_structs 16 bytes apart,
 * overlapping (only their thread_node links are whole), so that a
 * million of them fit in 16 MiB.
 */
static void threads(struct ft *ft, uint64_t head, size_t n)
{
	uint64_t t0 = fk_alloc(&ft->fk, 16 * n + ft->ly->task_size, 64);
	uint64_t first = t0 + ft->ly->t_thread_node;

	for (uint64_t i = 0; t0 && i < n; i++) {
		uint64_t node = first + 16 * i;

		w64(ft, node, i + 1 < n ? node + 16 : head);
		w64(ft, node + 8, i ? node - 16 : head);
	}
	if (t0) {
		w64(ft, head, first);
		w64(ft, head + 8, first + 16 * (n - 1));
	}
}

/* The idle tasks, and n processes "many" whose signal is sig. */
static void processes(struct ft *ft, size_t n, uint64_t sig)
{
	static const struct ft_spec many = { 600, 600, "many", 1 };
	const struct ft_layout *ly = ft->ly;

	ft->task[FT_SWAPPER0] = ft_task(ft, &ft_good_tasks[0], ft_signal(ft),
					true);
	ft->task[FT_SWAPPER1] = ft_task(ft, &ft_good_tasks[1], ft_signal(ft),
					false);
	for (size_t i = 0; i < n && !ft->fk.nomem; i++)
		ft_list_add_tail(&ft->fk,
				 ft_task(ft, &many, sig, false) + ly->t_tasks,
				 ft->init_task + ly->t_tasks);
	w64(ft, ft->rq[0] + ly->rq_idle, ft->init_task);
	w64(ft, ft->rq[1] + ly->rq_idle, ft->task[FT_SWAPPER1]);
}

/* one process of MS_MAX_TASKS threads: past the bound with the idle tasks */
static void m_bound(struct ft *ft)
{
	uint64_t sig = ft_signal(ft);

	processes(ft, 1, sig);
	threads(ft, sig + ft->ly->sig_thread_head, MS_MAX_TASKS);
}

/*
 * 1001 processes with one signal_struct of 1000 threads: each list
 * short, their sum past the bound.
 */
static void m_shared_signal(struct ft *ft)
{
	uint64_t sig = ft_signal(ft);

	processes(ft, 1001, sig);
	threads(ft, sig + ft->ly->sig_thread_head, 1000);
}

static const struct mode {
	const char *name;
	void (*build)(struct ft *ft);
} modes[] = {
	{ "good", m_good },
	{ "tasks-cycle", m_tasks_cycle },
	{ "tasks-null", m_tasks_null },
	{ "tasks-unmapped", m_tasks_unmapped },
	{ "threads-cycle", m_threads_cycle },
	{ "threads-null", m_threads_null },
	{ "signal-null", m_signal_null },
	{ "sp", m_sp },
	{ "cpus-absurd", m_cpus_absurd },
	{ "cpus-zero", m_cpus_zero },
	{ "percpu-unmapped", m_percpu_unmapped },
	{ "idle-dup", m_idle_dup },
	{ "panic", m_panic },
	{ "comm-full", m_comm_full },
	{ "bound", m_bound },
	{ "shared-signal", m_shared_signal },
};

/* ---- the walk ---- */

static int exit_of(const struct ms_err *err, int r)
{
	fprintf(stderr, "taskwalk: %s\n", err->msg[0] ? err->msg : strerror(-r));
	return ms_err_kind_of(err, r) == MS_E_NOTFOUND ? 1 : 3;
}

/* comm as C writes it: printable ASCII, the rest \xHH */
static void put_comm(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_regs(const struct ms_regs *regs)
{
	static const char *const names[MS_X86_64_NREGS] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
		"rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs"
	};
	const char *sep = "  ";

	for (int n = 0; n < MS_X86_64_NREGS; n++)
		if (regs->valid & (1u << n)) {
			printf("%s%s 0x%016" PRIx64, sep, names[n], regs->v[n]);
			sep = (n % 6 == 5) ? "\n  " : " ";
		}
	putchar('\n');
}

static int list_tasks(struct ms_kernel *mk)
{
	struct ms_err err = { 0 };
	struct ms_tasks ts;
	int r = ms_kernel_tasks(mk, &ts, &err);

	if (r)
		return exit_of(&err, r);
	printf("%u CPUs, panic_cpu %d, %zu tasks\n", ts.ncpus, ts.panic_cpu,
	       ts.n);
	for (size_t i = 0; i < ts.n; i++) {
		const struct ms_task *t = &ts.v[i];
		struct ms_regs regs;

		printf("thread %u pid %u tgid %u ", t->tid, t->pid, t->tgid);
		put_comm(t->comm);
		printf(" %c cpu %d%s%s%s\n", t->state, t->cpu,
		       t->running ? " running" : "", t->idle ? " idle" : "",
		       t->kthread ? " kthread" : "");
		memset(&err, 0, sizeof(err));
		r = ms_kernel_task_regs(mk, t, &regs, &err);
		if (!r)
			put_regs(&regs);
		else
			printf("  no registers: %s\n",
			       err.msg[0] ? err.msg : "(no message)");
	}
	ms_tasks_clear(&ts);
	return 0;
}

static void legend(const struct ft *ft)
{
	static const char *const names[FT_NGOOD] = {
		"swapper0", "swapper1", "systemd", "kthreadd", "kworker",
		"lock",	    "app",	"worker",  "stopped",  "zombie"
	};
	const struct ft_layout *ly = ft->ly;

	for (size_t i = 0; i < FT_NGOOD; i++) {
		uint64_t t = ft->task[i], s = ft->sig[i];

		if (!t)
			continue;
		printf("0x%016" PRIx64 " %s\n", t, names[i]);
		printf("0x%016" PRIx64 " %s.tasks\n", t + ly->t_tasks, names[i]);
		printf("0x%016" PRIx64 " %s.thread_node\n", t + ly->t_thread_node,
		       names[i]);
		if (s && (!i || ft->sig[i - 1] != s))
			printf("0x%016" PRIx64 " %s.signal.thread_head\n",
			       s + ly->sig_thread_head, names[i]);
	}
	for (unsigned int c = 0; c < FT_NCPUS; c++)
		printf("0x%016" PRIx64 " rq%u\n", ft->rq[c], c);
}

/* ---- the server, and gdb's side of the conversation ---- */

struct server {
	struct ms_kernel *mk;
	int fd, r;
	struct ms_err err;
};

static void *serve_thread(void *arg)
{
	struct server *s = arg;
	struct ms_serve_opts o = { .in_fd = s->fd, .out_fd = s->fd,
				   .what = "vmcore fake" };

	s->r = ms_serve(s->mk, &o, &s->err);
	close(s->fd);
	return NULL;
}

struct client {
	int fd;
	bool noack;
	size_t pos, len;
	unsigned char in[4096];
};

/* The server's next byte; -1 at its end or after 10 s of silence. */
static int next_byte(struct client *c)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	ssize_t n;

	if (c->pos < c->len)
		return c->in[c->pos++];
	if (poll(&p, 1, 10000) != 1)
		return -1;
	n = read(c->fd, c->in, sizeof(c->in));
	if (n <= 0)
		return -1;
	c->len = (size_t)n;
	c->pos = 1;
	return c->in[0];
}

static void send_packet(struct client *c, const char *p, size_t n, bool bad)
{
	char tail[4];
	uint8_t sum = bad;

	for (size_t i = 0; i < n; i++)
		sum += (uint8_t)p[i];
	snprintf(tail, sizeof(tail), "#%02x", sum);
	if (write(c->fd, "$", 1) != 1 || write(c->fd, p, n) != (ssize_t)n ||
	    write(c->fd, tail, 3) != 3)
		printf("!! the server does not read\n");
}

/* Prints the reply's data, unescaped; checks its checksum. */
static void reply(struct client *c)
{
	int ch, hi, lo;
	uint8_t sum = 0;

	while ((ch = next_byte(c)) >= 0 && ch != '$')
		printf("!! %c before the reply\n", ch);
	if (ch < 0) {
		printf("<- (nothing)\n");
		return;
	}
	printf("<- ");
	while ((ch = next_byte(c)) >= 0 && ch != '#') {
		sum += (uint8_t)ch;
		if (ch == '}' && (ch = next_byte(c)) >= 0) {
			sum += (uint8_t)ch;
			ch ^= 0x20;
		}
		if (ch == '\n' || (ch >= 0x20 && ch < 0x7f))
			putchar(ch);
		else
			printf("\\x%02x", (unsigned int)ch & 0xff);
	}
	hi = ms_hexval(next_byte(c));
	lo = ms_hexval(next_byte(c));
	if (ch < 0 || hi < 0 || lo < 0 || (hi << 4 | lo) != sum)
		printf(" !! bad checksum or cut short");
	putchar('\n');
	/* the ack of D's reply may find the server gone, as gdb's may */
	if (!c->noack && write(c->fd, "+", 1) != 1)
		return;
}

/* One line of the script: a packet sent, its ack and reply printed. */
static void exchange(struct client *c, char *line)
{
	bool bad = !strncmp(line, "!bad ", 5);
	char *p = bad ? line + 5 : line;
	size_t n = strlen(p);
	int ch;

	if (!strncmp(line, "!big ", 5)) {
		n = strtoul(line + 5, NULL, 10);
		p = malloc(n ? n : 1);
		if (!p)
			return;
		memset(p, 'q', n);
		printf("-> %zu bytes of q\n", n);
	} else {
		printf("-> %s%s\n", p, bad ? " (with a wrong checksum)" : "");
	}
	send_packet(c, p, n, bad);
	ch = c->noack ? '+' : next_byte(c);
	if (ch != '+')
		printf("<- %c (%s)\n", ch < 0 ? '.' : ch,
		       ch == '-' ? "asks for it again" : "no ack");
	/* no reply to what the server asks again, nor to 'k' */
	if (ch != '-' && !bad && strcmp(p, "k"))
		reply(c);
	if (!strcmp(p, "QStartNoAckMode"))
		c->noack = true;
	if (p != line && p != line + 5)
		free(p);
}

static int serve(struct ms_kernel *mk)
{
	struct server s = { .mk = mk };
	struct client c = { 0 };
	char line[1024];
	int sv[2], ch;
	pthread_t th;

	signal(SIGPIPE, SIG_IGN); /* a server that ended: EPIPE, said */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("taskwalk: socketpair");
		return 1;
	}
	s.fd = sv[1];
	c.fd = sv[0];
	/*
	 * "!copies N PACKET" first: N copies of PACKET queued before the
	 * server reads anything, as gdb sends them again while serve is
	 * still reading the tasks; one ack and one reply are wanted.
	 */
	bool first = fgets(line, sizeof(line), stdin) != NULL, copies = false;

	if (first && !strncmp(line, "!copies ", 8)) {
		char *p = strchr(line + 8, ' ');
		unsigned long n = strtoul(line + 8, NULL, 10);

		line[strcspn(line, "\n")] = '\0';
		printf("-> %s, %lu times before the server reads\n", p ? p + 1 : "", n);
		for (unsigned long i = 0; p && i < n && i < 16; i++)
			send_packet(&c, p + 1, strlen(p + 1), false);
		copies = true;
	}
	if (pthread_create(&th, NULL, serve_thread, &s)) {
		fprintf(stderr, "taskwalk: no thread\n");
		return 1;
	}
	if (first && !copies) {
		line[strcspn(line, "\n")] = '\0';
		exchange(&c, line);
	} else if (copies) {
		ch = next_byte(&c);
		if (ch != '+')
			printf("<- %c (no ack)\n", ch < 0 ? '.' : ch);
		reply(&c);
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		exchange(&c, line);
	}
	shutdown(c.fd, SHUT_WR);
	while ((ch = next_byte(&c)) >= 0)
		printf("!! after the conversation: %c\n", ch);
	pthread_join(th, NULL);
	close(c.fd);
	if (s.r)
		return exit_of(&s.err, s.r);
	printf("served to the end\n");
	return 0;
}

/* ---- main ---- */

enum action { WALK, SERVE, LEGEND, SEED };

static int run(const struct ft *ft, enum action a, bool regs, const char *seed)
{
	struct ft_view v = ft_view(ft, regs);
	struct ms_err err = { 0 };
	struct ms_mem *mem = NULL;
	struct ms_kernel mk;
	struct btf *btf;
	int r;

	if (a == LEGEND) {
		legend(ft);
		return 0;
	}
	if (a == SEED)
		return fk_dump(ft->fk.a, ft->fk.len, seed, "taskwalk");
	btf = ft_btf(ft->ly);
	if (!btf) {
		fprintf(stderr, "taskwalk: cannot make the fake BTF: %s\n",
			strerror(errno));
		return 1;
	}
	r = ft_mem_open(&v, &mem, &err);
	if (r) {
		r = exit_of(&err, r);
	} else {
		ft_kernel_init(&mk, ft, mem, btf);
		r = a == SERVE ? serve(&mk) : list_tasks(&mk);
	}
	ms_mem_free(mem);
	btf__free(btf);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "old", no_argument, 0, 'o' },
		{ "noregs", no_argument, 0, 'n' },
		{ "serve", no_argument, 0, 's' },
		{ "legend", no_argument, 0, 'g' },
		{ "dump-seed", required_argument, 0, 'd' },
		{ "list", no_argument, 0, 'l' },
		{ 0 },
	};
	const struct ft_layout *ly = &ft_layout_61;
	const struct mode *mode = NULL;
	bool list = false;
	const char *seed = NULL;
	enum action a = WALK;
	bool regs = true;
	struct ft ft;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'o': ly = &ft_layout_small; break;
		case 'n': regs = false; break;
		case 's': a = SERVE; break;
		case 'g': a = LEGEND; break;
		case 'd': a = SEED; seed = optarg; break;
		case 'l': list = true; break;
		default: return 2;
		}
	}
	mode = fk_mode(modes, N(modes), sizeof(*modes), list,
		       optind + 1 == argc ? argv[optind] : NULL,
		       "taskwalk [--old] [--noregs] [--serve|--legend|--dump-seed FILE] MODE (--list for the modes)",
		       &rc);
	if (!mode)
		return rc;
	ft_init(&ft, ly);
	mode->build(&ft);
	if (ft.fk.nomem) {
		fprintf(stderr, "taskwalk: the fake kernel does not fit in memory\n");
		rc = 1;
	} else {
		rc = run(&ft, a, regs, seed);
	}
	ft_free(&ft);
	return rc;
}
