// SPDX-License-Identifier: GPL-2.0-or-later
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "dlib.h"

/* POSIX dlsym: a function's address travels as a void *. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "function pointers are the size of void *");

int ms_dlib_open(const char *soname, const char *package,
		 const struct ms_dlsym *syms, size_t n, void **ret,
		 struct ms_err *err)
{
	void *lib;

	/*
	 * NODELETE: a library may leave state that only its destructor at
	 * exit tears down (libdebuginfod's libcurl); unmapped by dlclose, it
	 * would be lost, and so would the library's name in LeakSanitizer's
	 * report of what it keeps (tests/lsan.supp names libkdumpfile.so).
	 * LOCAL: its symbols are ours to look up, not the next library's.
	 */
	lib = dlopen(soname, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib)
		return ms_err_set(err, ELIBACC,
				  "%s cannot be loaded (Debian package %s): %s",
				  soname, package, dlerror());
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(lib, syms[i].name);

		if (!p) {
			dlclose(lib);
			return ms_err_set(err, ELIBBAD,
					  "%s has no function %s (another build than Debian package %s's?)",
					  soname, syms[i].name, package);
		}
		/* Not through a void ** cast: the member is a function pointer. */
		memcpy(syms[i].fn, &p, sizeof(p));
	}
	*ret = lib;
	return 0;
}
