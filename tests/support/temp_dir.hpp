// Test helpers every test folder shares: a temporary directory that removes itself, and plain
// file writes for setting up (possibly damaged) files.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace vasana::test {

namespace fs = std::filesystem;

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at scope exit. The
// name is short: a node's IPC socket path inside it must stay under 107 bytes.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "vasana-test-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = fs::weakly_canonical(tmpl).string();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Plain write, no fsync: tests set up files (damaged ones too) with it.
inline void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

}  // namespace vasana::test
