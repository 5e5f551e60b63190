// SPDX-License-Identifier: GPL-2.0-or-later
/* All-or-nothing output, and whole-file input. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

int ms_buf_open(struct ms_buf *b, struct ms_err *err)
{
	memset(b, 0, sizeof(*b));
	b->f = open_memstream(&b->data, &b->len);
	if (!b->f)
		return ms_err_errno(err, errno, "open_memstream");
	return 0;
}

int ms_buf_close(struct ms_buf *b, struct ms_err *err)
{
	int bad = ferror(b->f);

	if (fclose(b->f) != 0 || bad) {
		b->f = NULL;
		return ms_err_errno(err, ENOMEM, "building output");
	}
	b->f = NULL;
	return 0;
}

void ms_buf_free(struct ms_buf *b)
{
	if (b->f)
		fclose(b->f);
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ms_write_out(const char *path, const void *data, size_t len,
		 struct ms_err *err)
{
	char *tmp;
	int fd, r;

	if (!path || strcmp(path, "-") == 0) {
		r = write_all(STDOUT_FILENO, data, len);
		if (r)
			return ms_err_errno(err, -r, "writing standard output");
		return 0;
	}
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return ms_err_errno(err, ENOMEM, "%s", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ms_err_errno(err, errno, "cannot write %s", path);
		free(tmp);
		ms_err_rekind(err, MS_E_IO);
		return -EIO; /* never the -ENOENT of "not found" */
	}
	r = write_all(fd, data, len);
	if (!r && fchmod(fd, 0644) < 0)
		r = -errno;
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		ms_err_errno(err, -r, "cannot write %s", path);
		/* A failed write is a failure, never "not found". */
		ms_err_rekind(err, MS_E_IO);
		r = -EIO;
	}
	free(tmp);
	return r;
}

int ms_read_file(const char *path, size_t max, char **buf_ret, size_t *len_ret,
		 struct ms_err *err)
{
	size_t cap = 65536, len = 0;
	char *buf = NULL;
	int fd, r = 0;

	fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) :
				      open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ms_err_errno(err, errno, "cannot open %s", path);
	for (;;) {
		ssize_t n;

		if (!buf || len + 1 >= cap) {
			char *nb;

			if (buf)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				r = ms_err_errno(err, ENOMEM, "%s", path);
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = ms_err_errno(err, errno, "cannot read %s", path);
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = ms_err_set(err, EFBIG, "%s: larger than %zu bytes",
				       path, max);
			break;
		}
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*buf_ret = buf;
	*len_ret = len;
	return 0;
}

int ms_fd_bytes(int (*write_fd)(int fd, const void *arg, struct ms_err *err),
		const void *arg, char **buf_ret, size_t *len_ret,
		struct ms_err *err)
{
	FILE *tmp = tmpfile();
	off_t len;
	char *buf;
	int r;

	if (!tmp)
		return ms_err_errno(err, errno, "temporary file");
	r = write_fd(fileno(tmp), arg, err);
	if (!r && ((len = lseek(fileno(tmp), 0, SEEK_END)) < 0 ||
		   lseek(fileno(tmp), 0, SEEK_SET) < 0))
		r = ms_err_errno(err, errno, "temporary file");
	if (!r && !(buf = malloc((size_t)len + 1)))
		r = ms_err_errno(err, ENOMEM, "ELF file");
	if (!r && read(fileno(tmp), buf, (size_t)len) != len) {
		free(buf);
		r = ms_err_errno(err, EIO, "temporary file");
	}
	fclose(tmp);
	if (r)
		return r;
	*buf_ret = buf;
	*len_ret = (size_t)len;
	return 0;
}
