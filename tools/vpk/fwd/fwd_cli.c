/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket of `vpk fwd` (what vppctl talks to in VPP): a Unix
 * stream socket, mode 0600, served by one thread. Each connection carries
 * one command (fwd_cli.h gives the wire format). A peer is checked with
 * SO_PEERCRED: root and the forwarder's own user are served, anyone else
 * gets "permission denied" and nothing runs, even when the socket file's
 * mode was widened. Commands run one at a time; a configuration line goes
 * through vpk_fwd_exec(), so it is checked completely before it changes
 * anything and gets the configuration file's one-line errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fwd/fwd_cli.h"
#include "fwd/fwd_priv.h"

struct fwd_cli {
	struct vpk_fwd *f;
	int fd;
	int stop_pipe[2];
	pthread_t th;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static const char *const help_text =
	"commands:\n"
	"  show runtime [verbose] | show errors | show interface | show node NAME | show trace\n"
	"  show fib [PREFIX] | show acl | show neighbors | show linux-sync   (each show takes --json)\n"
	"  clear runtime | clear errors\n"
	"  route add PREFIX/LEN via ID | route del PREFIX/LEN\n"
	"  neighbor ID MAC dev IFACE | neighbor del ID\n"
	"  acl load FILE [ipv6] | acl fragments portless|drop\n"
	"  ip address [del] IFACE ADDR/LEN | icmp rate-limit PPS [burst N]\n"
	"  vxlan tunnel src A dst B vni N [decap-next l2|ip4|ip6] [encap PREFIX/LEN] [del]\n"
	"  vxlan port N | vxlan mode rfc|strict\n"
	"  sr policy bsid B segments S1 [S2 ..] [via ID] | sr policy bsid B del\n"
	"  sr steer gtp4-d PREFIX/LEN sr-prefix P/L v6src-prefix P/L ... | sr steer gtp4-d PREFIX/LEN del\n"
	"  sr localsid end-m-gtp4-e PREFIX/LEN (v4src-position N | v4src-addr A) | ... PREFIX/LEN del\n"
	"  interface NAME up|down\n"
	"  (other interface lines, run-limit: configuration file only, before the start)\n";

int
fwd_cli_exec(struct vpk_fwd *f, const char *line, FILE *out)
{
	char buf[FWD_CLI_MAX_LINE], *argv[32], *save = NULL, err[512];
	int argc = 0, rc;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok_r(buf, " \t\r\n", &save); w != NULL && argc < 31; w = strtok_r(NULL, " \t\r\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (argc == 0 || argv[0][0] == '#')
		return 0;
	if (strcmp(argv[0], "help") == 0 || strcmp(argv[0], "?") == 0) {
		fputs(help_text, out);
		return 0;
	}
	if (strcmp(argv[0], "show") == 0 || strcmp(argv[0], "clear") == 0) {
		bool locked = fwd_ctl_lock(f);

		rc = strcmp(argv[0], "show") == 0 ? fwd_cli_show(f, argc, argv, out) : fwd_cli_clear(f, argc, argv, out);
		fwd_ctl_unlock(f, locked);
		return rc;
	}
	rc = vpk_fwd_exec(f, line, err, sizeof(err));
	if (rc != 0)
		fprintf(out, "%s\n", err);
	return rc;
}

/* Read one command line (up to '\n' or EOF; a short timeout: one client must not hold the socket). */
static ssize_t
read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 5000) <= 0)
			return -1;
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (memchr(buf, '\n', n) != NULL)
			break;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

static void
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void
serve(struct fwd_cli *c, int fd)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	char line[FWD_CLI_MAX_LINE], head[32], *body = NULL;
	size_t blen = 0;
	FILE *out;
	int rc;

	/* The line is read (and ignored) before a refusal, so the peer is not
	 * cut off while it sends and reads the reason. */
	if (read_line(fd, line, sizeof(line)) < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		snprintf(line, sizeof(line), "%d\npermission denied: uid %u may not control this forwarder\n", -EACCES,
			 (unsigned)cred.uid);
		write_all(fd, line, strlen(line));
		return;
	}
	out = open_memstream(&body, &blen);
	if (out == NULL)
		return;
	rc = fwd_cli_exec(c->f, line, out);
	fclose(out);
	snprintf(head, sizeof(head), "%d\n", rc);
	write_all(fd, head, strlen(head));
	write_all(fd, body, blen);
	free(body);
}

static void *
cli_main(void *arg)
{
	struct fwd_cli *c = arg;

	fwd_block_stop_signals();

	for (;;) {
		struct pollfd p[2] = { { .fd = c->fd, .events = POLLIN }, { .fd = c->stop_pipe[0], .events = POLLIN } };
		int fd;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents != 0)
			break;
		if ((p[0].revents & POLLIN) == 0)
			continue;
		fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve(c, fd);
		close(fd);
	}
	return NULL;
}

/* A socket file nobody listens on is left over from a forwarder that died: replace it. */
static int
claim_path(const struct sockaddr_un *sa)
{
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc = 0;

	if (probe < 0)
		return -errno;
	if (connect(probe, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		rc = -EADDRINUSE;
	else if (errno == ECONNREFUSED)
		unlink(sa->sun_path);
	close(probe);
	return rc;
}

static int
make_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int
fwd_cli_start(struct vpk_fwd *f, const char *path, struct fwd_cli **out, char *err, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fwd_cli *c;
	mode_t old;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return vpk_errf(err, len, -ENAMETOOLONG, "control socket %s: path too long", path);
	rc = fwd_ctl_enable(f);
	if (rc != 0)
		return vpk_errf(err, len, rc, "control socket: %s", strerror(-rc));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return vpk_errf(err, len, -ENOMEM, "control socket: out of memory");
	c->f = f;
	c->stop_pipe[0] = c->stop_pipe[1] = -1;
	snprintf(c->path, sizeof(c->path), "%s", path);
	rc = make_dir(path);
	if (rc == 0)
		rc = claim_path(&sa);
	if (rc != 0) {
		free(c);
		return vpk_errf(err, len, rc, "control socket %s: %s", path,
				rc == -EADDRINUSE ? "another forwarder listens there" : strerror(-rc));
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	old = umask(0177);              /* the file is created 0600: no window with a wider mode */
	rc = c->fd < 0 || bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(c->fd, 16) != 0 ? -errno : 0;
	umask(old);
	if (rc == 0 && chmod(path, 0600) != 0)
		rc = -errno;
	if (rc == 0 && pipe2(c->stop_pipe, O_CLOEXEC) != 0)
		rc = -errno;
	if (rc == 0 && pthread_create(&c->th, NULL, cli_main, c) != 0)
		rc = -EAGAIN;
	if (rc != 0) {
		if (c->fd >= 0)
			close(c->fd);
		if (c->stop_pipe[0] >= 0) {
			close(c->stop_pipe[0]);
			close(c->stop_pipe[1]);
		}
		free(c);
		return vpk_errf(err, len, rc, "control socket %s: %s", path, strerror(-rc));
	}
	*out = c;
	return 0;
}

void
fwd_cli_stop(struct fwd_cli *c)
{
	if (c == NULL)
		return;
	if (write(c->stop_pipe[1], "x", 1) == 1)
		pthread_join(c->th, NULL);
	close(c->stop_pipe[0]);
	close(c->stop_pipe[1]);
	close(c->fd);
	unlink(c->path);
	free(c);
}

int
fwd_cli_prepare(struct vpk_fwd *f, char *err, size_t len)
{
	int rc = fwd_ctl_enable(f);

	if (rc != 0)
		return vpk_errf(err, len, rc, "control socket: %s", strerror(-rc));
	for (int v6 = 0; v6 < 2 && !f->conf.l3fwd_acl; v6++) {
		struct fwd_acl *a = v6 ? &f->acl6 : &f->acl4;
		char why[256];

		/* No rules: every packet is permitted, as without the stage. */
		if (a->acl == NULL && (rc = fwd_acl_install(f, NULL, 0, v6, why, sizeof(why))) != 0)
			return vpk_errf(err, len, rc, "control socket: empty ACL stage: %s", why);
	}
	return 0;
}

bool
fwd_cli_has_input(const struct vpk_fwd *f)
{
	if (f->n_tmpl > 0)
		return true;
	for (size_t i = 0; i < f->n_ifs; i++)
		if (f->ifs[i].in_path != NULL || f->ifs[i].live != NULL)
			return true;
	return false;
}

bool
fwd_cli_linux_sync_on(const struct vpk_fwd *f)
{
	return f->lsync != NULL;
}
