#include "sync/writer_mirror.hpp"

#include <filesystem>
#include <system_error>
#include <tuple>

#include "store/file_access.hpp"
#include "store/segment_format.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

namespace fs = std::filesystem;

Result<std::unique_ptr<WriterMirror>> WriterMirror::open(const DataDir& dir, InstanceId writer,
                                                         const VectorSpace& space, const WriterScan& scan,
                                                         std::vector<std::string>* actions) {
  std::unique_ptr<WriterMirror> m(new WriterMirror(dir, writer, space));
  m->next_.instance = writer;
  m->next_.next_seqno = Seqno(scan.last_seqno.value + 1);
  m->next_.prev_hash = scan.last_hash;
  m->next_.min_ts = scan.last_ts;
  // The segment the copy continues in: the last one, or the one where verification stopped.
  size_t last = scan.segments.size();
  if (scan.stopped_at) {
    last = *scan.stopped_at + 1;
    for (size_t i = *scan.stopped_at; i < scan.segments.size(); ++i) {
      SegmentSummary seg = scan.segments[i];
      if (!seg.reached) seg.verified_bytes = 0;  // after the stop: nothing of it is verified
      Status s = quarantine_segment(dir, writer, seg, actions);
      if (!s.ok()) return s;
    }
    const SegmentSummary& stop = scan.segments[*scan.stopped_at];
    if (stop.verified_bytes == 0 || stop.problem_offset == 0) last = *scan.stopped_at;  // its header failed
  }
  if (last > 0) {
    const SegmentSummary& seg = scan.segments[last - 1];
    m->has_segment_ = true;
    m->segment_ = seg.index;
    m->segment_bytes_ = seg.verified_bytes;
    m->sealed_ = seg.end == SegmentEnd::sealed && !(scan.stopped_at && *scan.stopped_at == last - 1);
    m->next_.records_before = seg.records;
    // The last segment as found is what the copy resumes from and advertises: make sure it is
    // on disk, not only in the page cache of a process that died before its fdatasync.
    auto f = posix_file_system().open_append(m->segment_path(seg.index));
    Status s = f.ok() ? f.value()->sync() : f.status();
    if (!s.ok()) return s;
  }
  m->durable_ = m->head();
  m->durable_position_ = m->position();
  return m;
}

std::string WriterMirror::segment_path(SegmentIndex index) const {
  return dir_.writer_dir(writer_) + "/" + segment_file_name(index);
}

std::optional<WriterMirror::SyncPoint> WriterMirror::sync_point() const {
  const StreamHead h = head();
  if (!file_ || (h.segment == durable_.segment && h.segment_bytes == durable_.segment_bytes)) return std::nullopt;
  return SyncPoint{file_, h, position(), generation_};
}

void WriterMirror::synced(const SyncPoint& point) {
  auto key = [](const StreamHead& x) { return std::make_tuple(x.segment, x.segment_bytes); };
  if (point.generation != generation_ || !(key(durable_) < key(point.head))) return;
  durable_ = point.head;
  durable_position_ = point.position;
}

Status WriterMirror::rewind() {
  const Position& d = durable_position_;
  file_.reset();
  // Every segment file past the durable one goes (a sealed durable segment: its successor too).
  std::error_code ec;
  std::vector<SegmentIndex> later;
  for (fs::directory_iterator it(dir_.writer_dir(writer_), ec), end; !ec && it != end; it.increment(ec)) {
    auto index = parse_segment_file_name(it->path().filename().string());
    if (index && (!d.has_segment || d.segment < *index)) later.push_back(*index);
  }
  if (ec && ec != std::errc::no_such_file_or_directory)
    return Status::IoError("cannot list " + dir_.writer_dir(writer_) + ": " + ec.message());
  FileSystem& files = posix_file_system();
  for (SegmentIndex index : later) {
    Status s = files.remove(segment_path(index));
    if (!s.ok()) return s;
  }
  if (d.has_segment) {
    Status s = files.truncate(segment_path(d.segment), d.segment_bytes);
    if (!s.ok()) return s;
  }
  if (!later.empty()) {
    Status s = files.sync_dir(dir_.writer_dir(writer_));
    if (!s.ok()) return s;
  }
  has_segment_ = d.has_segment;
  segment_ = d.segment;
  segment_bytes_ = d.segment_bytes;
  sealed_ = d.sealed;
  next_ = d.next;
  ++generation_;
  return Status::Ok();
}

StreamHead WriterMirror::head() const {
  StreamHead h;
  h.writer = writer_;
  h.last_seqno = Seqno(next_.next_seqno.value - 1);
  h.last_hash = next_.prev_hash;
  h.last_ts = next_.min_ts;
  h.segment = segment_;
  h.segment_bytes = segment_bytes_;
  return h;
}

PeerFetch WriterMirror::next_fetch(uint32_t max_bytes) const {
  PeerFetch f;
  f.writer = writer_;
  f.max_bytes = max_bytes;
  if (!has_segment_) return f;  // segment 0 from 0
  f.segment = sealed_ ? SegmentIndex(segment_.value + 1) : segment_;
  f.offset = sealed_ ? 0 : segment_bytes_;
  return f;
}

bool WriterMirror::behind(const StreamHead& h) const {
  const PeerFetch f = next_fetch(0);
  return h.segment > f.segment || (h.segment == f.segment && h.segment_bytes > f.offset);
}

WriterMirror::Expectation WriterMirror::expectation() const {
  return Expectation{writer_, space_, next_fetch(0), next_};
}

Result<WriterMirror::Accepted> WriterMirror::accept(const PeerChunk& chunk, bool mid_write) {
  auto checked = check(expectation(), chunk, mid_write);
  if (!checked.ok()) return checked.status();
  return store(chunk, std::move(checked.value()));
}

namespace {

// Cuts a verified scan before its first record stamped after max_ts: the copy takes the records
// before it (and, at offset 0, the header), never that record, what follows it, or a trailer.
void hold_back(WriterMirror::Checked& out, Hlc max_ts) {
  SegmentScan& scan = out.scan;
  size_t keep = 0;
  while (keep < scan.records.size() && scan.records[keep].ts <= max_ts) ++keep;
  if (keep == scan.records.size()) return;
  const RecordRef& first = scan.records[keep];
  out.held = WriterMirror::HeldRecord{first.seqno, first.ts};
  scan.verified_bytes = first.offset;
  scan.records.resize(keep);
  scan.trailer.reset();
  scan.end = SegmentEnd::open;
}

}  // namespace

Result<WriterMirror::Checked> WriterMirror::check(const Expectation& x, const PeerChunk& chunk, bool mid_write) {
  Checked out;
  out.at = x.at;
  if (chunk.writer != x.writer || chunk.segment != x.at.segment || chunk.offset != x.at.offset || chunk.missing) {
    out.stale = true;
    return out;
  }
  if (chunk.bytes.empty()) return out;

  const bool fresh = chunk.offset == 0;
  if (fresh) {
    ScanExpect expect;
    expect.instance = x.writer;
    expect.index = chunk.segment;
    expect.first_seqno = x.next.next_seqno;
    expect.chain_head = x.next.prev_hash;
    expect.min_ts = x.next.min_ts;
    expect.vector_space = x.space;
    expect.tail_may_be_cut = !mid_write;  // a record cut at the chunk's end: the rest comes next
    expect.tail_may_be_torn = mid_write;
    out.scan = scan_segment(chunk.bytes, expect);
  } else {
    out.scan = scan_continuation(chunk.bytes, x.next, /*cut=*/!mid_write);
  }
  const SegmentScan& scan = out.scan;
  auto where = [&] {  // built only for a refusal: check() runs for every chunk and push
    return "writer " + to_hex(x.writer) + " segment " + std::to_string(chunk.segment.value) + " at offset " +
           std::to_string(chunk.offset + scan.problem_offset) + ": " + scan.problem;
  };
  if (scan.end == SegmentEnd::incompatible) return Status::Incompatible(where());
  if (scan.end == SegmentEnd::corrupt || scan.end == SegmentEnd::gap) return Status::Corruption(where());
  hold_back(out, x.max_ts);
  out.records.reserve(scan.records.size());
  if (scan.records.empty()) return out;
  auto bytes = std::make_shared<const std::string>(chunk.bytes.data(), scan.verified_bytes);
  for (const RecordRef& r : scan.records) {
    const size_t at = size_t(r.payload.data() - chunk.bytes.data());  // the scan's views are into chunk.bytes
    out.records.push_back(MirroredRecord{r.seqno, r.ts, r.op_type, std::string_view(bytes->data() + at, r.payload.size()), bytes});
  }
  return out;
}

Result<WriterMirror::Accepted> WriterMirror::store(const PeerChunk& chunk, Checked checked) {
  Accepted out;
  const PeerFetch at = next_fetch(0);
  if (checked.stale || chunk.writer != writer_ || checked.at.segment != at.segment || checked.at.offset != at.offset) {
    out.stale = true;  // not for this position, or the copy moved on since check()
    return out;
  }
  const SegmentScan& scan = checked.scan;
  const bool fresh = chunk.offset == 0;
  // A hold is news even when nothing before the held record is left to store (the chunk starts
  // with it): the caller stops fetching that writer until the record is due.
  out.held = checked.held;
  if (chunk.bytes.empty()) return out;
  if (fresh && !scan.header) return out;  // not even the whole header yet
  if (scan.verified_bytes == 0) return out;

  // Verified: store, and hand the records on. Synced here only when the segment begins (its
  // file and directory entry) or is sealed; the rest by sync_point().
  const std::string_view good(chunk.bytes.data(), scan.verified_bytes);
  if (fresh) {
    std::error_code ec;
    const bool new_dir = !fs::exists(dir_.writer_dir(writer_), ec);
    Status made = make_private_dirs(dir_.writer_dir(writer_));
    if (!made.ok()) return made;
    if (new_dir) {  // the folder's own entry must survive a power loss too
      Status d = posix_file_system().sync_dir(dir_.writers_dir());
      if (!d.ok()) return d;
    }
    file_.reset();
    auto f = posix_file_system().create(segment_path(chunk.segment));
    if (!f.ok()) return f.status();
    file_ = std::move(f.value());
  } else if (!file_) {
    auto f = posix_file_system().open_append(segment_path(chunk.segment));
    if (!f.ok()) return f.status();
    file_ = std::move(f.value());
  }
  Status s = file_->append(good);
  const bool sync_now = fresh || scan.end == SegmentEnd::sealed;
  if (s.ok() && sync_now) s = file_->sync();
  if (s.ok() && fresh) s = posix_file_system().sync_dir(dir_.writer_dir(writer_));
  if (!s.ok()) return s;

  if (fresh) {
    has_segment_ = true;
    segment_ = chunk.segment;
    segment_bytes_ = 0;
    next_.records_before = 0;
  }
  segment_bytes_ += scan.verified_bytes;
  sealed_ = scan.end == SegmentEnd::sealed;
  next_.records_before += scan.records.size();
  out.bytes = scan.verified_bytes;
  if (!scan.records.empty()) {
    const RecordRef& last = scan.records.back();
    next_.next_seqno = Seqno(last.seqno.value + 1);
    next_.prev_hash = last.hash;
    next_.min_ts = last.ts;
  }
  out.records = std::move(checked.records);
  if (sync_now) {
    durable_ = head();
    durable_position_ = position();
  }
  if (sealed_) file_.reset();
  return out;
}

}  // namespace vasana
