vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/ep_cache.c
  ${CMAKE_CURRENT_LIST_DIR}/gtp4d_hdr.c)
vpk_kernel_sources(ISAS scalar sse42 avx2 avx512 SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ep_cache_kern.c
  ${CMAKE_CURRENT_LIST_DIR}/gtp4d_hdr_kern.c)
