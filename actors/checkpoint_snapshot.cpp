#include "actors/checkpoint_snapshot.hpp"

#include "actors/forked_child.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

namespace {

// The stream the child sends: kStart, the figures, the version vector, the state's meta and
// chunks, the lanes (name, format, chunks), the count of bytes before the end mark, kEnd.
// Integers are 8 bytes in this machine's order (the reader is the same binary), strings a length
// and the bytes.
constexpr uint64_t kStart = 0x31764e5350414e53ULL;  // "SNAPSNv1"
constexpr uint64_t kEnd = 0x2e646e65'70616e73ULL;    // "snapend."

void write_snapshot(const CheckpointSnapshot& s, PipeWriter& w) {
  w.u64(kStart);
  w.u64(s.ops_applied);
  w.u64(s.memories);
  w.u64(s.applied.size());
  for (const auto& [writer, seqno] : s.applied) {
    w.u64(writer.value);
    w.u64(seqno.value);
  }
  w.str(s.state.meta);
  w.u64(s.state.chunks.size());
  for (const auto& c : s.state.chunks) w.str(c);
  w.u64(s.lanes.size());
  for (const auto& lane : s.lanes) {
    w.str(lane.name);
    w.u64(lane.format);
    w.u64(lane.chunks.size());
    for (const auto& c : lane.chunks) w.str(c);
  }
  w.u64(w.sent());
  w.u64(kEnd);
}

// A count of chunks, lanes or writers: at most 2^24 (a garbled one is refused before a vector is
// sized by it).
bool read_count(PipeReader& r, uint64_t* n) { return r.u64(n) && *n <= (uint64_t{1} << 24); }

bool read_snapshot(PipeReader& r, CheckpointSnapshot* s) {
  uint64_t v = 0, n = 0;
  if (!r.u64(&v) || v != kStart || !r.u64(&s->ops_applied) || !r.u64(&s->memories) || !read_count(r, &n)) return false;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t writer = 0, seqno = 0;
    if (!r.u64(&writer) || !r.u64(&seqno)) return false;
    s->applied[InstanceId{writer}] = Seqno(seqno);
  }
  if (!r.str(&s->state.meta) || !read_count(r, &n)) return false;
  s->state.chunks.resize(n);
  for (auto& c : s->state.chunks)
    if (!r.str(&c)) return false;
  if (!read_count(r, &n)) return false;
  s->lanes.resize(n);
  for (auto& lane : s->lanes) {
    uint64_t format = 0, chunks = 0;
    if (!r.str(&lane.name) || !r.u64(&format) || !read_count(r, &chunks)) return false;
    lane.format = uint32_t(format);
    lane.chunks.resize(chunks);
    for (auto& c : lane.chunks)
      if (!r.str(&c)) return false;
  }
  const uint64_t before = r.received();
  uint64_t sent = 0, end = 0;
  return r.u64(&sent) && sent == before && r.u64(&end) && end == kEnd;
}

// The state's part of a snapshot, as both ways of taking one record it.
std::function<void(const ReplicaState&)> encode_into(CheckpointSnapshot& s) {
  return [&s](const ReplicaState& state) {
    s.state = StateCodec::encode(state);
    s.ops_applied = state.ops_applied();
    s.memories = state.memory_count();
    s.applied = state.applied();
  };
}

Result<CheckpointSnapshot> in_process(const RecallEngine& engine) {
  CheckpointSnapshot s;
  s.lanes = engine.snapshot_lanes(encode_into(s), &s.locked_ms);
  return s;
}

}  // namespace

Result<CheckpointSnapshot> take_checkpoint_snapshot(const RecallEngine& engine, bool fork_child,
                                                    std::string* fell_back) {
  if (!fork_child) return in_process(engine);
  CheckpointSnapshot s;
  Status st = run_in_forked_child(
      [&](const std::function<void()>& fork_here) { engine.hold_still(fork_here, &s.locked_ms); },
      [&](PipeWriter& w) {
        CheckpointSnapshot mine;
        mine.lanes = engine.snapshot_held(encode_into(mine));
        write_snapshot(mine, w);
        return true;
      },
      [&](PipeReader& r) { return read_snapshot(r, &s); }, kChildSilenceLimit, "its bytes do not parse");
  if (st.code() == Code::failed_precondition) {
    if (fell_back) *fell_back = st.message();
    return in_process(engine);
  }
  if (!st.ok()) return Status::IoError("checkpoint: the child process that saves the state failed: " + st.message());
  s.forked = true;
  return s;
}

}  // namespace vasana
