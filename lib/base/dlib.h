/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to finder.c, vmcore.c and unwind/x86insn.c: shared libraries
 * opened when first needed rather than linked. libkmod brings libcrypto,
 * libkdumpfile libstdc++ and four more, libdebuginfod libcurl, and
 * capstone relocations worth 0.8 ms: linked, they cost every run their
 * loading (about 6 ms together), though most runs (resolve, decode from
 * an index) use none of them.
 */
#ifndef MODSECT_DLIB_H
#define MODSECT_DLIB_H

#include <stddef.h>

#include "base.h"

struct ms_dlsym {
	const char *name;
	void *fn; /* the function pointer to fill in */
};

/*
 * An entry for the function pointer member fns->name, the library's own
 * function of that name: declared __typeof__(&name), it has the header's
 * prototype, and the symbol looked up cannot drift from the member.
 */
#define MS_DLSYM(fns, name) { #name, &(fns)->name }

/*
 * dlopen()s the library soname and looks each of syms up: 0 and the
 * handle, or -ELIBACC when the library cannot be loaded and -ELIBBAD when
 * a function is missing, with a message naming package (the Debian
 * package to install). The library stays mapped until exit, whatever
 * dlclose() is given the handle.
 */
int ms_dlib_open(const char *soname, const char *package,
		 const struct ms_dlsym *syms, size_t n, void **ret,
		 struct ms_err *err);

#endif
