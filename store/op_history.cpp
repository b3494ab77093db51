#include "store/op_history.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <set>
#include <unistd.h>

#include "store/crc32c.hpp"
#include "store/file_io.hpp"
#include "store/little_endian.hpp"
#include "store/segment_format.hpp"
#include "store/segment_reader.hpp"
#include "store/writer_dirs.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

namespace {

// The first bytes of path, at most n.
Result<std::string> read_prefix(const std::string& path, size_t n) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      Status s = Status::IoError("cannot read " + path + ": " + std::strerror(errno));
      ::close(fd);
      return s;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

std::string where(const SegmentFile& f) {
  return "segment " + std::to_string(f.index.value) + " (" + f.path + ")";
}

// One writer's segment files, their headers read on demand.
class WriterSegments {
 public:
  WriterSegments(InstanceId instance, std::vector<SegmentFile> files, const VectorSpace& space)
      : instance_(instance), files_(std::move(files)), headers_(files_.size()), space_(space) {}

  size_t size() const { return files_.size(); }
  const SegmentFile& file(size_t i) const { return files_[i]; }

  const Result<SegmentHeader>& header(size_t i) {
    if (!headers_[i]) {
      auto prefix = read_prefix(files_[i].path, kHeaderFixedBytes + kMaxModelNameBytes);
      size_t consumed = 0;
      headers_[i] = prefix.ok() ? decode_header(*prefix, &consumed) : Result<SegmentHeader>(prefix.status());
    }
    return *headers_[i];
  }

  // The position of the segment whose first seqno is the greatest at or below seqno: a binary
  // search over headers (first seqnos grow with the index), or, when a header on the way is
  // unreadable, a look at every readable one. nullopt when no segment starts at or below it.
  std::optional<size_t> locate(Seqno seqno) {
    size_t lo = 0, hi = files_.size();  // answer in [lo, hi): the first header above seqno is at hi
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      const auto& h = header(mid);
      if (!h.ok()) return locate_linear(seqno);
      if (h->first_seqno <= seqno) lo = mid + 1;
      else hi = mid;
    }
    if (lo == 0) return std::nullopt;
    return lo - 1;
  }

  // "" when the stream stands, just before segment i, at the chain head and first seqno that
  // segment's header carries (see op_history.hpp); otherwise what does not hold.
  std::string check_link(size_t i) {
    const auto& h = header(i);
    if (!h.ok()) return where(files_[i]) + ": " + h.status().message();
    if (files_[i].index.value == 0) {
      if (h->first_seqno != Seqno(1) || h->chain_head != Hash256{})
        return where(files_[i]) + ": the first segment does not start the stream at seqno 1";
      return "";
    }
    if (i == 0 || files_[i - 1].index.value + 1 != files_[i].index.value)
      return "segment " + std::to_string(files_[i].index.value - 1) + " is missing";
    const SegmentFile& prev = files_[i - 1];
    const auto& ph = header(i - 1);
    if (!ph.ok()) return where(prev) + ": " + ph.status().message();
    // The previous segment's trailer (its CRC, record count, last seqno and last hash) must end
    // where this header starts: scan_continuation verifies the trailer against exactly that.
    if (ph->first_seqno <= h->first_seqno && prev.size >= kTrailerBytes) {
      auto tail = read_file_from(prev.path, prev.size - kTrailerBytes);
      if (!tail.ok()) return tail.status().message();
      SegmentContinuation at;
      at.instance = instance_;
      at.next_seqno = h->first_seqno;
      at.prev_hash = h->chain_head;
      at.records_before = h->first_seqno.value - ph->first_seqno.value;
      if (tail->size() == kTrailerBytes && scan_continuation(*tail, at, /*cut=*/false).end == SegmentEnd::sealed)
        return "";
    }
    // No trailer that matches: the previous segment itself must verify up to this header.
    auto bytes = read_whole_file(prev.path);
    if (!bytes.ok()) return bytes.status().message();
    ScanExpect e;
    e.instance = instance_;
    e.index = prev.index;
    e.first_seqno = ph->first_seqno;
    e.chain_head = ph->chain_head;
    e.vector_space = space_;
    SegmentScan scan = scan_segment(*bytes, e);
    if (scan.end != SegmentEnd::open && scan.end != SegmentEnd::sealed)
      return where(prev) + " is " + segment_end_name(scan.end) + " at offset " + std::to_string(scan.problem_offset) +
             ": " + scan.problem;
    const Seqno end_seqno = scan.records.empty() ? ph->first_seqno : Seqno(scan.records.back().seqno.value + 1);
    const Hash256& end_hash = scan.records.empty() ? ph->chain_head : scan.records.back().hash;
    if (end_seqno != h->first_seqno || end_hash != h->chain_head)
      return "chain mismatch: " + where(files_[i]) + " does not start where " + where(prev) + " ends";
    return "";
  }

 private:
  std::optional<size_t> locate_linear(Seqno seqno) {
    std::optional<size_t> best;
    for (size_t i = 0; i < files_.size(); ++i) {
      const auto& h = header(i);
      if (h.ok() && h->first_seqno <= seqno) best = i;
    }
    return best;
  }

  InstanceId instance_;
  std::vector<SegmentFile> files_;
  std::vector<std::optional<Result<SegmentHeader>>> headers_;
  VectorSpace space_;
};

HistoryOp op_from(InstanceId instance, SegmentIndex segment, const RecordRef& r) {
  HistoryOp op;
  op.instance = instance;
  op.seqno = r.seqno;
  op.ts = r.ts;
  op.op_type = r.op_type;
  op.payload = std::string(r.payload);
  op.segment = segment;
  op.offset = r.offset;
  return op;
}

// Follows record frames (segment_format.hpp) from off without verifying the chain, for the
// record of seqno. Found: the op, unverified (its own CRC is checked and reported). NotFound
// when the frames end cleanly first; Corruption when a frame cannot be followed.
Result<HistoryOp> find_unverified(std::string_view bytes, uint64_t off, InstanceId instance, const SegmentFile& f,
                                  Seqno seqno) {
  auto at = [&](uint64_t o) { return reinterpret_cast<const uint8_t*>(bytes.data()) + o; };
  while (off < bytes.size()) {
    if (bytes.size() - off < 4) break;
    const uint32_t length = get_u32(at(off));
    if (length == kTrailerMarker) return Status::NotFound("");
    const uint64_t end = off + kRecordFrameBytes + uint64_t(length);
    if (length < kRecordBodyFixedBytes || length > kMaxRecordBody || end > bytes.size()) break;
    const uint8_t* p = at(off);
    if (Seqno(get_u64(p + 8)) == seqno) {
      HistoryOp op;
      op.instance = instance;
      op.seqno = seqno;
      op.ts = Hlc(get_u64(p + 16));
      op.op_type = get_u16(p + 24);
      op.payload = std::string(bytes.substr(off + kRecordFrameBytes + kRecordBodyFixedBytes, length - kRecordBodyFixedBytes));
      op.segment = f.index;
      op.offset = off;
      uint32_t crc = crc32c::extend(0, p, 4);
      crc = crc32c::extend(crc, p + 8, length);
      if (crc != get_u32(p + 4)) op.problem = "the record's own CRC does not match; ";
      return op;
    }
    off = end;
  }
  if (off >= bytes.size()) return Status::NotFound("");
  return Status::Corruption(where(f) + ": the record frames cannot be followed past offset " + std::to_string(off));
}

// Reads segment pos of w once and answers every wanted seqno in it.
void read_segment(WriterSegments& w, size_t pos, InstanceId instance, const VectorSpace& space,
                  const std::vector<std::pair<Seqno, size_t>>& wanted, std::vector<Result<HistoryOp>>* out) {
  const SegmentFile& f = w.file(pos);
  auto bytes = read_whole_file(f.path);
  if (!bytes.ok()) {
    for (const auto& [seqno, k] : wanted) (*out)[k] = bytes.status();
    return;
  }
  const auto& h = w.header(pos);
  const std::string link = w.check_link(pos);
  ScanExpect e;
  e.instance = instance;
  e.index = f.index;
  e.first_seqno = h.ok() ? h->first_seqno : Seqno(1);
  e.chain_head = h.ok() ? h->chain_head : Hash256{};
  e.vector_space = space;
  const bool last = pos + 1 == w.size();
  e.tail_may_be_torn = last;
  SegmentScan scan = scan_segment(*bytes, e);
  // Where verification stops, when something fails before the end. An incomplete record at the
  // end of the last segment is one being appended: not there yet, not damage.
  std::string stop;
  if (scan.end != SegmentEnd::open && scan.end != SegmentEnd::sealed && !(last && scan.end == SegmentEnd::torn_tail))
    stop = where(f) + " is " + segment_end_name(scan.end) + " at offset " + std::to_string(scan.problem_offset) + ": " +
           scan.problem;

  for (const auto& [seqno, k] : wanted) {
    const uint64_t i = seqno.value - e.first_seqno.value;  // records are consecutive from first_seqno
    if (i < scan.records.size()) {
      HistoryOp op = op_from(instance, f.index, scan.records[i]);
      op.verified = link.empty();
      op.problem = link;
      (*out)[k] = std::move(op);
      continue;
    }
    const std::string missing = "writer " + to_hex(instance) + " holds no seqno " + std::to_string(seqno.value);
    if (stop.empty() || !h.ok()) {
      // Verified to its end without the seqno: past the stream's end when this is the last
      // segment; otherwise the next segment's header claims records this one does not have.
      if (stop.empty() && last) (*out)[k] = Status::NotFound(missing);
      else (*out)[k] = Status::Corruption(missing + " where " + where(f) + " should hold it" + (stop.empty() ? "" : ": " + stop));
      continue;
    }
    size_t consumed = 0;
    (void)decode_header(*bytes, &consumed);
    auto found = find_unverified(*bytes, consumed, instance, f, seqno);
    if (found.ok()) {
      found->problem += stop;
      if (!link.empty()) found->problem += "; " + link;
      (*out)[k] = std::move(found);
    } else if (found.status().code() == Code::not_found && last) {
      (*out)[k] = Status::NotFound(missing + " (" + stop + ")");
    } else {
      (*out)[k] = Status::Corruption(missing + " that can be read: " + stop);
    }
  }
}

// Marks as unverified every op of instance the whole stream does not verify through.
void check_whole_stream(const DataDir& dir, InstanceId instance, const VectorSpace& space,
                        const std::vector<size_t>& keys, std::vector<Result<HistoryOp>>* out) {
  std::set<uint64_t> wanted;
  for (size_t k : keys)
    if ((*out)[k].ok()) wanted.insert((*out)[k]->seqno.value);
  std::set<uint64_t> verified;
  auto scan = scan_writer(dir.writer_dir(instance), instance, space, /*own=*/true, [&](const RecordRef& r) {
    if (wanted.count(r.seqno.value)) verified.insert(r.seqno.value);
  });
  for (size_t k : keys) {
    if (!(*out)[k].ok()) continue;
    HistoryOp& op = *(*out)[k];
    if (scan.ok() && verified.count(op.seqno.value)) {
      op.verified = true;
      op.problem.clear();
    } else {
      op.verified = false;
      op.problem = scan.ok() ? scan->describe_problem() : scan.status().message();
    }
  }
}

}  // namespace

std::vector<Result<HistoryOp>> read_ops(const DataDir& dir, const VectorSpace& space, const std::vector<OpKey>& keys,
                                        HistoryCheck check) {
  std::vector<Result<HistoryOp>> out(keys.size(), Result<HistoryOp>(Status::NotFound("")));
  std::map<InstanceId, std::vector<size_t>> by_writer;
  for (size_t k = 0; k < keys.size(); ++k) by_writer[keys[k].instance].push_back(k);

  for (const auto& [instance, ks] : by_writer) {
    const std::string wdir = dir.writer_dir(instance);
    auto files = list_segment_files(wdir);
    if (!files.ok() || files->empty()) {
      for (size_t k : ks) out[k] = Status::NotFound("no segments of writer " + to_hex(instance) + " in " + dir.root);
      continue;
    }
    WriterSegments w(instance, std::move(*files), space);
    std::map<size_t, std::vector<std::pair<Seqno, size_t>>> by_segment;
    for (size_t k : ks) {
      const Seqno seqno = keys[k].seqno;
      auto pos = seqno.value == 0 ? std::nullopt : w.locate(seqno);
      if (!pos) {
        out[k] = Status::NotFound("writer " + to_hex(instance) + " holds no seqno " + std::to_string(seqno.value));
        continue;
      }
      by_segment[*pos].emplace_back(seqno, k);
    }
    for (const auto& [pos, wanted] : by_segment) read_segment(w, pos, instance, space, wanted, &out);
    if (check == HistoryCheck::whole_stream) check_whole_stream(dir, instance, space, ks, &out);
  }
  return out;
}

}  // namespace vasana
