# src/corespec: core specialization: the wide-core markers and call worker
# (wide.c, wide_call.c). Baseline code only.
list(APPEND VPK_LINK_LIBS m)
string(APPEND VPK_PC_LIBS_PRIVATE " -lm")
vpk_lib_sources(wide.c wide_call.c)
