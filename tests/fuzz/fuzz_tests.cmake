# Included by tests/CMakeLists.txt: builds the libFuzzer targets of this folder with clang, as an
# external project (the product builds with gcc, and libFuzzer needs clang), and runs each for a
# bounded time on its seed corpus as a ctest entry. ops/fuzz.sh runs them for longer.
option(VASANA_FUZZ "Build the libFuzzer targets of tests/fuzz with clang and run them in ctest" ON)
set(VASANA_FUZZ_SECONDS 10 CACHE STRING "How long each fuzz target runs in ctest")
if(NOT VASANA_FUZZ)
  return()
endif()

find_program(VASANA_FUZZ_CXX NAMES clang++ clang++-14)
find_program(VASANA_FUZZ_CC NAMES clang clang-14)
if(NOT VASANA_FUZZ_CXX OR NOT VASANA_FUZZ_CC)
  message(FATAL_ERROR "tests/fuzz needs clang and libFuzzer (Debian: clang libclang-rt-14-dev, installed by "
                      "ops/install-deps.sh); or configure with -DVASANA_FUZZ=OFF to build without the fuzz targets")
endif()

include(ExternalProject)
set(VASANA_FUZZ_DIR ${PROJECT_BINARY_DIR}/fuzz)
ExternalProject_Add(fuzz_targets
  SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
  BINARY_DIR ${VASANA_FUZZ_DIR}
  CMAKE_ARGS -DCMAKE_C_COMPILER=${VASANA_FUZZ_CC} -DCMAKE_CXX_COMPILER=${VASANA_FUZZ_CXX}
             -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
  # At most two compilers of its own beside the main build's (CI has two cores).
  BUILD_COMMAND ${CMAKE_COMMAND} --build ${VASANA_FUZZ_DIR} -j 2
  # The inner build knows which sources changed; this one does not.
  BUILD_ALWAYS ON
  INSTALL_COMMAND "")

foreach(target segment op client_request peer_message http_request)
  add_test(NAME fuzz.${target}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${VASANA_FUZZ_DIR}/${target}_fuzz
                   ${CMAKE_CURRENT_LIST_DIR}/corpus/${target} ${VASANA_FUZZ_DIR}/ctest/${target} ${VASANA_FUZZ_SECONDS})
  set_tests_properties(fuzz.${target} PROPERTIES TIMEOUT 120)
endforeach()
