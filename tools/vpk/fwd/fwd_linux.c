/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "fwd/fwd_priv.h"

static int
cmd_linux_sync(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	(void)f; (void)argc; (void)argv; (void)apply;
	return vpk_errf(err, len, -ENOTSUP, "linux-sync: not built");
}
const struct fwd_cmd fwd_cmd_linux_sync = { "linux-sync", cmd_linux_sync };
void fwd_linux_free(struct vpk_fwd *f) { (void)f; }
bool fwd_linux_nh(const struct vpk_fwd *f, uint32_t id, char *gw, size_t gl, char *dev, size_t dl)
{ (void)f; (void)id; (void)gw; (void)gl; (void)dev; (void)dl; return false; }
int fwd_linux_show(const struct vpk_fwd *f, bool json, FILE *out) { (void)f; (void)json; (void)out; return -ENOENT; }
