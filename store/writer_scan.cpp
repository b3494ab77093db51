#include "store/writer_scan.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "store/file_io.hpp"

namespace vasana {

namespace fs = std::filesystem;

std::string describe_segment_problem(SegmentEnd end, SegmentIndex index, const std::string& path, uint64_t offset,
                                     const std::string& problem) {
  return std::string(segment_end_name(end)) + " in segment " + std::to_string(index.value) + " (" + path +
         ") at offset " + std::to_string(offset) + ": " + problem;
}

std::string WriterScan::describe_problem() const {
  if (!stopped_at) return "";
  const SegmentSummary& s = segments[*stopped_at];
  return describe_segment_problem(s.end, s.index, s.path, s.problem_offset, s.problem);
}

size_t WriterScan::trusted_segments() const {
  size_t n = 0;
  for (const SegmentSummary& s : segments) n += s.trusted ? 1 : 0;
  return n;
}

namespace {

// Takes sum on trust when trusted holds facts for it that pass the cheap check (else notes why
// not in sum): scan and expect move past it as if it had been verified. True when it did.
bool take_on_trust(const std::vector<SealedSegmentFacts>* trusted, SegmentSummary& sum, ScanExpect& expect,
                   WriterScan& scan) {
  if (!trusted) return false;
  auto it = std::lower_bound(trusted->begin(), trusted->end(), sum.index,
                             [](const SealedSegmentFacts& t, SegmentIndex i) { return t.index < i; });
  if (it == trusted->end() || it->index != sum.index) return false;
  const SealedSegmentFacts* f = &*it;
  Status s = check_sealed_segment(sum.path, *f, expect);
  if (!s.ok()) {
    sum.trust_refused = s.message();
    return false;
  }
  sum.file_bytes = sum.verified_bytes = f->file_bytes;
  sum.records = f->records;
  sum.first_seqno = f->first_seqno;
  sum.created_ms = f->created_ms;
  sum.end = SegmentEnd::sealed;
  sum.sealed = *f;
  sum.trusted = true;
  scan.records += f->records;
  scan.last_seqno = f->last_seqno;
  scan.last_hash = f->last_hash;
  scan.last_ts = f->last_ts;
  expect.first_seqno = Seqno(f->last_seqno.value + 1);
  expect.chain_head = f->last_hash;
  expect.min_ts = f->last_ts;
  return true;
}

}  // namespace

Result<WriterScan> scan_writer(const std::string& dir, InstanceId instance, const VectorSpace& space, bool own,
                               const RecordVisitor& visit, const std::vector<SealedSegmentFacts>* trusted) {
  WriterScan scan;
  scan.instance = instance;
  std::error_code ec;
  std::vector<std::pair<SegmentIndex, std::string>> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto idx = parse_segment_file_name(it->path().filename().string());
    if (idx) files.emplace_back(*idx, it->path().string());
  }
  if (ec) return Status::IoError("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  ScanExpect expect;
  expect.instance = instance;
  expect.first_seqno = Seqno(1);
  expect.vector_space = space;
  for (size_t i = 0; i < files.size(); ++i) {
    SegmentSummary sum;
    sum.index = files[i].first;
    sum.path = files[i].second;
    if (scan.stopped_at) {
      sum.reached = false;
      scan.segments.push_back(std::move(sum));
      continue;
    }
    expect.index = sum.index;
    if (sum.index == SegmentIndex(i) && take_on_trust(trusted, sum, expect, scan)) {
      scan.segments.push_back(std::move(sum));
      continue;
    }
    auto bytes = read_whole_file(sum.path);
    if (!bytes.ok()) return bytes.status();
    sum.file_bytes = bytes->size();
    if (sum.index != SegmentIndex(i)) {
      // A missing segment file: the records it held are missing from the stream.
      sum.end = SegmentEnd::gap;
      sum.problem = "segment " + std::to_string(i) + " is missing";
      scan.stopped_at = scan.segments.size();
      scan.segments.push_back(std::move(sum));
      continue;
    }
    expect.tail_may_be_torn = own && i + 1 == files.size();
    SegmentScan seg = scan_segment(*bytes, expect);
    if (seg.header) {
      sum.first_seqno = seg.header->first_seqno;
      sum.created_ms = seg.header->created_ms;
    }
    sum.records = seg.records.size();
    sum.verified_bytes = seg.verified_bytes;
    sum.end = seg.end;
    sum.problem = seg.problem;
    sum.problem_offset = seg.problem_offset;
    sum.sealed = sealed_facts(seg, bytes->size());
    for (const RecordRef& r : seg.records) {
      if (visit) visit(r);
      ++scan.records;
      scan.last_seqno = r.seqno;
      scan.last_hash = r.hash;
      scan.last_ts = r.ts;
    }
    expect.first_seqno = Seqno(scan.last_seqno.value + 1);
    expect.chain_head = scan.last_hash;
    expect.min_ts = scan.last_ts;
    bool stops = seg.end != SegmentEnd::sealed && seg.end != SegmentEnd::open;
    if (stops) scan.stopped_at = scan.segments.size();
    scan.segments.push_back(std::move(sum));
  }
  return scan;
}

}  // namespace vasana
