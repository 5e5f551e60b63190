// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The registers a served kernel's threads have, as a target description
 * (qXfer:features:read:target.xml) and 'g'/'p' replies. x86-64 follows
 * gdb's features/i386/64bit-core.xml and 64bit-sse.xml, the layout QEMU's
 * gdbstub sends too, so gdb's amd64 architecture and lldb's take it as
 * they take QEMU's. What a dump does not hold (a sleeping task's rax, any
 * x87 or SSE state) is sent as 'x' digits: unavailable, never made up.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "serve.h"

static const char x86_64_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target version=\"1.0\">\n"
	"<architecture>i386:x86-64</architecture>\n"
	"<feature name=\"org.gnu.gdb.i386.core\">\n"
	"<reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>\n"
	"<reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	"<reg name=\"eflags\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"es\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.sse\">\n"
	"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
	"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
	"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
	"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
	"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
	"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
	"<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/>"
	"<field name=\"v2_double\" type=\"v2d\"/>"
	"<field name=\"v16_int8\" type=\"v16i8\"/>"
	"<field name=\"v8_int16\" type=\"v8i16\"/>"
	"<field name=\"v4_int32\" type=\"v4i32\"/>"
	"<field name=\"v2_int64\" type=\"v2i64\"/>"
	"<field name=\"uint128\" type=\"uint128\"/></union>\n"
	"<reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/>\n"
	"<reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"mxcsr\" bitsize=\"32\" type=\"int\" group=\"vector\"/>\n"
	"</feature>\n"
	"</target>\n";

/* Byte sizes in the order above: 16 + rip, eflags, 6 segments, x87, SSE. */
static unsigned int x86_64_size(int n)
{
	if (n < 17)
		return 8;
	if (n < 24)
		return 4;
	if (n < 32)
		return 10;
	if (n < 40)
		return 4;
	if (n < 56)
		return 16;
	return n == 56 ? 4 : 0;
}

const char *ms_serve_target_xml(int elf_machine)
{
	return elf_machine == EM_X86_64 ? x86_64_xml : NULL;
}

static size_t one_reg(const struct ms_regs *regs, int n, unsigned int size,
		      char *out)
{
	static const char digits[] = "0123456789abcdef";
	bool known = n < MS_REGS_MAX && (regs->valid & (1u << n));

	for (size_t i = 0; i < size; i++) {
		/* Little endian; a register wider than 8 bytes is never known. */
		unsigned int b = known && i < 8 ? (regs->v[n] >> (8 * i)) & 0xff :
						  0;

		out[2 * i] = known ? digits[b >> 4] : 'x';
		out[2 * i + 1] = known ? digits[b & 15] : 'x';
	}
	return 2 * (size_t)size;
}

int ms_serve_regs_hex(int elf_machine, const struct ms_regs *regs, int regno,
		      char *out)
{
	size_t len = 0;

	if (elf_machine != EM_X86_64)
		return -ENOTSUP;
	if (regno >= 0) {
		unsigned int size = x86_64_size(regno);

		if (!size)
			return -ENOENT;
		len = one_reg(regs, regno, size, out);
	} else {
		for (int n = 0; x86_64_size(n); n++)
			len += one_reg(regs, n, x86_64_size(n), out + len);
	}
	out[len] = '\0';
	return (int)len;
}
