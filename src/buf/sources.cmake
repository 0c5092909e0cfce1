vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/buf_kernels.c ${CMAKE_CURRENT_LIST_DIR}/pool.c)
vpk_kernel(NAME buf_kern ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/buf_kern.c)
