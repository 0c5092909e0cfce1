# src/scan: the static wide-vector scanner (vpk scan). Baseline code only: it
# decodes AVX-512, it never executes it. Needs libelf (elfutils) and Zydis 4
# (Debian: libelf-dev, libzydis-dev; Zydis ships no pkg-config file).
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET GLOBAL libelf)
find_path(VPK_ZYDIS_INCLUDE Zydis/Zydis.h REQUIRED)
find_library(VPK_ZYDIS_LIB Zydis REQUIRED)
list(APPEND VPK_LINK_LIBS PkgConfig::LIBELF ${VPK_ZYDIS_LIB})
list(APPEND VPK_EXTRA_INCLUDES ${VPK_ZYDIS_INCLUDE})
string(APPEND VPK_PC_REQUIRES " libelf")
string(APPEND VPK_PC_LIBS_PRIVATE " -lZydis")
vpk_lib_sources(
  ${CMAKE_CURRENT_LIST_DIR}/classify.c
  ${CMAKE_CURRENT_LIST_DIR}/ehframe.c
  ${CMAKE_CURRENT_LIST_DIR}/scan.c)
