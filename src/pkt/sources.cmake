vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/ip4_csum.c ${CMAKE_CURRENT_LIST_DIR}/rss.c)
vpk_kernel(NAME ip4_csum ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/ip4_csum_kern.c)
vpk_kernel(NAME rss ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/rss_kern.c)
vpk_kernel(NAME rss ISAS avx512icl SOURCES ${CMAKE_CURRENT_LIST_DIR}/rss_avx512icl.c)
