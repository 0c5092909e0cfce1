vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/graph.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c)
vpk_kernel(NAME graph_enqueue ISAS scalar sse42 avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/enqueue_kern.c)
# Every node's variants (VPK_NODE_VARIANTS(), graph_priv.h).
vpk_kernel(NAME graph_node ISAS scalar sse42 avx2 avx512 SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/nodes/error_drop.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ethernet_input.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip4_input.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip6_input.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip_rewrite.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/interface_output.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip_lookup.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip_acl.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/tunnel_bypass.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/vxlan_input.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/vxlan_encap.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/srv6_gtp4_d.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/srv6_gtp4_e.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/icmp_error.c
  ${CMAKE_CURRENT_LIST_DIR}/nodes/ip_local.c)
