#include "store/own_repair.hpp"

#include <filesystem>
#include <optional>
#include <system_error>

#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "store/segment_format.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

namespace fs = std::filesystem;

Status set_aside_unverified(const DataDir& dir, const Identity& id, const WriterScan& scan,
                            std::vector<std::string>* actions) {
  if (!scan.stopped_at) return Status::Ok();
  for (size_t i = *scan.stopped_at; i < scan.segments.size(); ++i) {
    SegmentSummary seg = scan.segments[i];
    std::error_code ec;
    const uint64_t size = fs::file_size(seg.path, ec);
    if (ec) continue;  // gone already (recovery removed a segment whose header failed)
    if (i > *scan.stopped_at) {
      seg.verified_bytes = 0;  // past the stop: nothing of it is verified
      seg.problem = "follows the damaged segment " + std::to_string(scan.segments[*scan.stopped_at].index.value);
      seg.problem_offset = 0;
    } else if (size <= seg.verified_bytes) {
      continue;  // cut back to its verified prefix already (and quarantined by recovery)
    }
    Status s = quarantine_segment(dir, id.instance, seg, actions);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Result<CopyRestore> restore_from_copy(const DataDir& dir, const Identity& id, const WriterScan& ours,
                                      const DataDir& source, std::vector<std::string>* actions) {
  CopyRestore out;
  out.last_seqno = ours.last_seqno;
  const std::string theirs_dir = source.writer_dir(id.instance);
  std::error_code ec;
  if (!fs::is_directory(theirs_dir, ec)) {
    out.why_not = source.root + " holds no copy of writer " + to_hex(id.instance);
    return out;
  }
  // Their copy, verified whole, and their chain hash at the last seqno held here.
  std::optional<Hash256> at_ours;
  auto theirs = scan_writer(theirs_dir, id.instance, id.vector_space, /*own=*/false, [&](const RecordRef& r) {
    if (r.seqno == ours.last_seqno) at_ours = r.hash;
  });
  if (!theirs.ok()) return theirs.status();
  if (theirs->last_seqno <= ours.last_seqno) {
    out.why_not = source.root + " holds writer " + to_hex(id.instance) + " up to seqno " +
                  std::to_string(theirs->last_seqno.value) + ", no further than this node";
    return out;
  }
  if (ours.last_seqno.value > 0 && (!at_ours || *at_ours != ours.last_hash)) {
    out.other_history = true;
    out.why_not = source.root + "'s copy of writer " + to_hex(id.instance) + " disagrees with this node's stream at seqno " +
                  std::to_string(ours.last_seqno.value) + " (another history); not used";
    return out;
  }
  // Their verified segments replace ours. Ours is a byte prefix of the same stream, so each
  // file is only ever replaced by a longer version of itself (written whole, then renamed).
  const std::string wdir = dir.writer_dir(id.instance);
  size_t copied = 0;
  for (const SegmentSummary& seg : theirs->segments) {
    if (!seg.reached || seg.verified_bytes == 0) break;
    auto bytes = read_whole_file(seg.path);
    if (!bytes.ok()) return bytes.status();
    if (bytes->size() < seg.verified_bytes) return Status::IoError(seg.path + " shrank while it was read");
    const std::string target = wdir + "/" + segment_file_name(seg.index);
    std::error_code size_ec;
    const uint64_t have = fs::file_size(target, size_ec);
    if (!size_ec && have == seg.verified_bytes) continue;  // the same bytes are here already
    Status s = write_file_atomically(target, std::string_view(*bytes).substr(0, seg.verified_bytes));
    if (!s.ok()) return s;
    ++copied;
    if (theirs->stopped_at && seg.index == theirs->segments[*theirs->stopped_at].index) break;
  }
  out.restored = true;
  out.last_seqno = theirs->last_seqno;
  actions->push_back("restored writer " + to_hex(id.instance) + " from seqno " + std::to_string(ours.last_seqno.value + 1) +
                     " to " + std::to_string(theirs->last_seqno.value) + " from the verified copy in " + source.root +
                     " (" + std::to_string(copied) + " segment file(s) written)");
  return out;
}

Status resolve_quarantine(const DataDir& dir, InstanceId instance, const std::string& note,
                          std::vector<std::string>* actions) {
  const auto held = quarantined_segments(dir, instance);
  if (held.empty()) return Status::Ok();
  const std::string resolved = dir.quarantine_dir() + "/resolved";
  Status made = make_private_dirs(resolved);
  if (!made.ok()) return made;
  std::error_code ec;
  for (const std::string& name : held) {
    const std::string from = dir.quarantine_dir() + "/" + name;
    auto why = read_whole_file(from + ".why");
    Status s = write_file_atomically(resolved + "/" + name + ".why",
                                     (why.ok() ? *why : std::string()) + "resolved: " + note + "\n");
    if (!s.ok()) return s;
    fs::rename(from, resolved + "/" + name, ec);
    if (ec) return Status::IoError("cannot move " + from + " to " + resolved + ": " + ec.message());
    fs::remove(from + ".why", ec);
    actions->push_back("moved quarantine/" + name + " to quarantine/resolved/ (" + note + ")");
  }
  Status s = sync_directory(resolved);
  if (s.ok()) s = sync_directory(dir.quarantine_dir());
  return s;
}

}  // namespace vasana
