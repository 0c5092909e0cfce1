vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/acl.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_rules.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_build.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_leaf.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_shape.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_mem.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_update.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_del.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_file.c
  ${CMAKE_CURRENT_LIST_DIR}/acl5.c)
vpk_kernel(NAME acl ISAS scalar sse42 avx2 avx512 IMPLS avx512:avx512x32 avx512:avx512x16
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern.c)
list(APPEND VPK_LINK_LIBS m)
string(APPEND VPK_PC_LIBS_PRIVATE " -lm")
