# Checks that the runtime-only library (tritonc_runtime) defines nothing of
# the compiler: no function of the front end (lang), the optimizer
# (transform), the GPU passes (gpu), the analyses, or PTX emission.
#   cmake -DLIBRARY=libtritonc_runtime.a -DNM=nm -P check_runtime_only.cmake
# Mangled names: a function of namespace tritonc::lang starts _ZN7tritonc4lang
# (std templates merely instantiated with its types start _ZNSt or _ZSt).
execute_process(COMMAND ${NM} --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] _ZNK?7tritonc(4lang|9transform|3gpu|8analysis)[^\n]*" compiler "${symbols}")
string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] _ZNK?7tritonc5nvptx(7emitPtx|[0-9]+lower)[^\n]*" emission "${symbols}")
list(APPEND compiler ${emission})
list(LENGTH compiler found)
if(found GREATER 0)
  list(SUBLIST compiler 0 10 shown)
  string(REPLACE ";" "\n  " shown "${shown}")
  message(FATAL_ERROR "${LIBRARY} defines ${found} symbols of the compiler, e.g.:\n  ${shown}")
endif()
string(REGEX MATCHALL "[0-9a-f]+ T tritonc_kernel_load" load "${symbols}")
if(NOT load)
  message(FATAL_ERROR "${LIBRARY} does not define tritonc_kernel_load")
endif()
message(STATUS "${LIBRARY}: no compiler symbols")
