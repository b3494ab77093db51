// CheckpointStart: the checkpoint a start loads, and the checks that decide whether it is used
// (actors/checkpoint_task.hpp).
#include <chrono>
#include <thread>

#include "actors/checkpoint_task.hpp"
#include "replica/recall_engine.hpp"
#include "replica/state_codec.hpp"
#include "replica/state_item_table.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

Status decode_checkpoint_state(CheckpointData& data, ReplicaState* out, std::vector<MemoryId>* changed) {
  if (!data.base) return StateCodec::decode(EncodedState{std::move(data.meta), std::move(data.chunks)}, out);
  EncodedStateDelta delta{std::move(data.meta), std::move(data.chunks), {}, 0};
  const CheckpointSection* removed = nullptr;
  for (const auto& section : data.sections)
    if (section.name == kStateRemovedSection) removed = &section;
  if (!removed || removed->format != 1 || !decode_removed_keys(removed->chunks, &delta.removed))
    return Status::Corruption("checkpoint state delta: no readable list of removed items");
  return StateCodec::decode(EncodedState{std::move(data.base->meta), std::move(data.base->chunks)}, delta, out,
                            changed);
}

CheckpointStart CheckpointStart::load(const DataDir& dir, RecallEngine& engine, const CheckpointLog& log,
                                      size_t threads) {
  CheckpointStart cs;
  // A checkpoint that is there and cannot be used: logged, and noted as damaged when it is.
  auto refuse = [&](const Status& why) {
    cs.found_ = true;
    if (why.code() == Code::corruption) cs.damaged_ = why.message();
    log("checkpoint: not used: " + why.message() + "; replaying every op");
  };
  auto store = CheckpointStore::open_read_only(checkpoint_dir(dir.root));
  if (!store.ok()) {
    if (store.status().code() != Code::not_found) refuse(store.status());
    return cs;
  }
  auto t0 = Clock::now();
  auto data = (*store)->load();
  if (!data.ok()) {
    if (data.status().code() != Code::not_found) refuse(data.status());
    return cs;
  }
  cs.found_ = true;
  const double read_ms = ms_since(t0);
  // The state is decoded and digested on a thread of its own while the lanes load: neither reads
  // the other.
  ReplicaState state;
  Status decoded;
  double decode_ms = 0, digest_ms = 0;
  Hash256 digest{};
  // A delta: the state is its base's with the delta applied, the lanes are the base's, and the
  // memories the delta changed go to the lane backlog (finish_lanes) to be indexed again.
  std::vector<MemoryId> changed;
  std::vector<CheckpointSection>& lane_sections = data->base ? data->base->sections : data->sections;
  std::thread state_thread([&] {
    auto t1 = Clock::now();
    decoded = decode_checkpoint_state(*data, &state, &changed);
    decode_ms = ms_since(t1);
    if (!decoded.ok()) return;
    auto t2 = Clock::now();
    digest = state.digest();
    digest_ms = ms_since(t2);
  });
  std::vector<LaneSnapshot> snapshots;
  for (auto& section : lane_sections)
    if (section.name != kStateItemsSection)
      snapshots.push_back(LaneSnapshot{section.name, section.format, std::move(section.chunks)});
  auto t3 = Clock::now();
  std::vector<std::string> lines = engine.load_lanes(std::move(snapshots), threads);
  const double lanes_ms = ms_since(t3);
  state_thread.join();
  if (!decoded.ok()) {
    refuse(decoded);
    return cs;
  }
  if (digest != data->manifest.digest) {
    refuse(Status::Corruption("its state's digest " + to_hex(digest) + " is not the one its manifest names (" +
                              to_hex(data->manifest.digest) + ")"));
    return cs;
  }
  state.set_value_archive(engine.value_archive());  // the node's archive: texts and vectors on disk
  engine.load_state(std::move(state));
  auto t4 = Clock::now();
  for (auto& l : engine.finish_lanes(threads, data->base ? &changed : nullptr)) lines.push_back(std::move(l));
  const double finish_ms = ms_since(t4);
  cs.manifest_ = data->manifest;
  for (const auto& c : data->manifest.covered) cs.covered_[c.writer] = c.seqno;
  const std::string delta = data->base ? " (a delta of generation " + std::to_string(data->manifest.base_generation) +
                                             ": " + std::to_string(changed.size()) + " memories to index again)"
                                       : std::string();
  log("checkpoint: loaded " + describe_checkpoint(data->manifest) + delta + ": read in " + std::to_string(int(read_ms)) +
      " ms; state decoded in " + std::to_string(int(decode_ms)) + " ms and digest checked in " +
      std::to_string(int(digest_ms)) + " ms while the lanes loaded in " + std::to_string(int(lanes_ms)) +
      " ms; the other lanes made ready in " + std::to_string(int(finish_ms)) + " ms");
  for (const auto& l : lines) log("checkpoint: lanes: " + l);
  return cs;
}

bool CheckpointStart::covered(InstanceId writer, const RecordRef& r) {
  if (!manifest_) return false;
  auto it = covered_.find(writer);
  if (it == covered_.end() || r.seqno > it->second) return false;
  if (r.seqno == it->second) seen_[writer] = r.hash;
  return true;
}

void CheckpointStart::trusted(InstanceId writer, const SealedSegmentFacts& facts) {
  if (!manifest_) return;
  auto it = covered_.find(writer);
  if (it != covered_.end() && facts.last_seqno == it->second) seen_[writer] = facts.last_hash;
}

bool CheckpointStart::matches(const CheckpointLog& log) {
  if (!manifest_) return true;
  std::string why;
  for (const auto& c : manifest_->covered) {
    auto it = seen_.find(c.writer);
    if (it == seen_.end()) {
      why = "writer " + to_hex(c.writer) + "'s segments on disk do not reach seqno " + std::to_string(c.seqno.value);
      break;
    }
    if (it->second != c.hash) {
      why = "writer " + to_hex(c.writer) + "'s record " + std::to_string(c.seqno.value) +
            " on disk has another chain hash than the checkpoint was made from";
      break;
    }
  }
  if (why.empty()) return true;
  log("checkpoint: not used: " + why + "; replaying every op");
  manifest_.reset();
  covered_.clear();
  seen_.clear();
  return false;
}

}  // namespace vasana
