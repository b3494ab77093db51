// The command line's contract (DESIGN.md "Command line"): exit 0 on success, 1 when a check
// failed or the node could not do it, 2 on bad usage or bad input, with a message saying what
// is wrong; and bad input never writes anything.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <regex>
#include <string>
#include <vector>

#include "frontends/node_client.hpp"
#include "protocol/ids.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// Checks a finished command's exit code, and that its stderr names every one of needles.
void check_fails(const CommandResult& r, int code, const std::vector<std::string>& needles) {
  CAPTURE(r.status.describe(), r.out, r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.status.exited);
  CHECK(r.status.code == code);
  for (const auto& n : needles) {
    INFO("stderr should name: " << n);
    CHECK(contains(r.err, n));
  }
}

size_t log_records(const std::string& data, const std::string& scratch) {
  auto r = run_vasana({"log", "--data", data}, scratch);
  INFO(r.err);
  REQUIRE(r.status.exited);
  REQUIRE(r.status.code == 0);
  return count_lines(r.out);
}

// An initialised data directory in a temporary directory.
struct DataFixture {
  TempDir tmp;
  std::string data = tmp.sub("data");
  DataFixture() { REQUIRE(init_data_dir_with_cli(data, tmp.path()) == ""); }
};

}  // namespace

TEST_CASE("remember refuses bad input with exit code 2 and writes nothing") {
  DataFixture f;
  ServeProcess node(f.data, f.tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  const std::string& d = f.data;

  check_fails(run_vasana({"remember", "--data", d, "no realm given"}, f.tmp.path()), 2, {"realm", "required"});
  check_fails(run_vasana({"remember", "--data", d, "--realm", "r", "--kind", "gossip", "text"}, f.tmp.path()), 2,
              {"unknown kind 'gossip'", "nothing was written"});
  check_fails(run_vasana({"remember", "--data", d, "--realm", "r", "-"}, f.tmp.path(), std::string(65537, 'x')), 2,
              {"text is 65537 bytes", "limit is 65536"});
  check_fails(run_vasana({"remember", "--data", d, "--realm", "r", "caf\xc3\x28 au lait"}, f.tmp.path()), 2,
              {"text is not valid UTF-8"});
  check_fails(run_vasana({"remember", "--data", d, "--realm", "r", "--valid-from", "yesterday", "t"}, f.tmp.path()),
              2, {"--valid-from", "yesterday"});
  check_fails(run_vasana({"remember", "--data", d, "--realm", "r", "--bogus", "t"}, f.tmp.path()), 2,
              {"unknown option --bogus"});
  CHECK(log_records(d, f.tmp.path()) == 0);

  // The positive control: a valid memory is stored once, and its id is printed.
  auto ok = run_vasana({"remember", "--data", d, "--realm", "r", "--kind", "wisdom", "measure", "twice"},
                       f.tmp.path());
  CAPTURE(ok.out, ok.err);
  REQUIRE(ok.status.code == 0);
  std::smatch m;
  REQUIRE(std::regex_match(ok.out, m, std::regex("([0-9a-f]{16})-([0-9]+)\n")));
  auto id = load_identity(DataDir{d});
  REQUIRE(id.ok());
  CHECK(m[1] == to_hex(id->instance));
  CHECK(m[2] == "1");
  CHECK(log_records(d, f.tmp.path()) == 1);
  CHECK(read_own_stream(d).texts == std::map<uint64_t, std::string>{{1, "measure twice"}});

  // Exactly at the limit is accepted (the other side of the 65536-byte bound).
  auto at_limit = run_vasana({"remember", "--data", d, "--realm", "r", "-"}, f.tmp.path(), std::string(65536, 'y'));
  CAPTURE(at_limit.err);
  CHECK(at_limit.status.code == 0);
  CHECK(log_records(d, f.tmp.path()) == 2);
}

TEST_CASE("the node itself refuses bad input that bypasses the command line") {
  DataFixture f;
  ServeProcess node(f.data, f.tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  auto ep = NodeClient::endpoint_of(f.data);
  REQUIRE(ep.ok());
  auto client = NodeClient::connect(*ep);
  REQUIRE(client.ok());
  auto remember = [&](MemoryInput m) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::remember;
    req.memory = std::move(m);
    auto r = client.value()->call(req, 10s);
    REQUIRE(r.ok());
    return r.value();
  };
  MemoryInput bad;
  bad.text = "no realm";
  auto r1 = remember(bad);
  CHECK(r1.kind == ClientResponse::Kind::error);
  CHECK(r1.error == ClientError::bad_input);
  CHECK(contains(r1.message, "realm"));
  bad.realm = "r";
  bad.text = std::string(65537, 'z');
  auto r2 = remember(bad);
  CHECK(r2.error == ClientError::bad_input);
  CHECK(contains(r2.message, "65537"));
  CHECK(log_records(f.data, f.tmp.path()) == 0);

  MemoryInput good;
  good.realm = "r";
  good.text = "fine";
  auto r3 = remember(good);
  CHECK(r3.kind == ClientResponse::Kind::remembered);
  CHECK(r3.id.seqno == Seqno(1));
  CHECK(log_records(f.data, f.tmp.path()) == 1);
}

TEST_CASE("remember says no node is running and exits 1 when nothing serves the data directory") {
  DataFixture f;
  auto r = run_vasana({"remember", "--data", f.data, "--realm", "r", "lost"}, f.tmp.path());
  check_fails(r, 1, {"no node is running", f.data});
  CHECK(log_records(f.data, f.tmp.path()) == 0);
}

TEST_CASE("remember says no node is running when a killed node left its endpoint file behind") {
  DataFixture f;
  {
    ServeProcess node(f.data, f.tmp.sub("serve.err"));
    REQUIRE(node.wait_ready() == "");
    CHECK(node.kill().signal == SIGKILL);
  }
  REQUIRE(fs::exists(f.data + "/client.endpoint"));  // stale: the killed node could not remove it
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_vasana({"remember", "--data", f.data, "--timeout-ms", "3000", "--realm", "r", "lost"}, f.tmp.path());
  const auto took = std::chrono::steady_clock::now() - t0;
  CAPTURE(std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  // Nobody holds the data directory's lock, so the command can know that no node runs there.
  check_fails(r, 1, {"no node is running", f.data});
  CHECK(log_records(f.data, f.tmp.path()) == 0);
}

TEST_CASE("verify exits 0 on a healthy directory and 1 on a flipped byte in a sealed segment") {
  DataFixture f;
  const std::string config = f.tmp.sub("small-segments.toml");
  write_text(config, "[writer]\nseal_segment_bytes = 4096\n");
  {
    ServeProcess node(f.data, f.tmp.sub("serve.err"), config);
    REQUIRE(node.wait_ready() == "");
    auto ep = NodeClient::endpoint_of(f.data);
    REQUIRE(ep.ok());
    auto client = NodeClient::connect(*ep);
    REQUIRE(client.ok());
    for (int i = 0; i < 120; ++i) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::remember;
      req.memory.realm = "r";
      req.memory.text = "memory number " + std::to_string(i) + " with some words to fill the segment";
      auto r = client.value()->call(req, 10s);
      REQUIRE(r.ok());
      REQUIRE(r->kind == ClientResponse::Kind::remembered);
    }
    auto st = node.terminate();
    REQUIRE(st);
    REQUIRE(st->code == 0);
  }
  OwnStream before = read_own_stream(f.data);
  REQUIRE(before.scan.segments.size() >= 3);
  REQUIRE(before.scan.segments[0].end == SegmentEnd::sealed);  // the config took effect
  CHECK(before.scan.records == 120);

  // The directory as --data DIR, as a plain word (the older form) and from $VASANA_DATA.
  const std::vector<std::vector<std::string>> forms = {{"verify", "--data", f.data}, {"verify", f.data}};
  for (const auto& form : forms) {
    auto healthy = run_vasana(form, f.tmp.path());
    CAPTURE(form, healthy.out, healthy.err);
    CHECK(healthy.status.code == 0);
    CHECK(contains(healthy.out, "verify: ok"));
  }
  auto from_env = run_program("/usr/bin/env", {"env", "VASANA_DATA=" + f.data, VASANA_BINARY, "verify"}, f.tmp.path());
  CAPTURE(from_env.out, from_env.err);
  CHECK(from_env.status.code == 0);
  CHECK(contains(from_env.out, "verify: ok"));

  // Flip one byte in the middle of the first (sealed) segment: inside a record.
  const std::string seg = before.scan.segments[0].path;
  std::string bytes = read_text(seg);
  REQUIRE(bytes.size() > 1000);
  bytes[bytes.size() / 2] ^= 0x01;
  write_text(seg, bytes);
  for (const auto& form : forms) {
    auto damaged = run_vasana(form, f.tmp.path());
    CAPTURE(form, damaged.out, damaged.err);
    CHECK(damaged.status.exited);
    CHECK(damaged.status.code == 1);
    CHECK(contains(damaged.out, "CORRUPTION FOUND"));
  }
  CHECK(read_text(seg) == bytes);  // verify changes nothing on disk
}

TEST_CASE("verify exits 2 on a directory that is not a data directory") {
  TempDir tmp;
  fs::create_directories(tmp.sub("plain"));
  check_fails(run_vasana({"verify", tmp.sub("plain")}, tmp.path()), 2, {"verify:", tmp.sub("plain")});
  check_fails(run_vasana({"verify", "--data", tmp.sub("plain")}, tmp.path()), 2, {"verify:", tmp.sub("plain")});
  check_fails(run_vasana({"verify"}, tmp.path()), 2, {"usage: vasana verify [--deep] --data DIR"});
  check_fails(run_vasana({"verify", "--data", tmp.sub("plain"), tmp.sub("plain")}, tmp.path()), 2,
              {"give the data directory once"});
  check_fails(run_vasana({"verify", "a", "b"}, tmp.path()), 2, {"usage: vasana verify"});
}

TEST_CASE("an unknown command exits 2 and names it") {
  TempDir tmp;
  check_fails(run_vasana({"frobnicate"}, tmp.path()), 2, {"unknown command 'frobnicate'"});
  check_fails(run_vasana({}, tmp.path()), 2, {"usage:"});
  auto help = run_vasana({"--help"}, tmp.path());
  CHECK(help.status.code == 0);
  CHECK(contains(help.out, "usage:"));
}

TEST_CASE("a command's --help prints that command's usage and exits 0, without a node") {
  TempDir tmp;
  auto update = run_vasana({"update", "--help"}, tmp.path());
  CHECK(update.status.code == 0);
  CHECK(contains(update.out, "usage: vasana update ID"));
  CHECK(contains(update.out, "--fact"));           // its continuation line
  CHECK_FALSE(contains(update.out, "forget ID"));  // no other command's line
  auto restore = run_vasana({"restore", "-h"}, tmp.path());
  CHECK(restore.status.code == 0);
  CHECK(contains(restore.out, "restore ID"));
  // After "--" a "--help" is text, and an unknown command's --help is still an unknown command.
  check_fails(run_vasana({"remember", "--", "--help"}, tmp.path()), 2, {"realm is required"});
  check_fails(run_vasana({"frobnicate", "--help"}, tmp.path()), 2, {"unknown command 'frobnicate'"});
}

TEST_CASE("serve refuses a bad config file with exit code 2, naming the key, before it starts") {
  DataFixture f;
  struct Bad {
    std::string toml;
    std::vector<std::string> needles;
  };
  const std::vector<Bad> cases = {
      {"[writer]\nseal_segment_byte = 4096\n", {"unknown key 'writer.seal_segment_byte'"}},
      {"[node]\nworker_threads = \"two\"\n", {"node.worker_threads", "must be an integer"}},
      {"[writer]\nseal_segment_bytes = 100\n", {"writer.seal_segment_bytes", "from 4096 to 1073741824", "got 100"}},
      {"[limits]\nmax_memory_bytes = 0\n", {"limits.max_memory_bytes", "got 0"}},
      {"[client]\ntcp = \"tcp://0.0.0.0:7410\"\n", {"client.tcp", "loopback"}},
      {"[wirter]\n", {"unknown section or key 'wirter'"}},
      {"[node\n", {"bad.toml"}},  // a TOML syntax error names the file
  };
  for (const auto& c : cases) {
    INFO("config:\n" << c.toml);
    const std::string config = f.tmp.sub("bad.toml");
    write_text(config, c.toml);
    auto r = run_vasana({"serve", "--data", f.data, "--config", config}, f.tmp.path(), "", 10s);
    check_fails(r, 2, c.needles);
    CHECK_FALSE(fs::exists(f.data + "/client.endpoint"));
  }
  // The positive control: a good config file starts the node.
  const std::string good = f.tmp.sub("good.toml");
  write_text(good, "[writer]\nseal_segment_bytes = 4096\n[node]\nworker_threads = 1\n");
  ServeProcess node(f.data, f.tmp.sub("serve.err"), good);
  CHECK(node.wait_ready() == "");
}

}  // namespace vasana::test
