vpk_lib_sources(graph.c dispatch.c)
vpk_kernel(NAME graph_enqueue ISAS scalar sse42 avx2 avx512 SOURCES enqueue_kern.c)
# Every node's variants (VPK_NODE_REGISTER(), graph_priv.h).
vpk_kernel(NAME graph_node ISAS scalar sse42 avx2 avx512 SOURCES
  nodes/error_drop.c nodes/ethernet_input.c nodes/ip4_input.c nodes/ip6_input.c nodes/ip_rewrite.c
  nodes/interface_output.c nodes/ip_lookup.c nodes/ip_acl.c nodes/tunnel_bypass.c nodes/vxlan_input.c
  nodes/vxlan_encap.c nodes/srv6_gtp4_d.c nodes/srv6_gtp4_e.c nodes/icmp_error.c nodes/ip_local.c)
