/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_POWERSIM_H
#define VPK_POWERSIM_H

/**
 * @file
 * powersim: a discrete-event model of per-core frequency licences, to decide
 * whether confining wide-vector (AVX-512) code to a few "wide" cores pays.
 *
 * The model (docs/corespec.md has the sources of every parameter):
 *
 *  - Each core holds a licence level 0, 1 or 2 and runs at the frequency of
 *    that level (ghz[]). Code of a class (scalar, 256-bit light/heavy,
 *    512-bit light/heavy) needs a level given by the CPU model (level_of[]).
 *  - Code needing a higher level than the core holds makes the core request
 *    it: for volt_ns the core keeps running at its old frequency but at
 *    `throttle` times its dispatch rate (every instruction, scalar ones too),
 *    then it halts for halt_ns, then runs at the new level's frequency.
 *  - A level is kept for hyst_ns after the last instruction that needed it
 *    retired (the hysteresis). Then the core halts halt_ns and drops to the
 *    highest level still needed within its own hysteresis (or 0).
 *  - Work is given in core cycles: a section of C cycles takes C / f ns at
 *    f GHz (compute-bound; memory stalls are not modelled).
 *
 * A workload is a request: a sequence of sections (class, cycles). Requests
 * run closed-loop (as many as the cores take: the throughput at saturation)
 * or arrive at a fixed rate. Without specialization each core runs its
 * requests to completion. With wide cores, every section whose class is at
 * least conf.confine runs only on a wide core: each move of a request between
 * a scalar and a wide core (a "hop": a hand-off or a migration) costs
 * switch_ns / 2 of CPU time on the core it leaves, so a round trip costs
 * switch_ns. With conf.sync the scalar core also waits (polling) until the
 * request comes back, as a vpk_wide_call() caller does. Wide cores take wide work first and, unless conf.dedicated,
 * scalar work when no wide work waits (the KIT prototype's policy).
 *
 * Loss: the share of core time not spent doing work at the L0 frequency.
 * Closed loop: 1 - (work cycles / f0) / (cores x time), i.e. 1 - throughput /
 * ideal throughput. Open loop: the same over busy (non-idle) core time.
 *
 * The library never prints. All functions are thread-safe (no global state).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Code classes: register width and heavy (FP/FMA/integer multiply) or light. */
enum vpk_psim_class {
	VPK_PSIM_SCALAR = 0,    /**< Scalar and 128-bit code. */
	VPK_PSIM_256_LIGHT,     /**< 256-bit integer/shuffle code. */
	VPK_PSIM_256_HEAVY,     /**< 256-bit FP, FMA or integer multiply. */
	VPK_PSIM_512_LIGHT,     /**< 512-bit light code (most packet kernels). */
	VPK_PSIM_512_HEAVY,     /**< 512-bit heavy code. */
	VPK_PSIM_N_CLASSES
};

#define VPK_PSIM_LEVELS 3

/** A CPU model: licence frequencies and transition timing. */
struct vpk_psim_cpu {
	const char *name;               /**< Short name for --cpu ("skx-6130"). */
	const char *desc;               /**< One line: part and what the figures are. */
	const char *source;             /**< Where the figures come from. */
	double ghz[VPK_PSIM_LEVELS];    /**< Frequency at licence level 0, 1, 2 (GHz). */
	uint8_t level_of[VPK_PSIM_N_CLASSES]; /**< Level each code class needs. */
	double volt_ns;                 /**< Throttled wait before a higher level is granted. */
	double throttle;                /**< Dispatch-rate factor while waiting (0 < x <= 1). */
	double halt_ns;                 /**< Core halted per frequency change (both ways). */
	double hyst_ns;                 /**< Time after the last use of a level before it is dropped. */
};

/** The i-th built-in CPU model, or NULL past the end. */
const struct vpk_psim_cpu *vpk_psim_cpu_at(size_t i);
/** The built-in CPU model called @p name, or NULL. */
const struct vpk_psim_cpu *vpk_psim_cpu_find(const char *name);
/** Short name of a class ("scalar", "256l", "256h", "512l", "512h"), or NULL. */
const char *vpk_psim_class_name(enum vpk_psim_class c);

/** One section of a request. */
struct vpk_psim_section {
	uint8_t cls;                    /**< enum vpk_psim_class. */
	uint64_t cycles;                /**< Work in core cycles (> 0). */
};

#define VPK_PSIM_MAX_SECTIONS 64

/** A workload: one request's sections, run in order, and the arrival rate. */
struct vpk_psim_workload {
	size_t n;                       /**< Number of sections (1..VPK_PSIM_MAX_SECTIONS). */
	struct vpk_psim_section sec[VPK_PSIM_MAX_SECTIONS];
	double rate;                    /**< Requests per second over all cores (<= 1e9); 0 = closed loop. */
};

/**
 * Parse a request "CLASS:AMOUNT,CLASS:AMOUNT,..." into @p w (w->rate is left
 * alone). CLASS is a class name; AMOUNT is cycles with an optional k, M or G
 * multiplier ("22.4k"), or a time at the L0 frequency of @p cpu with a unit
 * ns, us or ms ("2.2ms"). On error *err_at (if not NULL) is the byte offset
 * of the bad item.
 * @return 0; -EINVAL on a bad class, amount, separator or an empty list;
 *         -E2BIG for more than VPK_PSIM_MAX_SECTIONS sections.
 */
int vpk_psim_parse_request(const char *s, const struct vpk_psim_cpu *cpu,
				   struct vpk_psim_workload *w, size_t *err_at);

/** Simulation settings. Zero-initialise, then set cpu, cores and what you need. */
struct vpk_psim_conf {
	struct vpk_psim_cpu cpu;        /**< The CPU model (a copy: tweak it freely). */
	unsigned cores;                 /**< Cores in all (1..VPK_PSIM_MAX_CORES). */
	unsigned wide_cores;            /**< Of those, wide cores (0 = no specialization; < cores). */
	uint8_t confine;                /**< Lowest class confined to wide cores (0 = 512_LIGHT). */
	bool dedicated;                 /**< Wide cores run wide sections only. */
	bool sync;                      /**< Synchronous hand-off (vpk_wide_call): the scalar core
					     polls until its request comes back and runs nothing else
					     meanwhile. Implies dedicated. */
	double switch_ns;               /**< CPU time per round trip scalar -> wide -> scalar core. */
	double duration_ns;             /**< Measured simulated time (0 = 200 ms). */
	double warmup_ns;               /**< Simulated before measuring (0 = 5 x hyst_ns, >= 1 ms). */
	unsigned tasks;                 /**< Closed loop: requests in flight (0 = 4 x cores). */
};

#define VPK_PSIM_MAX_CORES 1024
#define VPK_PSIM_MAX_TASKS 65536

/** Per-core accounting over the measured window (times in ns). */
struct vpk_psim_core_stats {
	bool wide;                      /**< A wide core. */
	double run_ns[VPK_PSIM_LEVELS]; /**< Running at full dispatch rate, per level. */
	double throttle_ns;             /**< Running throttled while a higher level is pending. */
	double halt_ns;                 /**< Halted for frequency changes (while busy). */
	double switch_ns;               /**< Spent on hops (hand-off / migration cost). */
	double idle_ns;                 /**< Nothing to run. */
	double scalar_ns;               /**< Time in sections that need level 0. */
	double scalar_slowed_ns;        /**< Of that, time at a level > 0, throttled or halted. */
	double work_cycles;             /**< Cycles of section work done. */
	double avg_ghz;                 /**< Mean frequency while running (throttled time included). */
	uint64_t ups, downs;            /**< Frequency changes up to a higher level and back down. */
	uint64_t hops;                  /**< Hops started on this core. */
};

/** Results over the measured window. */
struct vpk_psim_result {
	double window_ns;               /**< Measured simulated time. */
	double throughput;              /**< Requests per second (work done / cycles per request). */
	double ideal_throughput;        /**< Closed loop: cores x f0 / cycles per request; open: rate. */
	double loss;                    /**< See the file comment; 0..1. */
	double utilisation;             /**< Busy share of all core time. */
	double avg_ghz;                 /**< Mean frequency over all cores' running time. */
	double scalar_slowed_share;     /**< Share of level-0 section time slowed by a licence. */
	double hops_per_s;              /**< Hops per second, all cores. */
	uint64_t dropped;               /**< Open loop: arrivals refused (more than the task limit in flight). */
};

/**
 * Run the model. @p per_core (may be NULL) receives conf->cores entries,
 * scalar cores first, then the wide ones.
 * @return 0; -EINVAL on a bad configuration (no cores, wide_cores >= cores,
 *         an empty or malformed workload, a class out of range, a rate
 *         above 1e9, ghz <= 0,
 *         throttle not in (0,1], negative times, too many tasks); -ENOMEM.
 */
int vpk_psim_run(const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w,
			 struct vpk_psim_result *res, struct vpk_psim_core_stats *per_core);

/* ---- built-in scenarios ---- */

/** A named scenario: CPU, cores, wide cores, switch cost and request. */
struct vpk_psim_scenario {
	const char *name;
	const char *desc;
	struct vpk_psim_conf conf;      /**< With wide cores; run with wide_cores = 0 for "without". */
	struct vpk_psim_workload work;
};

/**
 * Fill @p out with the built-in scenario @p name ("nginx-openssl-avx512").
 * @return 0, or -ENOENT for an unknown name.
 */
int vpk_psim_scenario_get(const char *name, struct vpk_psim_scenario *out);
/** Name of the i-th built-in scenario, or NULL past the end. */
const char *vpk_psim_scenario_name(size_t i);

/* ---- from a forwarder's runtime statistics ---- */

/** One graph node as `vpk fwd --show-runtime --json` reports it. */
struct vpk_psim_node {
	const char *name;
	unsigned width;                 /**< Active variant's register width in bits (64..512). */
	bool heavy;                     /**< Heavy code (FP/FMA/multiply); packet nodes are light. */
	double clocks_per_packet;       /**< Clocks per packet (measured at L0). */
	uint64_t packets;               /**< Packets the node handled. */
};

/**
 * Build the request of one frame of @p frame packets through the nodes, in
 * order: node i contributes clocks_per_packet x frame x packets_i /
 * max(packets) cycles, of class scalar (width <= 128), 256l/h or 512l/h.
 * Consecutive nodes of the same class are merged. Nodes with no packets are
 * skipped.
 * @return 0; -EINVAL (no nodes, a width not in 64/128/256/512, a negative
 *         clocks figure, a node over 1e15 cycles per frame, frame 0, or no
 *         node with packets); -E2BIG (more
 *         than VPK_PSIM_MAX_SECTIONS sections after merging).
 */
int vpk_psim_workload_from_nodes(const struct vpk_psim_node *nodes, size_t n,
					 unsigned frame, struct vpk_psim_workload *w);

#ifdef __cplusplus
}
#endif

#endif /* VPK_POWERSIM_H */
