vpk_lib_sources(vec_lut.c)
