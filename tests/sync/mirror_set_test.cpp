// MirrorSet (sync/mirror_set.hpp): claims and deliveries across peer sessions. One fetch in flight
// per writer; a session that sent bad bytes is passed over for that writer while another is
// given it; verified records are applied once, in order; the own writer is never fetched.
#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sync/mirror_set.hpp"
#include "sync/stream_heads.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

struct Applied {
  InstanceId writer;
  std::vector<MirroredRecord> records;
};

// A node (the mirror side) with its MirrorSet, StreamHeads and a recording apply function.
struct SetNode {
  MirrorNode node;
  StreamHeads heads;
  std::vector<Applied> applied;
  MirrorSet set;

  SetNode()
      : set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
            [this](InstanceId w, const std::vector<MirroredRecord>& r) { applied.push_back(Applied{w, r}); }) {}

  InstanceId own() const { return node.fx.id.instance; }
  // The advertised head once every delivery so far is synced (heads move after the syncer's
  // fdatasync, not in deliver()).
  std::optional<StreamHead> head(InstanceId writer) {
    set.flush();
    return heads.get(writer);
  }
  uint64_t version() {
    set.flush();
    return heads.version();
  }

  std::vector<MirroredRecord> applied_records(InstanceId writer) const {
    std::vector<MirroredRecord> out;
    for (const Applied& a : applied)
      if (a.writer == writer) out.insert(out.end(), a.records.begin(), a.records.end());
    return out;
  }
};

constexpr uint64_t kS1 = 1, kS2 = 2;

// Unlocks a test's gate (a mutex locked at its start, at which the set's apply function waits)
// once: by release(), or when the test ends early. Declared after the MirrorSet, so that it
// opens the gate before the set's destructor waits for its applier.
struct GateOpener {
  std::mutex& gate;
  bool open = false;
  void release() {
    if (!open) gate.unlock();
    open = true;
  }
  ~GateOpener() { release(); }
};

// Delivers what session fetched from origin until the set no longer claims anything for it.
void fetch_all(SetNode& n, uint64_t session, const Origin& origin, uint32_t max_bytes) {
  for (int round = 0; round < 1000; ++round) {
    auto fetches = n.set.claim(session, {origin.head()}, max_bytes);
    if (fetches.empty()) return;
    REQUIRE(fetches.size() == 1);
    auto d = n.set.deliver(session, origin.serve(fetches.front()));
    REQUIRE(d.ok());
    REQUIRE_FALSE(d->refused);
  }
  FAIL("the set kept claiming");
}

}  // namespace

TEST_CASE("mirror set: two sessions claim the same writer: one fetch in flight, given to one of them",
          "[sync][mirror_set]") {
  Origin origin(8, 500);
  SetNode n;
  const std::vector<StreamHead> adv = {origin.head()};

  auto f1 = n.set.claim(kS1, adv, 4096);
  REQUIRE(f1.size() == 1);
  CHECK(same_fetch(f1.front(), PeerFetch{origin.instance(), SegmentIndex(0), 0, 4096}));
  // Negative: while session 1's fetch is in flight, neither session 2 nor session 1 again gets it.
  CHECK(n.set.claim(kS2, adv, 4096).empty());
  CHECK(n.set.claim(kS1, adv, 4096).empty());

  // release() gives the claim up: session 2 may have it now.
  n.set.release(kS1);
  auto f2 = n.set.claim(kS2, adv, 4096);
  REQUIRE(f2.size() == 1);
  CHECK(n.set.claim(kS1, adv, 4096).empty());

  // Delivering releases it too; the next claim continues where the copy stands.
  auto d = n.set.deliver(kS2, origin.serve(f2.front()));
  REQUIRE(d.ok());
  CHECK_FALSE(d->refused);
  CHECK(d->records > 0);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  REQUIRE(layout[0].file_bytes <= 4096);  // the first chunk was all of segment 0
  CHECK(d->records == layout[0].records.size());
  auto f3 = n.set.claim(kS1, adv, 4096);
  REQUIRE(f3.size() == 1);
  CHECK(same_fetch(f3.front(), PeerFetch{origin.instance(), SegmentIndex(1), 0, 4096}));
  REQUIRE(n.head(origin.instance()).has_value());
  CHECK(n.head(origin.instance())->last_seqno == Seqno(d->records));

  // A peer that is not ahead gets nothing claimed for it.
  n.set.release(kS1);
  fetch_all(n, kS2, origin, 1u << 20);
  CHECK(n.set.claim(kS1, adv, 4096).empty());
  CHECK(n.set.claim(kS2, adv, 4096).empty());
  CHECK(same_head(*n.head(origin.instance()), origin.head()));
}

TEST_CASE("mirror set: after bad bytes from session 1 the writer goes to session 2, whose good chunk is applied once, in "
          "order",
          "[sync][mirror_set][corruption]") {
  Origin origin(10, 500);
  SetNode n;
  const std::vector<StreamHead> adv = {origin.head()};
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());

  auto f1 = n.set.claim(kS1, adv, 1u << 20);
  REQUIRE(f1.size() == 1);
  PeerChunk bad = origin.serve(f1.front());
  const uint64_t in_payload = layout[0].records[1].offset + 60;  // a record in the middle of the chunk
  bad.bytes = flip(bad.bytes, in_payload);
  const uint64_t version = n.version();
  auto d1 = n.set.deliver(kS1, bad);
  REQUIRE(d1.ok());
  CHECK(d1->refused);
  CHECK_FALSE(d1->problem.empty());
  CHECK(d1->records == 0);
  CHECK(d1->bytes == 0);
  CHECK(n.applied.empty());
  CHECK(n.version() == version);
  CHECK_FALSE(n.head(origin.instance()).has_value());
  CHECK(file_sizes(n.node.wdir(origin.instance())).empty());

  // Session 1 is passed over for this writer; session 2 gets the fetch, from the same place.
  CHECK(n.set.claim(kS1, adv, 1u << 20).empty());
  auto f2 = n.set.claim(kS2, adv, 1u << 20);
  REQUIRE(f2.size() == 1);
  CHECK(same_fetch(f2.front(), f1.front()));
  CHECK(n.set.claim(kS1, adv, 1u << 20).empty());  // still shunned (and session 2's fetch is in flight)

  auto d2 = n.set.deliver(kS2, origin.serve(f2.front()));
  REQUIRE(d2.ok());
  CHECK_FALSE(d2->refused);
  CHECK(d2->records == layout[0].records.size());
  REQUIRE(n.applied.size() == 1);
  CHECK(n.applied[0].writer == origin.instance());
  check_records_exactly_once(n.applied[0].records, slice(origin.written, 0, layout[0].records.size()));
  REQUIRE(n.head(origin.instance()).has_value());
  CHECK(n.head(origin.instance())->last_seqno == layout[0].records.back().seqno);

  // Session 1 is still passed over while session 2 fetches the rest; every record is applied
  // exactly once, in order, and the copy is the origin's, byte for byte.
  CHECK(n.set.claim(kS1, adv, 1u << 20).empty());
  fetch_all(n, kS2, origin, 300);
  check_records_exactly_once(n.applied_records(origin.instance()), origin.written);
  check_byte_identical(origin, n.node.wdir(origin.instance()));
  CHECK(same_head(*n.head(origin.instance()), origin.head()));

  // A stale chunk delivered late (session 1's old answer) changes nothing and applies nothing.
  const size_t applied_before = n.applied.size();
  auto late = n.set.deliver(kS1, origin.serve(f1.front()));
  REQUIRE(late.ok());
  CHECK_FALSE(late->refused);
  CHECK(late->records == 0);
  CHECK(n.applied.size() == applied_before);
  check_byte_identical(origin, n.node.wdir(origin.instance()));
}

TEST_CASE("mirror set: the own writer is never claimed nor stored, other writers in the same advert are",
          "[sync][mirror_set]") {
  Origin origin(4, 500);
  SetNode n;
  StreamHead own = origin.head();
  own.writer = n.own();  // a peer advertising this node's own writer, further than it is here
  own.last_seqno = Seqno(1000);
  own.segment = SegmentIndex(50);
  StreamHead zero = origin.head();
  zero.writer = InstanceId(0);

  auto fetches = n.set.claim(kS1, {own, zero, origin.head()}, 4096);
  // Positive control: the other writer in the same advert is claimed.
  REQUIRE(fetches.size() == 1);
  CHECK(fetches.front().writer == origin.instance());
  for (uint64_t s : {kS1, kS2}) {
    for (const auto& f : n.set.claim(s, {own}, 4096)) CHECK(f.writer != n.own());
    CHECK(n.set.claim(s, {own}, 4096).empty());
  }
  // A chunk for the own writer is neither stored nor applied.
  PeerChunk c = origin.serve(PeerFetch{origin.instance(), SegmentIndex(0), 0, 4096});
  c.writer = n.own();
  auto d = n.set.deliver(kS1, c);
  REQUIRE(d.ok());
  CHECK(d->records == 0);
  CHECK(d->bytes == 0);
  CHECK(n.applied.empty());
  CHECK_FALSE(n.head(n.own()).has_value());
  CHECK_FALSE(fs::exists(n.node.wdir(n.own()) + "/" + segment_file_name(SegmentIndex(0))));
}

TEST_CASE("mirror set: a copy added at start-up is advertised and fetching continues where it stands",
          "[sync][mirror_set]") {
  Origin origin(8, 500);
  const StreamHead before = origin.head();
  SetNode n;
  {
    // The node's copy of the origin, made earlier (up to before).
    auto m = open_empty_mirror(n.node.dir(), origin.instance(), origin.space());
    DriveResult r = drive(*m, origin, 1u << 20);
    REQUIRE(r.caught_up);
  }
  origin.append(/*seal=*/false);
  auto s = scan_writer(n.node.wdir(origin.instance()), origin.instance(), origin.space(), false, nullptr);
  REQUIRE(s.ok());
  std::vector<std::string> actions;
  auto m = WriterMirror::open(n.node.dir(), origin.instance(), origin.space(), s.value(), &actions);
  REQUIRE(m.ok());
  // Negative control: an empty copy added for another writer is not advertised.
  n.set.add(open_empty_mirror(n.node.dir(), InstanceId(0x5151), origin.space()));
  CHECK_FALSE(n.head(InstanceId(0x5151)).has_value());
  n.set.add(std::move(m.value()));
  REQUIRE(n.head(origin.instance()).has_value());
  CHECK(same_head(*n.head(origin.instance()), before));

  auto f = n.set.claim(kS1, {origin.head()}, 4096);
  REQUIRE(f.size() == 1);
  CHECK(same_fetch(f.front(), PeerFetch{origin.instance(), before.segment, before.segment_bytes, 4096}));
  auto d = n.set.deliver(kS1, origin.serve(f.front()));
  REQUIRE(d.ok());
  CHECK(d->records == 1);
  check_records_exactly_once(n.applied_records(origin.instance()), origin.written, origin.written.size() - 1);
  CHECK(same_head(*n.head(origin.instance()), origin.head()));
}

// A chunk whose last record is damaged is not refused (writer_mirror_test: the verifier calls it
// a torn tail), so the peer that sent it is never passed over: it is given the same fetch again
// and again, and the writer stands still while that peer keeps the claim.
TEST_CASE("mirror set: a session whose chunk ends in a damaged record is refused and passed over",
          "[sync][mirror_set][corruption]") {
  Origin origin(6, 1u << 20);  // one open segment
  const StreamHead before = origin.head();
  origin.append(/*seal=*/false);
  SetNode n;
  {
    auto m = open_empty_mirror(n.node.dir(), origin.instance(), origin.space());
    REQUIRE(drive(*m, serve_at(origin.dir(), before), before, 1u << 20).caught_up);
    n.set.add(std::move(m));
  }
  const std::vector<StreamHead> adv = {origin.head()};
  auto f1 = n.set.claim(kS1, adv, 1u << 20);
  REQUIRE(f1.size() == 1);
  PeerChunk bad = origin.serve(f1.front());  // exactly the one new record
  bad.bytes = flip(bad.bytes, bad.bytes.size() - 1);
  auto d1 = n.set.deliver(kS1, bad);
  REQUIRE(d1.ok());
  CHECK(d1->refused);
  CHECK(d1->records == 0);
  CHECK(n.set.claim(kS1, adv, 1u << 20).empty());  // passed over
  // Positive control: session 2's good chunk is applied.
  auto f2 = n.set.claim(kS2, adv, 1u << 20);
  REQUIRE(f2.size() == 1);
  auto d2 = n.set.deliver(kS2, origin.serve(f2.front()));
  REQUIRE(d2.ok());
  CHECK(d2->records == 1);
  check_records_exactly_once(n.applied_records(origin.instance()), origin.written, origin.written.size() - 1);
}

// A claim whose chunk never came is given up after kClaimTimeout (10 s, sync/mirror_set.cpp):
// another session may take it then, and so must the session that made it (its fetch or chunk was
// lost while its connection stayed up, e.g. dropped at the server's send high-water mark or an
// unreadable message): with no other peer holding the writer, it would never be fetched again.
// This test sleeps for the timeout (about 10 s).
TEST_CASE("mirror set: a claim whose chunk never came is given up after the claim timeout, also to its own session",
          "[sync][mirror_set][slow]") {
  Origin a(3, 1u << 20), b(3, 1u << 20);
  SetNode n;
  auto both = n.set.claim(kS1, {a.head(), b.head()}, 4096);
  REQUIRE(both.size() == 2);
  // Negative control: while the claims are fresh, nobody gets them again.
  CHECK(n.set.claim(kS1, {a.head(), b.head()}, 4096).empty());
  CHECK(n.set.claim(kS2, {a.head(), b.head()}, 4096).empty());

  std::this_thread::sleep_for(std::chrono::seconds(10) + std::chrono::milliseconds(200));
  // Both chunks were lost. Another session takes writer a over ...
  auto to2 = n.set.claim(kS2, {a.head()}, 4096);
  REQUIRE(to2.size() == 1);
  CHECK(to2.front().writer == a.instance());
  // ... and session 1, whose claim on b timed out too, is given b again.
  auto to1 = n.set.claim(kS1, {b.head()}, 4096);
  CHECK(to1.size() == 1);
  // The fetches complete both copies.
  REQUIRE(n.set.deliver(kS2, a.serve(to2.front())).ok());
  if (!to1.empty()) REQUIRE(n.set.deliver(kS1, b.serve(to1.front())).ok());
  check_records_exactly_once(n.applied_records(a.instance()), a.written);
  check_records_exactly_once(n.applied_records(b.instance()), b.written);
}

TEST_CASE("mirror set: a chunk accepted and not yet applied holds its writer, and its head moves only once applied",
          "[sync][mirror_set]") {
  Origin origin(8, 500);
  // The apply function blocks until the test lets it go: the chunk stays queued meanwhile.
  std::mutex gate;
  gate.lock();
  std::vector<Applied> applied;
  MirrorNode node;
  StreamHeads heads;
  MirrorSet set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
                [&](InstanceId w, const std::vector<MirroredRecord>& r) {
                  std::lock_guard<std::mutex> g(gate);
                  applied.push_back(Applied{w, r});
                },
                nullptr, /*apply_inline_at_most=*/0);  // every chunk waits at the gate, on the applier
  GateOpener opener{gate};
  const std::vector<StreamHead> adv = {origin.head()};
  auto f1 = set.claim(kS1, adv, 4096);
  REQUIRE(f1.size() == 1);
  auto d1 = set.accept(kS1, origin.serve(f1.front()));
  REQUIRE(d1.ok());
  REQUIRE(d1->bytes > 0);
  REQUIRE(d1->records > 0);

  // Held for session 1: session 2 claims nothing of it, and a chunk it brings anyway (a push) is
  // stale: nothing stored. Session 1 may ask for its next chunk meanwhile, and store it.
  CHECK(set.claim(kS2, adv, 4096).empty());
  auto next = set.claim(kS1, adv, 4096);
  REQUIRE(next.size() == 1);
  CHECK(same_fetch(next.front(), PeerFetch{origin.instance(), SegmentIndex(1), 0, 4096}));
  auto pushed = set.accept(kS2, origin.serve(next.front()));
  REQUIRE(pushed.ok());
  CHECK(pushed->bytes == 0);
  auto d2 = set.accept(kS1, origin.serve(next.front()));
  REQUIRE(d2.ok());
  CHECK(d2->records > 0);

  // Stored on disk, not applied: the syncer advertises nothing of it yet.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(heads.get(origin.instance()).has_value());

  opener.release();
  set.flush();  // applied, synced, head moved
  REQUIRE(applied.size() == 2);
  auto head = heads.get(origin.instance());
  REQUIRE(head.has_value());
  CHECK(head->last_seqno == Seqno(d1->records + d2->records));
  size_t n = 0;
  for (const Applied& a : applied)
    for (const MirroredRecord& r : a.records) CHECK(r.seqno == Seqno(++n));  // each once, in order

  // Free again: session 2 may fetch the rest.
  auto f3 = set.claim(kS2, adv, 4096);
  CHECK(f3.size() == 1);
}

TEST_CASE("mirror set: a small chunk with nothing before it is applied by accept itself, a large one or one behind "
          "a chunk being applied, goes to the applier thread, in order",
          "[sync][mirror_set]") {
  Origin big(100, 1u << 20);  // one open segment of 100 records: one chunk
  Origin small(2, 1u << 20);
  struct Call {
    InstanceId writer;
    size_t records;
    std::thread::id thread;
  };
  std::mutex mutex;
  std::vector<Call> calls;
  // Chunks above the inline limit wait at the gate (on the applier thread) until the test opens it.
  std::mutex gate;
  gate.lock();
  MirrorNode node;
  StreamHeads heads;
  MirrorSet set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
                [&](InstanceId w, const std::vector<MirroredRecord>& r) {
                  if (r.size() > MirrorSet::kApplyInlineAtMost) {
                    std::lock_guard<std::mutex> wait_for_the_gate(gate);
                  }
                  std::lock_guard<std::mutex> g(mutex);
                  calls.push_back(Call{w, r.size(), std::this_thread::get_id()});
                });
  GateOpener opener{gate};
  auto count = [&] {
    std::lock_guard<std::mutex> g(mutex);
    return calls.size();
  };
  const auto me = std::this_thread::get_id();
  // session fetches origin's next chunk and hands it to accept().
  auto fetch_next = [&](uint64_t session, const Origin& origin) {
    auto f = set.claim(session, {origin.head()}, 1u << 20);
    REQUIRE(f.size() == 1);
    auto d = set.accept(session, origin.serve(f.front()));
    REQUIRE(d.ok());
    return d.value();
  };

  // Positive control: two records, nothing queued, the applier idle: applied before accept returns,
  // on this thread.
  auto ds = fetch_next(kS1, small);
  CHECK(ds.records == 2);
  CHECK(ds.applied);
  REQUIRE(count() == 1);
  CHECK(calls[0].thread == me);

  // 100 records: queued for the applier, which holds it at the gate.
  auto db = fetch_next(kS2, big);
  CHECK(db.records == 100);
  CHECK_FALSE(db.applied);

  // A small chunk while the big one is being applied: queued behind it, not applied here.
  small.append(false);
  auto ds2 = fetch_next(kS1, small);
  CHECK(ds2.records == 1);
  CHECK_FALSE(ds2.applied);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(count() == 1);  // neither applied yet: the big one waits at the gate, the small one behind it

  opener.release();
  set.flush();
  REQUIRE(calls.size() == 3);
  CHECK(calls[1].writer == big.instance());
  CHECK(calls[1].records == 100);
  CHECK(calls[1].thread != me);
  CHECK(calls[2].writer == small.instance());
  CHECK(calls[2].thread != me);
  const auto small_head = heads.get(small.instance()), big_head = heads.get(big.instance());
  REQUIRE(small_head.has_value());
  REQUIRE(big_head.has_value());
  CHECK(small_head->last_seqno == Seqno(3));
  CHECK(big_head->last_seqno == Seqno(100));
}
