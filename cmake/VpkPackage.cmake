# The manual page and the Debian packages (`make package`, README.md "Install and package").
#
# vpk.1 is generated from `vpk --help` and `vpk --version` by help2man
# (Debian package help2man), so it never disagrees with the tool; without
# help2man the page is left out and the tool package ships without it.
find_program(VPK_HELP2MAN help2man)
if(VPK_HELP2MAN)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/vpk.1
    COMMAND ${VPK_HELP2MAN} --no-info --no-discard-stderr --section=1
            --name "vector packet processing toolkit: forwarder, benchmarks, checkers"
            --output=${PROJECT_BINARY_DIR}/vpk.1 $<TARGET_FILE:vpk-tool>
    DEPENDS vpk-tool VERBATIM)
  add_custom_target(vpk-man ALL DEPENDS ${PROJECT_BINARY_DIR}/vpk.1)
  install(FILES ${PROJECT_BINARY_DIR}/vpk.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tool)
else()
  message(STATUS "vpk: help2man not found: no manual page (Debian: apt-get install help2man)")
endif()

# Three .deb files from one build: libvpk0 (libvpk.so.0, libvpk-scan.so.0),
# libvpk-dev (headers, static libraries, pkg-config files) and vpk (the tool,
# linked statically against libvpk). Run-time dependencies come from
# dpkg-shlibdeps; the -dev package names the -dev packages its pkg-config
# files point to.
set(CPACK_PACKAGE_NAME vpk)
set(CPACK_PACKAGE_VENDOR vpk)
set(CPACK_PACKAGE_CONTACT "vpk <vpk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Vector Packet Kit: SIMD packet processing with run-time ISA dispatch")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev tool)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_LIB_PACKAGE_NAME libvpk0)
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libvpk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libvpk0 (= ${PROJECT_VERSION}), libpcap-dev, libxdp-dev, libbpf-dev, libelf-dev, libzydis-dev, pkg-config")
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME vpk)
set(CPACK_COMPONENT_LIB_DESCRIPTION "vpk shared libraries: SIMD packet-processing kernels, graph nodes, ACL, FIB")
set(CPACK_COMPONENT_DEV_DESCRIPTION "vpk development files: headers, static libraries, pkg-config files")
set(CPACK_COMPONENT_TOOL_DESCRIPTION "vpk command: forwarder, benchmarks, ACL and FIB checkers, scanner")
include(CPack)
