// A test case that cannot make its check on this machine (one that needs what cannot be
// installed, such as a kernel feature) ends with VASANA_SKIP_TEST(reason) before any assertion.
// The line it prints matches the SKIP_REGULAR_EXPRESSION that tests/CMakeLists.txt gives every
// discovered test, so ctest reports the test as skipped, never as passed. What can be installed
// is not skipped: the test requires it and ops/install-deps.sh installs it.
#pragma once

#include <catch2/catch.hpp>

// Catch2 prints a WARN whatever the reporter's verbosity, so ctest always sees the marker.
#define VASANA_SKIP_TEST(reason)              \
  do {                                        \
    WARN("VASANA_TEST_SKIPPED: " << reason);  \
    return;                                   \
  } while (false)
