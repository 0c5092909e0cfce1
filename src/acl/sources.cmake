vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/acl.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_rules.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_build.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_cut.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_leaf.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_layout.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_shape.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_mem.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_update.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_del.c
  ${CMAKE_CURRENT_LIST_DIR}/acl_file.c
  ${CMAKE_CURRENT_LIST_DIR}/acl5.c)
# One file per variant around the shared body in acl_kern.h.
vpk_kernel(NAME acl ISAS scalar SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern.c)
vpk_kernel(NAME acl ISAS sse42 SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern_sse42.c)
vpk_kernel(NAME acl ISAS avx2 SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern_avx2.c)
vpk_kernel(NAME acl ISAS avx512 IMPLS avx512:avx512x32 avx512:avx512x16
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_kern_avx512.c ${CMAKE_CURRENT_LIST_DIR}/acl_kern_avx512x16.c)
list(APPEND VPK_LINK_LIBS m)
string(APPEND VPK_PC_LIBS_PRIVATE " -lm")
# avx512x16, of its own translation unit, runs under the cap 256, where no zmm
# instruction may run: nor from the compiler's vectorisation of the body's loops
# (gcc -O3 uses zmm for x86-64-v4). Test acl_width.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/acl_kern_avx512x16.c PROPERTIES COMPILE_OPTIONS
  -mprefer-vector-width=256)
