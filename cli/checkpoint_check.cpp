#include "cli/checkpoint_check.hpp"

#include <map>

#include "actors/checkpoint_task.hpp"
#include "protocol/op_codec.hpp"
#include "replica/replica_state.hpp"
#include "replica/state_codec.hpp"
#include "store/checkpoint_set_aside.hpp"
#include "store/checkpoint_store.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

DeepCheck deep_check(const DataDir& dir, const Identity& id, const std::vector<WriterDir>& writers) {
  DeepCheck out;
  auto problem = [&](const std::string& p) {
    out.ok = false;
    out.problems.push_back(p);
  };
  auto store = CheckpointStore::open_read_only(checkpoint_dir(dir.root));
  std::optional<CheckpointData> data;
  if (store.ok()) {
    auto d = (*store)->load();
    if (d.ok()) data = std::move(d.value());
    else if (d.status().code() != Code::not_found) problem("checkpoint: " + d.status().message());
  } else if (store.status().code() != Code::not_found) {
    problem("checkpoint: " + store.status().message());
  }
  out.checkpoint = data.has_value();
  for (const auto& name : set_aside_checkpoints(dir.root))
    out.lines.push_back("checkpoint: " + dir.root + "/" + name +
                        " is a damaged checkpoint the node set aside: not used, not checked (remove it once inspected)");

  ReplicaState loaded;
  bool have_loaded = false;
  if (data) {
    const CheckpointManifest& m = data->manifest;
    out.lines.push_back("checkpoint: generation " + std::to_string(m.generation) +
                        (m.base_generation ? " (a delta of generation " + std::to_string(m.base_generation) + ")" : "") +
                        ", " + std::to_string(m.memories) +
                        " memories, " + std::to_string(m.ops_applied) + " ops, written at " +
                        std::to_string(m.created_ms) + " ms since the epoch");
    Status s = decode_checkpoint_state(*data, &loaded);  // takes the chunks: only the manifest is read below
    if (!s.ok()) {
      problem("checkpoint: its state does not load: " + s.message());
    } else if (loaded.digest() != m.digest) {
      problem("checkpoint: its state's digest " + to_hex(loaded.digest()) + " is not the one its manifest names (" +
              to_hex(m.digest) + ")");
    } else {
      have_loaded = true;
      out.lines.push_back("checkpoint: state loads with the digest its manifest names");
    }
  }

  // One pass over every writer's verified records: all to the full replay, those after the
  // checkpoint to the checkpoint's state.
  ReplicaState full;
  std::map<InstanceId, Hash256> seen;
  uint64_t failed = 0;
  for (const auto& w : writers) {
    const Seqno covered = data ? data->manifest.covered_seqno(w.instance) : Seqno(0);
    auto scan = scan_writer(w.path, w.instance, id.vector_space, w.instance == id.instance, [&](const RecordRef& r) {
      auto op = decode_op(r.op_type, r.payload);
      if (!op.ok()) {
        ++failed;
        return;
      }
      const OrderKey key{r.ts, w.instance, r.seqno};
      if (!full.apply(key, *op).ok()) ++failed;
      if (r.seqno == covered) seen[w.instance] = r.hash;
      if (have_loaded && r.seqno > covered) (void)loaded.apply(key, *op);
    });
    if (!scan.ok()) problem("cannot read writer " + to_hex(w.instance) + ": " + scan.status().message());
  }
  out.lines.push_back("full replay: " + std::to_string(full.memory_count()) + " memories, " +
                      std::to_string(full.ops_applied()) + " ops, digest " + to_hex(full.digest()) +
                      (failed ? " (" + std::to_string(failed) + " op(s) not applied)" : ""));
  if (!data) return out;
  for (const auto& c : data->manifest.covered) {
    auto it = seen.find(c.writer);
    if (it == seen.end())
      problem("checkpoint: writer " + to_hex(c.writer) + "'s segments do not reach the covered seqno " +
              std::to_string(c.seqno.value));
    else if (it->second != c.hash)
      problem("checkpoint: writer " + to_hex(c.writer) + "'s record " + std::to_string(c.seqno.value) +
              " has another chain hash than the checkpoint names");
  }
  if (have_loaded) {
    const Hash256 tail = loaded.digest();
    out.lines.push_back("checkpoint + tail replay: " + std::to_string(loaded.memory_count()) + " memories, " +
                        std::to_string(loaded.ops_applied()) + " ops, digest " + to_hex(tail));
    if (tail != full.digest()) problem("checkpoint + tail replay and full replay DIFFER: the checkpoint is wrong");
  }
  return out;
}

}  // namespace vasana
