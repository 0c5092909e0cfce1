vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/errf.c
  ${CMAKE_CURRENT_LIST_DIR}/isa.c
  ${CMAKE_CURRENT_LIST_DIR}/impl.c
  ${CMAKE_CURRENT_LIST_DIR}/registry.c
  ${CMAKE_CURRENT_LIST_DIR}/qsbr.c
  ${CMAKE_CURRENT_LIST_DIR}/version.c)
