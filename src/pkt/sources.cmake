vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/ip4_csum.c)
vpk_kernel_sources(ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/ip4_csum_kern.c)
