/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk info: what this machine can run, what the cap is and why, and which
 * variant every registered kernel would use under the current cap (and the
 * forced --isa, if given), with the reason each better variant was passed over.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "common/tool.h"

static int cmd_info(int argc, char **argv);
VPK_CMD(info, "info", "CPU, ISA levels (CPU and OS), compiled variants, the cap and each kernel's variant", cmd_info);
/* cmd_info_tune.c: `vpk info --tune`. */
int vpk_info_tune(int argc, char **argv);

static const char *
cap_source_name(enum vpk_cap_source s)
{
	switch (s) {
	case VPK_CAP_ENV:
		return "environment (VPK_MAX_SIMD_BITWIDTH)";
	case VPK_CAP_API:
		return "command line (--max-simd-bitwidth)";
	default:
		return "default";
	}
}

static int
info_json(const struct vpk_cap_info *ci)
{
	struct json j;
	size_t nk;
	const struct vpk_kernel *k = vpk_kernels(&nk);

	json_init(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "cpu", vpk_cpu_model());
	json_u64(&j, "xcr0", vpk_cpu_xcr0());
	json_str(&j, "detected", vpk_isa_name(vpk_isa_detected()));
	json_arr(&j, "levels");
	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		json_obj(&j, NULL);
		json_str(&j, "name", vpk_isa_name((enum vpk_isa)l));
		json_u64(&j, "bits", vpk_isa_bits((enum vpk_isa)l));
		json_bool(&j, "cpu", vpk_isa_cpu_supported((enum vpk_isa)l));
		json_bool(&j, "os", vpk_isa_os_supported((enum vpk_isa)l));
		json_bool(&j, "compiled", vpk_isa_compiled((enum vpk_isa)l));
		json_bool(&j, "usable", vpk_isa_usable((enum vpk_isa)l));
		json_end(&j);
	}
	json_end(&j);
	json_obj(&j, "features");
	for (size_t i = 0; i < vpk_cpu_feature_count(); i++) {
		const char *name;
		bool present;

		vpk_cpu_feature(i, &name, NULL, &present);
		json_bool(&j, name, present);
	}
	json_end(&j);
	json_obj(&j, "cap");
	json_u64(&j, "bits", ci->bits);
	json_str(&j, "source", ci->source == VPK_CAP_ENV ? "env" : ci->source == VPK_CAP_API ? "cli" : "default");
	json_u64(&j, "default", ci->default_bits);
	json_str(&j, "default_reason", ci->default_reason);
	json_end(&j);
	json_str(&j, "forced_isa", vpk_opts.isa == VPK_ISA_AUTO ? NULL : vpk_isa_name(vpk_opts.isa));
	json_arr(&j, "kernels");
	for (size_t i = 0; i < nk; i++) {
		const struct vpk_impl *chosen = NULL;
		int rc = vpk_impl_pick(k[i].impls, vpk_opts.isa, &chosen);

		json_obj(&j, NULL);
		json_str(&j, "name", k[i].name);
		json_str(&j, "what", k[i].what);
		json_str(&j, "chosen", rc == 0 ? chosen->name : NULL);
		json_arr(&j, "variants");
		for (const struct vpk_impl *const *v = k[i].impls; *v != NULL; v++) {
			const char *why = vpk_impl_why_not(*v);

			json_obj(&j, NULL);
			json_str(&j, "name", (*v)->name);
			json_str(&j, "isa", vpk_isa_name((*v)->isa));
			json_u64(&j, "width", (*v)->width);
			json_bool(&j, "usable", why == NULL);
			json_str(&j, "why_not", why);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	json_done(&j);
	return VPK_EXIT_OK;
}

static void
print_variants(const struct vpk_kernel *k, const struct vpk_impl *chosen)
{
	bool first = true;

	/* Best first; the chosen one marked with '*', the rest with why not. */
	for (const struct vpk_impl *const *v = k->impls; *v != NULL; v++) {
		const char *why = vpk_impl_why_not(*v);

		printf("%s%s%s", first ? "" : ", ", *v == chosen ? "*" : "", (*v)->name);
		if (why != NULL)
			printf(" (%s)", why);
		else if (*v != chosen && chosen != NULL && vpk_opts.isa != VPK_ISA_AUTO &&
			 (*v)->isa != vpk_opts.isa)
			printf(" (not --isa)");
		first = false;
	}
}

static int
cmd_info(int argc, char **argv)
{
	struct vpk_cap_info ci;
	size_t nk;
	const struct vpk_kernel *k;
	int failed = 0;

	if (argc > 1 && strcmp(argv[1], "--tune") == 0)
		return vpk_info_tune(argc - 1, argv + 1);
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: vpk [--json] info [--tune [--runs N]]\n"
		       "  --tune  measure every usable variant of the kernels with a runner on this CPU and\n"
		       "          report where a narrower variant beats the default (the widest usable)\n");
		return VPK_EXIT_OK;
	}
	if (argc > 1)
		return vpk_fail(VPK_EXIT_USAGE, "info: unexpected argument '%s' (options: --tune)", argv[1]);
	vpk_get_cap_info(&ci);
	if (vpk_opts.json)
		return info_json(&ci);

	printf("CPU:       %s\n", vpk_cpu_model());
	printf("XCR0:      0x%llx (OS-enabled register state)\n", (unsigned long long)vpk_cpu_xcr0());
	printf("\nISA level  bits  CPU  OS   compiled  usable under cap %u\n", ci.bits);
	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		enum vpk_isa isa = (enum vpk_isa)l;

		printf("%-10s %4u  %-4s %-4s %-9s %s\n", vpk_isa_name(isa), vpk_isa_bits(isa),
		       vpk_isa_cpu_supported(isa) ? "yes" : "no", vpk_isa_os_supported(isa) ? "yes" : "no",
		       vpk_isa_compiled(isa) ? "yes" : "no", vpk_isa_usable(isa) ? "yes" : "no");
	}
	printf("\nCPU features:");
	for (size_t i = 0, col = 0; i < vpk_cpu_feature_count(); i++) {
		const char *name;
		bool present;

		vpk_cpu_feature(i, &name, NULL, &present);
		printf("%s%s%s", col++ % 8 == 0 ? "\n  " : " ", present ? "+" : "-", name);
	}
	printf("\n\nCap:       %u bits, from the %s\n", ci.bits, cap_source_name(ci.source));
	printf("Default:   %u bits: %s\n", ci.default_bits, ci.default_reason);
	if (vpk_opts.isa != VPK_ISA_AUTO)
		printf("Forced:    --isa=%s\n", vpk_isa_name(vpk_opts.isa));

	k = vpk_kernels(&nk);
	printf("\n%-24s %-10s %s\n", "kernel", "runs", "variants, best first (* = chosen; why others are not)");
	for (size_t i = 0; i < nk; i++) {
		const struct vpk_impl *chosen = NULL;
		int rc = vpk_impl_pick(k[i].impls, vpk_opts.isa, &chosen);

		printf("%-24s %-10s ", k[i].name, rc == 0 ? chosen->name : "-ENOTSUP");
		print_variants(&k[i], rc == 0 ? chosen : NULL);
		printf("\n");
		if (rc != 0)
			failed++;
	}
	if (nk == 0)
		printf("(no kernels registered)\n");
	if (failed > 0 && vpk_opts.isa != VPK_ISA_AUTO)
		fprintf(stderr, "vpk: info: %d kernel(s) have no %s variant usable under cap %u\n",
			failed, vpk_isa_name(vpk_opts.isa), ci.bits);
	return VPK_EXIT_OK;
}
