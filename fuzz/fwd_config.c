/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the forwarder's configuration parser: any text either applies or is
 * refused with a "NAME:LINE: reason" message; never a crash. (acl load
 * lines name files, which the fuzzer does not create: they fail cleanly.)
 */
// fuzz-iterations: 3000
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fwd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vpk_fwd_conf conf = { .n_bufs = 64, .max_routes = 64, .num_tbl8 = 64, .max_neighbors = 64 };
	struct vpk_fwd *f;
	char err[512];
	FILE *in;
	int rc;

	if (size == 0)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (in == NULL || vpk_fwd_create(&conf, &f) != 0)
		abort();
	err[0] = '\0';
	rc = vpk_fwd_exec_file(f, in, "fuzz.conf", err, sizeof(err));
	if (rc != 0 && strncmp(err, "fuzz.conf", 9) != 0) {
		fprintf(stderr, "fuzz: error without file name: %s\n", err);
		abort();
	}
	fclose(in);
	vpk_fwd_destroy(f);
	return 0;
}
