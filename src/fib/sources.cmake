vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/rib.c
  ${CMAKE_CURRENT_LIST_DIR}/dir24_8.c
  ${CMAKE_CURRENT_LIST_DIR}/fib_core.c
  ${CMAKE_CURRENT_LIST_DIR}/fib.c
  ${CMAKE_CURRENT_LIST_DIR}/bm16.c
  ${CMAKE_CURRENT_LIST_DIR}/trie6.c
  ${CMAKE_CURRENT_LIST_DIR}/bm6.c
  ${CMAKE_CURRENT_LIST_DIR}/fib6.c
  ${CMAKE_CURRENT_LIST_DIR}/fib_file.c)
vpk_kernel(NAME dir24_8 ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/dir24_8_kern.c)
vpk_kernel(NAME trie6 ISAS scalar sse42 SOURCES ${CMAKE_CURRENT_LIST_DIR}/trie6_kern.c)
vpk_kernel(NAME trie6 ISAS avx2 SOURCES ${CMAKE_CURRENT_LIST_DIR}/trie6_avx2.c)
vpk_kernel(NAME trie6 ISAS avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/trie6_avx512.c)
vpk_kernel(NAME bm16 ISAS scalar sse42 SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm16_kern.c)
vpk_kernel(NAME bm16 ISAS avx2 SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm16_avx2.c)
vpk_kernel(NAME bm16 ISAS avx512 avx512icl SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm16_avx512.c)
vpk_kernel(NAME bm6 ISAS scalar sse42 SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm6_kern.c)
vpk_kernel(NAME bm6 ISAS avx2 SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm6_avx2.c)
vpk_kernel(NAME bm6 ISAS avx512 avx512icl SOURCES ${CMAKE_CURRENT_LIST_DIR}/bm6_avx512.c)
