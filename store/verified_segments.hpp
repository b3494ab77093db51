// The sealed segments this run has verified record by record, per writer, with what it found
// (store/segment_trust.hpp): what a checkpoint written now may record, so that the next start
// takes them on trust (store/checkpoint_store.hpp "Sealed"). A segment gets here only through a
// verification of its file in this process:
// - add_scan(): a start's scan; the sealed segments it verified are in, the ones it took on trust
//   are pending until the background verification (actors/segment_scrub.hpp) calls verified();
// - covered(): before a checkpoint is written, the segments sealed since the start (by the own
//   writer, or received from peers) are read and verified here, forward from the last one known
//   (a segment without a trailer at its end is taken as open and not read).
//   The own writer never reads back what it wrote, and a copy's bytes were verified before they
//   were written, not read from the file: reading them here holds them to the same standard as
//   a start's scan.
// Damage found here goes to the damage sink. From damage found here or elsewhere (damaged(): the
// background verification) on, the writer's segments from the damaged one on are forgotten and
// no more of that writer are taken for the rest of the run.
//
// Threading: every method may be called from any thread; files are read outside the lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "store/data_dir.hpp"
#include "store/segment_trust.hpp"
#include "store/vector_space.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

// Damage found in a sealed segment after the start: where and what, in the words of a scan.
struct SegmentDamage {
  InstanceId writer;
  SegmentIndex index;
  std::string path;
  SegmentEnd end = SegmentEnd::corrupt;
  uint64_t offset = 0;
  std::string problem;
  Seqno seqno;  // the first record of the segment not verified

  // As WriterScan::describe_problem says it: "corrupt in segment 3 (PATH) at offset 120: ...".
  std::string describe() const { return describe_segment_problem(end, index, path, offset, problem); }
};

using SegmentDamageSink = std::function<void(const SegmentDamage&)>;

// Verifies the segment at path that continues the stream where expect stands; when it ends in
// damage (not sealed, and not an unfinished write: open or torn tail), waits a second and
// verifies it again (an erasure may have been
// rewriting a record in place while it was read: store/record_redaction.hpp). The second verdict.
// IoError when the file cannot be read.
Result<SegmentVerdict> verify_sealed_again_if_damaged(const std::string& path, const ScanExpect& expect);

class VerifiedSegments {
 public:
  VerifiedSegments(DataDir dir, VectorSpace space, SegmentDamageSink damage);

  void add_scan(const WriterScan& scan);
  // A pending segment was verified record by record and found as its facts say.
  void verified(InstanceId writer, const SealedSegmentFacts& facts);
  // Damage was found in segment index of writer, elsewhere than here.
  void damaged(InstanceId writer, SegmentIndex index);
  // The verified sealed segments of writer whose every record is at most seqno, in index order,
  // after verifying those sealed since the last one known.
  std::vector<SealedSegmentFacts> covered(InstanceId writer, Seqno seqno);

 private:
  struct Known {
    SealedSegmentFacts facts;
    bool verified = false;  // false: taken on trust at start, its verification pending
  };
  // Verifies writer's segments from the one after the last known, while they are sealed and
  // covered by seqno.
  void extend(InstanceId writer, Seqno seqno);

  const DataDir dir_;
  const VectorSpace space_;
  const SegmentDamageSink damage_;
  std::mutex mutex_;
  std::map<InstanceId, std::map<SegmentIndex, Known>> known_;  // guarded by mutex_
  std::set<InstanceId> damaged_;                               // guarded by mutex_
};

}  // namespace vasana
