#include "store/record_lookup.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "store/file_io.hpp"
#include "store/segment_reader.hpp"
#include "store/segment_trust.hpp"

namespace vasana {

Result<Hash256> record_hash_at(const std::string& dir, InstanceId instance, const VectorSpace& space, Seqno seqno) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<SegmentIndex, std::string>> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto idx = parse_segment_file_name(it->path().filename().string());
    if (idx) files.emplace_back(*idx, it->path().string());
  }
  if (ec) return Status::IoError("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
  for (const auto& [index, path] : files) {  // newest first
    auto header = read_segment_header(path);
    if (!header.ok() || header->first_seqno > seqno) continue;
    auto bytes = read_whole_file(path);
    if (!bytes.ok()) return bytes.status();
    ScanExpect expect;
    expect.instance = instance;
    expect.index = index;
    expect.first_seqno = header->first_seqno;
    expect.chain_head = header->chain_head;
    expect.vector_space = space;
    expect.tail_may_be_torn = true;  // the writer may be appending to it right now
    SegmentScan scan = scan_segment(*bytes, expect);
    for (const RecordRef& r : scan.records)
      if (r.seqno == seqno) return r.hash;
    break;
  }
  return Status::NotFound("writer " + to_hex(instance) + ": no verified record " + std::to_string(seqno.value) +
                          " in " + dir);
}

}  // namespace vasana
