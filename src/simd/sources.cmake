vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/vec_lut.c)
