/* SPDX-License-Identifier: BSD-3-Clause */
/* The ports' counters per queue in the forwarder's JSON (vpk_fwd_queue_stats()). */
#include "fwd/fwd_show.h"

void
fwd_json_queues(struct json *j, const struct vpk_fwd *f, size_t i)
{
	struct vpk_fwd_queue_stats q;
	uint64_t rx_drop = 0, tx_drop = 0;

	if (vpk_fwd_n_queues(f, i) == 0)
		return;
	for (unsigned k = 0; vpk_fwd_queue_stats(f, i, k, &q) == 0; k++) {
		rx_drop += q.io.rx_drop;
		tx_drop += q.io.tx_drop;
	}
	json_u64(j, "rx_drop", rx_drop);
	json_u64(j, "tx_drop", tx_drop);
	json_arr(j, "queues");
	for (unsigned k = 0; vpk_fwd_queue_stats(f, i, k, &q) == 0; k++) {
		json_obj(j, NULL);
		json_u64(j, "queue", q.queue);
		json_str(j, "backend", q.backend);
		json_str(j, "mode", q.mode);
		json_u64(j, "rx", q.io.rx);
		json_u64(j, "tx", q.io.tx);
		json_u64(j, "rx_drop", q.io.rx_drop);
		json_u64(j, "tx_drop", q.io.tx_drop);
		json_u64(j, "bufs_held", q.io.bufs_held);
		json_end(j);
	}
	json_end(j);
}
