#include "actors/segment_scrub.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>

#include "status/node_probe.hpp"
#include "store/verify_all_mark.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

// After a segment that took t to verify, the thread sleeps kYieldFactor * t.
constexpr int kYieldFactor = 3;

std::string mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1 << 20));
  return b;
}

// The damage a verification of job found, if any: the file could not be read, did not verify
// sealed, or verified sealed as other than its facts.
std::optional<SegmentDamage> damage_in(const ScrubJob& job, const Result<SegmentVerdict>& v) {
  SegmentDamage d{job.writer, job.facts.index, job.path, SegmentEnd::corrupt, 0, "", job.facts.first_seqno};
  if (!v.ok()) {
    d.problem = "cannot be read: " + v.status().message();
  } else if (!v->facts) {
    d.end = v->end;
    d.offset = v->problem_offset;
    d.problem = v->problem;
    d.seqno = Seqno(job.facts.first_seqno.value + v->records);
  } else if (*v->facts != job.facts) {
    d.problem = "verifies, but not as the segment the checkpoint recorded";
  } else {
    return std::nullopt;
  }
  return d;
}

}  // namespace

std::vector<ScrubJob> scrub_jobs(const WriterScan& scan) {
  std::vector<ScrubJob> out;
  Hlc before;
  for (const SegmentSummary& s : scan.segments) {
    if (s.trusted) out.push_back(ScrubJob{scan.instance, s.path, *s.sealed, before});
    if (s.sealed) before = s.sealed->last_ts;
  }
  return out;
}

std::vector<std::string> start_segment_lines(const std::vector<const WriterScan*>& scans) {
  std::vector<std::string> out;
  size_t verified = 0, trusted = 0, refused = 0;
  uint64_t trusted_bytes = 0;
  for (const WriterScan* scan : scans)
    for (const SegmentSummary& s : scan->segments) {
      trusted += s.trusted ? 1 : 0;
      trusted_bytes += s.trusted ? s.file_bytes : 0;
      verified += !s.trusted && s.reached ? 1 : 0;
      if (!s.trust_refused.empty() && refused++ < 3)
        out.push_back("writer " + to_hex(scan->instance) + " segment " + std::to_string(s.index.value) +
                      " verified record by record: not as the checkpoint recorded it (" + s.trust_refused + ")");
    }
  if (refused > 3)
    out.push_back(std::to_string(refused - 3) + " more segment(s) verified record by record: not as the checkpoint "
                  "recorded them");
  out.push_back("segments: " + std::to_string(verified) + " verified record by record, " + std::to_string(trusted) +
                " taken on trust from the checkpoint (" + mib(trusted_bytes) + ")" +
                (trusted ? "; verified in the background once the node is ready" : ""));
  return out;
}

SegmentScrub::SegmentScrub(Context c) : c_(std::move(c)) {}

SegmentScrub::~SegmentScrub() { stop(); }

void SegmentScrub::start(std::vector<ScrubJob> jobs, std::shared_ptr<VerifiedSegments> segments) {
  if (jobs.empty()) {
    if (c_.remove_mark_when_done) {
      const std::string cleared = clear_mark();
      if (!cleared.empty()) c_.log("scrub: no segment was taken on trust" + cleared);
    }
    return;
  }
  uint64_t bytes = 0;
  for (const ScrubJob& j : jobs) bytes += j.facts.file_bytes;
  c_.log("scrub: verifying in the background the " + std::to_string(jobs.size()) + " sealed segment(s) (" + mib(bytes) +
         ") the start took on trust from the checkpoint");
  thread_ = std::thread([this, jobs = std::move(jobs), segments = std::move(segments)] {
    pthread_setname_np(pthread_self(), "vasana.scrub");
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    run(jobs, *segments);
  });
}

void SegmentScrub::stop() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SegmentScrub::run(const std::vector<ScrubJob>& jobs, VerifiedSegments& segments) {
  const auto t0 = Clock::now();
  Clock::duration working{};
  uint64_t bytes = 0;
  size_t done = 0, damaged = 0;
  std::set<InstanceId> writers;
  for (const ScrubJob& j : jobs) {
    {
      std::unique_lock<std::mutex> g(mutex_);
      if (stop_) break;
    }
    ScanExpect expect;
    expect.instance = j.writer;
    expect.index = j.facts.index;
    expect.first_seqno = j.facts.first_seqno;
    expect.chain_head = j.facts.chain_head;
    expect.min_ts = j.min_ts;
    expect.vector_space = c_.space;
    const auto w0 = Clock::now();
    auto v = verify_sealed_again_if_damaged(j.path, expect);
    const auto took = Clock::now() - w0;
    working += took;
    ++done;
    writers.insert(j.writer);
    if (auto d = damage_in(j, v)) {
      ++damaged;
      segments.damaged(j.writer, j.facts.index);
      report(*d);
    } else {
      bytes += j.facts.file_bytes;
      segments.verified(j.writer, j.facts);
    }
    std::unique_lock<std::mutex> g(mutex_);
    wake_.wait_for(g, took * kYieldFactor, [&] { return stop_; });
  }
  auto secs = [](Clock::duration d) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", std::chrono::duration<double>(d).count());
    return std::string(b);
  };
  const std::string what = std::to_string(done) + " of " + std::to_string(jobs.size()) + " trusted segment(s) of " +
                           std::to_string(writers.size()) + " writer(s), " + mib(bytes) + " found sound, in " +
                           secs(Clock::now() - t0) + " s (" + secs(working) + " s reading and verifying)";
  if (done < jobs.size()) {
    c_.log("scrub: stopped after " + what + "; a checkpoint of this run records none of the rest, and the next "
           "start verifies every segment (" + verify_all_mark_path(c_.dir) + " stays)");
    return;
  }
  const std::string cleared = clear_mark();
  c_.log("scrub: done: verified " + what + (damaged ? "; damage in " + std::to_string(damaged) +
                                                          " (integrity lines above; the next start verifies every segment)"
                                                    : "; no damage" + cleared));
}

std::string SegmentScrub::clear_mark() {
  // Everything trusted is verified: the start's mark goes, unless damage (found here, or by a
  // checkpoint's verification of newly sealed segments) added its own line to it. Decided under
  // the mutex report() writes the mark under, so a damage line is never removed.
  std::lock_guard<std::mutex> g(mutex_);
  if (!c_.remove_mark_when_done || !damage_.empty()) return "";
  Status s = remove_verify_all_mark(c_.dir);
  return s.ok() ? "; removed " + verify_all_mark_path(c_.dir)
                : "; could not remove " + verify_all_mark_path(c_.dir) + " (" + s.message() +
                      "): the next start verifies every segment";
}

void SegmentScrub::report(const SegmentDamage& d) {
  const std::string line = "integrity: writer " + to_hex(d.writer) + ": " + d.describe() +
                           " (found after start by the background verification; this node serves its verified "
                           "in-RAM state; the next start verifies every segment and repairs it)";
  c_.log(line);
  if (c_.probe) c_.probe->integrity_found(d.writer == c_.own ? "own-segment" : "copy-segment", 1);
  std::lock_guard<std::mutex> g(mutex_);
  damage_.push_back(d);
  if (Status s = mark_verify_all(c_.dir, line); !s.ok())
    c_.log("integrity: cannot write " + verify_all_mark_path(c_.dir) + " (" + s.message() +
           "): the next start may take this segment on the checkpoint's trust again");
}

std::vector<SegmentDamage> SegmentScrub::damage() const {
  std::lock_guard<std::mutex> g(mutex_);
  return damage_;
}

}  // namespace vasana
