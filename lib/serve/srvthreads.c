// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's threads: the kernel's tasks with the registers each last
 * ran with (lib/kernel/ktask.c), or why not, and the XML of
 * qXfer:threads:read that names them for gdb.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve-int.h"

void srv_extra_info(const struct thread *th, char *out, size_t size)
{
	const struct ms_task *t = &th->t;

	snprintf(out, size, "%sstate %c, CPU %d%s%s%s",
		 t->idle ? "idle task, " : "", t->state,
		 t->cpu, t->running ? ", running" : "",
		 th->why[0] ? ", no registers: " : "", th->why);
}

/* XML text of untrusted bytes (a comm): escaped, printable ASCII. */
static size_t xml_text(const char *in, char *out)
{
	size_t o = 0;

	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (c == '<' || c == '>' || c == '&' || c == '"' || c == '\'' ||
		    c < 0x20 || c > 0x7e)
			o += (size_t)sprintf(out + o, "&#%u;", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return o;
}

static int build_xml(struct srv *s, struct ms_err *err)
{
	/* A thread's line: its id, core, name and extra info, escaped. */
	size_t cap = 128 + s->nth * 4000, o;
	char name[6 * 16 + 1], info[600], xinfo[6 * 600 + 1];

	s->threads_xml = malloc(cap);
	if (!s->threads_xml)
		return ms_err_errno(err, ENOMEM, "threads");
	o = (size_t)sprintf(s->threads_xml, "<?xml version=\"1.0\"?>\n<threads>\n");
	for (size_t i = 0; i < s->nth; i++) {
		const struct thread *th = &s->th[i];

		xml_text(th->t.comm, name);
		srv_extra_info(th, info, sizeof(info));
		xml_text(info, xinfo);
		o += (size_t)snprintf(s->threads_xml + o, cap - o,
				      "<thread id=\"%x\" core=\"%d\" name=\"%s\">%s</thread>\n",
				      th->t.tid, th->t.cpu, name, xinfo);
	}
	o += (size_t)snprintf(s->threads_xml + o, cap - o, "</threads>\n");
	s->threads_len = o;
	return 0;
}

/* Whether the thread's registers say where it is. */
static bool has_pc(const struct thread *th)
{
	return th->regs.valid & (1u << MS_X86_64_RIP);
}

/*
 * The first current thread: the task on the CPU that panicked (else
 * CPU 0), else the first whose registers are known: gdb gives up on a
 * target whose current thread has no pc.
 */
static size_t first_thread(const struct srv *s, int panic_cpu)
{
	int cpu = panic_cpu >= 0 ? panic_cpu : 0;

	for (size_t i = 0; i < s->nth; i++)
		if (s->th[i].t.running && s->th[i].t.cpu == cpu &&
		    has_pc(&s->th[i]))
			return i;
	for (size_t i = 0; i < s->nth; i++)
		if (has_pc(&s->th[i]))
			return i;
	return 0;
}

/* The tasks and their registers, or why a task has none. */
int srv_load_threads(struct srv *s, int cpu, struct ms_err *err)
{
	struct ms_tasks ts;
	int r;

	free(s->th);
	free(s->threads_xml);
	s->th = NULL;
	s->threads_xml = NULL;
	s->nth = s->cur = s->info_next = 0;
	r = ms_kernel_tasks(s->k, &ts, err);
	if (r)
		return r;
	s->th = calloc(ts.n ? ts.n : 1, sizeof(*s->th));
	if (!s->th) {
		ms_tasks_clear(&ts);
		return ms_err_errno(err, ENOMEM, "threads");
	}
	for (size_t i = 0; i < ts.n; i++) {
		struct thread *th = &s->th[s->nth++];
		struct ms_err e = { 0 };

		th->t = ts.v[i];
		r = ms_kernel_task_regs(s->k, &th->t, &th->regs, &e);
		if (r && ms_mem_io_failure(&e, r)) {
			*err = e;
			break;
		}
		r = 0;
		if (e.msg[0])
			snprintf(th->why, sizeof(th->why), "%.*s",
				 (int)sizeof(th->why) - 1, e.msg);
	}
	s->cur = first_thread(s, cpu >= 0 ? cpu : ts.panic_cpu);
	ms_tasks_clear(&ts);
	if (!r && !s->nth)
		r = ms_err_kind(err, MS_E_INPUT, ENOENT, "%s: no tasks",
				s->o->what);
	return r ? r : build_xml(s, err);
}
