vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/graph.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c)
vpk_kernel_sources(ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/enqueue_kern.c)
