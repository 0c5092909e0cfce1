/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FWD_CLI_H
#define VPK_TOOL_FWD_CLI_H

/*
 * The forwarder's control socket (fwd_cli.c) and its commands
 * (fwd_cli_cmd.c, fwd_cli_show.c): every configuration line, applied live,
 * plus show / clear. `vpk ctl` (tools/vpk/ctl/) is the client.
 *
 * Wire format, one command per connection: the client sends the command
 * line ending in '\n'; the server answers "<rc>\n" (0 or a negative errno)
 * then the output, and closes.
 */
#include <stdbool.h>
#include <stdio.h>

#include "fwd/fwd.h"

#define FWD_CLI_DEFAULT_SOCKET "/run/vpk/cli.sock"
#define FWD_CLI_MAX_LINE 4096

struct fwd_cli;

/*
 * Listen on @path (its directory created if missing; a stale socket file
 * replaced, a live one refused: -EADDRINUSE), mode 0600, and serve commands
 * on a thread of its own. Peers whose uid is neither root's nor ours are
 * refused (SO_PEERCRED). @return 0 or a negative errno with @err set.
 */
int fwd_cli_start(struct vpk_fwd *f, const char *path, struct fwd_cli **out, char *err, size_t len);
/* Stop serving, remove the socket file. NULL: no-op. */
void fwd_cli_stop(struct fwd_cli *c);

/* Before the start: live changes on, and empty ACL stages in the graph so
 * `acl load` can replace them live (not in l3fwd-acl mode). 0 or negative errno. */
int fwd_cli_prepare(struct vpk_fwd *f, char *err, size_t len);
/* True when an interface has input (pcap or live) or in-memory traffic is set. */
bool fwd_cli_has_input(const struct vpk_fwd *f);
/* True when a linux-sync line is configured. */
bool fwd_cli_linux_sync_on(const struct vpk_fwd *f);

/* Run one command; its output (or the one-line error) goes to @out. @return 0 or negative errno. */
int fwd_cli_exec(struct vpk_fwd *f, const char *line, FILE *out);

/* fwd_cli_show.c: `show ...` and `clear ...` (argv[0] is "show" or "clear"). */
int fwd_cli_show(struct vpk_fwd *f, int argc, char **argv, FILE *out);
int fwd_cli_clear(struct vpk_fwd *f, int argc, char **argv, FILE *out);
/* fwd_cli_runtime.c: VPP's `show runtime`, one section per thread. */
void fwd_cli_show_runtime(struct vpk_fwd *f, bool verbose, bool json, FILE *out);

/* fwd_cli_live.c */
void fwd_ctl_clear(struct vpk_fwd *f);
double fwd_ctl_since_clear(const struct vpk_fwd *f);

#endif
