// SPDX-License-Identifier: GPL-2.0-or-later
/* The socket `modsect serve --listen` waits for its debugger on. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve.h"
#include "target/rsp.h"

int ms_serve_listen(const char *spec, int *fd_ret, char *where, size_t size,
		    struct ms_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					      AI_PASSIVE };
	struct addrinfo *res = NULL;
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	char host[256], port[6], h[NI_MAXHOST], p[NI_MAXSERV];
	int fd = -1, one = 1, r = rsp_parse_hostport(spec, host, sizeof(host),
						      port, err);

	if (r)
		return r;
	r = getaddrinfo(host, port, &hints, &res);
	if (r)
		return ms_err_set(err, EINVAL, "--listen %s: %s", spec,
				  gai_strerror(r));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen) ||
	    getnameinfo((struct sockaddr *)&sa, salen, h, sizeof(h), p,
			sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV)) {
		r = ms_err_kind(err, MS_E_IO, errno, "--listen %s", spec);
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return r;
	}
	freeaddrinfo(res);
	snprintf(where, size, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, p);
	*fd_ret = fd;
	return 0;
}

int ms_serve_accept(int fd, int *conn_ret, struct ms_err *err)
{
	int one = 1, c;

	do
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	while (c < 0 && errno == EINTR);
	if (c < 0)
		return ms_err_kind(err, MS_E_IO, errno,
				   "waiting for the debugger");
	/* Small packets, one at a time: no Nagle delay on each reply. */
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*conn_ret = c;
	return 0;
}
