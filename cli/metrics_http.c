/* SPDX-License-Identifier: MIT */
/*
 * metrics_http.c - the metrics endpoint (metrics.h): libmicrohttpd serves
 * a registry's exposition at GET /metrics.
 *
 * The listening socket is ours: bound and listening before the server
 * starts, so a port in use is an -EADDRINUSE the caller can report before
 * anything else runs (libmicrohttpd would only say it failed), and it is
 * close-on-exec, so a command the caller starts does not inherit it.
 * libmicrohttpd's thread handles one request at a time (internal polling
 * thread), so the exposition's collect callback never runs twice at once.
 * Its messages go nowhere (a library does not print).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>
#include "metrics.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct cli_metrics_http {
	struct MHD_Daemon *d;
	cli_metrics *m;
};

int cli_metrics_addr_parse(const char *s, char *addr, size_t addrlen, unsigned *port, char *err,
			  size_t errlen)
{
	const char *p = s, *colon;
	char *end;
	long v;

	if (*s == '[') {	/* [IPv6]:PORT */
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':') {
			snprintf(err, errlen, "'%s': expected [IPV6]:PORT", s);
			return -EINVAL;
		}
		snprintf(addr, addrlen, "%.*s", (int)(rb - s - 1), s + 1);
		p = rb + 2;
	} else if ((colon = strrchr(s, ':'))) {
		snprintf(addr, addrlen, "%.*s", (int)(colon - s), s);
		p = colon + 1;
	} else {
		snprintf(addr, addrlen, "127.0.0.1");
	}
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || *end || v < 0 || v > 65535) {
		snprintf(err, errlen, "'%s': the port is a number from 0 to 65535", s);
		return -EINVAL;
	}
	struct in6_addr a6;
	struct in_addr a4;
	if (inet_pton(AF_INET, addr, &a4) != 1 && inet_pton(AF_INET6, addr, &a6) != 1) {
		snprintf(err, errlen, "'%s': '%s' is not an IPv4 or IPv6 address", s, addr);
		return -EINVAL;
	}
	*port = (unsigned)v;
	return 0;
}

static void no_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct cli_metrics_http *h = cls;
	static char index_page[] = "iotape: the metrics are at /metrics\n";
	static char not_found[] = "not found: the metrics are at /metrics\n";
	static char not_allowed[] = "method not allowed\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed, strlen(not_allowed),
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, index_page, strlen(index_page),
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, strlen(not_found),
			     MHD_RESPMEM_PERSISTENT);
	if (!(f = open_memstream(&buf, &len)))
		return MHD_NO;
	if (cli_metrics_write(h->m, f)) {
		fclose(f);
		free(buf);
		return MHD_NO;
	}
	if (fclose(f)) {
		free(buf);
		return MHD_NO;
	}
	return reply(c, MHD_HTTP_OK, buf, len, MHD_RESPMEM_MUST_FREE);
}

/* A socket bound to addr:port and listening: the fd, or -errno. */
static int listen_on(const char *addr, unsigned port, int *v6, unsigned *bound)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	int fd, one = 1, rc;

	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		sl = sizeof(*s4);
		*v6 = 0;
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		sl = sizeof(*s6);
		*v6 = 1;
	} else {
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a port left in TIME_WAIT by an earlier run may be reused; one that
	 * is listening still may not */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*bound = ntohs(*v6 ? s6->sin6_port : s4->sin_port);
	return fd;
}

int cli_metrics_http_start(cli_metrics_http **out, cli_metrics *m, const char *addr, unsigned port,
			  unsigned *port_out, char *err, size_t errlen)
{
	struct cli_metrics_http *h;
	sigset_t all, old;
	unsigned bound = 0;
	int fd, v6 = 0;

	*out = NULL;
	if ((fd = listen_on(addr, port, &v6, &bound)) < 0) {
		if (fd == -EADDRINUSE)
			snprintf(err, errlen, "%s port %u is in use", addr, port);
		else
			snprintf(err, errlen, "%s port %u: %s", addr, port, strerror(-fd));
		return fd;
	}
	if (!(h = calloc(1, sizeof(*h)))) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->m = m;
	/* the server's thread inherits this mask: signals stay the caller's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL,
				NULL, handle, h,
				MHD_OPTION_EXTERNAL_LOGGER, no_log, NULL,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, 32u,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_END);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		close(fd);
		free(h);
		snprintf(err, errlen, "%s port %u: the HTTP server did not start (%s)", addr, port,
			 strerror(e ? e : EIO));
		return -(e ? e : EIO);
	}
	if (port_out)
		*port_out = bound;
	*out = h;
	return 0;
}

void cli_metrics_http_stop(cli_metrics_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);	/* joins its thread, closes the socket */
	free(h);
}
