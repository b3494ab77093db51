// Erasure across a cluster (docs/erasure.md): a memory written on one node, updated on another,
// with a fact drawn from it, is erased on the second while the third is down. Once the erase has
// reached each node (the third on catch-up after its restart), no byte of the memory's texts or
// its fact is left in any file of any node's data directory (segments, mirrors, checkpoint),
// every node still verifies, deep check included, and a memory that was not erased is still there.
#include <atomic>
#include <filesystem>
#include <random>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// The files under dir that hold needle (regular files only: the sockets are skipped). A running
// node's databases (checkpoint, archive) remove files while they compact: a scan that meets a
// file or folder that went away starts again (a file read as gone holds nothing).
std::vector<std::string> files_holding(const std::string& dir, const std::string& needle) {
  for (int attempt = 0;; ++attempt) {
    std::vector<std::string> out;
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec)) continue;
      if (read_text(it->path().string()).find(needle) != std::string::npos) out.push_back(it->path().string());
    }
    if (!ec || attempt == 20) {
      REQUIRE_FALSE(ec);  // a folder that keeps failing to list is a failure of the test's own
      return out;
    }
  }
}

// Waits until no file of node i's data directory holds any of needles; "" or where one still is.
std::string await_gone(TestCluster& c, size_t i, const std::vector<std::string>& needles, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::string left;
    for (const std::string& n : needles)
      for (const std::string& f : files_holding(c.node(i).data, n)) left += "'" + n + "' in " + f + "; ";
    if (left.empty() || std::chrono::steady_clock::now() > deadline) return left;
    std::this_thread::sleep_for(200ms);
  }
}

ClientResponse must_call(TestCluster& c, size_t i, ClientRequest req) {
  auto r = c.call(i, std::move(req));
  INFO(r.status().message());
  REQUIRE(r.ok());
  INFO(r->message);
  REQUIRE(r->kind != ClientResponse::Kind::error);
  return *r;
}

}  // namespace

TEST_CASE("an erase reaches every node, one that was down included: no byte of the text is left and all verify") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  // Unique strings, so that a find in a file can only be this memory's.
  const std::string mark = token(seed % 100000 + 1) + std::to_string(seed % 977);
  const std::string first = "the wifi passphrase is zebra" + mark + "kettle";
  const std::string second = "the wifi passphrase is now walrus" + mark + "teapot";
  const std::string object = "marmot" + mark + "saucer";
  const std::string kept = "the printer is on the second floor near " + mark + "stairs";

  auto id = c.remember(0, "home", first);
  REQUIRE(id.ok());
  REQUIRE(c.remember(0, "home", kept).ok());
  ClientRequest fact;
  fact.kind = ClientRequest::Kind::fact;
  fact.fact.realm = "home";
  fact.fact.fact = FactInput{"router", "passphrase", object};
  fact.fact.source_memory = *id;
  must_call(c, 0, fact);
  REQUIRE(c.await_converged(2, 20s) == "");
  ClientRequest update;  // on another node: the new text is in that node's own stream
  update.kind = ClientRequest::Kind::update;
  update.update.memory = *id;
  update.update.has_text = true;
  update.update.text = second;
  must_call(c, 1, update);
  REQUIRE(c.await_converged(2, 20s) == "");
  // Positive control: every node's directory holds both texts and the fact before the erase.
  for (size_t i = 0; i < 3; ++i)
    for (const std::string& s : {first, second, object, kept}) {
      CAPTURE(i, s);
      CHECK_FALSE(files_holding(c.node(i).data, s).empty());
    }

  c.kill(2);  // down while the erase is written: it erases on catch-up
  ClientRequest erase;
  erase.kind = ClientRequest::Kind::erase;
  erase.erase.memory = *id;
  erase.erase.reason = "a passphrase does not belong here";
  must_call(c, 1, erase);
  // A second erase of it is refused and says by whom it was erased.
  auto again = c.call(0, erase);
  for (int n = 0; n < 100 && again.ok() && again->kind != ClientResponse::Kind::error; ++n) {
    std::this_thread::sleep_for(100ms);
    again = c.call(0, erase);
  }
  REQUIRE(again.ok());
  CHECK(again->kind == ClientResponse::Kind::error);
  CHECK(again->error == ClientError::conflict);
  CHECK_THAT(again->message, Catch::Contains("already erased"));

  const std::vector<std::string> secrets = {first, second, object};
  REQUIRE(c.await_converged(2, 20s, {0, 1}) == "");
  CHECK(await_gone(c, 0, secrets, 30s) == "");
  CHECK(await_gone(c, 1, secrets, 30s) == "");
  // Node 2 still holds them: it has not seen the erase.
  CHECK_FALSE(files_holding(c.node(2).data, first).empty());

  REQUIRE(c.start(2) == "");
  REQUIRE(c.await_converged(2, 30s) == "");
  CHECK(await_gone(c, 2, secrets, 30s) == "");

  // What a reader sees: the memory erased, by whom and why, nothing of its text.
  ClientRequest get;
  get.kind = ClientRequest::Kind::get;
  get.get = *id;
  for (size_t i = 0; i < 3; ++i) {
    const ClientResponse r = must_call(c, i, get);
    CHECK(r.memory.erased);
    CHECK(r.memory.erased_by == "owner");
    CHECK(r.memory.status_reason == "a passphrase does not belong here");
    CHECK(r.memory.text.empty());
  }

  // A clean stop writes one more checkpoint; then every directory verifies, the checkpoint
  // against the log included, and still holds nothing of the erased memory.
  for (size_t i = 0; i < 3; ++i) REQUIRE(c.terminate(i) == "");
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    for (const std::string& s : secrets) CHECK(files_holding(c.node(i).data, s).empty());
    CHECK_FALSE(files_holding(c.node(i).data, kept).empty());  // negative control: the rest stays
    const CommandResult v = run_vasana({"verify", "--deep", "--data", c.node(i).data}, tmp.path(), "", 60s);
    INFO(v.out << v.err);
    CHECK(v.status.exited);
    CHECK(v.status.code == 0);
    CHECK_THAT(v.out, Catch::Contains("verify: ok"));
    CHECK_THAT(v.out, Catch::Matches("[\\s\\S]*\\(([1-9][0-9]*) redacted\\)[\\s\\S]*"));
  }
}

}  // namespace vasana::test
