#!/bin/bash
# Rule 25: struct layouts from DWARF where the kernel has no BTF.
# The module walk of t-kmem (tests/tools/kmemwalk.c on the fake kernel of
# fakekern.h) with no BTF at all and its layouts from the DWARF of an
# object file that gcc -g compiles here: a struct module (and what it
# points to) as the kernel's headers declare it, at Debian 6.1's offsets,
# in a file with a .modinfo vermagic, like a module's __this_module. The
# structs of kernel/module/sysfs.c, which no module's DWARF has, are laid
# out from their members (attribute_group, bin_attribute). The map is
# t-kmem's, byte for byte, for the 6.1 and the 6.14 layouts; the file is
# named (note); a file whose offsets differ gives another walk; a file of
# another release, of another machine, without struct module or without
# DWARF is refused, naming the file and what to give.
. "$(dirname "$0")/lib.sh"
use_helper kmemwalk
need gcc || finish

cat >"$T/mod.c" <<'X'
#include <stddef.h>
#ifndef NOMODULE
struct list_head { struct list_head *next, *prev; };
enum module_state { MODULE_STATE_LIVE, MODULE_STATE_COMING,
		    MODULE_STATE_GOING, MODULE_STATE_UNFORMED };
struct attribute { const char *name; unsigned short mode; };
struct bin_attribute {
	struct attribute attr;
	unsigned long size;
	void *private;
	void *fns[BA_FNS];
};
struct attribute_group {
	const char *name;
	void *is_visible, *is_bin_visible;
#ifdef V614
	void *bin_size;
	void *attrs;
	union {
		struct bin_attribute **bin_attrs;
		const struct bin_attribute *const *bin_attrs_new;
	};
#else
	void *attrs;
	struct bin_attribute **bin_attrs;
#endif
};
struct mod_kallsyms {
	void *symtab;
	unsigned int num_symtab;
	char *strtab, *typetab;
};
struct kernel_symbol { int value_offset, name_offset, namespace_offset; };
struct module_sect_attrs;
struct module_notes_attrs;
struct module {
	enum module_state state;
	char pad0[4 + SHIFT];
	struct list_head list; /* 8 */
	char name[56 - SHIFT]; /* 24 */
	char pad1[104];
	const struct attribute_group **groups; /* 184: reaches them */
	const char *srcversion; /* 192 */
	char pad2[8];
	const struct kernel_symbol *syms; /* 208 */
	char pad3[8];
	unsigned int num_syms; /* 224 */
	char pad4[48];
	unsigned int num_gpl_syms; /* 276 */
	const struct kernel_symbol *gpl_syms; /* 280 */
	char pad5[256];
	struct mod_kallsyms *kallsyms; /* 544 */
	char pad6[32];
	struct module_sect_attrs *sect_attrs; /* 584 */
	struct module_notes_attrs *notes_attrs; /* 592 */
	char pad7[296];
};
_Static_assert(offsetof(struct module, srcversion) == 192, "srcversion");
_Static_assert(offsetof(struct module, kallsyms) == 544, "kallsyms");
_Static_assert(offsetof(struct module, notes_attrs) == 592, "notes");
_Static_assert(sizeof(struct module) == 896, "module");
struct module __this_module;
#else
int not_a_module;
#endif
static const char vermagic[] __attribute__((section(".modinfo"), used)) =
	"vermagic=" REL " SMP preempt mod_unload ";
X

# mk NAME CFLAGS...: $T/NAME.o from mod.c
mk() {
	local n=$1
	shift
	gcc -c -o "$T/$n.o" -DSHIFT=0 -DBA_FNS=4 -DREL='"6.1.0-fake"' "$@" "$T/mod.c" 2>"$T/$n.cc" ||
		not_ok "gcc $n" "$(cat "$T/$n.cc")"
}
mk good -g -O2
mk v614 -g -O2 -DV614 -UBA_FNS -DBA_FNS=7 -UREL -DREL='"6.14.0-fake"'
mk shifted -g -USHIFT -DSHIFT=8
mk other -g -UREL -DREL='"6.1.0-other"'
mk nomodule -g -DNOMODULE
mk nodwarf -O2
mk m32 -g -m32 -DNOMODULE

# The maps t-kmem checks against its BTF, from BTF: the reference.
hrun good
cp "$T/out" "$T/want-61"
[ "$RC" = 0 ] && [ -s "$T/want-61" ] || not_ok "kmemwalk good (BTF): exit $RC" "$(cat "$T/err")"
hrun layout614
sed 's/^release 6.1.0-fake$/release 6.14.0-fake/' "$T/out" >"$T/want-614"

# dwarf DESC FILE MODE WANT: the walk with layouts from FILE's DWARF
# prints WANT and one note naming FILE.
dwarf() {
	hrun --dwarf "$2" "$3"
	if [ "$RC" = 0 ] && cmp -s "$T/out" "$4" &&
		[ "$(cat "$T/err")" = "kmemwalk: note: the kernel has no BTF: struct layouts from the DWARF of $2 (built for $5)" ]; then
		ok "$1"
	else
		not_ok "$1" "$(_last_run)" "$(diff "$4" "$T/out" | head -n 20)"
	fi
}
dwarf "6.1: no BTF, the map from the layouts in gcc -g's DWARF == the map from BTF" \
	"$T/good.o" good "$T/want-61" 6.1.0-fake
dwarf "6.14 (d8959b947a8d: no module_sect_attr, the address in bin_attribute.private): == the map from BTF" \
	"$T/v614.o" layout614 "$T/want-614" 6.14.0-fake
hrun --dwarf "$T/good.o" --core good
if [ "$RC" = 0 ] && grep -q '^core ' "$T/out" && grep -q "^build-id fake_net 0102" "$T/out"; then
	ok "6.1 from DWARF with --core: core symbols and build-ids (module_notes_attrs laid out from bin_attribute)"
else
	not_ok "6.1 from DWARF with --core" "$(_last_run)"
fi

# The offsets are the DWARF's: struct module's list 8 bytes further on.
hrun --dwarf "$T/shifted.o" good
if [ "$RC" != 0 ] || ! cmp -s "$T/out" "$T/want-61"; then
	ok "the layout is read from the DWARF: a struct module with list 8 bytes on walks another list (exit $RC: $(tail -n 1 "$T/err"))"
else
	not_ok "a struct module with other offsets gave the same map"
fi

# refused DESC FILE ERE: exit 1, nothing on stdout, one line matching.
refused() {
	hrun --dwarf "$2" good
	if [ "$RC" = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -Eq -- "^kmemwalk: $3\$" "$T/err"; then
		ok "$1: $(cat "$T/err")"
	else
		not_ok "$1: want exit 1 and one line matching /^kmemwalk: $3\$/" "$(_last_run)"
	fi
}
refused "a module of another release refused" "$T/other.o" \
	"$T/other.o was built for kernel 6\.1\.0-other \(its vermagic\), but the running kernel is 6\.1\.0-fake: its struct module may differ; give a module built for 6\.1\.0-fake"
refused "no struct module in the DWARF: refused, naming what to give" "$T/nomodule.o" \
	"$T/nomodule.o has no DWARF of struct module \(kernel 6\.1\.0-fake\): give a module built with debug info for this kernel \(--search DIR; CONFIG_DEBUG_INFO, or Kbuild's -g\), or its debug vmlinux \(--kernel-image\)"
refused "a file without DWARF refused" "$T/nodwarf.o" \
	"$T/nodwarf.o: no DWARF \(no \.debug_info\)"
refused "a 32-bit file for a 64-bit kernel refused" "$T/m32.o" \
	"$T/m32.o is for ELF machine 3 \(32-bit\), but the kernel is machine 62 \(64-bit\)"
refused "a file that is not there" "$T/nosuch.o" "$T/nosuch.o: .*"
finish
