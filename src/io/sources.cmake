# pcap I/O through libpcap (scripts/install-deps.sh installs libpcap-dev).
pkg_check_modules(PCAP REQUIRED IMPORTED_TARGET GLOBAL libpcap)
list(APPEND VPK_LINK_LIBS PkgConfig::PCAP)
list(APPEND VPK_EXTRA_INCLUDES ${PCAP_INCLUDE_DIRS})
# vpk.pc: "-lpcap" in Libs.private rather than "libpcap" in Requires.private.
# With Requires.private, `pkg-config --static --libs vpk` pulls libpcap's own
# static dependencies (-ldbus-1 -lsystemd on Debian), whose development files
# are usually absent, so linking libvpk.a would fail; libvpk.a + the shared
# libpcap is what static users of libvpk want.
string(APPEND VPK_PC_LIBS_PRIVATE " -lpcap")
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/pcap.c)
# Live I/O: the burst port interface, its backends, descriptor kernels.
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/desc_kernels.c)
vpk_kernel(NAME io_desc ISAS scalar avx2 avx512 SOURCES ${CMAKE_CURRENT_LIST_DIR}/desc_kern.c)
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/io.c ${CMAKE_CURRENT_LIST_DIR}/io_live.c
                ${CMAKE_CURRENT_LIST_DIR}/io_afpacket.c ${CMAKE_CURRENT_LIST_DIR}/io_xdp.c)
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/io_replay.c)
vpk_lib_sources(${CMAKE_CURRENT_LIST_DIR}/io_queues.c)
# AF_XDP through libxdp (+ libbpf); without them the af_xdp backend refuses with -ENOTSUP.
pkg_check_modules(XDP QUIET IMPORTED_TARGET GLOBAL libxdp libbpf)
if(XDP_FOUND)
  add_compile_definitions(VPK_HAVE_LIBXDP=1)
  list(APPEND VPK_LINK_LIBS PkgConfig::XDP)
  string(APPEND VPK_PC_REQUIRES " libxdp libbpf")
endif()
