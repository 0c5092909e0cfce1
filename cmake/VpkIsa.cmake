# VpkIsa.cmake: the only CMake file that knows ISA flags.
#
# The ISA levels and their compiler flags come from src/core/isa_levels.def,
# the same table src/core/isa.c uses for run-time detection. For each level a
# probe compiles, assembles and links the intrinsics vpk's variants of that
# level use; a level whose probe fails is left out of the build (its table
# entries vanish and vpk info says "not compiled in").
#
# Functions (a relative <file> is relative to the calling sources.cmake):
#   vpk_lib_sources(<file>...)                  baseline sources of libvpk
#   vpk_kernel(NAME <kernel> ISAS <isa>... SOURCES <file>... [IMPLS <isa>:<impl>...])
#       the one declaration of a kernel: compile each file once per listed
#       ISA, with that ISA's flags, -fno-lto, -DVPK_ISA_SUFFIX=<isa> and
#       -DVPK_ISA_ID=VPK_ISA_<ISA> (symbols suffixed by VPK_FN(),
#       src/core/kern.h), and list the kernel's implementations best-first
#       in the generated header vpk_kernels.h as VPK_KERNEL_LIST_<kernel>,
#       built ISAs only. An ISA's implementations are named after it unless
#       IMPLS names them (several per ISA, best first: avx512:avx512x32
#       avx512:avx512x16). Several calls with one NAME add ISAs (a
#       hand-written <algo>_<isa>.c beside the generic kernel).
#       docs/adding-a-kernel.md shows the C side (VPK_KERNEL_IMPLS()).
#   vpk_finish_library()                         create the libraries and
#                                                write vpk_kernels.h

include(CheckCSourceCompiles)

file(READ "${PROJECT_SOURCE_DIR}/src/core/isa_levels.def" _vpk_def)
string(REGEX MATCHALL "VPK_ISA_LEVEL\\([A-Z0-9]+, *[a-z0-9]+, *[0-9]+, *\"[^\"]*\"" _vpk_rows "${_vpk_def}")
set(VPK_ISA_LIST "")
foreach(_row IN LISTS _vpk_rows)
  string(REGEX REPLACE "VPK_ISA_LEVEL\\(([A-Z0-9]+), *([a-z0-9]+), *([0-9]+), *\"([^\"]*)\"" "\\2" _name "${_row}")
  string(REGEX REPLACE "VPK_ISA_LEVEL\\(([A-Z0-9]+), *([a-z0-9]+), *([0-9]+), *\"([^\"]*)\"" "\\4" _flags "${_row}")
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  set(VPK_ISA_FLAGS_${_name} ${_flags})
  list(APPEND VPK_ISA_LIST ${_name})
endforeach()
if(NOT VPK_ISA_LIST STREQUAL "scalar;sse42;avx2;avx512;avx512icl")
  message(FATAL_ERROR "isa_levels.def parse gave '${VPK_ISA_LIST}'")
endif()

# Representative intrinsics per level: what the variants really use.
set(_vpk_probe_scalar "int main(void) { return 0; }")
set(_vpk_probe_sse42 "
#include <immintrin.h>
int main(void) {
  __m128i a = _mm_set1_epi32(1), b = _mm_setzero_si128();
  a = _mm_blendv_epi8(a, b, _mm_cmpgt_epi64(a, b));
  a = _mm_shuffle_epi8(a, b);
  return _mm_extract_epi32(a, 1) + (int)_mm_crc32_u32(0, 1) + _mm_popcnt_u32(3);
}")
set(_vpk_probe_avx2 "
#include <immintrin.h>
int main(void) {
  int t[8] = {0};
  __m256i i = _mm256_set1_epi32(1);
  __m256i g = _mm256_i32gather_epi32(t, _mm256_and_si256(i, _mm256_set1_epi32(7)), 4);
  __m256i p = _mm256_permutevar8x32_epi32(g, i);
  __m256i q = _mm256_i64gather_epi64((const long long *)t, _mm256_setzero_si256(), 8);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(p, q)) + (int)_pdep_u32(1, 3) + (int)_lzcnt_u32(1);
}")
set(_vpk_probe_avx512 "
#include <immintrin.h>
int main(void) {
  int t[16] = {0};
  __m512i i = _mm512_set1_epi32(1);
  __mmask16 m = _mm512_cmpeq_epi32_mask(i, _mm512_setzero_si512());
  __m512i g = _mm512_mask_i32gather_epi32(i, m, i, t, 4);
  __m512i c = _mm512_maskz_compress_epi32(_kor_mask16(m, 1), g);
  __m256i v = _mm256_mask_add_epi32(_mm256_setzero_si256(), 3, _mm512_castsi512_si256(c), _mm256_set1_epi32(2));
  __m512i w = _mm512_cvtepu32_epi64(v);
  __mmask64 b = _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8(1));
  __m512i d = _mm512_movm_epi64((__mmask8)b);
  return (int)_mm512_reduce_add_epi64(d) + (int)_cvtmask64_u64(b);
}")
set(_vpk_probe_avx512icl "
#include <immintrin.h>
int main(void) {
  __m512i i = _mm512_set1_epi8(3);
  __m512i p = _mm512_permutexvar_epi8(i, i);
  __m512i c = _mm512_maskz_compress_epi8(0x5555, p);
  __m512i g = _mm512_gf2p8affine_epi64_epi8(c, i, 0);
  __m512i n = _mm512_popcnt_epi32(g);
  __m512i x = _mm512_aesenc_epi128(n, i);
  __m512i y = _mm512_clmulepi64_epi128(x, i, 0);
  __m512i z = _mm512_dpbusd_epi32(y, i, i);
  return (int)_mm512_reduce_add_epi32(_mm512_popcnt_epi8(z));
}")

foreach(_isa IN LISTS VPK_ISA_LIST)
  set(CMAKE_REQUIRED_FLAGS "")
  foreach(_f IN LISTS VPK_ISA_FLAGS_${_isa})
    string(APPEND CMAKE_REQUIRED_FLAGS " ${_f}")
  endforeach()
  set(CMAKE_REQUIRED_QUIET ON)
  check_c_source_compiles("${_vpk_probe_${_isa}}" VPK_CC_HAS_${_isa})
  unset(CMAKE_REQUIRED_FLAGS)
  if(VPK_CC_HAS_${_isa})
    list(APPEND VPK_ISA_BUILT ${_isa})
  endif()
endforeach()
message(STATUS "vpk: ISA levels compiled in: ${VPK_ISA_BUILT}")

set_property(GLOBAL PROPERTY VPK_LIB_SOURCES "")
foreach(_isa IN LISTS VPK_ISA_LIST)
  set_property(GLOBAL PROPERTY VPK_KERN_SOURCES_${_isa} "")
endforeach()

function(vpk_lib_sources)
  foreach(_s IN LISTS ARGN)
    get_filename_component(_abs "${_s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_LIST_DIR}")
    set_property(GLOBAL APPEND PROPERTY VPK_LIB_SOURCES "${_abs}")
  endforeach()
endfunction()

set_property(GLOBAL PROPERTY VPK_KERNELS "")
set(VPK_GEN_DIR ${PROJECT_BINARY_DIR}/gen)
include_directories(${VPK_GEN_DIR})

function(vpk_kernel)
  cmake_parse_arguments(A "" "NAME" "ISAS;SOURCES;IMPLS" ${ARGN})
  if(NOT A_NAME OR NOT A_ISAS OR NOT A_SOURCES)
    message(FATAL_ERROR "vpk_kernel(NAME <kernel> ISAS <isa>... SOURCES <file>... [IMPLS <isa>:<impl>...])")
  endif()
  if(NOT A_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "vpk_kernel: bad name '${A_NAME}'")
  endif()
  get_property(_known GLOBAL PROPERTY VPK_KERNELS)
  if(NOT A_NAME IN_LIST _known)
    set_property(GLOBAL APPEND PROPERTY VPK_KERNELS ${A_NAME})
  endif()
  foreach(_isa IN LISTS A_ISAS)
    if(NOT _isa IN_LIST VPK_ISA_LIST)
      message(FATAL_ERROR "vpk_kernel(${A_NAME}): unknown ISA '${_isa}'")
    endif()
    get_property(_has GLOBAL PROPERTY VPK_KERNEL_${A_NAME}_ISAS)
    if(_isa IN_LIST _has)
      message(FATAL_ERROR "vpk_kernel(${A_NAME}): ISA '${_isa}' declared twice")
    endif()
    set_property(GLOBAL APPEND PROPERTY VPK_KERNEL_${A_NAME}_ISAS ${_isa})
    foreach(_s IN LISTS A_SOURCES)
      get_filename_component(_abs "${_s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_LIST_DIR}")
      set_property(GLOBAL APPEND PROPERTY VPK_KERN_SOURCES_${_isa} "${_abs}")
    endforeach()
  endforeach()
  foreach(_i IN LISTS A_IMPLS)
    if(NOT _i MATCHES "^([a-z0-9]+):([a-z0-9_]+)$" OR NOT CMAKE_MATCH_1 IN_LIST A_ISAS)
      message(FATAL_ERROR "vpk_kernel(${A_NAME}): IMPLS item '${_i}' is not <isa>:<impl> of a listed ISA")
    endif()
    set_property(GLOBAL APPEND PROPERTY VPK_KERNEL_${A_NAME}_IMPLS_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
  endforeach()
endfunction()

# vpk_kernels.h: the ISA levels compiled in (VPK_ISA_BUILT_LIST, X(<ID>) in
# the table's order, for src/core/isa.c), then one X-macro list per kernel,
# best first (the ISA table's order reversed), ISAs compiled in only.
# Rewritten only when it changes.
function(_vpk_write_kernel_lists)
  set(_rev ${VPK_ISA_LIST})
  list(REVERSE _rev)
  set(_out "/* Generated by cmake/VpkIsa.cmake from the vpk_kernel() declarations: do not edit. */\n")
  string(APPEND _out "#ifndef VPK_KERNELS_H\n#define VPK_KERNELS_H\n")
  set(_built "")
  foreach(_isa IN LISTS VPK_ISA_BUILT)
    string(TOUPPER ${_isa} _uc)
    string(APPEND _built " X(${_uc})")
  endforeach()
  string(APPEND _out "#define VPK_ISA_BUILT_LIST(X)${_built}\n")
  get_property(_kernels GLOBAL PROPERTY VPK_KERNELS)
  foreach(_k IN LISTS _kernels)
    get_property(_isas GLOBAL PROPERTY VPK_KERNEL_${_k}_ISAS)
    set(_body "")
    foreach(_isa IN LISTS _rev)
      if(NOT _isa IN_LIST _isas OR NOT _isa IN_LIST VPK_ISA_BUILT)
        continue()
      endif()
      get_property(_impls GLOBAL PROPERTY VPK_KERNEL_${_k}_IMPLS_${_isa})
      if(NOT _impls)
        set(_impls ${_isa})
      endif()
      foreach(_i IN LISTS _impls)
        string(APPEND _body " X(a, b, ${_i})")
      endforeach()
    endforeach()
    string(APPEND _out "#define VPK_KERNEL_LIST_${_k}(X, a, b)${_body}\n")
  endforeach()
  string(APPEND _out "#endif\n")
  file(CONFIGURE OUTPUT ${VPK_GEN_DIR}/vpk_kernels.h CONTENT "${_out}" @ONLY)
endfunction()

# Creates vpk_obj (baseline), vpk_isa_<isa> (per-ISA objects), vpk (shared)
# and vpk_static (static, output name libvpk.a).
function(vpk_finish_library)
  _vpk_write_kernel_lists()
  get_property(_base GLOBAL PROPERTY VPK_LIB_SOURCES)
  set(_objs "")
  set(_defs "")
  foreach(_isa IN LISTS VPK_ISA_BUILT)
    string(TOUPPER ${_isa} _uc)
    list(APPEND _defs VPK_HAVE_ISA_${_uc})
  endforeach()
  foreach(_isa IN LISTS VPK_ISA_BUILT)
    get_property(_ks GLOBAL PROPERTY VPK_KERN_SOURCES_${_isa})
    if(NOT _ks)
      continue()
    endif()
    string(TOUPPER ${_isa} _uc)
    add_library(vpk_isa_${_isa} OBJECT ${_ks})
    target_compile_options(vpk_isa_${_isa} PRIVATE ${VPK_ISA_FLAGS_${_isa}} -fno-lto)
    target_compile_definitions(vpk_isa_${_isa} PRIVATE
      VPK_ISA_SUFFIX=${_isa} VPK_ISA_ID=VPK_ISA_${_uc} ${_defs})
    target_include_directories(vpk_isa_${_isa} PRIVATE
      ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${VPK_EXTRA_INCLUDES})
    set_target_properties(vpk_isa_${_isa} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND _objs $<TARGET_OBJECTS:vpk_isa_${_isa}>)
  endforeach()
  add_library(vpk_obj OBJECT ${_base})
  target_compile_definitions(vpk_obj PRIVATE ${_defs})
  target_include_directories(vpk_obj PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${VPK_EXTRA_INCLUDES})
  set_target_properties(vpk_obj PROPERTIES POSITION_INDEPENDENT_CODE ON)

  add_library(vpk SHARED $<TARGET_OBJECTS:vpk_obj> ${_objs})
  add_library(vpk_static STATIC $<TARGET_OBJECTS:vpk_obj> ${_objs})
  # Export the public API only (also keeps the linker's __start_/__stop_
  # symbols of the registration section internal).
  target_link_options(vpk PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/vpk.map)
  set_target_properties(vpk PROPERTIES LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/vpk.map)
  set_target_properties(vpk PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  set_target_properties(vpk_static PROPERTIES OUTPUT_NAME vpk)
  foreach(_t vpk vpk_static)
    target_include_directories(${_t} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
    target_link_libraries(${_t} PUBLIC ${VPK_LINK_LIBS})
  endforeach()
  set(VPK_HAVE_DEFS ${_defs} PARENT_SCOPE)
endfunction()
