/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk ctl: the client of a running forwarder's control socket (vppctl for
 * vpk). `vpk ctl [--socket PATH] COMMAND...` runs one command and exits 0,
 * or 1 with the forwarder's one-line error on stderr; `vpk ctl` alone is an
 * interactive prompt (GNU readline: history in ~/.vpk_ctl_history, Tab
 * completes command words). The wire format is in fwd/fwd_cli.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "common/tool.h"
#include "fwd/fwd_cli.h"

static int cmd_ctl(int argc, char **argv);
VPK_CMD(ctl, "ctl", "talk to a running `vpk fwd`: show runtime/errors/fib..., live route/acl changes", cmd_ctl);

/* Send @line, print the answer. @return 0, 1 when the forwarder refused the command, or -errno of the socket. */
static int
ctl_one(const char *path, const char *line, bool quiet_ok)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	bool head = true;
	int fd, rc = -EPROTO;
	size_t hl = 0;
	char hbuf[32];

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) != 1) {
		rc = -errno;
		close(fd);
		return rc;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		while (head && off < (size_t)n) {
			char ch = buf[off++];

			if (ch == '\n') {
				hbuf[hl] = '\0';
				rc = atoi(hbuf);
				head = false;
			} else if (hl + 1 < sizeof(hbuf)) {
				hbuf[hl++] = ch;
			}
		}
		if (off < (size_t)n && !(quiet_ok && rc == 0))
			fwrite(buf + off, 1, (size_t)n - off, rc == 0 ? stdout : stderr);
	}
	close(fd);
	fflush(stdout);
	return rc == -EPROTO && head ? -EPROTO : rc != 0;
}

static const char *const words[] = {
	"show", "clear", "route", "neighbor", "acl", "help", "runtime", "errors", "interface", "node",
	"trace", "fib", "neighbors", "linux-sync", "verbose", "--json", "add", "del", "via", "load",
	"fragments", "portless", "drop", "ipv6", "dev", "quit", "ip", "address", "icmp", "rate-limit", "up",
	"down", "vxlan", "tunnel", "src", "dst", "vni", "sr", "policy", "steer", "localsid", NULL,
};

static char *
complete_word(const char *text, int state)
{
	static size_t i, len;

	if (state == 0) {
		i = 0;
		len = strlen(text);
	}
	while (words[i] != NULL) {
		const char *w = words[i++];

		if (strncmp(w, text, len) == 0)
			return strdup(w);
	}
	return NULL;
}

static char **
complete(const char *text, int start, int end)
{
	(void)start;
	(void)end;
	rl_attempted_completion_over = 1;       /* no file names */
	return rl_completion_matches(text, complete_word);
}

static int
interactive(const char *path)
{
	char hist[4096];
	const char *home = getenv("HOME");
	char *line;

	snprintf(hist, sizeof(hist), "%s/.vpk_ctl_history", home != NULL ? home : ".");
	rl_attempted_completion_function = complete;
	using_history();
	read_history(hist);
	while ((line = readline("vpk# ")) != NULL) {
		const char *p = line + strspn(line, " \t");
		int rc;

		if (strcmp(p, "quit") == 0 || strcmp(p, "exit") == 0) {
			free(line);
			break;
		}
		if (*p != '\0') {
			add_history(line);
			rc = ctl_one(path, p, false);
			if (rc < 0)
				fprintf(stderr, "vpk: ctl: %s: %s\n", path, strerror(-rc));
		}
		free(line);
	}
	write_history(hist);
	history_truncate_file(hist, 1000);
	return VPK_EXIT_OK;
}

static int
cmd_ctl(int argc, char **argv)
{
	const char *path = FWD_CLI_DEFAULT_SOCKET;
	char line[FWD_CLI_MAX_LINE];
	size_t n = 0;
	int i = 1, rc;

	for (; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 || strcmp(argv[i], "-s") == 0) {
			if (i + 1 >= argc)
				return vpk_fail(VPK_EXIT_USAGE, "ctl: %s needs a path", argv[i]);
			path = argv[++i];
		} else if (strncmp(argv[i], "--socket=", 9) == 0) {
			path = argv[i] + 9;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: vpk ctl [--socket PATH] [COMMAND ...]   (default socket %s;\n"
			       "       no command: interactive prompt; `vpk ctl help` lists the commands)\n",
			       FWD_CLI_DEFAULT_SOCKET);
			return VPK_EXIT_OK;
		} else {
			break;
		}
	}
	if (i == argc)
		return interactive(path);
	line[0] = '\0';
	for (; i < argc; i++) {
		int w = snprintf(line + n, sizeof(line) - n, "%s%s", n ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(line) - n)
			return vpk_fail(VPK_EXIT_USAGE, "ctl: command longer than %d bytes", FWD_CLI_MAX_LINE - 1);
		n += (size_t)w;
	}
	if (vpk_opts.json && strstr(line, "--json") == NULL && n + 8 < sizeof(line))
		strcat(line, " --json");        /* `vpk --json ctl show fib` */
	rc = ctl_one(path, line, false);
	if (rc == 0)
		return VPK_EXIT_OK;
	if (rc == 1)
		return VPK_EXIT_FAIL;   /* the forwarder's message is printed */
	return vpk_fail(VPK_EXIT_FAIL, "ctl: %s: %s%s", path, strerror(-rc),
			rc == -ENOENT || rc == -ECONNREFUSED ? " (is `vpk fwd --cli` running?)" : "");
}
