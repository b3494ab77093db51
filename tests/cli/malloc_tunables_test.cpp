// cli/malloc_tunables.hpp: a node's start log says which malloc it runs on and with what, as the
// process itself sees it (glibc's huge pages and a preloaded jemalloc are the operator's choice).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

namespace {

// Sets (or unsets, with nullopt) an environment variable of this test process for its lifetime;
// children started meanwhile inherit it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The malloc line of a node's start log, started with GLIBC_TUNABLES as given (nullopt: unset)
// and LD_PRELOAD as preload.
std::string node_malloc(const TempDir& tmp, const std::string& name, const std::optional<std::string>& given,
                        const std::optional<std::string>& preload = std::nullopt) {
  ScopedEnv env("GLIBC_TUNABLES", given);
  ScopedEnv pre("LD_PRELOAD", preload);
  const std::string data = tmp.sub(name);
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub(name + ".err"));
  REQUIRE(node.wait_ready() == "");
  CHECK(node.terminate().has_value());
  const std::string log = node.stderr_text();
  const size_t at = log.find("malloc: ");
  if (at == std::string::npos) return "no malloc line in: " + log;
  return log.substr(at + 8, log.find('\n', at) - at - 8);
}

}  // namespace

TEST_CASE("a node's start log says which malloc it runs on, and whether glibc's was asked for huge pages") {
  TempDir tmp;
  // Positive: the tunable alone, and after another one (the part /proc/PID/environ loses).
  CHECK(node_malloc(tmp, "plain", std::string("glibc.malloc.hugetlb=1")) ==
        "glibc, huge pages requested (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)");
  CHECK(node_malloc(tmp, "after", std::string("glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1")) ==
        "glibc, huge pages requested (GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1)");
  // Negative: unset, turned off, or other tunables only.
  CHECK(node_malloc(tmp, "unset", std::nullopt) == "glibc, default pages (GLIBC_TUNABLES=unset)");
  CHECK(node_malloc(tmp, "zero", std::string("glibc.malloc.hugetlb=0")) ==
        "glibc, default pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=0)");
  CHECK(node_malloc(tmp, "other", std::string("glibc.malloc.arena_max=4")) ==
        "glibc, default pages (GLIBC_TUNABLES=glibc.malloc.arena_max=4)");
  // jemalloc through LD_PRELOAD (Debian's libjemalloc2, which ops/install-deps.sh installs):
  // named with its version; glibc's tunables no longer apply, so they are not reported.
  const std::string jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  REQUIRE(std::ifstream(jemalloc).good());
  const std::string line = node_malloc(tmp, "jemalloc", std::string("glibc.malloc.hugetlb=1"), jemalloc);
  CHECK(line.rfind("jemalloc 5.", 0) == 0);
  CHECK(line.find("(MALLOC_CONF=unset)") != std::string::npos);
}

}  // namespace vasana::test
