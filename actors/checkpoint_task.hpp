// Checkpoints of the replicated state for fast starts (store/checkpoint_store.hpp holds them,
// replica/state_codec.hpp encodes them).
//
// At start, CheckpointStart loads the latest checkpoint into the engine, and the start's segment
// scans read and verify every record of every writer (CRC, chain, op decode) but apply only those
// after the checkpoint, except the sealed segments the manifest records as wholly covered and
// verified by the run that wrote it: a scan takes those that pass the cheap check of
// store/segment_trust.hpp on trust, without reading their records, and the node verifies them in
// the background once it is ready (actors/segment_scrub.hpp). A checkpoint is used only when (1)
// its manifest and chunks read, (2) its state decodes to the digest its manifest names, and (3)
// the scans met, for every writer it covers, the record at the covered seqno with the manifest's
// chain hash (so the segments hold exactly the stream the checkpoint was made from; when that
// record ends a segment taken on trust, the cheap check read it). (1) and (2) are checked before
// any op is applied; (3) after the scans: when it fails the start replays every op into a fresh
// engine, verifying every segment. Each refusal is one log line that says why.
//
// The sealed segments a checkpoint records are those of store/verified_segments.hpp: verified
// record by record by this run (its start's scans, the background verification, or the checkpoint
// task reading the segments sealed since) and wholly covered by the checkpoint.
//
// Beside the state, a checkpoint holds the recall lanes that save themselves (Lane::save, as
// store sections named after the lanes, with the lane backlog), taken under the same read lock
// as the state, so a start loads them instead of rebuilding them from the state. A lane whose
// snapshot is missing, of another format or does not load is rebuilt from the state; each
// lane's way to ready is logged. Lane snapshots carry no digest of their own: RocksDB's block
// checksums cover their bytes, and a lane's load() refuses what does not decode.
//
// A checkpoint is whole (the state, every lane that saves itself, and the state's item table) or
// a delta against the last whole one (the state items that changed since, and those that left):
// the child that takes it makes a delta while at most delta_percent of the whole one's items
// changed and no memory was erased since (so an erasure's checkpoint is whole: the whole one
// before may hold the erased text). A start from a delta loads the whole one's lanes and puts
// the memories the delta changed in the lane backlog, which the start works off before ready.
//
// In the background, CheckpointTask writes a new checkpoint when at least min_ops ops were
// applied since the last one and interval has passed, and at clean shutdown (finish()) when
// min_ops were applied since. When the start found a checkpoint it could not use, the next
// interval (or the shutdown) writes a new one after a single op: min_ops is for making a good
// checkpoint newer, not for replacing a useless one. The state is encoded and the lanes saved by
// a child process forked under the engine's read lock (actors/checkpoint_snapshot.hpp): writes
// wait only for the fork (in this process, under the lock, when fork() fails); queries never
// wait. Then the free space is checked (store/checkpoint_store.hpp check_checkpoint_space), the
// encoding is decoded again for the manifest's digest, the chain hashes are looked up and RocksDB
// written, on a low-priority thread of its own.
//
// Failures never stop the node. A checkpoint that cannot be written (a full disk, an I/O error,
// a database that cannot be opened) is retried at the next interval; the first failure of a run
// is logged, later ones at most once an hour, and health() shows the last one until a checkpoint
// is written. A damaged checkpoint database (Corruption: found by the start, or when opening or
// writing it) is set aside whole as DATA/checkpoint.damaged-<ms> (store/checkpoint_set_aside.hpp),
// logged, and a new one written at the next interval; health() shows it until then.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/checkpoint_store.hpp"
#include "store/data_dir.hpp"
#include "store/segment_reader.hpp"

namespace vasana {

class RecallEngine;
class ReplicaState;
class VerifiedSegments;

struct CheckpointOptions {
  bool enabled = true;                    // [checkpoint] enabled: load at start and write them
  std::chrono::seconds interval{300};     // [checkpoint] interval_s: at most one per interval
  uint64_t min_ops = 10000;               // [checkpoint] min_ops: ops applied since the last
  // [checkpoint] delta_percent: a checkpoint is a delta against the last whole one while the state
  // items that changed since (and the memories a start must re-index) are at most this share of
  // the whole one's; 0: every checkpoint whole.
  uint32_t delta_percent = 3;
};

using CheckpointLog = std::function<void(const std::string&)>;

// The state a loaded checkpoint holds: its whole state, or its base's with its delta applied
// (then *changed, when given, gets the memories the delta changed). Moves the chunks out of data.
Status decode_checkpoint_state(CheckpointData& data, ReplicaState* out, std::vector<MemoryId>* changed = nullptr);

class CheckpointStart {
 public:
  CheckpointStart() = default;
  // Loads the latest checkpoint of dir into engine (which must be empty) when it passes checks
  // (1) and (2); else logs why. No checkpoint: nothing logged. The lanes that saved themselves
  // are loaded from it (RecallEngine::load_lanes, up to threads at once, while the state decodes
  // and is digested on a thread of its own), the others rebuilt from the state. When the
  // checkpoint is refused (used() false), the engine may hold loaded lanes: the caller starts
  // over with a fresh engine. Then the ops after it go in with RecallEngine::apply_behind, and
  // RecallEngine::catch_up_lanes brings the lanes level.
  static CheckpointStart load(const DataDir& dir, RecallEngine& engine, const CheckpointLog& log, size_t threads);

  // For the scans' visitors: true when r (of writer) is covered by the loaded checkpoint and must
  // not be applied. Notes the covered record's hash for matches().
  bool covered(InstanceId writer, const RecordRef& r);
  // For the scans: a sealed segment of writer taken on trust (its last record was read and
  // checked against facts); notes that record's hash for matches() when it is the covered one.
  void trusted(InstanceId writer, const SealedSegmentFacts& facts);
  // Check (3), after every writer was scanned. When it fails, logs why and forgets the checkpoint
  // (covered() is false from then on): the caller replays everything into a fresh engine.
  bool matches(const CheckpointLog& log);
  bool used() const { return manifest_.has_value(); }
  const std::optional<CheckpointManifest>& manifest() const { return manifest_; }
  // A checkpoint was there and this start does not use it (damaged, of another format, or made
  // from other segments).
  bool refused() const { return found_ && !used(); }
  // Why the checkpoint found is damaged (Corruption reading it, a state that does not decode or
  // has another digest than its manifest names); "" when it is not. The checkpoint task sets a
  // damaged one aside.
  const std::string& damaged() const { return damaged_; }

 private:
  bool found_ = false;
  std::string damaged_;
  std::optional<CheckpointManifest> manifest_;
  std::map<InstanceId, Seqno> covered_;
  std::map<InstanceId, Hash256> seen_;  // hash of the covered record, as the scan found it
};

// The figures of one checkpoint write, for logs and `vasana-bench start`.
struct CheckpointWrite {
  bool written = false;
  CheckpointManifest manifest;
  double locked_ms = 0;  // the engine's read lock held: for the fork (actors/checkpoint_snapshot.hpp), or for
                         // encoding the state and saving the lanes' parts ops change when it fell back
  double lanes_ms = 0;   // the state encoded and every lane saved (by the child, read back from it)
  bool forked = false;   // taken by a forked child
  std::string fell_back;  // why it was taken in this process instead ("" when it was not)
  double digest_ms = 0;  // the encoding decoded again and digested, off the lock
  double hashes_ms = 0;  // the covered records' chain hashes looked up in the segments
  double sealed_ms = 0;  // the sealed segments it records listed (those sealed since verified)
  uint64_t sealed = 0;   // sealed segments it records
  double store_ms = 0;   // written to RocksDB (table files written and ingested, older generation compacted)
  uint64_t bytes = 0;    // encoded state (whole, with its item table; or the delta)
  uint64_t lane_bytes = 0;  // the lanes' snapshots (none in a delta)
  uint64_t delta_items = 0;  // a delta's items (0: whole)
  uint64_t written_bytes = 0;  // the table files the store ingested (CheckpointStore::last_write_bytes)
  bool delta() const { return manifest.base_generation != 0; }
};

// Takes a checkpoint of engine's state now and makes it store's current one, recording the
// sealed segments segments (may be null: none) has verified that it wholly covers. Not written
// (Ok, written = false) when the state holds no op. An error (not enough free space, a covered record
// not found in its writer's segments, RocksDB failing) leaves the previous checkpoint current;
// it is Corruption only when the store found its database damaged.
// With delta_percent > 0 and a whole checkpoint of this state format in store (or a delta's base),
// it is written as a delta against that one when at most delta_percent of its items changed
// and no memory was erased since (actors/checkpoint_snapshot.hpp); else whole, with its lanes
// and its item table. Whole also while the older generations are left in the store's files
// (CheckpointStore::older_generations_left: only a whole write compacts them).
Result<CheckpointWrite> write_checkpoint(const DataDir& dir, const VectorSpace& space, RecallEngine& engine,
                                         CheckpointStore& store, VerifiedSegments* segments = nullptr,
                                         uint32_t delta_percent = 0);

// What `vasana status` and the metrics show of the checkpoints (sync/replication_status.hpp).
struct CheckpointHealth {
  std::string failed;           // why the last checkpoint was not written; "" once one is
  std::string damaged;          // the damaged checkpoint set aside, until a new one is written; ""
  uint64_t write_failures = 0;  // checkpoints not written because of an error, since start
  uint64_t set_aside = 0;       // damaged checkpoints set aside since start
};

// "generation 3 (12 memories, 12 ops; <writer> to 12)", for log lines.
std::string describe_checkpoint(const CheckpointManifest& m);

class CheckpointTask {
 public:
  // Sets aside the checkpoint found when it is damaged, opens (creating) DATA/checkpoint and
  // starts the thread. found: what the start made of the checkpoint (the one it used is the last
  // checkpoint for min_ops; the interval counts from now). segments: what each checkpoint records
  // of the sealed segments (may be null: none). A database that cannot be opened does not stop
  // it: health() says why, and the next checkpoint tries again.
  static std::unique_ptr<CheckpointTask> start(const DataDir& dir, const VectorSpace& space, CheckpointOptions options,
                                               std::shared_ptr<RecallEngine> engine, CheckpointLog log,
                                               const CheckpointStart& found,
                                               std::shared_ptr<VerifiedSegments> segments = nullptr);
  ~CheckpointTask();  // stops the thread; no checkpoint

  // Stops the thread, then writes a checkpoint when min_ops ops (at least one) were applied since
  // the last, or one op when a checkpoint the start could not use is still to be replaced.
  // Call once nothing is applied to the engine any more (clean shutdown).
  void finish();
  // Writes a checkpoint as soon as the thread wakes, whatever the interval and min_ops, and
  // retries every 5 s until one is written: after an erasure, so that the state's checkpoint
  // holds no more of the erased content (the older generation is compacted away as after every
  // checkpoint). Any thread.
  void request();
  // The last checkpoint written, or the one the start used (nullopt: none). Any thread.
  std::optional<CheckpointManifest> last() const;
  // Any thread.
  CheckpointHealth health() const;

  struct Impl;

 private:
  explicit CheckpointTask(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
