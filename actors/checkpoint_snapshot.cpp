#include "actors/checkpoint_snapshot.hpp"

#include "actors/forked_child.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

namespace {

// The stream the child sends: kStart, the figures, the version vector, the state's meta and
// chunks, its item table, whether a delta follows and the delta (meta, chunks, removed keys,
// items, digest), the lanes (name, format, chunks), the count of bytes before the end mark, kEnd.
// Integers are 8 bytes in this machine's order (the reader is the same binary), strings a length
// and the bytes.
constexpr uint64_t kStart = 0x32764e5350414e53ULL;  // "SNAPSNv2"
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
  w.u64(s.items.size());
  for (const auto& h : s.items) {
    w.u64(h.key);
    w.u64(h.content);
  }
  w.u64(s.delta.has_value());
  if (s.delta) {
    w.str(s.delta->meta);
    w.u64(s.delta->chunks.size());
    for (const auto& c : s.delta->chunks) w.str(c);
    w.u64(s.delta->removed.size());
    for (uint64_t k : s.delta->removed) w.u64(k);
    w.u64(s.delta->items);
    w.str(std::string(reinterpret_cast<const char*>(s.digest.data()), s.digest.size()));
  }
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
// A count of state items (one per memory and more): at most 2^30.
bool read_item_count(PipeReader& r, uint64_t* n) { return r.u64(n) && *n <= (uint64_t{1} << 30); }

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
  if (!read_item_count(r, &n)) return false;
  s->items.resize(n);
  for (auto& h : s->items)
    if (!r.u64(&h.key) || !r.u64(&h.content)) return false;
  uint64_t has_delta = 0;
  if (!r.u64(&has_delta) || has_delta > 1) return false;
  if (has_delta) {
    EncodedStateDelta& d = s->delta.emplace();
    if (!r.str(&d.meta) || !read_count(r, &n)) return false;
    d.chunks.resize(n);
    for (auto& c : d.chunks)
      if (!r.str(&c)) return false;
    if (!read_item_count(r, &n)) return false;
    d.removed.resize(n);
    for (auto& k : d.removed)
      if (!r.u64(&k)) return false;
    std::string digest;
    if (!r.u64(&d.items) || !r.str(&digest) || digest.size() != s->digest.size()) return false;
    std::copy(digest.begin(), digest.end(), reinterpret_cast<char*>(s->digest.data()));
  }
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

// The figures both kinds of snapshot record.
void figures_into(CheckpointSnapshot& s, const ReplicaState& state) {
  s.ops_applied = state.ops_applied();
  s.memories = state.memory_count();
  s.applied = state.applied();
}

// The state's part of a whole snapshot, as both ways of taking one record it (with its item
// table when items is set).
std::function<void(const ReplicaState&)> encode_into(CheckpointSnapshot& s, bool items) {
  return [&s, items](const ReplicaState& state) {
    s.state = items ? StateCodec::encode(state, &s.items) : StateCodec::encode(state);
    figures_into(s, state);
  };
}

Result<CheckpointSnapshot> in_process(const RecallEngine& engine, bool items) {
  CheckpointSnapshot s;
  s.lanes = engine.snapshot_lanes(encode_into(s, items), &s.locked_ms);
  return s;
}

}  // namespace

Result<CheckpointSnapshot> take_checkpoint_snapshot(const RecallEngine& engine, bool fork_child,
                                                    std::string* fell_back, const StateItemTable* base,
                                                    size_t max_items) {
  const bool items = base != nullptr;
  if (!fork_child) return in_process(engine, items);
  CheckpointSnapshot s;
  Status st = run_in_forked_child(
      [&](const std::function<void()>& fork_here) { engine.hold_still(fork_here, &s.locked_ms); },
      [&](PipeWriter& w) {
        CheckpointSnapshot mine;
        if (base && !base->empty())
          engine.read_held([&](const ReplicaState& state) {
            mine.delta = StateCodec::encode_delta(state, *base, max_items);
            if (!mine.delta) return;
            figures_into(mine, state);
            mine.digest = state.digest();
          });
        if (!mine.delta) mine.lanes = engine.snapshot_held(encode_into(mine, items));
        write_snapshot(mine, w);
        return true;
      },
      [&](PipeReader& r) { return read_snapshot(r, &s); }, kChildSilenceLimit, "its bytes do not parse");
  if (st.code() == Code::failed_precondition) {
    if (fell_back) *fell_back = st.message();
    return in_process(engine, items);
  }
  if (!st.ok()) return Status::IoError("checkpoint: the child process that saves the state failed: " + st.message());
  s.forked = true;
  return s;
}

}  // namespace vasana
