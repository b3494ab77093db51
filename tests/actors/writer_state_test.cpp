// WriterState (actors/writer_state.hpp) without an actor system: its subscribers see records
// only once they are durable, and only when handed them.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "actors/writer_state.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/hybrid_clock.hpp"
#include "store/log_writer.hpp"
#include "tests/actors/recording_file_system.hpp"

namespace vasana::test {
namespace {

constexpr InstanceId kInstance{0x0123456789abcdefull};
constexpr uint16_t kPut = static_cast<uint16_t>(OpType::put_memory);

std::string payload(const std::string& text) {
  MemoryInput m;
  m.realm = "tests";
  m.text = text;
  return encode_put_memory(m);
}

// A WriterState over a LogWriter over a RecordingFileSystem; subscribers log a notify event.
struct StateFixture {
  EventLog log;
  RecordingFileSystem fs;
  std::unique_ptr<WriterState> state;
  std::vector<CommittedRecord> seen;
  std::shared_ptr<std::atomic<uint64_t>> acknowledged = std::make_shared<std::atomic<uint64_t>>(0);

  explicit StateFixture(SyncFaults faults) : fs(log, faults) {
    uint64_t wall = 1'700'000'000'000ull;
    auto w = LogWriter::open(fs, "/fake/writers/" + to_hex(kInstance), kInstance, VectorSpace{}, StreamTail{},
                             LogWriterOptions{}, wall);
    REQUIRE(w.ok());
    state = std::make_unique<WriterState>(kInstance, std::move(w.value()), HybridClock([wall] { return wall; }),
                                          GroupCommitOptions{}, "");
    state->set_acknowledged(acknowledged);
    state->subscribe([this](const WriterState::CommittedBatch& records) {
      Event e{Event::Kind::notify};
      for (const auto& r : *records) {
        e.seqnos.push_back(r.seqno.value);
        seen.push_back(r);
      }
      log.add(std::move(e));
    });
  }
};

std::vector<Event::Kind> kinds(const std::vector<Event>& log) {
  std::vector<Event::Kind> out;
  for (const auto& e : log) out.push_back(e.kind);
  return out;
}

}  // namespace

TEST_CASE("subscribers see committed records only after flush returns ok") {
  StateFixture f(SyncFaults{});
  for (const char* t : {"one", "two", "three"}) REQUIRE(f.state->stage(kPut, payload(t)).ok());
  CHECK(f.log.count(Event::Kind::notify) == 0);  // staged is not durable
  CHECK(f.state->has_pending());
  CHECK(f.state->last_durable() == Seqno(0));

  REQUIRE(f.state->flush().ok());
  using K = Event::Kind;
  // flush() made them durable; the subscribers get them from hand_off() (after the writer's
  // answers), once.
  CHECK(kinds(f.log.snapshot()) == std::vector<K>{K::header, K::sync, K::append, K::sync});
  CHECK(f.acknowledged->load() == 3);
  f.state->hand_off();
  f.state->hand_off();
  CHECK(kinds(f.log.snapshot()) == std::vector<K>{K::header, K::sync, K::append, K::sync, K::notify});
  CHECK(f.log.snapshot().back().seqnos == std::vector<uint64_t>{1, 2, 3});
  REQUIRE(f.seen.size() == 3);
  CHECK(f.seen[1].op_type == kPut);
  CHECK(f.seen[1].payload == payload("two"));
  CHECK(f.seen[0].ts < f.seen[1].ts);
  CHECK(f.state->last_durable() == Seqno(3));
  CHECK_FALSE(f.state->has_pending());

  REQUIRE(f.state->flush().ok());  // nothing staged: nothing to announce
  f.state->hand_off();
  CHECK(f.log.count(Event::Kind::notify) == 1);

  REQUIRE(f.state->stage(kPut, payload("four")).ok());
  REQUIRE(f.state->flush().ok());
  f.state->hand_off();
  CHECK(f.log.snapshot().back().seqnos == std::vector<uint64_t>{4});
  CHECK(f.acknowledged->load() == 4);
  CHECK(f.state->flushes() == 2);
  CHECK(f.state->flushed_records() == 4);
}

TEST_CASE("a flush announces its durable head to the peers' side before the local subscribers see its records") {
  StateFixture f(SyncFaults{});
  std::vector<std::pair<uint64_t, size_t>> heads;  // (head's last seqno, subscriber calls by then)
  f.state->on_durable_head(
      [&](const StreamHead& h) { heads.emplace_back(h.last_seqno.value, f.log.count(Event::Kind::notify)); });
  for (const char* t : {"one", "two"}) REQUIRE(f.state->stage(kPut, payload(t)).ok());
  REQUIRE(f.state->flush().ok());
  f.state->hand_off();
  REQUIRE(f.state->stage(kPut, payload("three")).ok());
  REQUIRE(f.state->flush().ok());
  f.state->hand_off();
  // Each head came while the subscribers had seen only the flushes before it: the serving thread
  // is woken first (it is what replication lag waits for), the local apply second.
  CHECK(heads == std::vector<std::pair<uint64_t, size_t>>{{2, 0}, {3, 1}});
  CHECK(f.log.count(Event::Kind::notify) == 2);  // and then they did see both
}

TEST_CASE("subscribers never see records whose flush failed") {
  SyncFaults faults;
  faults.fail_from = 0;
  StateFixture f(faults);
  REQUIRE(f.state->stage(kPut, payload("lost")).ok());
  REQUIRE(f.state->stage(kPut, payload("lost too")).ok());
  Status s = f.state->flush();
  CHECK(s.code() == Code::io_error);
  f.state->hand_off();
  CHECK(f.log.count(Event::Kind::sync_failed) == 1);
  CHECK(f.log.count(Event::Kind::notify) == 0);
  CHECK(f.acknowledged->load() == 0);
  CHECK_FALSE(f.state->writable());
  CHECK(f.state->last_durable() == Seqno(0));

  auto later = f.state->stage(kPut, payload("refused"));
  CHECK(later.status().code() == Code::failed_precondition);
  CHECK(f.state->flush().code() == Code::failed_precondition);
  CHECK(f.log.count(Event::Kind::notify) == 0);
  CHECK(f.seen.empty());
  CHECK(f.state->flushes() == 0);
}

TEST_CASE("a read-only writer state refuses to stage and says why") {
  WriterState ro(kInstance, nullptr, HybridClock([] { return uint64_t{1}; }), GroupCommitOptions{},
                 "segment 3 is corrupt");
  ro.set_read_only_last_seqno(Seqno(41));
  auto r = ro.stage(kPut, payload("x"));
  CHECK(r.status().code() == Code::failed_precondition);
  CHECK(r.status().message().find("segment 3 is corrupt") != std::string::npos);
  CHECK(ro.flush().code() == Code::failed_precondition);
  CHECK_FALSE(ro.writable());
  CHECK(ro.last_durable() == Seqno(41));
  CHECK(ro.read_only_reason() == "segment 3 is corrupt");
}

TEST_CASE("a writer whose stream is stamped beyond the clock bound refuses writes until the clock is within it") {
  EventLog log;
  RecordingFileSystem fs(log, SyncFaults{});
  const uint64_t future = 2'000'000'000'000ull;  // 2033: a run with its clock ten years ahead
  const uint64_t now = future - 315'360'000'000ull;
  auto wall = std::make_shared<std::atomic<uint64_t>>(future);
  auto w = LogWriter::open(fs, "/fake/writers/" + to_hex(kInstance), kInstance, VectorSpace{}, StreamTail{},
                           LogWriterOptions{}, future);
  REQUIRE(w.ok());
  WriterState state(kInstance, std::move(w.value()), HybridClock([wall] { return wall->load(); }),
                    GroupCommitOptions{}, "");
  std::vector<std::string> lines;
  state.set_log([&](const std::string& l) { lines.push_back(l); });
  state.set_clock_bound(std::chrono::milliseconds(60000));
  auto first = state.stage(kPut, payload("written with the clock ahead"));
  REQUIRE(first.ok());
  REQUIRE(state.flush().ok());
  CHECK(state.health().writable);

  // The clock is set right: the stream is ten years ahead of it.
  wall->store(now);
  REQUIRE(state.retry(now).ok());  // the writer actor's tick, every second
  WriterHealth h = state.health();
  CHECK_FALSE(h.writable);
  CHECK(h.clock_ahead);
  CHECK_FALSE(h.failed);
  CHECK(h.reason.find("more than sync.max_clock_skew_ms (60000 ms) ahead") != std::string::npos);
  CHECK(h.reason.find(format_time_ms(int64_t(future))) != std::string::npos);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("writer: the own stream is stamped up to") == 0);
  CHECK_FALSE(state.info().writable);
  auto refused = state.stage(kPut, payload("refused while ahead"));
  CHECK(refused.status().code() == Code::failed_precondition);
  CHECK(refused.status().message().find("writes are refused until the clock reaches") != std::string::npos);
  CHECK_FALSE(state.has_pending());

  // Within the bound, not yet past the stream: writable again, and stamped after its last op.
  wall->store(future - 60000);
  auto taken = state.stage(kPut, payload("taken once within the bound"));
  REQUIRE(taken.ok());
  CHECK(first->ts < taken->ts);
  REQUIRE(state.flush().ok());
  h = state.health();
  CHECK(h.writable);
  CHECK_FALSE(h.clock_ahead);
  CHECK(h.reason.empty());
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find("within sync.max_clock_skew_ms") != std::string::npos);
}

TEST_CASE("a writer whose stream is ahead by less than the clock bound keeps writing, after its last op") {
  EventLog log;
  RecordingFileSystem fs(log, SyncFaults{});
  const uint64_t t0 = 1'700'000'000'000ull;
  auto wall = std::make_shared<std::atomic<uint64_t>>(t0);
  auto w = LogWriter::open(fs, "/fake/writers/" + to_hex(kInstance), kInstance, VectorSpace{}, StreamTail{},
                           LogWriterOptions{}, t0);
  REQUIRE(w.ok());
  WriterState state(kInstance, std::move(w.value()), HybridClock([wall] { return wall->load(); }),
                    GroupCommitOptions{}, "");
  state.set_clock_bound(std::chrono::milliseconds(60000));
  auto first = state.stage(kPut, payload("one"));
  REQUIRE(first.ok());
  REQUIRE(state.flush().ok());
  wall->store(t0 - 59000);  // set back less than the bound
  REQUIRE(state.retry(t0 - 59000).ok());
  CHECK(state.health().writable);
  auto second = state.stage(kPut, payload("two"));
  REQUIRE(second.ok());
  CHECK(first->ts < second->ts);  // never backwards
  // The same writer with a remote op applied at the bound stays writable too.
  state.observe_remote(Hlc::make(t0 - 59000 + 60000, 0));
  CHECK(state.stage(kPut, payload("three")).ok());
}

}  // namespace vasana::test
