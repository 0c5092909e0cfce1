/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vpk scan --deps`: find a DT_NEEDED library the way glibc's ld.so does
 * (ld.so(8), "Rules"):
 *   1. a name containing '/' is used as it is;
 *   2. if the object has no DT_RUNPATH: its DT_RPATH, then the DT_RPATH of
 *      the executable at the root of the tree;
 *   3. LD_LIBRARY_PATH;
 *   4. the object's DT_RUNPATH;
 *   5. the cache /etc/ld.so.cache, read through `ldconfig -p` (x86-64
 *      entries only);
 *   6. the default directories (/lib/x86_64-linux-gnu, /usr/lib/x86_64-
 *      linux-gnu, /lib64, /usr/lib64, /lib, /usr/lib).
 * $ORIGIN expands to the directory of the object, $LIB to
 * lib/x86_64-linux-gnu (Debian), $PLATFORM to x86_64. A candidate that is
 * not a 64-bit x86-64 ELF file is skipped, as the loader skips it.
 * Plugins loaded with dlopen (DPDK PMDs) are not in DT_NEEDED and are not
 * found this way; pass them as files.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan/scan_deps.h"

struct cache_ent {
	char *name;
	char *path;
};

static struct cache_ent *cache;
static size_t ncache;
static bool cache_loaded;

static void
load_cache(void)
{
	static const char *const ldconfig[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	char line[PATH_MAX + 256], cmd[64];
	size_t cap = 0;
	FILE *p = NULL;

	cache_loaded = true;
	for (size_t i = 0; i < 2 && p == NULL; i++)
		if (access(ldconfig[i], X_OK) == 0) {
			snprintf(cmd, sizeof(cmd), "%s -p 2>/dev/null", ldconfig[i]);
			p = popen(cmd, "r");
		}
	if (p == NULL)
		return;
	/* Lines look like: "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1" */
	while (fgets(line, sizeof(line), p) != NULL) {
		char *name = line + strspn(line, " \t"), *sp, *arrow, *nl;

		sp = strchr(name, ' ');
		arrow = strstr(line, " => ");
		if (sp == NULL || arrow == NULL || strstr(sp, "x86-64") == NULL || strstr(sp, "x86-64") > arrow)
			continue;
		*sp = '\0';
		arrow += 4;
		nl = strchr(arrow, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (ncache == cap) {
			size_t nc = cap ? 2 * cap : 512;
			struct cache_ent *c = realloc(cache, nc * sizeof(*c));

			if (c == NULL)
				break;
			cache = c;
			cap = nc;
		}
		cache[ncache].name = strdup(name);
		cache[ncache].path = strdup(arrow);
		if (cache[ncache].name == NULL || cache[ncache].path == NULL) {
			free(cache[ncache].name);
			free(cache[ncache].path);
			break;
		}
		ncache++;
	}
	pclose(p);
}

void
deps_free_cache(void)
{
	for (size_t i = 0; i < ncache; i++) {
		free(cache[i].name);
		free(cache[i].path);
	}
	free(cache);
	cache = NULL;
	ncache = 0;
	cache_loaded = false;
}

/* Is @path a 64-bit little-endian x86-64 ELF file (what the loader would accept)? */
static bool
usable(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	     eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	     eh.e_machine == EM_X86_64;
	close(fd);
	return ok;
}

/* Expand $ORIGIN, ${ORIGIN}, $LIB, $PLATFORM in one path-list element. */
static void
expand(const char *in, size_t n, const char *origin, char *out, size_t outlen)
{
	static const struct { const char *tok; const char *val; } subst[] = {
		{ "${ORIGIN}", NULL }, { "$ORIGIN", NULL }, { "${LIB}", "lib/x86_64-linux-gnu" },
		{ "$LIB", "lib/x86_64-linux-gnu" }, { "${PLATFORM}", "x86_64" }, { "$PLATFORM", "x86_64" },
	};
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < outlen;) {
		bool done = false;

		for (size_t k = 0; k < sizeof(subst) / sizeof(subst[0]) && in[i] == '$'; k++) {
			size_t tl = strlen(subst[k].tok);
			const char *v = subst[k].val ? subst[k].val : origin;

			if (tl <= n - i && strncmp(in + i, subst[k].tok, tl) == 0) {
				o += (size_t)snprintf(out + o, outlen - o, "%s", v);
				if (o >= outlen)
					o = outlen - 1;
				i += tl;
				done = true;
				break;
			}
		}
		if (!done)
			out[o++] = in[i++];
	}
	out[o] = '\0';
}

/* Try each directory of a ':'-separated list. */
static bool
try_list(const char *list, const char *origin, const char *name, char *out, size_t outlen)
{
	char dir[PATH_MAX], cand[PATH_MAX];

	if (list == NULL)
		return false;
	for (const char *p = list; *p != '\0';) {
		size_t n = strcspn(p, ":;");

		expand(p, n, origin, dir, sizeof(dir));
		if (snprintf(cand, sizeof(cand), "%s/%s", dir[0] ? dir : ".", name) < (int)sizeof(cand) &&
		    usable(cand)) {
			snprintf(out, outlen, "%s", cand);
			return true;
		}
		p += n;
		if (*p != '\0')
			p++;
	}
	return false;
}

int
deps_resolve(const char *name, const struct vpk_scan_report *obj, const char *obj_path,
	     const char *root_rpath, char *out, size_t outlen)
{
	static const char *const defaults =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib";
	char origin[PATH_MAX], *slash;
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (strchr(name, '/') != NULL) {
		snprintf(out, outlen, "%s", name);
		return usable(out) ? 0 : -ENOENT;
	}
	if (realpath(obj_path, origin) == NULL)
		snprintf(origin, sizeof(origin), "%s", obj_path);
	slash = strrchr(origin, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		snprintf(origin, sizeof(origin), ".");
	if (obj->runpath == NULL &&
	    (try_list(obj->rpath, origin, name, out, outlen) || try_list(root_rpath, origin, name, out, outlen)))
		return 0;
	if (try_list(llp, origin, name, out, outlen) || try_list(obj->runpath, origin, name, out, outlen))
		return 0;
	if (!cache_loaded)
		load_cache();
	for (size_t i = 0; i < ncache; i++)
		if (strcmp(cache[i].name, name) == 0 && usable(cache[i].path)) {
			snprintf(out, outlen, "%s", cache[i].path);
			return 0;
		}
	return try_list(defaults, origin, name, out, outlen) ? 0 : -ENOENT;
}
