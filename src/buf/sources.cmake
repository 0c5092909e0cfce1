vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/pool.c)
