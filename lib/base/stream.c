// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text read as a stream of lines, and output written as it comes, for
 * commands that pass their input through (decode). Nothing is lost: a
 * line keeps its NUL bytes, invalid UTF-8 and the absence of a final
 * newline; a line longer than the reader's limit comes in pieces, so no
 * input is too large and memory stays bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

struct ms_lines {
	char *path; /* for messages */
	int fd;
	bool regular; /* a file, not a pipe or terminal */
	bool eof;
	bool in_cut; /* the last piece was cut: the next one continues it */
	char *buf; /* max + 1 bytes: a piece and its terminating NUL */
	size_t max, start, end;
	uint64_t lineno;
};

int ms_lines_open(const char *path, size_t max, struct ms_lines **ret,
		  struct ms_err *err)
{
	struct ms_lines *l = calloc(1, sizeof(*l));
	struct stat st;
	bool in = strcmp(path, "-") == 0;

	if (!l || !(l->path = strdup(in ? "standard input" : path)) ||
	    !(l->buf = malloc(max + 1))) {
		ms_lines_free(l);
		return ms_err_errno(err, ENOMEM, "%s", path);
	}
	l->max = max;
	l->fd = in ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0) {
		int r = ms_err_errno(err, errno, "cannot open %s", l->path);

		ms_lines_free(l);
		return r;
	}
	if (fstat(l->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		int r = ms_err_errno(err, EISDIR, "cannot read %s", l->path);

		ms_lines_free(l);
		return r;
	}
	l->regular = fstat(l->fd, &st) == 0 && S_ISREG(st.st_mode);
	*ret = l;
	return 0;
}

void ms_lines_free(struct ms_lines *l)
{
	if (!l)
		return;
	if (l->fd > 0)
		close(l->fd);
	free(l->buf);
	free(l->path);
	free(l);
}

bool ms_lines_regular(const struct ms_lines *l)
{
	return l->regular;
}

/* Reads more after what is buffered; 0, or a negative errno. */
static int fill(struct ms_lines *l, struct ms_err *err)
{
	ssize_t n;

	if (l->start > 0) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	do
		n = read(l->fd, l->buf + l->end, l->max - l->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return ms_err_errno(err, errno, "cannot read %s", l->path);
	if (n == 0)
		l->eof = true;
	l->end += (size_t)n;
	return 0;
}

int ms_lines_next(struct ms_lines *l, struct ms_line *ret, struct ms_err *err)
{
	for (;;) {
		char *p = l->buf + l->start;
		size_t have = l->end - l->start, len;
		char *nl = memchr(p, '\n', have);
		int r;

		if (nl || have == l->max || (l->eof && have)) {
			/* Cut: the line goes on past what one piece holds. */
			bool cut = !nl && !l->eof;

			len = nl ? (size_t)(nl - p) : have;
			ret->text = p;
			ret->len = len;
			ret->newline = nl != NULL;
			ret->piece = l->in_cut || cut;
			ret->lineno = l->lineno + 1;
			if (!cut)
				l->lineno++;
			l->in_cut = cut;
			l->start += len + (nl != NULL);
			/* The byte after the text is its newline, or free. */
			p[len] = '\0';
			return 1;
		}
		if (l->eof)
			return 0;
		r = fill(l, err);
		if (r)
			return r;
	}
}

struct ms_out {
	FILE *f;
	char *path, *tmp; /* NULL for standard output */
};

int ms_out_open(const char *path, struct ms_out **ret, struct ms_err *err)
{
	struct ms_out *o = calloc(1, sizeof(*o));
	int fd;

	if (!o)
		return ms_err_errno(err, ENOMEM, "output");
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		*ret = o;
		return 0;
	}
	if (!(o->path = strdup(path)) ||
	    asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0) {
		o->tmp = NULL;
		ms_out_abort(o);
		return ms_err_errno(err, ENOMEM, "%s", path);
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(o->tmp);
		o->tmp = NULL;
		ms_out_abort(o);
		ms_err_errno(err, e, "cannot write %s", path);
		/* A failed write is a failure, never "not found". */
		ms_err_rekind(err, MS_E_IO);
		return -EIO;
	}
	*ret = o;
	return 0;
}

FILE *ms_out_file(const struct ms_out *o)
{
	return o->f;
}

int ms_out_commit(struct ms_out *o, struct ms_err *err)
{
	int r = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		r = -(errno ? errno : EIO);
	if (o->tmp) {
		if (!r && fchmod(fileno(o->f), 0644) < 0)
			r = -errno;
		if (!r && fsync(fileno(o->f)) < 0)
			r = -errno;
		if (fclose(o->f) != 0 && !r)
			r = -errno;
		o->f = NULL;
		if (!r && rename(o->tmp, o->path) < 0)
			r = -errno;
	}
	if (r) {
		ms_err_errno(err, -r, "cannot write %s",
			     o->path ? o->path : "standard output");
		ms_out_abort(o);
		ms_err_rekind(err, MS_E_IO);
		return -EIO;
	}
	free(o->tmp);
	o->tmp = NULL;
	ms_out_abort(o);
	return 0;
}

void ms_out_abort(struct ms_out *o)
{
	if (!o)
		return;
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		free(o->tmp);
	} else if (o->f) {
		fflush(o->f);
	}
	free(o->path);
	free(o);
}
