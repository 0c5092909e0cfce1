vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/fwd.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_acl.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_io.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_run.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_tunnel.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_wide.c
  ${CMAKE_CURRENT_LIST_DIR}/fwd_workers.c)
