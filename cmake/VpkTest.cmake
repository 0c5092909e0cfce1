# VpkTest.cmake: how tests are declared.
#
#   vpk_add_test(<name> SOURCES <file>... [PER_ISA] [LABELS <l>...] [ARGS <a>...])
#
# Builds an executable test_<name> linked with the static libvpk (so tests
# may use internal headers) and the harness in tests/lib. A test exits 0 on
# success, 77 when it cannot run here (counted as skipped), anything else on
# failure. PER_ISA tests loop over every variant themselves; ctest also runs
# them once per cap value (<name>.cap64 ... <name>.cap512) through
# VPK_MAX_SIMD_BITWIDTH, so the cap plumbing is exercised end to end.
# The label "concurrent" (readers and writers on threads) stays on the plain
# test only: the ThreadSanitizer job runs `ctest -L concurrent` once per cap
# it sets itself, and the per-cap copies would only repeat that work.

# Target vpk-concurrent-tests builds only those tests (and libvpk): the
# ThreadSanitizer job needs nothing else.
add_custom_target(vpk-concurrent-tests)

function(vpk_add_test name)
  cmake_parse_arguments(A "PER_ISA" "" "SOURCES;LABELS;ARGS;LIBS" ${ARGN})
  string(REPLACE "." "_" _exe ${name})
  set(_exe test_${_exe})
  add_executable(${_exe} ${A_SOURCES})
  target_link_libraries(${_exe} PRIVATE vpk_test_harness vpk_static ${A_LIBS})
  target_include_directories(${_exe} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${_exe} PRIVATE ${VPK_HAVE_DEFS})
  add_test(NAME ${name} COMMAND ${_exe} ${A_ARGS})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${A_LABELS}")
  if(concurrent IN_LIST A_LABELS)
    add_dependencies(vpk-concurrent-tests ${_exe})
  endif()
  if(A_PER_ISA)
    set(_cap_labels ${A_LABELS})
    list(REMOVE_ITEM _cap_labels concurrent)
    foreach(bits 64 128 256 512)
      add_test(NAME ${name}.cap${bits} COMMAND ${_exe} ${A_ARGS})
      set_tests_properties(${name}.cap${bits} PROPERTIES SKIP_RETURN_CODE 77
        ENVIRONMENT "VPK_MAX_SIMD_BITWIDTH=${bits}" LABELS "per_isa;${_cap_labels}")
    endforeach()
  endif()
endfunction()
