// ops/systemd/vasana.service: systemd accepts it without a warning (`systemd-analyze verify`,
// which ops/install-deps.sh installs), and it keeps the settings ops/RUNBOOK.md relies on.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

const std::string kUnit = std::string(VASANA_SOURCE_DIR) + "/ops/systemd/vasana.service";

// The first executable called name in $PATH, or "".
std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// The unit with ExecStart's binary replaced by the binary under test (systemd-analyze checks
// that it exists), written as vasana.service in dir (the unit name comes from the file name).
std::string unit_for_test(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/vasana.service";
  write_text(path, std::regex_replace(text, std::regex("/usr/local/bin/vasana "), std::string(VASANA_BINARY) + " "));
  return path;
}

CommandResult analyze(const std::string& tool, const std::string& unit, const std::string& scratch) {
  return run_program(tool, {tool, "verify", "--man=no", unit}, scratch, "", std::chrono::seconds(60));
}

}  // namespace

TEST_CASE("the systemd unit runs serve --config as its own user, restarts on failure and is hardened") {
  const std::string unit = read_text(kUnit);
  REQUIRE_FALSE(unit.empty());
  for (const std::string line :
       {"Type=notify", "User=vasana", "Group=vasana", "ExecStart=/usr/local/bin/vasana serve --config /etc/vasana/vasana.toml",
        "Restart=on-failure", "RestartPreventExitStatus=2", "ProtectSystem=strict", "PrivateTmp=true",
        "NoNewPrivileges=true", "ReadWritePaths=/var/lib/vasana", "StateDirectory=vasana", "LimitNOFILE=65536",
        "UMask=0077"}) {
    INFO(line);
    CHECK(contains(unit, "\n" + line + "\n"));
  }
}

TEST_CASE("systemd-analyze verify accepts the systemd unit without a warning") {
  const std::string tool = find_in_path("systemd-analyze");
  INFO("systemd-analyze is not on PATH: ops/install-deps.sh installs it (package systemd)");
  REQUIRE_FALSE(tool.empty());
  TempDir tmp;
  const std::string text = read_text(kUnit);
  const auto good = analyze(tool, unit_for_test(tmp.sub(""), text), tmp.path());
  INFO("systemd-analyze verify: " << good.out << good.err);
  CHECK(good.status.exited);
  CHECK(good.status.code == 0);
  CHECK(good.err.empty());

  // The check can fail: a misspelt key is only a warning for systemd, and that warning counts.
  TempDir bad;
  const auto typo = analyze(
      tool, unit_for_test(bad.sub(""), std::regex_replace(text, std::regex("\nProtectSystem="), "\nProtectSytem=")),
      bad.path());
  INFO("with a misspelt key: " << typo.out << typo.err);
  CHECK(contains(typo.err, "ProtectSytem"));
}

}  // namespace vasana::test
