#include "store/writer_scan.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "store/file_io.hpp"

namespace vasana {

namespace fs = std::filesystem;

std::string WriterScan::describe_problem() const {
  if (!stopped_at) return "";
  const SegmentSummary& s = segments[*stopped_at];
  return std::string(segment_end_name(s.end)) + " in segment " + std::to_string(s.index.value) + " (" + s.path +
         ") at offset " + std::to_string(s.problem_offset) + ": " + s.problem;
}

Result<WriterScan> scan_writer(const std::string& dir, InstanceId instance, const VectorSpace& space, bool own,
                               const RecordVisitor& visit) {
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
    expect.index = sum.index;
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
