/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the powersim inputs: the request parser (library) and the JSON reader
 * behind `vpk powersim --from-runtime` (tools/vpk/jread.c, compiled in here),
 * then the node conversion on whatever nodes the JSON yields.
 */
// fuzz-libs: vpk_tool_power
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power/powersim.h"
#include "../tools/vpk/common/jread.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct vpk_psim_workload w;
	size_t at;
	if (vpk_psim_parse_request(s, vpk_psim_cpu_find("skx-6130"), &w, &at) == 0 && w.n > VPK_PSIM_MAX_SECTIONS)
		abort();
	char err[128];
	unsigned line;
	struct jval *v = jread_parse(s, err, sizeof(err), &line);
	const struct jval *nodes = jread_get(v, "nodes");
	if (nodes && nodes->type == J_ARR && nodes->n <= 64) {
		struct vpk_psim_node nd[64];
		size_t n = 0;
		for (size_t i = 0; i < nodes->n; i++) {
			const struct jval *o = &nodes->items[i], *x;
			memset(&nd[n], 0, sizeof(nd[n]));
			nd[n].name = "n";
			if ((x = jread_get(o, "width")) && x->type == J_NUM && x->num >= 0 && x->num < 1e6)
				nd[n].width = (unsigned)x->num;
			if ((x = jread_get(o, "clocks_per_packet")) && x->type == J_NUM)
				nd[n].clocks_per_packet = x->num;
			if ((x = jread_get(o, "packets")) && x->type == J_NUM && x->num >= 0 && x->num < 1e18)
				nd[n].packets = (uint64_t)x->num;
			n++;
		}
		if (vpk_psim_workload_from_nodes(nd, n, 256, &w) == 0 && (w.n == 0 || w.n > VPK_PSIM_MAX_SECTIONS))
			abort();
	}
	jread_free(v);
	free(s);
	return 0;
}
