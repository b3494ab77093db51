// The latest checkpoint of the replicated state, in a RocksDB database at DATA/checkpoint/: the
// state as opaque chunks (replica/state_codec.hpp makes and reads them) and a manifest saying
// what they cover. A start loads it and replays only the ops after it (actors/checkpoint_task.hpp).
//
//   key "manifest"                 the manifest of the current checkpoint (absent: none yet)
//   key "g/<generation>/meta"      the state's meta record
//   key "g/<generation>/c/<index>" the state's chunks, index 0..chunk_count-1
//   key "g/<generation>/s/<section>/<index>"  the chunks of section number <section> (the recall
//                                  lanes' indices, replica/lane_snapshot.hpp), named in the manifest
// (<generation>, <section> and <index> are 16 hex digits, so keys sort by them.)
// Every value is covered by RocksDB's block checksums, verified on every read.
//
// Deltas (manifest version 4): a generation whose manifest names a base_generation holds the
// state as a delta against that generation's whole state (replica/state_codec.hpp), which stays
// in the database with its sections (the lanes); load() reads both. Writing a delta deletes
// only the generations after its base and compacts nothing, so the base's table files stay as
// they are and a delta writes about its own size; a whole generation's write deletes and
// compacts away every other one, its base included.
//
// Covered: per writer, the seqno of the last op the state holds and the chain hash of that record
// in the writer's stream. A start uses a checkpoint only when the segments on disk hold exactly
// that record at that seqno (the chain hash covers every record before it); otherwise it replays
// everything.
//
// Sealed (manifest version 3): per writer, the sealed segments the checkpoint wholly covers that
// the run writing it had verified record by record, with what it found (store/segment_trust.hpp).
// A start that uses the checkpoint takes those that pass the cheap check on trust instead of
// reading them. A manifest of version 1 or 2 has none: every segment is verified.
//
// Durability: write() does not use RocksDB's write-ahead log (after a failed append to it,
// RocksDB 7.8's next flush or sync of that log can abort the process on an assertion). It writes
// the new generation's keys into a table file of its own (SstFileWriter, synced, in
// DATA/checkpoint/ingest/) and ingests it, then ingests a second file holding the manifest that
// names the generation and the deletion of every other one: the switch is that one ingestion,
// one synced MANIFEST record. A crash or a failure (a full disk) before it leaves the previous
// manifest and its generation current; the keys of a generation no manifest names are deleted by
// the next write(), the files left in ingest/ at its start. After the switch the whole database
// is compacted, so that no file keeps an older generation's bytes (what an erasure needs). After
// any failure the database is
// closed and the next call opens it again, so no RocksDB background error outlives it. Segments
// are never read or touched here.
//
// Damage: a database that cannot be opened or read because it is damaged (RocksDB corruption, a
// file it names missing, CURRENT missing from a folder that holds files, DATA/checkpoint not a
// folder or a link to nothing) is Corruption; whoever owns it sets it aside (store/checkpoint_set_aside.hpp). Other
// failures are IoError.
//
// Files get the modes of store/file_access.hpp (0600, or 0640 with group access), whatever the
// umask: every file RocksDB creates is chmod()ed at creation.
//
// Threading: one CheckpointStore per directory per process (RocksDB locks it); its methods may be
// called from any one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/segment_trust.hpp"

namespace vasana {

struct CheckpointCoverage {
  InstanceId writer;
  Seqno seqno;     // the last op of writer the state holds (>= 1)
  Hash256 hash{};  // the chain hash of that record
};

// The sealed segments of one writer a checkpoint wholly covers, verified by the run that wrote it.
struct CheckpointSealed {
  InstanceId writer;
  std::vector<SealedSegmentFacts> segments;  // in index order
};

// A named part of a checkpoint beside the state (a recall lane's index): opaque chunks.
struct CheckpointSectionInfo {
  std::string name;
  uint32_t format = 0;  // the version of its bytes, for whoever reads them
  uint64_t chunk_count = 0;
  uint64_t bytes = 0;
};

struct CheckpointSection {
  std::string name;
  uint32_t format = 0;
  std::vector<std::string> chunks;
};

struct CheckpointManifest {
  uint64_t generation = 0;
  uint32_t state_format = 0;  // replica/state_codec.hpp kStateFormatVersion it was written with
  uint64_t created_ms = 0;    // wall clock when it was taken
  Hash256 digest{};           // ReplicaState::digest() of the state
  uint64_t ops_applied = 0;   // ops the state holds, all writers
  uint64_t memories = 0;
  uint64_t chunk_count = 0;
  std::vector<CheckpointCoverage> covered;  // by writer
  std::vector<CheckpointSectionInfo> sections;  // in section number order
  std::vector<CheckpointSealed> sealed;         // by writer; empty before version 3
  // A delta (version 4; 0: this generation is whole): the state's chunks here are a delta
  // against generation base_generation's whole state, which stays in the database with its
  // chunk count and sections (the lanes, the state's item table) recorded here.
  uint64_t base_generation = 0;
  uint64_t base_chunk_count = 0;
  std::vector<CheckpointSectionInfo> base_sections;

  // The seqno covered for writer (0: none of its ops).
  Seqno covered_seqno(InstanceId writer) const;
  // The sealed segments of writer recorded (null: none).
  const std::vector<SealedSegmentFacts>* sealed_of(InstanceId writer) const;
};

// The whole generation a delta is made against, as load() reads it.
struct CheckpointBase {
  std::string meta;
  std::vector<std::string> chunks;
  std::vector<CheckpointSection> sections;
};

struct CheckpointData {
  CheckpointManifest manifest;
  std::string meta;
  std::vector<std::string> chunks;
  std::vector<CheckpointSection> sections;
  std::optional<CheckpointBase> base;  // load(): of a delta, its base
};

class CheckpointStore {
 public:
  // Opens (creating when create, with owner-only folders) the database in dir. NotFound when it
  // does not exist (or dir is an empty folder) and create is false; Corruption when it is damaged;
  // IoError for other RocksDB errors, with RocksDB's message.
  static Result<std::unique_ptr<CheckpointStore>> open(const std::string& dir, bool create);
  // The same without writing anything to dir (RocksDB's read-only mode): write() then fails.
  static Result<std::unique_ptr<CheckpointStore>> open_read_only(const std::string& dir);
  ~CheckpointStore();
  CheckpointStore(const CheckpointStore&) = delete;
  CheckpointStore& operator=(const CheckpointStore&) = delete;

  // The current manifest; nullopt when no checkpoint was written. Corruption when unreadable.
  Result<std::optional<CheckpointManifest>> manifest() const;
  // The current checkpoint whole (of a delta, with its base: CheckpointData::base). NotFound when
  // there is none; Corruption when a chunk is missing.
  Result<CheckpointData> load() const;
  // The sections named name of generation g as the manifest m records them (m.sections for
  // m.generation, m.base_sections for m.base_generation). NotFound when there is none.
  Result<CheckpointSection> load_section(const CheckpointManifest& m, uint64_t g, const std::string& name) const;
  // Makes data the current checkpoint (its manifest's generation, chunk_count and sections are
  // set here). Atomic as described above; an error leaves the previous checkpoint current.
  // FailedPrecondition on a store opened read-only, and for a delta (manifest.base_generation
  // set, with base_chunk_count and base_sections) whose base generation is not the current
  // manifest's generation or its base. A delta's write keeps its base's keys and files as they are
  // and does not compact: it deletes only the generations after the base (an older delta), and
  // writes about its own size.
  Status write(CheckpointData data);
  // Why the older generations are still in the database's files after the last write (its
  // compaction failed: no space, say), or empty. The next write compacts them away again.
  const std::string& older_generations_left() const;
  // Bytes of table files the last successful write() wrote: those it ingested (its generation and
  // its switch) and those a whole checkpoint's compaction wrote afterwards.
  uint64_t last_write_bytes() const;

  // For tests that tamper with a checkpoint: replaces one chunk's bytes, or the manifest's.
  Status overwrite_chunk_for_test(uint64_t index, const std::string& bytes);
  // The same for chunk index of the section named name (its size in the manifest follows).
  Status overwrite_section_chunk_for_test(const std::string& name, uint64_t index, const std::string& bytes);
  Status overwrite_manifest_for_test(const CheckpointManifest& m);

  struct Impl;

 private:
  explicit CheckpointStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// DATA/checkpoint for a data directory root.
std::string checkpoint_dir(const std::string& data_root);

// The free space write() wants before it starts, for a checkpoint of bytes (state and sections):
// twice that (the new generation's table file, then the compaction that drops the old one) and
// 8 MiB to spare, so that a checkpoint never takes the last space the writer's segments need.
uint64_t checkpoint_space_needed(uint64_t bytes);
// IoError ("not enough free space: ...", with the figures) when the file system holding dir (or
// its parent, when dir does not exist yet) has less than checkpoint_space_needed(bytes) free.
Status check_checkpoint_space(const std::string& dir, uint64_t bytes);

std::string encode_manifest(const CheckpointManifest& m);
Result<CheckpointManifest> decode_manifest(const std::string& bytes);

}  // namespace vasana
