/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-alone driver for the fuzz targets, so they run in ctest without
 * libFuzzer: every file of the corpus directories/files given, then
 * --iterations inputs made by mutating the corpus entries (bit flips, byte
 * sets, truncation, splices) or, with no corpus, random bytes. Seeded from
 * VPK_TEST_SEED (printed), so a crash can be replayed; the input that
 * crashed is also written to ./fuzz-driver-crash (a libFuzzer binary, or
 * this driver, runs it alone when given that file).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DRIVER_MAX_INPUT 65536
#define MAX_CORPUS 4096

static uint8_t *corpus[MAX_CORPUS];
static size_t corpus_len[MAX_CORPUS];
static size_t n_corpus;
static uint64_t rng;
static const uint8_t *cur_in;
static size_t cur_len;

/* Save the input being run, then die of the same signal. Async-signal-safe calls only. */
static void
on_crash(int sig)
{
	static const char msg[] = "fuzz driver: input written to fuzz-driver-crash\n";
	int fd = open("fuzz-driver-crash", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, cur_in, cur_len) == (ssize_t)cur_len && write(2, msg, sizeof(msg) - 1) < 0)
			sig = SIGABRT;
		close(fd);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
run(const uint8_t *data, size_t size)
{
	cur_in = data;
	cur_len = size;
	return LLVMFuzzerTestOneInput(data, size);
}

static uint64_t
rnd(void)
{
	uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
load_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (f == NULL || n_corpus == MAX_CORPUS) {
		if (f != NULL)
			fclose(f);
		return;
	}
	buf = malloc(DRIVER_MAX_INPUT);
	n = fread(buf, 1, DRIVER_MAX_INPUT, f);
	fclose(f);
	corpus[n_corpus] = buf;
	corpus_len[n_corpus++] = n;
}

static void
load(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char p[4096];

	if (stat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		load_file(path);
		return;
	}
	d = opendir(path);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		load_file(p);
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	long iterations = 10000;
	const char *s = getenv("VPK_TEST_SEED");
	static uint8_t buf[DRIVER_MAX_INPUT];

	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	rng = s != NULL ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
	printf("fuzz driver: seed %llu\n", (unsigned long long)rng);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = strtol(argv[++i], NULL, 10);
		else
			load(argv[i]);
	}
	for (size_t i = 0; i < n_corpus; i++)
		run(corpus[i], corpus_len[i]);
	for (long it = 0; it < iterations; it++) {
		size_t n;

		if (n_corpus > 0) {
			size_t k = (size_t)(rnd() % n_corpus);

			n = corpus_len[k];
			memcpy(buf, corpus[k], n);
			for (unsigned m = 0, nm = 1 + (unsigned)(rnd() % 8); m < nm && n > 0; m++) {
				switch (rnd() % 5) {
				case 0: buf[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8)); break;
				case 1: buf[rnd() % n] = (uint8_t)rnd(); break;
				case 2: n = (size_t)(rnd() % (n + 1)); break;
				case 3: buf[rnd() % n] = (uint8_t)((rnd() & 1) ? 0xff : 0); break;
				default: {
					size_t k2 = (size_t)(rnd() % n_corpus), at = (size_t)(rnd() % n);
					size_t take = corpus_len[k2] < DRIVER_MAX_INPUT - at ? corpus_len[k2] : DRIVER_MAX_INPUT - at;

					memcpy(buf + at, corpus[k2], take);
					if (at + take > n)
						n = at + take;
				}
				}
			}
		} else {
			n = (size_t)(rnd() % 2048);
			for (size_t i = 0; i < n; i++)
				buf[i] = (uint8_t)rnd();
		}
		run(buf, n);
	}
	for (size_t i = 0; i < n_corpus; i++)
		free(corpus[i]);
	printf("fuzz driver: %zu corpus inputs and %ld generated inputs, no crash\n", n_corpus, iterations);
	return 0;
}
