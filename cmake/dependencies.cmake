# Every external dependency, found the way ../shared/DEPENDENCIES.md verified for Debian 12.
find_package(Threads REQUIRED)

# CAF 0.17 ships no CMake config: imported targets by hand, named as CAF >= 0.18 names them.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY NAMES caf_core REQUIRED)
find_library(CAF_IO_LIBRARY NAMES caf_io REQUIRED)
add_library(CAF::core SHARED IMPORTED)
set_target_properties(CAF::core PROPERTIES
  IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES Threads::Threads)
add_library(CAF::io SHARED IMPORTED)
set_target_properties(CAF::io PROPERTIES
  IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
  INTERFACE_LINK_LIBRARIES CAF::core)

find_package(cppzmq 4.9 REQUIRED)
find_package(CapnProto 0.9 CONFIG REQUIRED)
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto SSL)
find_package(RocksDB 7 CONFIG REQUIRED)  # link RocksDB::rocksdb-shared (RocksDB::rocksdb is the static .a)
find_package(tomlplusplus 3 CONFIG REQUIRED)
find_package(nlohmann_json 3 CONFIG REQUIRED)
find_package(Catch2 2 REQUIRED)
# No version argument: Debian ships no prometheus-cpp-config-version.cmake.
find_package(prometheus-cpp CONFIG REQUIRED)
# cpp-httplib 0.11 (Debian's libcpp-httplib-dev) is a compiled library whose class layouts depend
# on the CPPHTTPLIB_*_SUPPORT macros it was built with (OpenSSL, zlib, brotli): take them from its
# pkg-config file rather than defining them by hand, or the headers would not match the library.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPPHTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib>=0.11)
