// A crash workload (FoundationDB style: setup, start, check, under a fault): client threads
// remember memories as fast as they can while the node is SIGKILLed (or, in one variant,
// stopped with SIGTERM) at a random moment, then
// the invariant is checked on disk: every acknowledged memory is in the log with exactly the
// text that was acknowledged, `vasana verify` calls the directory healthy (a torn tail is not
// corruption), and the restarted node continues the stream where the log ends.
//
// Randomness (kill moments, text lengths) comes from one seeded generator; the seed is in the
// failure report. Replay with VASANA_TEST_SEED=<seed>. Thread interleavings are not replayed.
#include <catch2/catch.hpp>

#include <zmq.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "frontends/node_client.hpp"
#include "protocol/ids.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

constexpr int kRounds = 3;
constexpr size_t kThreads = 8;
constexpr auto kCallTimeout = 1000ms;

uint64_t test_seed() {
  if (const char* s = std::getenv("VASANA_TEST_SEED"); s && *s) return std::strtoull(s, nullptr, 10);
  return std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32);
}

ClientRequest remember_request(const std::string& text) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = "crash";
  req.memory.kind = "episode";
  req.memory.text = text;
  return req;
}

struct Acked {
  MemoryId id;
  std::string text;
};

// What one storm saw, over all its client threads.
struct StormOutcome {
  std::vector<Acked> acked;
  std::set<std::string> sent;        // every text sent, acknowledged or not
  size_t unknown = 0;                // calls without an answer (in flight at the kill)
  std::vector<std::string> errors;   // error answers from the live node
};

// How the storm ends: SIGKILL (a crash) or SIGTERM (an orderly stop).
enum class Fault { kill, terminate };

// Client threads remember as fast as they can until the node is stopped by fault after
// fault_after.
StormOutcome storm(ServeProcess& node, int round, std::mt19937_64& rng, Fault fault,
                   std::chrono::milliseconds fault_after) {
  auto ep = NodeClient::endpoint_of(node.dir());
  REQUIRE(ep.ok());
  StormOutcome out;
  std::mutex mu;
  std::atomic<bool> stop{false};
  zmq::context_t ctx(1);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    const uint64_t thread_seed = rng();
    threads.emplace_back([&, t, thread_seed] {
      std::mt19937_64 r(thread_seed);
      auto client = NodeClient::connect(*ep, &ctx);
      if (!client.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        out.errors.push_back(client.status().message());
        return;
      }
      for (uint64_t counter = 0; !stop.load(); ++counter) {
        std::string text = "round " + std::to_string(round) + " thread " + std::to_string(t) + " memory " +
                           std::to_string(counter) + " " + std::string(r() % 300, char('a' + r() % 26));
        {
          std::lock_guard<std::mutex> lock(mu);
          out.sent.insert(text);
        }
        auto res = client.value()->call(remember_request(text), kCallTimeout);
        std::lock_guard<std::mutex> lock(mu);
        if (!res.ok()) {
          ++out.unknown;
        } else if (res->kind == ClientResponse::Kind::remembered) {
          out.acked.push_back(Acked{res->id, text});
        } else {
          out.errors.push_back(res->message);
        }
      }
    });
  }
  std::this_thread::sleep_for(fault_after);
  const bool was_running = node.running();
  std::optional<ExitStatus> ended = fault == Fault::kill ? node.kill() : node.terminate();
  stop = true;
  for (auto& th : threads) th.join();  // before any REQUIRE can throw

  CHECK(was_running);  // it was running until the fault, not dead before it
  REQUIRE(ended);
  CAPTURE(ended->describe(), node.stderr_text());
  if (fault == Fault::kill) {
    CHECK(ended->signal == SIGKILL);
  } else {
    CHECK(ended->exited);
    CHECK(ended->code == 0);
    CHECK_FALSE(fs::exists(node.dir() + "/client.endpoint"));
  }
  return out;
}

// Remembers one memory on a fresh client; its id, or a failure.
MemoryId remember_one(const std::string& dir, const std::string& text) {
  auto ep = NodeClient::endpoint_of(dir);
  REQUIRE(ep.ok());
  auto client = NodeClient::connect(*ep);
  REQUIRE(client.ok());
  auto res = client.value()->call(remember_request(text), 10s);
  REQUIRE(res.ok());
  INFO(res->message);
  REQUIRE(res->kind == ClientResponse::Kind::remembered);
  return res->id;
}

// The crash workload on one data directory, with an optional config file for serve.
void crash_workload(const std::string& config_text, Fault fault = Fault::kill) {
  const uint64_t seed = test_seed();
  INFO("seed " << seed << " (replay with VASANA_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  TempDir tmp;
  const std::string data = tmp.sub("data");
  std::string config;
  if (!config_text.empty()) {
    config = tmp.sub("vasana.toml");
    write_text(config, config_text);
  }
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");

  std::map<uint64_t, std::string> acked;  // seqno -> text, over every round
  std::set<std::string> sent;
  auto node = std::make_unique<ServeProcess>(data, tmp.sub("serve-0.err"), config);
  REQUIRE(node->wait_ready() == "");

  for (int round = 0; round < kRounds; ++round) {
    const auto fault_after = std::chrono::milliseconds(200 + rng() % 601);
    INFO("round " << round << ", " << (fault == Fault::kill ? "SIGKILL" : "SIGTERM") << " after "
                  << fault_after.count() << " ms");
    StormOutcome o = storm(*node, round, rng, fault, fault_after);
    CAPTURE(o.acked.size(), o.unknown, o.errors.size());
    for (const auto& e : o.errors) FAIL_CHECK("error answer from the node: " << e);
    CHECK(o.acked.size() > 50);       // the storm did write
    CHECK(o.unknown <= kThreads);     // only calls in flight at the kill went unanswered
    sent.insert(o.sent.begin(), o.sent.end());

    // A torn tail is how a killed writer leaves its segment: not corruption.
    auto verify = run_vasana({"verify", data}, tmp.path());
    CAPTURE(verify.out, verify.err);
    CHECK(verify.status.exited);
    CHECK(verify.status.code == 0);
    CHECK(contains(verify.out, "verify: ok"));

    OwnStream disk = read_own_stream(data);
    CHECK(disk.scan.healthy());
    CHECK(disk.undecodable == 0);
    // Every acknowledged memory is there, under its id, with exactly its text.
    size_t missing = 0, wrong = 0;
    for (const auto& a : o.acked) {
      CHECK(a.id.instance == disk.identity.instance);
      auto it = disk.texts.find(a.id.seqno.value);
      if (it == disk.texts.end()) {
        if (++missing <= 5) FAIL_CHECK("acknowledged " << a.id.to_string() << " is not in the log: " << a.text);
      } else if (it->second != a.text) {
        if (++wrong <= 5) FAIL_CHECK("acknowledged " << a.id.to_string() << " has another text in the log");
      }
      CHECK(acked.emplace(a.id.seqno.value, a.text).second);  // no id was handed out twice
    }
    CHECK(missing == 0);
    CHECK(wrong == 0);
    // And nothing else: every record holds a text some client sent, none of them twice, and the
    // stream is gapless from 1.
    std::set<std::string> seen;
    for (const auto& [seqno, text] : disk.texts) {
      if (!sent.count(text)) FAIL_CHECK("seqno " << seqno << " holds a text nobody sent");
      CHECK(seen.insert(text).second);
    }
    CHECK(disk.texts.size() == disk.scan.records);
    CHECK((disk.texts.empty() || disk.texts.rbegin()->first == disk.scan.last_seqno.value));

    // The restarted node continues the stream right after the last record on disk.
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve-" + std::to_string(round + 1) + ".err"), config);
    REQUIRE(node->wait_ready() == "");
    const std::string text = "after restart " + std::to_string(round);
    MemoryId next = remember_one(data, text);
    CHECK(next.instance == disk.identity.instance);
    CHECK(next.seqno.value == disk.scan.last_seqno.value + 1);
    acked.emplace(next.seqno.value, text);
    sent.insert(text);
  }

  auto stopped = node->terminate();
  REQUIRE(stopped);
  CHECK(stopped->code == 0);
  OwnStream final_disk = read_own_stream(data);
  CHECK(final_disk.scan.healthy());
  size_t missing = 0;
  for (const auto& [seqno, text] : acked) {
    auto it = final_disk.texts.find(seqno);
    missing += it == final_disk.texts.end() || it->second != text;
  }
  CAPTURE(acked.size(), final_disk.texts.size());
  CHECK(missing == 0);
}

}  // namespace

TEST_CASE("every acknowledged memory survives a SIGKILL of the node") { crash_workload(""); }

TEST_CASE("every acknowledged memory survives a SIGKILL of the node that seals a segment every few records") {
  crash_workload("[writer]\nseal_segment_bytes = 4096\n");
}

TEST_CASE("a node stopped with SIGTERM in the middle of a write storm exits 0 and keeps every acknowledged memory") {
  crash_workload("", Fault::terminate);
}

}  // namespace vasana::test
