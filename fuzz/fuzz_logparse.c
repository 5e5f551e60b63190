// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: frames in kernel log lines (ms_log_frame), iterated
 * over each line as lib/emit/decode.c does, and the lines that open and
 * close reports (logreport.c). Every frame found must lie in
 * the line, after where the search started, and make progress; an
 * address frame has its address, a build-id comes with a module, and
 * clearing a PAC changes only the bits above 48.
 */
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

/* A build-id is kept only with its module: 40 lower-case hex digits. */
static bool build_id_ok(const struct ms_logframe *f)
{
	if (memchr(f->build_id, '\0', sizeof(f->build_id)) == NULL)
		return false;
	if (!f->build_id[0])
		return true;
	if (!f->module[0] || strlen(f->build_id) != sizeof(f->build_id) - 1)
		return false;
	return strspn(f->build_id, "0123456789abcdef") ==
	       sizeof(f->build_id) - 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), *line, *next;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line; line = next) {
		struct ms_logframe f;
		size_t len, from = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(line);
		(void)ms_log_machine(line);
		(void)ms_log_trace_start(line);
		(void)ms_log_report_start(line);
		(void)ms_log_report_end(line);
		(void)ms_log_lockdep_stack(line);
		while (ms_log_frame(line, from, &f) == 1) {
			if (f.start < from || f.end <= f.start || f.end > len ||
			    memchr(f.symbol, '\0', sizeof(f.symbol)) == NULL ||
			    memchr(f.module, '\0', sizeof(f.module)) == NULL ||
			    !build_id_ok(&f) ||
			    (f.kind == MS_LOGFRAME_ADDRESS && !f.has_address) ||
			    (f.regs_pc && !f.exact))
				abort();
			/* Clearing a PAC touches bits 63:48 only. */
			if ((ms_arm64_strip_pac(f.address) ^ f.address) &
			    ~UINT64_C(0xffff000000000000))
				abort();
			from = f.end;
		}
	}
	free(text);
	return 0;
}
