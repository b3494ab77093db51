// A forked child (actors/forked_child.hpp) has only the forking thread: a lock another thread held
// at the fork stays held in it for ever. glibc's exit-handler lock is one such lock, taken by every
// thread that registers a destructor (a function-local static's first use does). The children's
// work (the state digest, the state's encoding with its item table, every lane's snapshot) must
// not take it: here another thread registers exit handlers without pause while children are
// forked, and each child must answer. Run alone (ctest runs each case in its own process), so the
// child is the first to read every default value.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "actors/forked_child.hpp"
#include "replica/lane_registry.hpp"
#include "replica/state_codec.hpp"
#include "tests/replica/engine_puts.hpp"

namespace vasana {

namespace {

void no_op() {}

// Registers exit handlers (each takes glibc's exit-handler lock) until stopped, at most `limit`.
class ExitHandlerFlood {
 public:
  explicit ExitHandlerFlood(size_t limit)
      : thread_([this, limit] {
          for (size_t i = 0; i < limit && !stop_.load(std::memory_order_relaxed); ++i) {
            std::atexit(no_op);
            registered_.fetch_add(1, std::memory_order_relaxed);
          }
        }) {}
  ~ExitHandlerFlood() {
    stop_ = true;
    thread_.join();
  }
  size_t registered() const { return registered_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<size_t> registered_{0};
  std::thread thread_;
};

}  // namespace

TEST_CASE("forked children digest and encode the state and snapshot the lanes while another thread registers exit handlers") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  for (uint64_t i = 1; i <= 40; ++i) test::put_text(e, InstanceId(7), i, "memory number " + std::to_string(i));
  // The same work in this process first would hide the hazard: the child reads what nothing read
  // (what it must answer is computed after the children).
  ExitHandlerFlood flood(2000000);
  while (flood.registered() < 1000) std::this_thread::yield();
  int answered = 0;
  std::vector<Hash256> digests;
  std::vector<uint64_t> lane_counts;
  for (int k = 0; k < 12; ++k) {
    Hash256 digest{};
    uint64_t lanes = 0, chunks = 0;
    Status st = run_in_forked_child(
        [&](const std::function<void()>& fork_here) { e.hold_still(fork_here); },
        [&](PipeWriter& w) {
          Hash256 d{};
          size_t encoded_chunks = 0;
          std::vector<LaneSnapshot> snaps = e.snapshot_held([&](const ReplicaState& s) {
            d = s.digest();
            StateItemTable items;
            encoded_chunks = StateCodec::encode(s, &items).chunks.size();
          });
          w.raw(d.data(), d.size());
          w.u64(snaps.size());
          w.u64(encoded_chunks);
          return true;
        },
        [&](PipeReader& r) { return r.raw(digest.data(), digest.size()) && r.u64(&lanes) && r.u64(&chunks); },
        std::chrono::seconds(2), "its answer does not parse");
    INFO("child " << k << ": " << st.to_string());
    CHECK(st.ok());
    if (!st.ok()) continue;
    ++answered;
    digests.push_back(digest);
    lane_counts.push_back(lanes);
    CHECK(chunks >= 1);
  }
  CHECK(answered == 12);
  CHECK(flood.registered() >= 1000);  // the flood was running while the children worked
  const Hash256 expected = e.digest();
  const size_t snapshots = e.snapshot_lanes([](const ReplicaState&) {}).size();
  REQUIRE(snapshots >= 1);
  for (const Hash256& d : digests) CHECK(d == expected);
  for (uint64_t n : lane_counts) CHECK(n == snapshots);
}

}  // namespace vasana
