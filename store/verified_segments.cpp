#include "store/verified_segments.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>

namespace vasana {

namespace {

bool unfinished(SegmentEnd end) { return end == SegmentEnd::open || end == SegmentEnd::torn_tail; }

}  // namespace

Result<SegmentVerdict> verify_sealed_again_if_damaged(const std::string& path, const ScanExpect& expect) {
  auto v = verify_segment_file(path, expect);
  if (!v.ok() || v->end == SegmentEnd::sealed || unfinished(v->end)) return v;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return verify_segment_file(path, expect);
}

VerifiedSegments::VerifiedSegments(DataDir dir, VectorSpace space, SegmentDamageSink damage)
    : dir_(std::move(dir)), space_(std::move(space)), damage_(std::move(damage)) {}

void VerifiedSegments::add_scan(const WriterScan& scan) {
  std::lock_guard<std::mutex> g(mutex_);
  auto& known = known_[scan.instance];
  for (const SegmentSummary& s : scan.segments)
    if (s.sealed) known[s.index] = Known{*s.sealed, !s.trusted};
}

void VerifiedSegments::verified(InstanceId writer, const SealedSegmentFacts& facts) {
  std::lock_guard<std::mutex> g(mutex_);
  if (damaged_.count(writer)) return;
  auto& known = known_[writer];
  auto it = known.find(facts.index);
  if (it != known.end() && it->second.facts == facts) it->second.verified = true;
}

void VerifiedSegments::damaged(InstanceId writer, SegmentIndex index) {
  std::lock_guard<std::mutex> g(mutex_);
  damaged_.insert(writer);
  auto& known = known_[writer];
  known.erase(known.lower_bound(index), known.end());
}

std::vector<SealedSegmentFacts> VerifiedSegments::covered(InstanceId writer, Seqno seqno) {
  extend(writer, seqno);
  std::vector<SealedSegmentFacts> out;
  std::lock_guard<std::mutex> g(mutex_);
  for (const auto& [index, k] : known_[writer])
    if (k.verified && k.facts.last_seqno <= seqno) out.push_back(k.facts);
  return out;
}

void VerifiedSegments::extend(InstanceId writer, Seqno seqno) {
  ScanExpect expect;
  expect.instance = writer;
  expect.vector_space = space_;
  expect.first_seqno = Seqno(1);
  expect.tail_may_be_torn = true;  // its writer (or the copy) may be appending to it right now
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (damaged_.count(writer)) return;
    const auto& known = known_[writer];
    if (!known.empty()) {
      const SealedSegmentFacts& last = known.rbegin()->second.facts;
      expect.index = SegmentIndex(last.index.value + 1);
      expect.first_seqno = Seqno(last.last_seqno.value + 1);
      expect.chain_head = last.last_hash;
      expect.min_ts = last.last_ts;
    }
  }
  for (;;) {
    const std::string path = dir_.writer_dir(writer) + "/" + segment_file_name(expect.index);
    std::error_code ec;
    // Not there, nothing of it covered, or not sealed yet (an open segment is not read).
    if (!std::filesystem::exists(path, ec) || expect.first_seqno > seqno || !ends_with_trailer(path)) return;
    auto v = verify_sealed_again_if_damaged(path, expect);
    // Unreadable, still written to, or not wholly covered: the next checkpoint looks again.
    if (!v.ok() || unfinished(v->end) || (v->facts && v->facts->last_seqno > seqno)) return;
    if (!v->facts && v->end == SegmentEnd::sealed) return;  // sealed with no record: nothing to record
    if (!v->facts) {
      damage_(SegmentDamage{writer, expect.index, path, v->end, v->problem_offset, v->problem,
                            Seqno(expect.first_seqno.value + v->records)});
      damaged(writer, expect.index);
      return;
    }
    std::lock_guard<std::mutex> g(mutex_);
    if (damaged_.count(writer)) return;
    known_[writer][expect.index] = Known{*v->facts, true};
    expect.index = SegmentIndex(expect.index.value + 1);
    expect.first_seqno = Seqno(v->facts->last_seqno.value + 1);
    expect.chain_head = v->facts->last_hash;
    expect.min_ts = v->facts->last_ts;
  }
}

}  // namespace vasana
