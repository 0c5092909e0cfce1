vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/ep_cache.c
  ${CMAKE_CURRENT_LIST_DIR}/gtp4d_hdr.c
  ${CMAKE_CURRENT_LIST_DIR}/prefix_lpm.c)
vpk_kernel(NAME ep_cache ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/ep_cache_kern.c)
vpk_kernel(NAME gtp4d_hdr ISAS scalar SOURCES ${CMAKE_CURRENT_LIST_DIR}/gtp4d_hdr_scalar.c)
vpk_kernel(NAME gtp4d_hdr ISAS sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/gtp4d_hdr_kern.c)
