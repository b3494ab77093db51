#include "store/stream_repair.hpp"

#include <filesystem>
#include <system_error>

#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "store/hybrid_clock.hpp"
#include "store/restore_marker.hpp"

namespace vasana {

namespace fs = std::filesystem;

std::vector<std::string> quarantined_segments(const DataDir& dir, InstanceId instance) {
  std::vector<std::string> out;
  std::error_code ec;
  const std::string prefix = to_hex(instance) + "-";
  for (fs::directory_iterator it(dir.quarantine_dir(), ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) != ".why") out.push_back(name);
  }
  return out;
}

Status quarantine_segment(const DataDir& dir, InstanceId instance, const SegmentSummary& seg,
                          std::vector<std::string>* actions) {
  std::error_code ec;
  Status made = make_private_dirs(dir.quarantine_dir());
  if (!made.ok()) return made;
  const std::string name = to_hex(instance) + "-" + fs::path(seg.path).filename().string() + "-" +
                           std::to_string(system_wall_ms());
  const std::string target = dir.quarantine_dir() + "/" + name;
  auto bytes = read_whole_file(seg.path);
  if (!bytes.ok()) return bytes.status();
  Status s = write_file_atomically(target, *bytes);
  if (s.ok())
    s = write_file_atomically(target + ".why", "writer " + to_hex(instance) + " segment " +
                                                   std::to_string(seg.index.value) + ": " +
                                                   std::string(segment_end_name(seg.end)) + " at offset " +
                                                   std::to_string(seg.problem_offset) + ": " + seg.problem + "\n");
  if (!s.ok()) return s;
  if (seg.problem_offset == 0 || seg.verified_bytes == 0) {
    // Nothing in the file verified (its header failed): no prefix to keep.
    fs::remove(seg.path, ec);
    if (ec) return Status::IoError("cannot remove " + seg.path + ": " + ec.message());
    s = sync_directory(fs::path(seg.path).parent_path().string());
  } else {
    s = write_file_atomically(seg.path, std::string_view(*bytes).substr(0, seg.verified_bytes));
  }
  if (!s.ok()) return s;
  actions->push_back("quarantined " + seg.path + " as quarantine/" + name + " (" + seg.problem + " at offset " +
                        std::to_string(seg.problem_offset) + "); kept its verified prefix of " +
                        std::to_string(seg.records) + " records");
  return Status::Ok();
}

Result<Recovery> recover_own_stream(const DataDir& dir, const Identity& id, const RecordVisitor& visit,
                                    bool mark_torn_cut, const std::vector<SealedSegmentFacts>* trusted) {
  const std::string wdir = dir.writer_dir(id.instance);
  std::error_code ec;
  Status made = make_private_dirs(wdir);
  if (!made.ok()) return made;
  auto scanned = scan_writer(wdir, id.instance, id.vector_space, /*own=*/true, visit, trusted);
  if (!scanned.ok()) return scanned.status();
  Recovery rec;
  rec.scan = std::move(scanned.value());
  const WriterScan& scan = rec.scan;

  if (scan.state() == SegmentEnd::incompatible)
    return Status::Incompatible("refusing to start: " + scan.describe_problem());

  rec.tail.last_seqno = scan.last_seqno;
  rec.tail.last_hash = scan.last_hash;
  rec.tail.last_ts = scan.last_ts;
  rec.tail.next_index = SegmentIndex(scan.segments.empty() ? 0 : scan.segments.back().index.value + 1);

  if (scan.stopped_at && scan.state() == SegmentEnd::torn_tail) {
    const SegmentSummary& seg = scan.segments[*scan.stopped_at];
    rec.torn_bytes = seg.file_bytes - seg.verified_bytes;
    if (mark_torn_cut) {
      Status m = mark_torn_tail(dir, scan.last_seqno, system_wall_ms());
      if (!m.ok())
        return Status::IoError("cannot write " + restore_marker_path(dir) + " before cutting a torn tail of " +
                               std::to_string(rec.torn_bytes) + " bytes from " + seg.path +
                               " (nothing was cut): " + m.message());
      rec.marked = true;
      rec.actions.push_back("marked " + restore_marker_path(dir) + " (torn-tail) before the cut: writer " +
                            to_hex(id.instance) + " takes writes again only once its peers said what they hold of it (or after `vasana repair`)");
    }
    Status s;
    if (seg.verified_bytes == 0) {
      fs::remove(seg.path, ec);
      s = ec ? Status::IoError("cannot remove " + seg.path + ": " + ec.message()) : sync_directory(wdir);
      rec.tail.next_index = seg.index;
      rec.actions.push_back("removed " + seg.path + ": the writer died while creating it (" + seg.problem + ")");
    } else {
      s = truncate_file(seg.path, seg.verified_bytes);
      rec.actions.push_back("truncated a torn tail of " + std::to_string(rec.torn_bytes) + " bytes from " + seg.path +
                            " at offset " + std::to_string(seg.verified_bytes) + " (" + seg.problem + ")");
    }
    if (!s.ok()) return s;
  } else if (scan.stopped_at) {
    const SegmentSummary& seg = scan.segments[*scan.stopped_at];
    rec.writable = false;
    rec.read_only_reason = "own stream stops early: " + scan.describe_problem();
    if (seg.end == SegmentEnd::corrupt) {
      ++rec.corruptions;
      Status s = quarantine_segment(dir, id.instance, seg, &rec.actions);
      if (!s.ok()) return s;
    }
  }

  auto held = quarantined_segments(dir, id.instance);
  if (rec.writable && !held.empty()) {
    rec.writable = false;
    rec.read_only_reason = "segments of this writer are in quarantine (" + held.front() +
                           (held.size() > 1 ? " and " + std::to_string(held.size() - 1) + " more" : "") +
                           "); writing on could reuse the seqnos of records a peer may hold";
  }

  if (rec.writable && !scan.segments.empty()) {
    const SegmentSummary& last = scan.segments.back();
    bool open = last.end == SegmentEnd::open || (last.end == SegmentEnd::torn_tail && last.verified_bytes > 0);
    if (open) {
      rec.tail.has_open_segment = true;
      rec.tail.open_index = last.index;
      rec.tail.open_bytes = last.verified_bytes;
      rec.tail.open_created_ms = last.created_ms;
      rec.tail.open_records = last.records;
    }
  }
  return rec;
}

}  // namespace vasana
