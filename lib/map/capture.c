// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capture files: the section map written on a target, read on a host.
 *
 * Format 1 is line based; every line names its module so lines can be
 * merged and grepped. Names are escaped (\\, \xHH for bytes outside
 * 0x21..0x7e) so whatever a module calls its sections survives the trip;
 * whether a name is safe for a debugger is decided later, not here.
 *
 * The reader also takes, line by line and mixed with the above:
 *   "MOD SECTION 0xADDR"                  (the README's sh loop)
 *   "/sys/module/MOD/sections/SECTION:0xADDR"   (grep -r . /sys/module/...)
 *   "ADDR TYPE SYMBOL [MOD]"              (lines of /proc/kallsyms)
 *   "ADDR TYPE SYMBOL"                    (core kernel lines of it)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define CAPTURE_MAGIC "modsect-capture"
#define CAPTURE_VERSION 1
#define MAX_CAPTURE (256u << 20)

struct parser {
	struct ms_map *map;
	size_t cap;
	/* Module index + 1 by name hash (open addressing), 0 is empty. */
	size_t *slots;
	size_t nslots;
	const char *origin;
	size_t lineno;
	size_t btf_cap; /* from "btf-size" */
	struct ms_err *err;
};

static int perr(struct parser *p, const char *fmt, const char *arg)
{
	char what[256];

	/* What a line holds is untrusted: never raw bytes on a terminal. */
	snprintf(what, sizeof(what), fmt, MS_ESC(arg));
	return ms_err_set(p->err, EINVAL, "%s:%zu: %s", p->origin, p->lineno,
			  what);
}

static bool valid_modname(const char *s)
{
	if (!*s || strlen(s) > 55) /* MODULE_NAME_LEN - 1 on 64-bit */
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* Decodes \\ and \xHH in place; rejects other escapes and NUL. */
static int unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		if (s[1] == '\\') {
			*o++ = '\\';
			s++;
		} else if (s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
			   isxdigit((unsigned char)s[3])) {
			char hex[3] = { s[2], s[3], 0 };
			long v = strtol(hex, NULL, 16);

			if (v == 0)
				return -EINVAL;
			*o++ = (char)v;
			s += 3;
		} else {
			return -EINVAL;
		}
	}
	*o = '\0';
	return 0;
}

static int parse_hex(const char *s, bool need_0x, uint64_t *ret)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	else if (need_0x)
		return -EINVAL;
	if (!isxdigit((unsigned char)*s) || strlen(s) > 16)
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

/* FNV-1a over the name with '-' as '_', as ms_modname_eq compares. */
static size_t name_hash(const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *name; name++)
		h = (h ^ (unsigned char)(*name == '-' ? '_' : *name)) *
		    UINT64_C(0x100000001b3);
	return (size_t)h;
}

/* The index of name's slot: the one holding it, or the empty one to use. */
static size_t find_slot(const struct parser *p, const char *name)
{
	size_t i = name_hash(name) & (p->nslots - 1);

	while (p->slots[i] &&
	       !ms_modname_eq(p->map->modules[p->slots[i] - 1].name, name))
		i = (i + 1) & (p->nslots - 1);
	return i;
}

/* Keeps the table at most half full, so a lookup is O(1). */
static int grow_slots(struct parser *p)
{
	size_t *old = p->slots, nold = p->nslots;

	if (2 * (p->map->nmodules + 1) <= p->nslots)
		return 0;
	p->nslots = nold ? 2 * nold : 128;
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	if (!p->slots) {
		p->slots = old;
		p->nslots = nold;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			p->slots[find_slot(p, p->map->modules[old[i] - 1].name)] =
				old[i];
	free(old);
	return 0;
}

/*
 * Captures of 10,000 modules are read in linear time: modules are found by
 * hash, not by a scan of those seen so far.
 */
static struct ms_module *get_module(struct parser *p, const char *name)
{
	struct ms_map *map = p->map;
	struct ms_module *m;
	size_t slot;

	if (!valid_modname(name)) {
		perr(p, "invalid module name \"%.64s\"", name);
		return NULL;
	}
	/* Lines of one module come together; look back before hashing. */
	if (map->nmodules &&
	    ms_modname_eq(map->modules[map->nmodules - 1].name, name))
		return &map->modules[map->nmodules - 1];
	if (grow_slots(p) < 0)
		return NULL;
	slot = find_slot(p, name);
	if (p->slots[slot])
		return &map->modules[p->slots[slot] - 1];
	if (ms_reserve(&map->modules, &p->cap, map->nmodules,
		       sizeof(*map->modules), 64))
		return NULL;
	m = &map->modules[map->nmodules];
	memset(m, 0, sizeof(*m));
	if (!(m->name = strdup(name)))
		return NULL;
	for (char *c = m->name; *c; c++)
		if (*c == '-')
			*c = '_';
	p->slots[slot] = ++map->nmodules;
	return m;
}

static int add_section(struct parser *p, const char *mod, char *sec,
		       const char *addr_s, bool need_0x)
{
	struct ms_module *m = get_module(p, mod);
	uint64_t addr;

	if (!m)
		return p->err->code ? -p->err->code : -ENOMEM;
	if (unescape(sec) < 0 || !*sec)
		return perr(p, "bad section name \"%.64s\"", sec);
	if (parse_hex(addr_s, need_0x, &addr) < 0)
		return perr(p, "bad address \"%.40s\"", addr_s);
	return ms_module_add_section(m, sec, addr, p->err);
}

static int add_ksym(struct parser *p, const char *mod, const char *addr_s,
		    const char *type, const char *name)
{
	struct ms_module *m = get_module(p, mod);
	uint64_t addr;

	if (!m)
		return p->err->code ? -p->err->code : -ENOMEM;
	if (parse_hex(addr_s, false, &addr) < 0 || strlen(type) != 1)
		return perr(p, "bad kallsyms line for %s", mod);
	if (ms_module_add_ksym(m, name, addr, type[0], p->err))
		return -ENOMEM;
	if (unescape(m->ksyms[m->nksyms - 1].name) < 0) {
		free(m->ksyms[--m->nksyms].name);
		return perr(p, "bad symbol name \"%.64s\"", name);
	}
	return 0;
}

static int set_once(struct parser *p, char **slot, const char *val,
		    const char *what)
{
	if (*slot && strcmp(*slot, val))
		return perr(p, "conflicting %s", what);
	if (!*slot && !(*slot = strdup(val)))
		return -ENOMEM;
	return 0;
}

static int module_field(struct parser *p, const char *kw, char **f, int n)
{
	struct ms_module *m;

	if (n != 3)
		return perr(p, "\"%s\" takes a module and a value", kw);
	if (!(m = get_module(p, f[1])))
		return p->err->code ? -p->err->code : -ENOMEM;
	if (strcmp(kw, "module") == 0)
		return strcmp(f[2], "unknown") == 0 ?
			       0 :
			       set_once(p, &m->initstate, f[2], "initstate");
	if (strcmp(kw, "srcversion") == 0)
		return set_once(p, &m->srcversion, f[2], "srcversion");
	for (char *c = f[2]; *c; c++) {
		if (!isxdigit((unsigned char)*c))
			return perr(p, "bad build-id \"%.80s\"", f[2]);
		*c = (char)tolower((unsigned char)*c);
	}
	return set_once(p, &m->build_id, f[2], "build-id");
}

/* /sys/module/MOD/sections/SECTION:0xADDR */
static int grep_line(struct parser *p, char *line)
{
	char *mod = line + strlen("/sys/module/");
	char *slash = strchr(mod, '/'), *sec, *colon;

	if (!slash || strncmp(slash, "/sections/", 10) != 0)
		return perr(p, "unrecognized line \"%.60s\"", line);
	*slash = '\0';
	sec = slash + 10;
	colon = strrchr(sec, ':');
	if (!colon || strchr(sec, '/'))
		return perr(p, "unrecognized line \"%.60s\"", line);
	*colon = '\0';
	return add_section(p, mod, sec, colon + 1, true);
}

static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
		if (n == max)
			return max + 1;
		f[n++] = tok;
	}
	return n;
}

/*
 * "btf-size N" then "btf HEX" lines: the core kernel's BTF (capture
 * --btf), in order; parse_capture checks that all N bytes came.
 */
static int btf_line(struct parser *p, char **f, int n)
{
	struct ms_map *m = p->map;
	size_t l = n == 2 ? strlen(f[1]) : 0;
	char *end;
	unsigned long long size;

	if (f[0][3] == '-') {
		size = n == 2 ? strtoull(f[1], &end, 10) : 0;
		if (n != 2 || *end || !size || size > MS_MAX_BTF)
			return perr(p, "bad \"btf-size\" %.20s", n == 2 ? f[1] : "");
		if (p->btf_cap)
			return perr(p, "a second \"btf-size\"%s", "");
		if (!(m->core_btf = malloc(size)))
			return -ENOMEM;
		p->btf_cap = size;
		return 0;
	}
	if (!l || l % 2 || m->core_btf_len + l / 2 > p->btf_cap)
		return perr(p, "a \"btf\" line %s", p->btf_cap ?
				"beyond its \"btf-size\" or not hex" :
				"before \"btf-size\"");
	if (ms_hex_decode(f[1], l, (uint8_t *)m->core_btf + m->core_btf_len))
		return perr(p, "a \"btf\" line that is not hex%s", "");
	m->core_btf_len += l / 2;
	return 0;
}

/*
 * "ADDR TYPE SYMBOL [MOD]", n fields, from /proc/kallsyms; core ones are
 * the map's core symbols.
 */
static int raw_kallsyms(struct parser *p, char **f, int n)
{
	uint64_t addr;
	size_t l;

	if (n == 3) {
		if (parse_hex(f[0], false, &addr) < 0)
			return perr(p, "bad kallsyms address \"%.20s\"", f[0]);
		return ms_map_add_core(p->map, f[2], addr, f[1][0], p->err);
	}
	l = strlen(f[3]);
	if (f[3][0] != '[' || f[3][l - 1] != ']')
		return perr(p, "unrecognized line \"%.60s\"", f[0]);
	f[3][l - 1] = '\0';
	return add_ksym(p, f[3] + 1, f[0], f[1], f[2]);
}

/* "core ADDR TYPE NAME" of format 1. */
static int core_line(struct parser *p, char **f, int n)
{
	uint64_t addr;

	if (n != 4 || strlen(f[2]) != 1 || parse_hex(f[1], false, &addr) < 0 ||
	    unescape(f[3]) < 0)
		return perr(p, "\"core\" takes an address, a type and a name%s",
			    "");
	return ms_map_add_core(p->map, f[3], addr, f[2][0], p->err);
}

static int parse_line(struct parser *p, char *line, bool *native)
{
	char *f[6];
	int n;

	if (strncmp(line, "/sys/module/", 12) == 0)
		return grep_line(p, line);
	n = split(line, f, 5);
	if (n == 0 || f[0][0] == '#')
		return 0;
	if (strcmp(f[0], CAPTURE_MAGIC) == 0) {
		if (n != 2 || strcmp(f[1], "1") != 0)
			return perr(
				p,
				"unsupported capture format \"%s\" (this modsect reads format 1)",
				n == 2 ? f[1] : "?");
		*native = true;
		return 0;
	}
	if (strcmp(f[0], "kernel-build-id") == 0) {
		if (n != 2 || strspn(f[1], "0123456789abcdef") != strlen(f[1]))
			return perr(
				p, "\"kernel-build-id\" takes a hex build-id%s",
				"");
		return set_once(p, &p->map->kernel_build_id, f[1],
				"kernel-build-id");
	}
	if (strcmp(f[0], "release") == 0 || strcmp(f[0], "machine") == 0) {
		if (n != 2)
			return perr(p, "\"%s\" takes one value", f[0]);
		return set_once(
			p, f[0][0] == 'r' ? &p->map->release : &p->map->machine,
			f[1], f[0]);
	}
	if (strcmp(f[0], "module") == 0 || strcmp(f[0], "srcversion") == 0 ||
	    strcmp(f[0], "build-id") == 0)
		return module_field(p, f[0], f, n);
	if (strcmp(f[0], "section") == 0) {
		if (n != 4)
			return perr(
				p,
				"\"section\" takes a module, a name and an address%s",
				"");
		return add_section(p, f[1], f[2], f[3], true);
	}
	if (strcmp(f[0], "core") == 0)
		return core_line(p, f, n);
	if (strcmp(f[0], "btf-size") == 0 || strcmp(f[0], "btf") == 0)
		return btf_line(p, f, n);
	if (strcmp(f[0], "kallsyms") == 0) {
		if (n != 5)
			return perr(
				p,
				"\"kallsyms\" takes a module, an address, a type and a name%s",
				"");
		return add_ksym(p, f[1], f[2], f[3], f[4]);
	}
	if ((n == 3 || n == 4) && strlen(f[1]) == 1 && strlen(f[0]) >= 8 &&
	    strspn(f[0], "0123456789abcdefABCDEF") == strlen(f[0]))
		return raw_kallsyms(p, f, n);
	/* "MOD SECTION 0xADDR" from the sh loop */
	if (n == 3 && strncmp(f[2], "0x", 2) == 0)
		return add_section(p, f[0], f[1], f[2], true);
	return perr(p, "unrecognized line starting \"%.60s\"", f[0]);
}

/*
 * Raw /proc/kallsyms lists every module, also those the capture has no
 * sections for; such a module is not in the map.
 */
static void drop_sectionless(struct ms_map *map)
{
	size_t n = 0;

	for (size_t i = 0; i < map->nmodules; i++) {
		struct ms_module *m = &map->modules[i];

		if (m->nsections) {
			map->modules[n++] = *m;
			continue;
		}
		ms_module_clear(m);
	}
	map->nmodules = n;
}

int ms_map_parse_capture(const char *text, size_t len, const char *origin,
			 struct ms_map **ret, struct ms_err *err)
{
	struct parser p = { .origin = origin, .err = err };
	char *copy, *line, *next;
	bool native = false;
	int r = 0;

	err->code = 0;
	if (memchr(text, '\0', len))
		return ms_err_set(err, EINVAL,
				  "%s: not a text file (contains NUL bytes)",
				  origin);
	p.map = calloc(1, sizeof(*p.map));
	copy = malloc(len + 1);
	if (!p.map || !copy || !(p.map->origin = strdup(origin))) {
		free(copy);
		ms_map_free(p.map);
		return ms_err_errno(err, ENOMEM, "%s", origin);
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; line && !r; line = next) {
		size_t l;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.lineno++;
		l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = '\0';
		r = parse_line(&p, line, &native);
		if (r == -ENOMEM)
			ms_err_errno(err, ENOMEM, "%s", origin);
	}
	free(copy);
	free(p.slots);
	if (!r && p.map->core_btf_len != p.btf_cap)
		r = ms_err_set(err, EINVAL,
			       "%s: the BTF is cut short: %zu of %zu bytes",
			       origin, p.map->core_btf_len, p.btf_cap);
	if (!r)
		drop_sectionless(p.map);
	if (!r && p.map->nmodules == 0 && p.map->ncore == 0)
		r = ms_err_set(
			err, EINVAL,
			"%s: no module sections found (is this a capture?)",
			origin);
	if (!r)
		r = ms_map_finish(p.map, err);
	if (r) {
		ms_map_free(p.map);
		return r;
	}
	*ret = p.map;
	return 0;
}

int ms_map_read_capture(const char *path, struct ms_map **ret,
			struct ms_err *err)
{
	size_t len;
	char *buf;
	int r = ms_read_file(path, MAX_CAPTURE, &buf, &len, err);

	if (r)
		return r;
	r = ms_map_parse_capture(buf, len, strcmp(path, "-") ? path : "<stdin>",
				 ret, err);
	free(buf);
	return r;
}

static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", out);
		else if (c <= 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

int ms_capture_write(FILE *out, const struct ms_map *map, struct ms_err *err)
{
	fprintf(out,
		"# modsect capture of %zu modules; read it with modsect --capture FILE, see modsect(1)\n",
		map->nmodules);
	fprintf(out, "%s %d\n", CAPTURE_MAGIC, CAPTURE_VERSION);
	if (map->release)
		fprintf(out, "release %s\n", map->release);
	if (map->machine)
		fprintf(out, "machine %s\n", map->machine);
	if (map->kernel_build_id)
		fprintf(out, "kernel-build-id %s\n", map->kernel_build_id);
	for (size_t i = 0; i < map->nmodules; i++) {
		const struct ms_module *m = &map->modules[i];

		fprintf(out, "module %s %s\n", m->name,
			m->initstate ? m->initstate : "unknown");
		if (m->srcversion)
			fprintf(out, "srcversion %s %s\n", m->name,
				m->srcversion);
		if (m->build_id)
			fprintf(out, "build-id %s %s\n", m->name, m->build_id);
		for (size_t j = 0; j < m->nsections; j++) {
			fprintf(out, "section %s ", m->name);
			put_escaped(out, m->sections[j].name);
			fprintf(out, " 0x%016" PRIx64 "\n",
				m->sections[j].addr);
		}
		for (size_t j = 0; j < m->nksyms; j++) {
			fprintf(out, "kallsyms %s %016" PRIx64 " %c ", m->name,
				m->ksyms[j].addr, m->ksyms[j].type);
			put_escaped(out, m->ksyms[j].name);
			fputc('\n', out);
		}
	}
	for (size_t j = 0; j < map->ncore; j++) {
		fprintf(out, "core %016" PRIx64 " %c ", map->core[j].addr,
			map->core[j].type);
		put_escaped(out, map->core[j].name);
		fputc('\n', out);
	}
	if (map->core_btf) {
		char hex[2 * 64 + 1];

		fprintf(out, "btf-size %zu\n", map->core_btf_len);
		for (size_t o = 0; o < map->core_btf_len; o += 64) {
			size_t k = map->core_btf_len - o < 64 ?
					   map->core_btf_len - o :
					   64;

			fprintf(out, "btf %s\n",
				ms_hex_encode((const uint8_t *)map->core_btf + o,
					      k, hex));
		}
	}
	if (ferror(out))
		return ms_err_errno(err, EIO, "writing capture");
	return 0;
}
