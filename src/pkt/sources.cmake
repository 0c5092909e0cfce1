vpk_lib_sources(ip4_csum.c rss.c)
vpk_kernel(NAME ip4_csum ISAS scalar sse42 avx2 avx512 SOURCES ip4_csum_kern.c)
vpk_kernel(NAME rss ISAS scalar sse42 avx2 avx512 SOURCES rss_kern.c)
vpk_kernel(NAME rss ISAS avx512icl SOURCES rss_avx512icl.c)
