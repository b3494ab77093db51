// The background verification (scrub) of the sealed segments a start took on trust from the
// checkpoint (store/segment_trust.hpp), and what the node does about damage found after start.
//
// start() runs one low-priority thread (nice 10) once the node is ready. It reads and verifies
// each trusted segment record by record (CRC, seqno, chain, timestamps, payload), as a start
// would have, and throttles itself: after each segment it sleeps three times as long as the
// segment took, so that it uses at most a quarter of one core beside recall. A segment found as
// its facts say is verified (VerifiedSegments::verified): the next checkpoint may record it
// again. The log says when it starts and, in one line, when it is done (segments and bytes
// verified, time, damage found); a stop before that ends it where it is (what it did not verify
// is not recorded by a checkpoint of this run).
//
// report() is what happens to damage, found by the scrub or by VerifiedSegments when a
// checkpoint is written: an `integrity:` log line naming writer, segment, offset and reason (the
// start's wording), the integrity counter (own-segment or copy-segment: status/node_probe.hpp),
// the writer's `segment-damaged` problem in `vasana status` for the rest of the run, and
// DATA/VERIFY-ALL (store/verify_all_mark.hpp), so that the next start verifies every segment and
// handles the damage as start-up recovery does. The running node keeps serving from its
// verified in-RAM state meanwhile; nothing is cut or quarantined while it runs.
//
// Threading: report() and damage() from any thread; start() and stop() from the node's.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/ids.hpp"
#include "store/data_dir.hpp"
#include "store/verified_segments.hpp"

namespace vasana {

class NodeProbe;

// A segment a start took on trust, and where the stream stood before it.
struct ScrubJob {
  InstanceId writer;
  std::string path;
  SealedSegmentFacts facts;
  Hlc min_ts;  // the newest timestamp of the stream before it
};

// The jobs for every segment scan took on trust.
std::vector<ScrubJob> scrub_jobs(const WriterScan& scan);

// What a start's scans did with the segments, for its log: "segments: V verified record by
// record, T taken on trust from the checkpoint (N MiB)...", after a line for each of the first
// three segments whose recorded facts did not hold (and one for the rest).
std::vector<std::string> start_segment_lines(const std::vector<const WriterScan*>& scans);

class SegmentScrub {
 public:
  struct Context {
    DataDir dir;
    VectorSpace space;
    InstanceId own;  // the node's own writer: its damage counts as own-segment
    std::shared_ptr<NodeProbe> probe;
    std::function<void(const std::string&)> log;
    // The start wrote DATA/VERIFY-ALL (kTrustPending) before it took segments on trust: removed
    // once every job is verified and no damage was found (at once when there is no job).
    bool remove_mark_when_done = false;
  };
  explicit SegmentScrub(Context c);
  ~SegmentScrub();  // stop()

  // Starts the thread verifying jobs (none: no thread, and the start's mark goes at once),
  // telling segments what it verified.
  void start(std::vector<ScrubJob> jobs, std::shared_ptr<VerifiedSegments> segments);
  // Ends the thread after the segment it is verifying.
  void stop();
  void report(const SegmentDamage& d);
  // Every damage reported in this run.
  std::vector<SegmentDamage> damage() const;

 private:
  void run(const std::vector<ScrubJob>& jobs, VerifiedSegments& segments);

  const Context c_;
  // Removes the start's mark (Context::remove_mark_when_done) unless damage was found: what to
  // add to the done line.
  std::string clear_mark();

  mutable std::mutex mutex_;  // guards damage_, stop_, and writing and removing DATA/VERIFY-ALL
  std::condition_variable wake_;
  std::vector<SegmentDamage> damage_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace vasana
