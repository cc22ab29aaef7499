# ort_ep/lsan_cycles.cmake: the CTest nxrt_ort_ep_lsan_cycles (docs/ort_plugin_export.md). Runs
# OrtEpTest.HundredRegisterUnregisterCyclesKeepWorkingWithoutGrowing of the Release test binary
# under LeakSanitizer, preloaded (no sanitizer build needed), and fails when
#   - LeakSanitizer does not load into the binary (checked first, so the test cannot pass
#     without it),
#   - the test fails, or LeakSanitizer reports a leak not in lsan_suppressions.txt,
#   - the suppressed objects (ONNX Runtime's own, once per process) reach kMaxSuppressed: a
#     per-cycle leak would count 100.
# Usage: cmake -DTEST_BINARY=<nxrt_ort_ep_test> -DLIBLSAN=<liblsan.so.0>
#              -DSUPPRESSIONS=<lsan_suppressions.txt> -P lsan_cycles.cmake
set(kMaxSuppressed 10)
set(kTest "OrtEpTest.HundredRegisterUnregisterCyclesKeepWorkingWithoutGrowing")

foreach(var TEST_BINARY LIBLSAN SUPPRESSIONS)
  if(NOT EXISTS "${${var}}")
    message(FATAL_ERROR "${var}='${${var}}' does not exist"
                        " (LIBLSAN: install Debian's liblsan0, scripts/bootstrap.sh)")
  endif()
endforeach()

# LeakSanitizer's help=1 lists its flags when it is loaded; gtest only lists the tests.
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBLSAN} LSAN_OPTIONS=help=1
          ${TEST_BINARY} --gtest_list_tests --gtest_filter=${kTest}
  OUTPUT_VARIABLE listed ERROR_VARIABLE listed RESULT_VARIABLE rc)
if(NOT listed MATCHES "Available flags for LeakSanitizer")
  message(FATAL_ERROR "LeakSanitizer did not load into ${TEST_BINARY} with "
                      "LD_PRELOAD=${LIBLSAN} (exit ${rc}):\n${listed}")
endif()

# malloc_context_size=2: the allocator's frame and the allocating one, enough for the
# suppressions (which must not match callers) and fast.
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBLSAN}
          LSAN_OPTIONS=suppressions=${SUPPRESSIONS}:malloc_context_size=2:print_suppressions=1
          ${TEST_BINARY} --gtest_filter=${kTest}
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR out MATCHES "ERROR: LeakSanitizer" OR NOT out MATCHES "\\[  PASSED  \\] 1 test")
  message(FATAL_ERROR "${kTest} under LeakSanitizer failed (exit ${rc}); to see where a "
                      "leak was allocated, run it with a larger malloc_context_size:\n${out}")
endif()

# "Suppressions used:" lists "<count> <bytes> <template>" per suppression that matched.
set(suppressed 0)
string(REGEX MATCH "Suppressions used:.*" table "${out}")
string(REGEX MATCHALL "\n *[0-9]+ +[0-9]+ +[^\n]+" rows "${table}")
foreach(row IN LISTS rows)
  string(REGEX MATCH "[0-9]+" count "${row}")
  math(EXPR suppressed "${suppressed} + ${count}")
endforeach()
if(suppressed GREATER_EQUAL kMaxSuppressed)
  message(FATAL_ERROR "${suppressed} objects leaked inside ONNX Runtime over 100 cycles "
                      "(suppressed; ONNX Runtime's own are fewer than ${kMaxSuppressed}): "
                      "a per-cycle leak:\n${out}")
endif()
message(STATUS "no leak over 100 register/unregister cycles; ${suppressed} object(s) of "
               "ONNX Runtime's own suppressed")
