/* The README's example: check the IPv4 header checksums of a batch of
 * packets with the best variant this machine allows, and say which one ran.
 * Built against the installed libvpk by tests/install (pkg-config). */
#include <stdio.h>
#include <vpk/isa.h>
#include <vpk/pkt.h>

int
main(void)
{
	uint8_t good[20] = { 0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0xb8, 0x61,
			     0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7 };
	uint8_t bad[20] = { 0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x3f, 0x11, 0xb8, 0x61,
			    0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7 };  /* TTL changed */
	const uint8_t *hdrs[2] = { good, bad };
	uint8_t ok[2];
	vpk_ip4_csum_check_fn check;
	const struct vpk_impl *impl;

	if (vpk_ip4_csum_check_get(VPK_ISA_AUTO, &check, &impl) != 0)
		return 1;
	check(hdrs, ok, 2);
	printf("variant %s (cap %u bits): good=%u bad=%u\n", impl->name,
	       vpk_get_max_simd_bitwidth(), ok[0], ok[1]);
	return ok[0] == 1 && ok[1] == 0 ? 0 : 1;
}
