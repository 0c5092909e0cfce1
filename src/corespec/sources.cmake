# src/corespec: core specialization. powersim (the frequency-licence model:
# psim_model.c inputs, psim_core.c one core, psim_sys.c the system) and the
# wide-core markers and call worker (wide.c, wide_call.c). Baseline code only.
vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/psim_model.c
  ${CMAKE_CURRENT_LIST_DIR}/psim_core.c
  ${CMAKE_CURRENT_LIST_DIR}/psim_sys.c)
list(APPEND VPK_LINK_LIBS m)
string(APPEND VPK_PC_LIBS_PRIVATE " -lm")
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/wide.c ${CMAKE_CURRENT_LIST_DIR}/wide_call.c)
