# The version `vasana --version` prints: the project version, and the git commit when the tree is a
# git checkout (read when CMake configures; "unknown" without git or outside a checkout).
find_package(Git QUIET)
set(VASANA_GIT_COMMIT "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE vasana_git_head OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE vasana_git_result ERROR_QUIET)
  if(vasana_git_result EQUAL 0 AND vasana_git_head MATCHES "^[0-9a-f]+$")
    set(VASANA_GIT_COMMIT "${vasana_git_head}")
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cli/build_info.cpp.in ${PROJECT_BINARY_DIR}/cli/build_info.cpp @ONLY)
