// SPDX-License-Identifier: BSD-3-Clause
// A C++ program on libvpk: the umbrella header compiles as C++ and the
// library links without wrappers (every header declares extern "C").
// Built against the installed library by tests/install/test_install.sh.
#include <cstdio>
#include <cstring>
#include <vpk/vpk.h>

int main()
{
	vpk_fib_conf conf{};
	vpk_fib *fib = nullptr;

	conf.nh_size = 4;
	conf.num_tbl8 = 64;
	conf.max_routes = 16;
	conf.isa = VPK_ISA_AUTO;
	if (std::strcmp(vpk_version(), VPK_VERSION) != 0 || vpk_version_num() != VPK_VERSION_NUM)
		return 1;
	if (vpk_fib_create(&conf, &fib) != 0)
		return 1;
	const uint32_t ips[2] = { 0x0a010203, 0x0b000001 };
	uint64_t nhs[2] = { 0, 0 };
	int rc = vpk_fib_add(fib, 0x0a000000, 8, 7);
	if (rc == 0)
		vpk_fib_lookup_bulk(fib, ips, nhs, 2);
	std::printf("vpk %s, FIB variant %s: 10.1.2.3 -> %llu, 11.0.0.1 -> %llu\n", vpk_version(),
		    vpk_fib_impl_name(fib), (unsigned long long)nhs[0], (unsigned long long)nhs[1]);
	vpk_fib_destroy(fib);
	return rc == 0 && nhs[0] == 7 && nhs[1] == 0 ? 0 : 1;
}
