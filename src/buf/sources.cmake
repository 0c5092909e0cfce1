vpk_lib_sources(buf_kernels.c pool.c)
vpk_kernel(NAME buf_kern ISAS scalar sse42 avx2 avx512 SOURCES buf_kern.c)
