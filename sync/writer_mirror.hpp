// This node's copy of another writer's stream, in DIR/writers/<instance>/, byte for byte the
// origin's segments (same headers, records, trailers and seal points), so that any node can
// serve it on and an offset means the same on every node.
//
// accept() takes bytes a peer sent for the position the copy has reached, verifies them
// (header, CRC, seqno, chain, timestamps, payload, trailer: store/segment_reader.hpp) before
// anything is written, appends the verified prefix, and hands the records back to be applied.
// Bytes that fail verification are refused whole: nothing is stored or applied, and the caller
// fetches them again (from another peer, if this one keeps sending bad ones). A copy therefore
// only ever holds a verified prefix of the writer's stream.
//
// Durability is tracked apart from what is written: head() is how far the copy is written,
// durable_head() how far it is synced. The bytes appended to an open segment are synced later,
// by whoever owns the copy, through sync_point() (outside any lock: fdatasync may take
// milliseconds) and synced(); records are applied before that, since the origin acknowledged
// them only once they were durable there. A segment's first bytes (with its directory entry)
// and its sealing bytes are synced inside accept(), so durable_head() never reaches into a
// segment whose predecessor is not synced whole. Only durable_head() may be advertised or
// acknowledged to peers.
//
// open() resumes a copy from the node's start-up scan. A copy that stops early (the node died
// mid-append, or a byte rotted on disk) is cut back to its verified prefix; the damaged segment
// and every later one are kept in quarantine/ first, and the rest is fetched again from peers.
// Its last segment is synced once there: the process before may have died between writing and
// syncing it, and what a copy resumes from counts as durable.
//
// A copy that could not be written or synced (a full disk) is rewound to its durable head by
// rewind(): what was written after it is cut off, and fetched again once there is room.
//
// Threading: not synchronised; one owner at a time (sync/mirror_set.hpp serialises callers).
// check() is static and reads only its arguments: it may run outside the owner's lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/peer_codec.hpp"
#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/segment_reader.hpp"
#include "store/vector_space.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

struct MirroredRecord {
  Seqno seqno;
  Hlc ts;
  uint16_t op_type = 0;
  std::string_view payload;  // within *bytes
  // The chunk's verified bytes, one copy shared by all its records (not a string per record:
  // a catch-up chunk holds about 11k, and the applier freed each on another thread's heap).
  std::shared_ptr<const std::string> bytes;
};

class WriterMirror {
 public:
  // Resumes from scan (scan_writer of dir.writer_dir(writer), own = false), repairing as above;
  // each repair adds a line to actions. An empty scan gives an empty copy.
  static Result<std::unique_ptr<WriterMirror>> open(const DataDir& dir, InstanceId writer, const VectorSpace& space,
                                                    const WriterScan& scan, std::vector<std::string>* actions);

  InstanceId writer() const { return writer_; }
  // How far the copy is written. Before the first record: last_seqno 0, segment 0, 0 bytes.
  StreamHead head() const;
  // How far it is synced (at most head()).
  StreamHead durable_head() const { return durable_; }

  // Where the copy stands in its stream: what head() and next_fetch() are made of.
  struct Position {
    bool has_segment = false;   // a segment file with a verified header exists
    SegmentIndex segment;       // the newest one
    uint64_t segment_bytes = 0;
    bool sealed = false;
    SegmentContinuation next;   // what its next record must continue
  };
  // What to fdatasync to make head() durable: the open segment's file and the head it will
  // make durable. None when durable_head() is head() already.
  struct SyncPoint {
    std::shared_ptr<AppendFile> file;
    StreamHead head;
    Position position;        // the copy's position at head
    uint64_t generation = 0;  // rewinds before it was taken
  };
  std::optional<SyncPoint> sync_point() const;
  // After point.file->sync() succeeded: durable_head() moves to point.head (never back). A
  // point taken before the last rewind() is ignored.
  void synced(const SyncPoint& point);
  // After a write or sync failed: cuts the open segment back to durable_head(), removes any
  // later segment file, and moves head() back there, so the copy holds only what is durable
  // and the rest is fetched again. The records between the two were handed on (applied)
  // already: they come again. IoError when the files cannot be cut (the copy stays failed).
  Status rewind();
  bool empty() const { return !has_segment_; }
  // What to ask a peer for next: the open segment from its verified end, or the next segment
  // from 0 once the current one is sealed.
  PeerFetch next_fetch(uint32_t max_bytes) const;
  // True when head is ahead of this copy (more to fetch from a peer advertising head).
  bool behind(const StreamHead& head) const;

  // The first record a chunk held back for its timestamp.
  struct HeldRecord {
    Seqno seqno;
    Hlc ts;
  };
  struct Accepted {
    std::vector<MirroredRecord> records;  // verified and written: apply them
    uint64_t bytes = 0;                   // written (synced only when the segment began or was sealed)
    bool stale = false;                   // not for the copy's position (another peer was first)
    std::optional<HeldRecord> held;       // the chunk was taken only up to this record (max_ts)
  };
  // Corruption or Incompatible (nothing stored) when the bytes fail verification; IoError when
  // they cannot be stored (then the copy may hold them partly written: the caller stops using it).
  // mid_write: the bytes were read from a file its writer may be appending to at this moment
  // (shared-directory mode), so a damaged-looking last record may just be unfinished and is
  // left for the next look; otherwise (a peer's chunk of verified bytes) only an incomplete
  // last piece is, and anything complete that fails a check is refused.
  Result<Accepted> accept(const PeerChunk& chunk, bool mid_write = false);

  // accept() in two steps, for an owner that serialises the copy's users with a lock and would
  // rather not hold it while a chunk is verified (CRC, chain hash, payload checks: 10-12 ms for
  // a 4 MiB chunk in a catch-up here). expectation() (under the lock) copies where the copy
  // stands; check() (outside it) verifies the chunk against that copy of the position, touching
  // nothing of the copy, and cuts it before its first record stamped after max_ts; store() (under the lock again) writes what check() verified, or
  // answers stale, writing nothing, when the copy has moved since expectation().
  struct Expectation {
    InstanceId writer;
    VectorSpace space;
    PeerFetch at;                // the copy's position (next_fetch)
    SegmentContinuation next;    // what its next record must continue
    // Records stamped later than this are held back: the chunk is taken up to the first of
    // them (sync/mirror_set.hpp, the clock bound). The default holds nothing.
    Hlc max_ts{~uint64_t{0}};
  };
  Expectation expectation() const;
  struct Checked {
    PeerFetch at;                          // the position checked for
    bool stale = false;                    // the chunk is not for it
    SegmentScan scan;                      // views into the chunk's bytes: the chunk outlives store()
    std::vector<MirroredRecord> records;   // the verified records
    std::optional<HeldRecord> held;        // the scan stops before this record (max_ts)
  };
  static Result<Checked> check(const Expectation& expect, const PeerChunk& chunk, bool mid_write);
  Result<Accepted> store(const PeerChunk& chunk, Checked checked);

 private:
  WriterMirror(DataDir dir, InstanceId writer, VectorSpace space) : dir_(std::move(dir)), writer_(writer), space_(std::move(space)) {}
  std::string segment_path(SegmentIndex index) const;

  Position position() const { return Position{has_segment_, segment_, segment_bytes_, sealed_, next_}; }

  DataDir dir_;
  InstanceId writer_;
  VectorSpace space_;
  bool has_segment_ = false;  // a segment file with a verified header exists
  SegmentIndex segment_;      // the newest one
  uint64_t segment_bytes_ = 0;
  bool sealed_ = false;
  SegmentContinuation next_;  // what its next record must continue
  StreamHead durable_;        // synced up to here
  Position durable_position_; // the position at durable_
  uint64_t generation_ = 0;   // rewinds so far
  std::shared_ptr<AppendFile> file_;  // the open segment, opened on the first append; shared with a sync in progress
};

}  // namespace vasana
