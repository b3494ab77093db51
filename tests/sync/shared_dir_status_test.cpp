// SharedDirTailer::status (sync/shared_dir_tailer.hpp): in shared-directory mode each sibling
// shows as a peer, with per-writer lag read from its files beyond this node's durable copy.
// Two data directories side by side under one parent: a sibling whose writer has written
// records with the real LogWriter, and this node's, following it.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "store/data_dir.hpp"
#include "sync/mirror_set.hpp"
#include "sync/shared_dir_tailer.hpp"
#include "sync/stream_heads.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

struct Sibling {
  DataDir dir;
  Identity id;
  std::unique_ptr<LogWriter> writer;
  Sibling(const std::string& root, uint64_t records) {
    dir.root = root;
    auto r = init_data_dir(dir, VectorSpace{});
    REQUIRE(r.ok());
    id = *r;
    writer = open_writer(dir.writer_dir(id.instance), id.instance, id.vector_space, StreamTail{}, LogWriterOptions{});
    for (uint64_t i = 1; i <= records; ++i) {
      writer->stage(test_ts(i), kPut, put_payload(i));
      REQUIRE(writer->commit().ok());
    }
  }
};

// Waits until status() lists the sibling with a writer entry; returns it.
// Waits until the sibling shows want_applied applied and at least min_chunks chunks counted (the
// tailer counts a chunk after the delivery that applied it returned, so the count may lag).
PeerStatus sibling_status(const SharedDirTailer& t, const StreamHeads& heads, InstanceId own, uint64_t want_applied,
                          uint64_t min_chunks = 0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    auto st = t.status(heads, own);
    if (st.size() == 1 && st[0].writers.size() == 1 && st[0].writers[0].applied_seqno >= want_applied &&
        st[0].chunks_received >= min_chunks)
      return st[0];
    if (std::chrono::steady_clock::now() > deadline) {
      FAIL("the sibling never showed as wanted");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

TEST_CASE("shared directory status: a sibling is a peer, a follower that took everything shows no lag, one that "
          "refuses the bytes shows every op as lag",
          "[sync][shared_dir]") {
  TempDir parent;
  Sibling origin(parent.sub("a"), 5);

  SECTION("a follower of the same vector space catches up: up, level, chunks counted") {
    DataDir mine{parent.sub("b")};
    auto id = init_data_dir(mine, VectorSpace{});
    REQUIRE(id.ok());
    StreamHeads heads;
    MirrorSet set(mine, id->vector_space, id->instance, &heads, [](InstanceId, const std::vector<MirroredRecord>&) {});
    auto t = SharedDirTailer::start(parent.path(), mine.root, &set, 1u << 20, std::chrono::milliseconds(10),
                                    [](const std::string&) {});
    const PeerStatus p = sibling_status(*t, heads, id->instance, 5, /*min_chunks=*/1);
    CHECK(p.address == origin.dir.root);
    CHECK(p.instance == to_hex(origin.id.instance));
    CHECK(p.up);
    CHECK(p.chunks_received >= 1);
    CHECK(p.chunks_refused == 0);
    CHECK(p.writers[0].writer == to_hex(origin.id.instance));
    CHECK(p.writers[0].peer_seqno == 5);
    CHECK(p.writers[0].lag_ops == 0);
    CHECK(p.writers[0].lag_seconds == 0);
  }

  SECTION("a follower of another vector space refuses every chunk: all five ops are lag, with their age") {
    DataDir mine{parent.sub("b")};
    VectorSpace other;
    other.dim = 8;
    auto id = init_data_dir(mine, other);
    REQUIRE(id.ok());
    StreamHeads heads;
    MirrorSet set(mine, other, id->instance, &heads, [](InstanceId, const std::vector<MirroredRecord>&) {});
    auto t = SharedDirTailer::start(parent.path(), mine.root, &set, 1u << 20, std::chrono::milliseconds(10),
                                    [](const std::string&) {});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::vector<PeerStatus> st;
    while (std::chrono::steady_clock::now() < deadline) {
      st = t->status(heads, id->instance);
      if (st.size() == 1 && st[0].chunks_refused > 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(st.size() == 1);
    CHECK(st[0].chunks_refused > 0);
    CHECK(st[0].chunks_received == 0);
    REQUIRE(st[0].writers.size() == 1);
    CHECK(st[0].writers[0].applied_seqno == 0);
    CHECK(st[0].writers[0].peer_seqno == 5);
    CHECK(st[0].writers[0].lag_ops == 5);
    CHECK(st[0].writers[0].lag_seconds > 0);  // the records' timestamps are in 2023
  }
}
