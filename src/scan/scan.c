/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scanner proper: read an x86-64 ELF file with libelf, build the list of
 * functions (research/power.md §2.6), sweep each one with the classifier
 * (classify.c) and sum up.
 *
 * Function boundaries, in order of preference for a given start address:
 *   1. .symtab STT_FUNC/STT_GNU_IFUNC symbols with a size,
 *   2. .dynsym (what strip leaves),
 *   3. the .symtab of /usr/lib/debug/.build-id/xx/yyyy.debug (names only
 *      for files whose debug package is installed),
 *   4. .eh_frame FDEs (every compiled function, stripped or not).
 * Each function is clipped at the next one's start, so every byte belongs
 * to at most one function. Executable bytes no function covers are swept as
 * gaps (hand-written assembly without CFI, PLT stubs); a gap is split at
 * size-0 symbols, which name it. Gaps made only of padding (nop, int3) are
 * counted in the totals but not listed.
 *
 * Workload: libc.so.6 (2 MB of text, ~3000 functions) scans in well under a
 * second; the decoder dominates.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan_int.h"

struct xsec {
	size_t idx;             /* ELF section index */
	const char *name;
	uint64_t addr, size;
	const uint8_t *bytes;   /* inside the image */
};

struct cand {
	uint64_t start, size;
	size_t sec;             /* index into xsec[] */
	enum vpk_scan_src src;
	char *name;             /* owned */
};

struct builder {
	const uint8_t *img;
	size_t len;
	bool rel;               /* ET_REL */
	struct xsec *xs;
	size_t nxs;
	struct cand *c;
	size_t nc, capc;
	struct cand *zero;      /* size-0 symbols (gap names) */
	size_t nz, capz;
	int err;
};

static const char *const strerr[] = {
	[ENOEXEC] = "not an ELF file",
	[ENOTSUP] = "not a 64-bit little-endian x86-64 ELF file",
	[EBADMSG] = "truncated or malformed ELF file",
	[ENOMEM] = "out of memory",
	[EINVAL] = "invalid argument",
};

const char *
vpk_scan_strerror(int err)
{
	int e = err < 0 ? -err : err;

	if (e > 0 && (size_t)e < sizeof(strerr) / sizeof(strerr[0]) && strerr[e] != NULL)
		return strerr[e];
	return strerror(e);
}

static int
push(struct cand **v, size_t *n, size_t *cap, const struct cand *x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct cand *p = realloc(*v, nc * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = *x;
	return 0;
}

/* Find the executable section holding [addr, addr+1); SIZE_MAX if none. */
static size_t
sec_of(const struct builder *b, uint64_t addr)
{
	for (size_t i = 0; i < b->nxs; i++)
		if (addr >= b->xs[i].addr && addr - b->xs[i].addr < b->xs[i].size)
			return i;
	return SIZE_MAX;
}

static size_t
sec_by_idx(const struct builder *b, size_t idx)
{
	for (size_t i = 0; i < b->nxs; i++)
		if (b->xs[i].idx == idx)
			return i;
	return SIZE_MAX;
}

static void
add_cand(struct builder *b, uint64_t start, uint64_t size, size_t sec, enum vpk_scan_src src,
	 const char *name, bool zero)
{
	struct cand x = { start, size, sec, src, NULL };
	char tmp[32];

	if (b->err != 0 || sec == SIZE_MAX)
		return;
	/* Untrusted values: the start must lie inside the section (ET_REL symbols are not checked by sec_by_idx). */
	if (start < b->xs[sec].addr || start - b->xs[sec].addr >= b->xs[sec].size)
		return;
	if (name == NULL || name[0] == '\0') {
		snprintf(tmp, sizeof(tmp), "%s_%" PRIx64, src == VPK_SCAN_SRC_GAP ? "gap" : "sub", start);
		name = tmp;
	}
	x.name = strdup(name);
	if (x.name == NULL || (zero ? push(&b->zero, &b->nz, &b->capz, &x) : push(&b->c, &b->nc, &b->capc, &x))) {
		free(x.name);
		b->err = -ENOMEM;
	}
}

static void
read_syms(struct builder *b, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, enum vpk_scan_src src)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;

	if (d == NULL || sh->sh_entsize != sizeof(Elf64_Sym)) {
		b->err = -EBADMSG;
		return;
	}
	n = d->d_size / sizeof(Elf64_Sym);
	for (size_t i = 1; i < n && b->err == 0; i++) {
		GElf_Sym s;
		const char *nm;
		int type;
		size_t sec;

		if (gelf_getsym(d, (int)i, &s) == NULL)
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !(type == STT_NOTYPE && s.st_size == 0))
			continue;
		nm = elf_strptr(e, sh->sh_link, s.st_name);
		if (b->rel) {
			sec = sec_by_idx(b, s.st_shndx);
			if (sec != SIZE_MAX)
				s.st_value += b->xs[sec].addr;
		} else {
			sec = sec_of(b, s.st_value);
		}
		if (s.st_size == 0) {
			if (nm != NULL && nm[0] != '\0' && nm[0] != '$' && strncmp(nm, ".L", 2) != 0)
				add_cand(b, s.st_value, 0, sec, VPK_SCAN_SRC_GAP, nm, true);
		} else {
			add_cand(b, s.st_value, s.st_size, sec, src, nm, false);
		}
	}
}

static void
fde_cb(void *arg, const struct vpk_fde *f)
{
	struct builder *b = arg;

	add_cand(b, f->start, f->size, sec_of(b, f->start), VPK_SCAN_SRC_EH_FRAME, NULL, false);
}

static int
cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *c = pb;

	if (a->sec != c->sec)
		return a->sec < c->sec ? -1 : 1;
	if (a->start != c->start)
		return a->start < c->start ? -1 : 1;
	if (a->src != c->src)
		return a->src < c->src ? -1 : 1;
	return strcmp(a->name, c->name);
}

static char *
dup_or_null(const char *s, int *err)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		*err = -ENOMEM;
	return d;
}

static int load_image(const char *path, uint8_t **img, size_t *len);

/* Names from the build-id debug file (/usr/lib/debug/.build-id/xx/rest.debug). */
static void
read_debug_file(struct builder *b, const uint8_t *id, size_t idlen, struct vpk_scan_report *r)
{
	char path[256];
	int n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	uint8_t *img = NULL;
	size_t len = 0;
	Elf *e;
	Elf_Scn *scn = NULL;

	for (size_t i = 1; i < idlen && n > 0 && (size_t)n + 8 < sizeof(path); i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	if (access(path, R_OK) != 0 || load_image(path, &img, &len) != 0)
		return;
	e = elf_memory((char *)img, len);
	if (e != NULL && elf_kind(e) == ELF_K_ELF) {
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB) {
				read_syms(b, e, scn, &sh, VPK_SCAN_SRC_DEBUG);
				if (b->err == -EBADMSG)
					b->err = 0;     /* a broken debug file only costs names */
				r->debug_file = dup_or_null(path, &b->err);
				break;
			}
		}
	}
	if (e != NULL)
		elf_end(e);
	free(img);
}

static void
read_build_id(struct builder *b, Elf_Scn *scn, struct vpk_scan_report *r)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d != NULL && (noff = gelf_getnote(d, off, &nh, &off, &doff)) != 0) {
		(void)noff;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz >= 2 && nh.n_descsz <= 64 &&
		    doff + nh.n_descsz <= d->d_size) {
			read_debug_file(b, (const uint8_t *)d->d_buf + doff, nh.n_descsz, r);
			return;
		}
	}
}

static void
read_dynamic(struct builder *b, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct vpk_scan_report *r)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, k = 0;

	if (d == NULL || sh->sh_entsize != sizeof(Elf64_Dyn))
		return;
	n = d->d_size / sizeof(Elf64_Dyn);
	r->needed = calloc(n + 1, sizeof(*r->needed));
	if (r->needed == NULL) {
		b->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *s;

		if (gelf_getdyn(d, (int)i, &dyn) == NULL || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
			continue;
		s = elf_strptr(e, sh->sh_link, dyn.d_un.d_val);
		if (s == NULL)
			continue;
		if (dyn.d_tag == DT_NEEDED)
			r->needed[k++] = dup_or_null(s, &b->err);
		else if (dyn.d_tag == DT_RUNPATH && r->runpath == NULL)
			r->runpath = dup_or_null(s, &b->err);
		else if (dyn.d_tag == DT_RPATH && r->rpath == NULL)
			r->rpath = dup_or_null(s, &b->err);
	}
	r->nneeded = k;
}

/* Sweep one candidate into a report entry. */
static int
emit(struct builder *b, const struct vpk_scan_decoder *dec, struct vpk_scan_report *r,
     struct cand *x, bool gap)
{
	const struct xsec *s = &b->xs[x->sec];
	struct vpk_scan_func *f;
	struct vpk_scan_counts c = { 0 };
	size_t real = vpk_scan_sweep(dec, s->bytes + (x->start - s->addr), (size_t)x->size, &c);

	vpk_scan_counts_add(&r->total, &c);
	if (gap && real == 0) {         /* alignment padding */
		free(x->name);
		x->name = NULL;
		return 0;
	}
	f = &r->funcs[r->nfuncs++];
	f->name = x->name;
	x->name = NULL;
	f->addr = x->start;
	f->size = x->size;
	f->section = s->name;
	f->src = x->src;
	f->c = c;
	r->nsrc[x->src]++;
	return 0;
}

/* Gaps in [lo, hi) of section @sec, split at size-0 symbols (zero[] sorted). */
static int
emit_gaps(struct builder *b, const struct vpk_scan_decoder *dec, struct vpk_scan_report *r,
	  size_t sec, uint64_t lo, uint64_t hi, size_t *zi)
{
	while (lo < hi) {
		struct cand g = { lo, hi - lo, sec, VPK_SCAN_SRC_GAP, NULL };
		const char *nm = NULL;
		char tmp[32];

		while (*zi < b->nz && (b->zero[*zi].sec < sec || (b->zero[*zi].sec == sec && b->zero[*zi].start < lo)))
			(*zi)++;
		if (*zi < b->nz && b->zero[*zi].sec == sec && b->zero[*zi].start == lo) {
			nm = b->zero[*zi].name;
			(*zi)++;
		}
		while (*zi < b->nz && b->zero[*zi].sec == sec && b->zero[*zi].start == lo)
			(*zi)++;        /* aliases at the same address */
		if (*zi < b->nz && b->zero[*zi].sec == sec && b->zero[*zi].start < hi)
			g.size = b->zero[*zi].start - lo;
		if (nm == NULL) {
			snprintf(tmp, sizeof(tmp), "gap_%" PRIx64, lo);
			nm = tmp;
		}
		g.name = strdup(nm);
		if (g.name == NULL)
			return -ENOMEM;
		emit(b, dec, r, &g, true);
		free(g.name);
		lo += g.size;
	}
	return 0;
}

static int
build(struct builder *b, Elf *e, unsigned flags, bool from_file, struct vpk_scan_report *r)
{
	struct vpk_scan_decoder dec;
	size_t shnum, shstr, zi = 0, maxf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (gelf_getehdr(e, &eh) == NULL)
		return -EBADMSG;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64 || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL))
		return -ENOTSUP;
	b->rel = r->is_rel = eh.e_type == ET_REL;
	if (elf_getshdrnum(e, &shnum) != 0 || elf_getshdrstrndx(e, &shstr) != 0)
		return -EBADMSG;
	/* libelf quietly reports 0 sections when the table does not fit: check e_shnum ourselves. */
	if (eh.e_shnum != 0)
		shnum = eh.e_shnum;
	else if (eh.e_shoff != 0 && shnum == 0)
		return -EBADMSG;        /* extended numbering whose section 0 is unreadable */
	if (eh.e_shoff > b->len || shnum > (b->len - eh.e_shoff) / sizeof(Elf64_Shdr) ||
	    (eh.e_shoff == 0 && shnum != 0))
		return -EBADMSG;
	b->xs = calloc(shnum + 1, sizeof(*b->xs));
	if (b->xs == NULL)
		return -ENOMEM;
	/* Pass 1: executable sections (in ET_REL, give each a distinct base address). */
	uint64_t relbase = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) == NULL)
			return -EBADMSG;
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > b->len || sh.sh_size > b->len - sh.sh_offset))
			return -EBADMSG;
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
			continue;
		if (sh.sh_addr + sh.sh_size < sh.sh_addr)
			return -EBADMSG;        /* wraps around the address space */
		nm = elf_strptr(e, shstr, sh.sh_name);
		b->xs[b->nxs] = (struct xsec){ elf_ndxscn(scn), nm ? nm : "?", b->rel ? relbase : sh.sh_addr,
					       sh.sh_size, b->img + sh.sh_offset };
		if (b->rel)
			relbase += (sh.sh_size + 15) & ~(uint64_t)15;
		b->nxs++;
	}
	/* Section names point into the image: the report keeps its own copy. */
	size_t total = 1;
	for (size_t k = 0; k < b->nxs; k++)
		total += strlen(b->xs[k].name) + 1;
	char *p = r->priv = malloc(total);
	if (p == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < b->nxs; k++) {
		size_t l = strlen(b->xs[k].name) + 1;

		memcpy(p, b->xs[k].name, l);
		b->xs[k].name = p;
		p += l;
	}
	/* Pass 2: symbols, dynamic section, build id, FDEs. */
	scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL && b->err == 0) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) == NULL)
			return -EBADMSG;
		nm = elf_strptr(e, shstr, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			read_syms(b, e, scn, &sh, VPK_SCAN_SRC_SYMTAB);
		else if (sh.sh_type == SHT_DYNSYM)
			read_syms(b, e, scn, &sh, VPK_SCAN_SRC_DYNSYM);
		else if (sh.sh_type == SHT_DYNAMIC && r->needed == NULL)
			read_dynamic(b, e, scn, &sh, r);
		else if (sh.sh_type == SHT_NOTE && from_file && !(flags & VPK_SCAN_NO_DEBUGFILE) && r->debug_file == NULL)
			read_build_id(b, scn, r);
		else if (!b->rel && !(flags & VPK_SCAN_NO_EH_FRAME) && nm != NULL && strcmp(nm, ".eh_frame") == 0 &&
			 (sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND)) {
			if (vpk_eh_frame_fdes(b->img + sh.sh_offset, sh.sh_size, sh.sh_addr, fde_cb, b) != 0 &&
			    b->err == 0)
				b->err = -EBADMSG;
		}
	}
	if (b->err != 0)
		return b->err;

	/* One entry per start address (best source first), clipped at the next start and the section end. */
	if (b->nc > 1)
		qsort(b->c, b->nc, sizeof(*b->c), cmp_cand);
	if (b->nz > 1)
		qsort(b->zero, b->nz, sizeof(*b->zero), cmp_cand);
	maxf = 2 * b->nc + 2 * b->nz + 2 * b->nxs + 1;  /* functions + gaps between them */
	r->funcs = calloc(maxf, sizeof(*r->funcs));
	if (r->funcs == NULL)
		return -ENOMEM;
	vpk_scan_decoder_init(&dec);
	for (size_t si = 0; si < b->nxs; si++) {
		const struct xsec *s = &b->xs[si];
		uint64_t pos = s->addr, end = s->addr + s->size;

		for (size_t i = 0; i < b->nc; i++) {
			struct cand *x = &b->c[i];

			if (x->sec != si || x->name == NULL)
				continue;
			if (x->start < pos) {   /* same start as the one kept, or inside it */
				continue;
			}
			if (x->start > pos && emit_gaps(b, &dec, r, si, pos, x->start, &zi) != 0)
				return -ENOMEM;
			if (x->size > end - x->start)
				x->size = end - x->start;
			for (size_t j = i + 1; j < b->nc && b->c[j].sec == si; j++)
				if (b->c[j].start > x->start) {
					if (b->c[j].start - x->start < x->size)
						x->size = b->c[j].start - x->start;
					break;
				}
			emit(b, &dec, r, x, false);
			pos = x->start + x->size;
		}
		if (pos < end && emit_gaps(b, &dec, r, si, pos, end, &zi) != 0)
			return -ENOMEM;
	}
	return 0;
}

static int
load_image(const char *path, uint8_t **img, size_t *len)
{
	struct stat st;
	uint8_t *p;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;

		close(fd);
		return e;
	}
	p = malloc((size_t)st.st_size + 1);
	if (p == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -EIO;

			free(p);
			close(fd);
			return e;
		}
		got += (size_t)n;
	}
	close(fd);
	*img = p;
	*len = got;
	return 0;
}

void
vpk_scan_report_destroy(struct vpk_scan_report *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nfuncs; i++)
		free((char *)r->funcs[i].name);
	for (size_t i = 0; i < r->nneeded; i++)
		free((char *)r->needed[i]);
	free(r->needed);
	free(r->funcs);
	free((char *)r->runpath);
	free((char *)r->rpath);
	free((char *)r->debug_file);
	free((char *)r->path);
	free(r->priv);
	free(r);
}

/* Scan the image; takes ownership of @img. */
static int
scan_image(uint8_t *img, size_t len, const char *name, unsigned flags, bool from_file,
	   struct vpk_scan_report **out)
{
	struct builder b = { .img = img, .len = len };
	struct vpk_scan_report *r;
	Elf *e = NULL;
	int rc;

	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0) {
		free(img);
		return -ENOEXEC;
	}
	if (len < sizeof(Elf64_Ehdr)) {
		free(img);
		return -EBADMSG;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->path = strdup(name)) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	if (e == NULL || elf_kind(e) != ELF_K_ELF) {
		rc = -EBADMSG;
		goto out;
	}
	rc = build(&b, e, flags, from_file, r);
out:
	for (size_t i = 0; i < b.nc; i++)
		free(b.c[i].name);
	for (size_t i = 0; i < b.nz; i++)
		free(b.zero[i].name);
	free(b.c);
	free(b.zero);
	free(b.xs);
	if (e != NULL)
		elf_end(e);
	free(img);
	if (rc != 0) {
		vpk_scan_report_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}

int
vpk_scan_file(const char *path, unsigned flags, struct vpk_scan_report **out)
{
	uint8_t *img;
	size_t len;
	int rc;

	if (path == NULL || out == NULL || (flags & ~VPK_SCAN_F_ALL))
		return -EINVAL;
	rc = load_image(path, &img, &len);
	if (rc != 0)
		return rc;
	return scan_image(img, len, path, flags, true, out);
}

int
vpk_scan_mem(const void *buf, size_t len, const char *name, unsigned flags, struct vpk_scan_report **out)
{
	uint8_t *img;

	if ((buf == NULL && len != 0) || name == NULL || out == NULL || (flags & ~VPK_SCAN_F_ALL))
		return -EINVAL;
	img = malloc(len + 1);
	if (img == NULL)
		return -ENOMEM;
	if (len != 0)
		memcpy(img, buf, len);
	return scan_image(img, len, name, flags, false, out);
}
