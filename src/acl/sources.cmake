vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/acl.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_rules.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_build.c)
vpk_kernel_sources(ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern.c)
