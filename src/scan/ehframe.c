/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * .eh_frame reader: the function boundaries of stripped binaries.
 *
 * Every compiler-generated function on x86-64 has an FDE (unwind tables are
 * on by default), and strip keeps .eh_frame, so the FDEs give start and size
 * of functions that .dynsym does not name (research/power.md §2.6: on
 * Debian's librte_net_i40e.so, 38 functions from .dynsym, 816 more from the
 * FDEs). Format: LSB "Exception Frame" (.eh_frame) = DWARF CFI with the
 * augmentation string "zR"/"zPLR" and pointer encodings DW_EH_PE_*.
 *
 *   record: u32 length (0xffffffff: u64 length follows; 0: terminator)
 *           u32 id     (0: CIE; else FDE, = distance back to its CIE)
 *   CIE:    u8 version, augmentation string, [eh ptr], code align (uleb),
 *           data align (sleb), return register (u8 in v1, else uleb),
 *           'z': uleb length of augmentation data, then per letter
 *           L: u8 lsda enc | P: u8 enc + pointer | R: u8 FDE pointer enc
 *   FDE:    pc_begin (FDE encoding, may be pc-relative), pc_range (same
 *           format, never relative), ...
 *
 * Everything is bounds-checked: the input is untrusted (fuzz/scan_elf.c).
 */
#include <errno.h>
#include <string.h>

#include "scan/scan_int.h"

struct cursor {
	const uint8_t *base;    /* section start */
	size_t len;             /* section length */
	size_t pos;             /* current offset */
	size_t end;             /* end of the current record */
	uint64_t addr;          /* virtual address of base */
	bool bad;
};

static uint64_t
get_n(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || n > c->end - c->pos) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->base[c->pos + i] << (8 * i);
	c->pos += n;
	return v;
}

static uint64_t
get_uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b = (uint8_t)get_n(c, 1);

		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
		if (shift > 70) {
			c->bad = true;
			return 0;
		}
	}
}

static int64_t
get_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)get_n(c, 1);
		if (c->bad || shift > 70) {
			c->bad = true;
			return 0;
		}
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* Read a DW_EH_PE-encoded pointer; @apply: add pc-relative base (not for pc_range). */
static uint64_t
get_enc(struct cursor *c, uint8_t enc, bool apply)
{
	uint64_t field = c->addr + c->pos, v;

	if (enc == 0xff)        /* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = get_n(c, 8); break;                            /* absptr */
	case 0x01: v = get_uleb(c); break;
	case 0x02: v = get_n(c, 2); break;
	case 0x03: v = get_n(c, 4); break;
	case 0x04: v = get_n(c, 8); break;
	case 0x09: v = (uint64_t)get_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)get_n(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)get_n(c, 4); break;
	case 0x0c: v = get_n(c, 8); break;
	default:
		c->bad = true;
		return 0;
	}
	if (apply) {
		switch (enc & 0x70) {
		case 0x00: break;               /* absolute */
		case 0x10: v += field; break;   /* pcrel */
		default:                        /* textrel/datarel/funcrel: not used on x86-64 Linux */
			c->bad = true;
			return 0;
		}
	}
	return v;
}

/* Open the record at @off: sets c->pos after the length, c->end; returns false at the end. */
static bool
open_record(struct cursor *c, size_t off)
{
	uint64_t l;

	c->pos = off;
	c->end = c->len;
	l = get_n(c, 4);
	if (c->bad || l == 0)
		return false;
	if (l == 0xffffffffu)
		l = get_n(c, 8);
	if (c->bad || l > c->len - c->pos) {
		c->bad = true;
		return false;
	}
	c->end = c->pos + (size_t)l;
	return true;
}

/* Parse the CIE at @off; return its FDE pointer encoding or -1 if malformed. */
static int
cie_fde_encoding(const struct cursor *fc, size_t off)
{
	struct cursor c = *fc;
	char aug[16];
	size_t n = 0;
	uint8_t version, fde_enc = 0;   /* DW_EH_PE_absptr by default */

	c.bad = false;
	if (!open_record(&c, off) || get_n(&c, 4) != 0 || c.bad)
		return -1;
	version = (uint8_t)get_n(&c, 1);
	if (version != 1 && version != 3)
		return -1;
	for (;;) {
		uint8_t ch = (uint8_t)get_n(&c, 1);

		if (c.bad || n + 1 >= sizeof(aug))
			return -1;
		if (ch == 0)
			break;
		aug[n++] = (char)ch;
	}
	aug[n] = '\0';
	if (strstr(aug, "eh") != NULL)
		(void)get_n(&c, 8);
	(void)get_uleb(&c);
	(void)get_sleb(&c);
	if (version == 1)
		(void)get_n(&c, 1);
	else
		(void)get_uleb(&c);
	if (aug[0] == 'z') {
		size_t alen = (size_t)get_uleb(&c), aend;

		if (c.bad || alen > c.end - c.pos)
			return -1;
		aend = c.pos + alen;
		for (size_t i = 1; i < n && !c.bad; i++) {
			switch (aug[i]) {
			case 'L':
				(void)get_n(&c, 1);
				break;
			case 'P': {
				uint8_t penc = (uint8_t)get_n(&c, 1);

				(void)get_enc(&c, penc & 0x7f, false);
				break;
			}
			case 'R':
				fde_enc = (uint8_t)get_n(&c, 1);
				break;
			case 'S':
			case 'B':
			case 'G':
				break;
			default:        /* unknown letter: the data length lets us skip the rest */
				i = n;
				break;
			}
		}
		if (c.bad || c.pos > aend)
			return -1;
	}
	return c.bad ? -1 : fde_enc;
}

int
vpk_eh_frame_fdes(const uint8_t *data, size_t len, uint64_t addr,
		  void (*fn)(void *arg, const struct vpk_fde *fde), void *arg)
{
	struct cursor c = { .base = data, .len = len, .addr = addr };
	size_t off = 0;

	while (off < len) {
		size_t idpos;
		uint64_t id;

		if (!open_record(&c, off))
			return c.bad ? -EBADMSG : 0;
		idpos = c.pos;
		id = get_n(&c, 4);
		if (c.bad)
			return -EBADMSG;
		if (id != 0) {                  /* FDE */
			struct vpk_fde f;
			int enc;

			if (id > idpos)
				return -EBADMSG;
			enc = cie_fde_encoding(&c, idpos - (size_t)id);
			if (enc < 0)
				return -EBADMSG;
			f.start = get_enc(&c, (uint8_t)enc, true);
			f.size = get_enc(&c, (uint8_t)(enc & 0x0f), false);
			if (c.bad)
				return -EBADMSG;
			if (f.size != 0)
				fn(arg, &f);
		}
		off = c.end;
	}
	return 0;
}
