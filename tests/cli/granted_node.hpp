// A `vasana serve` on a fresh data directory with a given configuration, for the tests of client
// grants: commands run against it with --data, and what its own stream holds tells whether a
// refused request wrote anything. Stopped by the destructor.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

struct GrantedNode {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::string config = tmp.sub("node.toml");
  std::unique_ptr<ServeProcess> node;

  explicit GrantedNode(const std::string& toml) {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    write_text(config, toml);
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
    REQUIRE(node->wait_ready() == "");
  }
  CommandResult run(std::vector<std::string> args, const std::string& stdin_data = "") {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), stdin_data);
  }
  // Remembers text in realm as the owner; returns the id.
  std::string remember(const std::string& realm, const std::string& text) {
    auto r = run({"remember", "--realm", realm, text});
    REQUIRE(r.status.code == 0);
    return first_line(r.out);
  }
  size_t memories_written() { return read_own_stream(data).texts.size(); }
};

}  // namespace vasana::test
