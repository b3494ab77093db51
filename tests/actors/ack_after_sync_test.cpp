// The writer actor's durability contract (actors/writer_actor.hpp): an append is answered only
// after the fdatasync that covers its record returned, exactly once, and never with ok when
// that sync failed. The real actor runs in a real actor system over a recording fake file
// system (recording_file_system.hpp), which logs appends, syncs and acknowledgements in one
// order.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/writer_actor.hpp"
#include "actors/writer_state.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/hybrid_clock.hpp"
#include "store/log_writer.hpp"
#include "tests/actors/recording_file_system.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

constexpr InstanceId kInstance{0x5eedf00d12345678ull};
constexpr auto kWait = 20s;  // upper bound of every wait for acknowledgements

struct TwoThreadConfig : caf::actor_system_config {
  TwoThreadConfig() { set("scheduler.max-threads", int64_t{2}); }
};

std::string put_payload(size_t i) {
  MemoryInput m;
  m.realm = "tests";
  m.kind = "episode";
  m.text = "request " + std::to_string(i);
  return encode_put_memory(m);
}

// A real writer actor in a real actor system, over a RecordingFileSystem.
// With a subscriber, as the node's replica is one: it logs a notify event per batch it gets, and
// the writer moves acknowledged() before it answers.
class WriterHarness {
 public:
  explicit WriterHarness(SyncFaults faults, bool with_subscriber = false) : fs_(log_, faults) {
    auto w = LogWriter::open(fs_, "/fake/writers/" + to_hex(kInstance), kInstance, VectorSpace{}, StreamTail{},
                             LogWriterOptions{}, system_wall_ms());
    REQUIRE(w.ok());
    auto state = std::make_shared<WriterState>(kInstance, std::move(w.value()), HybridClock(system_wall_ms),
                                               GroupCommitOptions{}, "");
    if (with_subscriber) {
      state->set_acknowledged(acknowledged_);
      state->subscribe([log = &log_](const WriterState::CommittedBatch& batch) {
        Event e{Event::Kind::notify};
        for (const auto& r : *batch) e.seqnos.push_back(r.seqno.value);
        log->add(std::move(e));
      });
    }
    state_ = state;
    system_ = std::make_unique<caf::actor_system>(config_);
    writer_ = spawn_writer(*system_, std::move(state));
  }
  ~WriterHarness() { shutdown(); }
  WriterHarness(const WriterHarness&) = delete;
  WriterHarness& operator=(const WriterHarness&) = delete;

  // Sends append number i; its completion logs an ack event.
  void append(size_t i) { caf::anon_send(writer_, append_atom::value, request(i)); }
  // Appends 0 .. threads * per_thread - 1, each thread sending its per_thread in order; returns
  // once all are sent.
  void append_from_threads(size_t threads, size_t per_thread) {
    std::vector<std::thread> senders;
    for (size_t t = 0; t < threads; ++t)
      senders.emplace_back([this, t, per_thread] {
        for (size_t k = 0; k < per_thread; ++k) append(t * per_thread + k);
      });
    for (auto& s : senders) s.join();
  }
  // Sends appends first, first + 1, ..., first + n - 1 as one batch message.
  void append_batch(size_t first, size_t n) {
    AppendBatch batch;
    for (size_t i = first; i < first + n; ++i) batch.push_back(request(i));
    caf::anon_send(writer_, append_atom::value, std::move(batch));
  }

  // Sends append number i with n follow-up ops, each a set_status naming the memory the first
  // op creates (built from the seqno it got).
  void append_with_follow_ups(size_t i, size_t n) {
    AppendRequest req = request(i);
    req.follow_ups = [n](Seqno first) {
      std::vector<FollowUpOp> ops;
      for (size_t k = 0; k < n; ++k) {
        const OpValue op = SetStatusOp{MemoryId{kInstance, first}, MemoryStatus::archived, "", MemoryId{}};
        ops.push_back(FollowUpOp{op_type_of(op), encode_op(op)});
      }
      return ops;
    };
    caf::anon_send(writer_, append_atom::value, std::move(req));
  }

  // The writer's own account of itself, or nullopt when it did not answer in time.
  std::optional<WriterInfo> info() {
    auto promise = std::make_shared<std::promise<WriterInfo>>();
    auto future = promise->get_future();
    caf::anon_send(writer_, caf::get_atom::value, WriterInfoReply{[promise](const WriterInfo& i) { promise->set_value(i); }});
    if (future.wait_for(kWait) != std::future_status::ready) return std::nullopt;
    return future.get();
  }

  bool wait_for_acks(size_t n) { return log_.wait_for(Event::Kind::ack, n, kWait); }

  // Exit first, then drop the handle, then the system: ~actor_system waits for every actor.
  void shutdown() {
    if (!system_) return;
    fs_.open_gate();  // a writer still held at the gate would keep the system from ending
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    writer_ = nullptr;
    system_.reset();
  }

  EventLog& log() { return log_; }
  RecordingFileSystem& fs() { return fs_; }
  // Writes answered ok while acknowledged() was still below their seqno (with a subscriber).
  int answered_ahead_of_acknowledged() const { return answered_ahead_.load(); }
  // What the writer published, read on the test's thread (as the client endpoint reads it).
  WriterInfo published() const { return state_->info(); }

 private:
  AppendRequest request(size_t i) {
    AppendRequest req;
    req.op_type = static_cast<uint16_t>(OpType::put_memory);
    req.payload = put_payload(i);
    EventLog* log = &log_;
    req.done = [log, i, acked = acknowledged_, ahead = &answered_ahead_](const AppendResult& r) {
      // A read sent after this answer waits for the replica to apply up to acknowledged.
      if (r.status.ok() && acked->load(std::memory_order_acquire) < r.seqno.value) ahead->fetch_add(1);
      Event e{Event::Kind::ack};
      e.request = i;
      e.code = r.status.code();
      e.seqno = r.seqno.value;
      e.ts = r.ts.value;
      log->add(std::move(e));
    };
    return req;
  }

  EventLog log_;
  std::shared_ptr<std::atomic<uint64_t>> acknowledged_ = std::make_shared<std::atomic<uint64_t>>(0);
  std::atomic<int> answered_ahead_{0};
  RecordingFileSystem fs_;  // outlives the system, whose writer holds a LogWriter over it
  TwoThreadConfig config_;
  std::unique_ptr<caf::actor_system> system_;
  writer_actor writer_;
  std::shared_ptr<const WriterState> state_;
};

std::vector<Event> of_kind(const std::vector<Event>& log, Event::Kind k) {
  std::vector<Event> out;
  std::copy_if(log.begin(), log.end(), std::back_inserter(out), [k](const Event& e) { return e.kind == k; });
  return out;
}

// Seqnos carried by record appends, in the order they were appended.
std::vector<uint64_t> appended_seqnos(const std::vector<Event>& log) {
  std::vector<uint64_t> out;
  for (const auto& e : of_kind(log, Event::Kind::append)) out.insert(out.end(), e.seqnos.begin(), e.seqnos.end());
  return out;
}

std::vector<uint64_t> one_to(uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t s = 1; s <= n; ++s) out.push_back(s);
  return out;
}

// How many times each request was answered.
std::map<size_t, int> answers_per_request(const std::vector<Event>& log) {
  std::map<size_t, int> out;
  for (const auto& e : of_kind(log, Event::Kind::ack)) ++out[e.request];
  return out;
}

void require_each_answered_once(const std::vector<Event>& log, size_t requests) {
  auto answers = answers_per_request(log);
  REQUIRE(answers.size() == requests);
  for (const auto& [request, n] : answers) {
    INFO("request " << request);
    CHECK(request < requests);
    CHECK(n == 1);
  }
}

}  // namespace

TEST_CASE("the ack-order check reports an acknowledgement that precedes its sync") {
  // The checker used below must be able to fail: an ack between append and sync, and an ack of a
  // seqno never appended, are both reported; the correct order is not.
  auto append = [](int file, std::vector<uint64_t> s) {
    Event e{Event::Kind::append};
    e.file = file;
    e.seqnos = std::move(s);
    return e;
  };
  auto sync = [](int file) {
    Event e{Event::Kind::sync};
    e.file = file;
    return e;
  };
  auto ack = [](uint64_t s, Code c = Code::ok) {
    Event e{Event::Kind::ack};
    e.seqno = s;
    e.code = c;
    return e;
  };
  CHECK(acks_before_sync({append(0, {1, 2}), sync(0), ack(1), ack(2)}).empty());
  CHECK(acks_before_sync({append(0, {1}), ack(1), sync(0)}).size() == 1);
  CHECK(acks_before_sync({ack(7)}).size() == 1);
  CHECK(acks_before_sync({append(0, {1}), sync(1), ack(1)}).size() == 1);  // a sync of another file
  CHECK(acks_before_sync({append(0, {1}), ack(0, Code::io_error)}).empty());  // failures are not acks
}

TEST_CASE("a write is acknowledged only after the fdatasync that covers it") {
  SyncFaults faults;
  faults.delay = 500us;  // appends pile up behind each sync
  WriterHarness h(faults);
  constexpr size_t kThreads = 4, kPerThread = 100, kRequests = kThreads * kPerThread;
  h.append_from_threads(kThreads, kPerThread);
  REQUIRE(h.wait_for_acks(kRequests));
  auto info = h.info();
  h.shutdown();
  const auto log = h.log().snapshot();

  CHECK_FALSE(h.fs().malformed_append_seen());
  CHECK(of_kind(log, Event::Kind::header).size() == 1);
  CHECK(acks_before_sync(log).empty());
  for (const auto& p : acks_before_sync(log)) FAIL_CHECK(p);
  require_each_answered_once(log, kRequests);

  // Every request succeeded, with the gapless seqnos 1..N, and its timestamp grows with its seqno.
  auto acks = of_kind(log, Event::Kind::ack);
  std::vector<std::pair<uint64_t, uint64_t>> seq_ts;
  for (const auto& a : acks) {
    CHECK(a.code == Code::ok);
    seq_ts.emplace_back(a.seqno, a.ts);
  }
  std::sort(seq_ts.begin(), seq_ts.end());
  std::vector<uint64_t> seqnos;
  for (const auto& [s, ts] : seq_ts) seqnos.push_back(s);
  CHECK(seqnos == one_to(kRequests));
  for (size_t i = 1; i < seq_ts.size(); ++i) CHECK(seq_ts[i - 1].second < seq_ts[i].second);
  // Each record was written exactly once, in seqno order.
  CHECK(appended_seqnos(log) == one_to(kRequests));

  REQUIRE(info);
  CHECK(info->last_durable == Seqno(kRequests));
  CHECK(info->flushed_records == kRequests);
  CHECK(info->writable);
  CHECK(info->flushes == of_kind(log, Event::Kind::append).size());
}

TEST_CASE("a flush's writers are answered before its records reach the subscribers, with the acknowledged seqno moved first") {
  SyncFaults faults;
  faults.delay = 300us;  // appends pile up behind each sync: batches of many records
  WriterHarness h(faults, true);
  constexpr size_t kThreads = 2, kPerThread = 150, kRequests = kThreads * kPerThread;
  h.append_from_threads(kThreads, kPerThread);
  REQUIRE(h.wait_for_acks(kRequests));
  // The subscriber is given the last batch right after its answers: wait until it has every record.
  std::vector<uint64_t> notified;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (notified.size() < kRequests && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
    notified.clear();
    for (const auto& e : of_kind(h.log().snapshot(), Event::Kind::notify))
      notified.insert(notified.end(), e.seqnos.begin(), e.seqnos.end());
  }
  h.shutdown();
  const auto log = h.log().snapshot();

  // Every durable record reaches the subscriber once, in order.
  CHECK(notified == one_to(kRequests));
  CHECK(acks_before_sync(log).empty());
  // No record reached the subscriber before its write was answered, and some batches held more
  // than one record (the order is checked on real group commits).
  std::set<uint64_t> answered;
  size_t multi = 0;
  for (const auto& e : log) {
    if (e.kind == Event::Kind::ack) answered.insert(e.seqno);
    if (e.kind != Event::Kind::notify) continue;
    multi += e.seqnos.size() > 1;
    for (uint64_t s : e.seqnos) {
      INFO("seqno " << s);
      CHECK(answered.count(s) == 1);
    }
  }
  CHECK(multi > 0);
  // Each answer came with the acknowledged seqno already at or past its record.
  CHECK(h.answered_ahead_of_acknowledged() == 0);
}

TEST_CASE("a request's follow-up ops are staged right after its first, synced with it and answered once") {
  SyncFaults faults;
  faults.delay = 300us;  // appends pile up behind each sync
  WriterHarness h(faults);
  constexpr size_t kPlain = 200, kMulti = 20, kFollow = 3;
  std::thread plain([&h] {
    for (size_t k = 0; k < kPlain; ++k) h.append(k);
  });
  for (size_t k = 0; k < kMulti; ++k) h.append_with_follow_ups(kPlain + k, kFollow);
  plain.join();
  REQUIRE(h.wait_for_acks(kPlain + kMulti));
  auto info = h.info();
  h.shutdown();
  const auto log = h.log().snapshot();

  CHECK(acks_before_sync(log).empty());
  for (const auto& p : acks_before_sync(log)) FAIL_CHECK(p);
  require_each_answered_once(log, kPlain + kMulti);  // one answer per request, however many ops
  constexpr uint64_t kRecords = kPlain + kMulti * (1 + kFollow);
  CHECK(appended_seqnos(log) == one_to(kRecords));
  REQUIRE(info);
  CHECK(info->flushed_records == kRecords);
  // A multi-op request is answered with its first op's seqno, and its follow-ups take the next
  // seqnos: no other request's record lands between them.
  std::set<uint64_t> plain_seqnos, multi_first;
  for (const auto& a : of_kind(log, Event::Kind::ack)) {
    CHECK(a.code == Code::ok);
    (a.request < kPlain ? plain_seqnos : multi_first).insert(a.seqno);
  }
  for (uint64_t first : multi_first)
    for (uint64_t s = first + 1; s <= first + kFollow; ++s) {
      INFO("request answered with seqno " << first);
      CHECK(plain_seqnos.count(s) == 0);
      CHECK(multi_first.count(s) == 0);
    }
}

TEST_CASE("every append of a batch message is acknowledged only after the fdatasync that covers it") {
  SyncFaults faults;
  faults.delay = 300us;
  WriterHarness h(faults);
  // Batch messages (as the client gateway sends them) from two threads, singles from a third.
  constexpr size_t kBatches = 20, kBatchSize = 10, kSingles = 100;
  constexpr size_t kRequests = 2 * kBatches * kBatchSize + kSingles;
  std::vector<std::thread> senders;
  for (size_t t = 0; t < 2; ++t)
    senders.emplace_back([&h, t] {
      for (size_t b = 0; b < kBatches; ++b) h.append_batch((t * kBatches + b) * kBatchSize, kBatchSize);
    });
  senders.emplace_back([&h] {
    for (size_t i = 0; i < kSingles; ++i) h.append(2 * kBatches * kBatchSize + i);
  });
  for (auto& s : senders) s.join();
  REQUIRE(h.wait_for_acks(kRequests));
  h.shutdown();
  const auto log = h.log().snapshot();

  for (const auto& p : acks_before_sync(log)) FAIL_CHECK(p);
  CHECK(acks_before_sync(log).empty());
  require_each_answered_once(log, kRequests);
  std::vector<uint64_t> seqnos;
  std::map<uint64_t, size_t> request_of;
  for (const auto& a : of_kind(log, Event::Kind::ack)) {
    CHECK(a.code == Code::ok);
    seqnos.push_back(a.seqno);
    request_of[a.seqno] = a.request;
  }
  std::sort(seqnos.begin(), seqnos.end());
  CHECK(seqnos == one_to(kRequests));
  CHECK(appended_seqnos(log) == one_to(kRequests));
  // A batch message is staged in order and in one piece: its requests hold consecutive seqnos.
  for (uint64_t s = 1; s < kRequests; ++s) {
    const size_t r = request_of[s], next = request_of[s + 1];
    if (r < 2 * kBatches * kBatchSize && r % kBatchSize != kBatchSize - 1) {
      INFO("seqno " << s << " is request " << r);
      CHECK(next == r + 1);
    }
  }
}

TEST_CASE("appends that arrive during an fdatasync share the next one") {
  SyncFaults faults;
  faults.gate_first = true;  // the first sync of records waits until the test opens the gate
  WriterHarness h(faults);
  constexpr size_t kRequests = 200;
  h.append(0);
  REQUIRE(h.fs().wait_until_gated(kWait));
  for (size_t i = 1; i < kRequests; ++i) h.append(i);  // all queued behind the sync in progress
  h.fs().open_gate();
  REQUIRE(h.wait_for_acks(kRequests));
  auto info = h.info();
  h.shutdown();
  const auto log = h.log().snapshot();

  CHECK(acks_before_sync(log).empty());
  require_each_answered_once(log, kRequests);
  for (const auto& a : of_kind(log, Event::Kind::ack)) CHECK(a.code == Code::ok);
  CHECK(appended_seqnos(log) == one_to(kRequests));
  // The first batch held only request 0 (the others were sent while its sync was running), so
  // there are at least two batches; group commit puts the 199 waiting ones into very few.
  const size_t batches = of_kind(log, Event::Kind::append).size();
  CAPTURE(batches);
  CHECK(of_kind(log, Event::Kind::append).front().seqnos == std::vector<uint64_t>{1});
  CHECK(batches >= 2);
  CHECK(batches * 10 <= kRequests);
  REQUIRE(info);
  CHECK(info->flushes == batches);
  CHECK(info->flushed_records == kRequests);
}

TEST_CASE("when the fdatasync fails no write is acknowledged and the writer refuses later appends") {
  SyncFaults faults;
  faults.fail_from = 0;  // every sync of records fails
  faults.gate_first = true;
  WriterHarness h(faults);
  constexpr size_t kRequests = 21;
  h.append(0);
  REQUIRE(h.fs().wait_until_gated(kWait));
  for (size_t i = 1; i < kRequests; ++i) h.append(i);  // arrive after the failing batch was cut
  h.fs().open_gate();
  REQUIRE(h.wait_for_acks(kRequests));
  auto info = h.info();
  h.shutdown();
  const auto log = h.log().snapshot();

  require_each_answered_once(log, kRequests);
  CHECK(of_kind(log, Event::Kind::sync_failed).size() == 1);
  CHECK(of_kind(log, Event::Kind::sync).size() == 1);  // the segment header's, nothing after it
  for (const auto& a : of_kind(log, Event::Kind::ack)) {
    INFO("request " << a.request);
    CHECK(a.code != Code::ok);
    CHECK(a.seqno == 0);
    // The batch that hit the failure (request 0) does not know its fate; the rest were refused.
    CHECK(a.code == (a.request == 0 ? Code::io_error : Code::failed_precondition));
  }
  REQUIRE(info);
  CHECK_FALSE(info->writable);
  CHECK(info->last_durable == Seqno(0));
  CHECK(info->read_only_reason.find("I/O error") != std::string::npos);
}

TEST_CASE("every write of a batch whose fdatasync fails gets io_error, and only those") {
  SyncFaults faults;
  faults.fail_from = 1;  // the first sync of records succeeds, the second fails
  faults.gate_first = true;
  WriterHarness h(faults);
  constexpr size_t kBatch = 20;
  h.append(0);
  REQUIRE(h.fs().wait_until_gated(kWait));
  for (size_t i = 1; i <= kBatch; ++i) h.append(i);  // queued together: the second batch
  h.fs().open_gate();
  REQUIRE(h.wait_for_acks(kBatch + 1));
  for (size_t i = kBatch + 1; i <= 2 * kBatch; ++i) h.append(i);  // after the failure
  REQUIRE(h.wait_for_acks(2 * kBatch + 1));
  h.shutdown();
  const auto log = h.log().snapshot();

  require_each_answered_once(log, 2 * kBatch + 1);
  CHECK(acks_before_sync(log).empty());
  auto appends = of_kind(log, Event::Kind::append);
  REQUIRE(appends.size() == 2);
  CHECK(appends[0].seqnos == std::vector<uint64_t>{1});
  const auto second_batch = one_to(kBatch + 1);
  CHECK(appends[1].seqnos == std::vector<uint64_t>(second_batch.begin() + 1, second_batch.end()));
  for (const auto& a : of_kind(log, Event::Kind::ack)) {
    INFO("request " << a.request);
    if (a.request == 0) {
      CHECK(a.code == Code::ok);
      CHECK(a.seqno == 1);
    } else if (a.request <= kBatch) {
      CHECK(a.code == Code::io_error);
    } else {
      CHECK(a.code == Code::failed_precondition);
    }
  }
}


TEST_CASE("what the writer published is read at once while its fdatasync is held, and moves once it returns") {
  SyncFaults faults;
  faults.gate_first = true;
  WriterHarness h(faults);
  h.append(0);
  REQUIRE(h.fs().wait_until_gated(kWait));
  // The writer's thread sits in the sync of record 1: the published account answers at once,
  // with nothing durable yet.
  const WriterInfo held = h.published();
  CHECK(held.instance == kInstance);
  CHECK(held.writable);
  CHECK(held.last_durable == Seqno(0));
  CHECK(held.flushes == 0);
  CHECK(held.flushed_records == 0);
  h.fs().open_gate();
  REQUIRE(h.wait_for_acks(1));
  const WriterInfo after = h.published();
  CHECK(after.last_durable == Seqno(1));
  CHECK(after.flushes == 1);
  CHECK(after.flushed_records == 1);
  // The writer's own answer agrees once it is free again.
  auto own = h.info();
  REQUIRE(own);
  CHECK(own->last_durable == after.last_durable);
  CHECK(own->flushes == after.flushes);
}

}  // namespace vasana::test
