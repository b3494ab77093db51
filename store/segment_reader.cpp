#include "store/segment_reader.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/op_codec.hpp"
#include "protocol/redaction.hpp"
#include "store/chain_hash.hpp"
#include "store/crc32c.hpp"
#include "store/little_endian.hpp"

namespace vasana {

const char* segment_end_name(SegmentEnd e) {
  switch (e) {
    case SegmentEnd::sealed: return "sealed";
    case SegmentEnd::open: return "open";
    case SegmentEnd::torn_tail: return "torn tail";
    case SegmentEnd::corrupt: return "corrupt";
    case SegmentEnd::incompatible: return "incompatible";
    case SegmentEnd::gap: return "gap";
  }
  return "?";
}

namespace {

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

class Scanner {
 public:
  Scanner(std::string_view bytes, const ScanExpect& expect) : bytes_(bytes), expect_(expect) {}

  // Continues at a record boundary: no header, the stream state given.
  SegmentScan run_continuation(const SegmentContinuation& at) {
    next_seqno_ = at.next_seqno;
    prev_hash_ = at.prev_hash;
    last_ts_ = at.min_ts;
    records_before_ = at.records_before;
    uint64_t off = 0;
    while (off < bytes_.size()) {
      if (!read_one(off)) return std::move(scan_);
      if (scan_.end == SegmentEnd::sealed) return std::move(scan_);
    }
    scan_.end = SegmentEnd::open;
    return std::move(scan_);
  }

  SegmentScan run() {
    if (!read_header()) return std::move(scan_);
    next_seqno_ = expect_.first_seqno;
    prev_hash_ = expect_.chain_head;
    last_ts_ = expect_.min_ts;
    uint64_t off = scan_.verified_bytes;
    while (off < bytes_.size()) {
      if (!read_one(off)) return std::move(scan_);
      if (scan_.end == SegmentEnd::sealed) return std::move(scan_);
    }
    scan_.end = SegmentEnd::open;
    return std::move(scan_);
  }

 private:
  const uint8_t* at(uint64_t off) const { return reinterpret_cast<const uint8_t*>(bytes_.data()) + off; }

  bool fail(SegmentEnd how, uint64_t off, std::string why) {
    scan_.end = how;
    scan_.problem_offset = off;
    scan_.problem = std::move(why);
    return false;
  }

  // A damaged tail of the own open segment is a torn write only when nothing after the damage
  // can be a record that was made durable: the damaged record reaches the end of the file, or
  // everything from it on is zero (the file system extended the file but never wrote the
  // data); and no complete record or trailer follows it. A damaged length field can make a
  // record seem to run past the end of the file, so the bytes after it are searched for a
  // later record before anything is called torn: cutting a durable record would lose an
  // acknowledged write.
  bool torn_or_corrupt(uint64_t off, uint64_t record_end, std::string why) {
    if (expect_.tail_may_be_cut)
      return fail(record_end > bytes_.size() ? SegmentEnd::torn_tail : SegmentEnd::corrupt, off, std::move(why));
    bool tail = expect_.tail_may_be_torn && (record_end >= bytes_.size() || all_zero(bytes_.substr(off))) &&
                !ends_with_trailer() && !later_record_after(off);
    return fail(tail ? SegmentEnd::torn_tail : SegmentEnd::corrupt, off, std::move(why));
  }

  bool ends_with_trailer() const {
    if (bytes_.size() < kTrailerBytes) return false;
    const uint8_t* p = at(bytes_.size() - kTrailerBytes);
    if (get_u32(p) != kTrailerMarker) return false;
    uint32_t crc = crc32c::extend(0, p, 4);
    crc = crc32c::extend(crc, p + 8, kTrailerBytes - 8);
    return crc == get_u32(p + 4);
  }

  // True when a record with a valid CRC and a seqno after the expected one starts anywhere
  // after off. The seqno is checked before the CRC, so garbage costs little.
  bool later_record_after(uint64_t off) const {
    const uint64_t expected = next_seqno_.value;
    for (uint64_t o = off + 1; o + kRecordFrameBytes + kRecordBodyFixedBytes <= bytes_.size(); ++o) {
      const uint8_t* p = at(o);
      const uint32_t length = get_u32(p);
      if (length < kRecordBodyFixedBytes || length > kMaxRecordBody || o + kRecordFrameBytes + length > bytes_.size())
        continue;
      const uint64_t seqno = get_u64(p + 8);
      if (seqno <= expected || seqno - expected > (1u << 24)) continue;
      uint32_t crc = crc32c::extend(0, p, 4);
      crc = crc32c::extend(crc, p + 8, length);
      if (crc == get_u32(p + 4)) return true;
    }
    return false;
  }

  bool read_header() {
    size_t consumed = 0;
    auto h = decode_header(bytes_, &consumed);
    if (!h.ok()) {
      if (h.status().code() == Code::incompatible)
        return fail(SegmentEnd::incompatible, 0, h.status().message());
      // The header is written and synced before any record: a short or unreadable header in the
      // own last segment means the writer died while creating the segment.
      SegmentHeader ours;
      ours.vector_space = expect_.vector_space;
      const size_t need = header_size(ours);
      if (expect_.tail_may_be_cut)  // incomplete only when shorter than the header it must be
        return torn_or_corrupt(0, bytes_.size() < need ? need : 0, h.status().message());
      return torn_or_corrupt(0, bytes_.size() <= need ? bytes_.size() : 0, h.status().message());
    }
    const SegmentHeader& hd = *h;
    if (hd.instance != expect_.instance)
      return fail(SegmentEnd::corrupt, 0, "header names writer " + to_hex(hd.instance) + ", expected " + to_hex(expect_.instance));
    if (hd.index != expect_.index)
      return fail(SegmentEnd::corrupt, 0, "header names segment " + std::to_string(hd.index.value) + ", expected " +
                                              std::to_string(expect_.index.value));
    if (hd.vector_space != expect_.vector_space)
      return fail(SegmentEnd::incompatible, 0, "segment is in vector space " + hd.vector_space.id() +
                                                   " but this store uses " + expect_.vector_space.id());
    scan_.header = hd;
    scan_.verified_bytes = consumed;
    if (hd.first_seqno != expect_.first_seqno)
      return fail(SegmentEnd::gap, 0, "segment starts at seqno " + std::to_string(hd.first_seqno.value) +
                                          " but the stream continues at seqno " +
                                          std::to_string(expect_.first_seqno.value));
    if (hd.chain_head != expect_.chain_head)
      return fail(SegmentEnd::corrupt, 0, "chain mismatch: the header's chain head is not the hash of seqno " +
                                              std::to_string(expect_.first_seqno.value - 1));
    return true;
  }

  bool read_trailer(uint64_t off) {
    if (bytes_.size() - off < kTrailerBytes)
      return torn_or_corrupt(off, expect_.tail_may_be_cut ? off + kTrailerBytes : bytes_.size(), "trailer is truncated");
    const uint8_t* p = at(off);
    uint32_t crc = crc32c::extend(0, p, 4);
    crc = crc32c::extend(crc, p + 8, kTrailerBytes - 8);
    if (crc != get_u32(p + 4)) return torn_or_corrupt(off, off + kTrailerBytes, "trailer CRC mismatch");
    SegmentTrailer t;
    t.record_count = get_u64(p + 8);
    t.last_seqno = Seqno(get_u64(p + 16));
    std::memcpy(t.last_hash.data(), p + 24, 32);
    if (t.record_count != records_before_ + scan_.records.size() || t.last_seqno.value + 1 != next_seqno_.value || t.last_hash != prev_hash_)
      return fail(SegmentEnd::corrupt, off, "trailer does not match the records before it");
    if (off + kTrailerBytes != bytes_.size())
      return fail(SegmentEnd::corrupt, off + kTrailerBytes, "bytes follow the trailer");
    scan_.trailer = t;
    scan_.verified_bytes = off + kTrailerBytes;
    scan_.end = SegmentEnd::sealed;
    return true;
  }

  bool read_one(uint64_t& off) {
    const uint64_t left = bytes_.size() - off;
    const uint64_t frame_end = expect_.tail_may_be_cut ? off + kRecordFrameBytes : bytes_.size();
    if (left < 4) return torn_or_corrupt(off, frame_end, "record header is truncated");
    const uint32_t length = get_u32(at(off));
    if (length == kTrailerMarker) return read_trailer(off);
    if (left < kRecordFrameBytes) return torn_or_corrupt(off, frame_end, "record header is truncated");
    if (length < kRecordBodyFixedBytes || length > kMaxRecordBody)
      return torn_or_corrupt(off, off + kRecordFrameBytes, "record length " + std::to_string(length) + " is invalid");
    const uint64_t end = off + kRecordFrameBytes + length;
    if (end > bytes_.size()) return torn_or_corrupt(off, end, "record runs past the end of the segment");
    const uint8_t* p = at(off);
    uint32_t crc = crc32c::extend(0, p, 4);
    crc = crc32c::extend(crc, p + 8, length);
    if (crc != get_u32(p + 4)) return torn_or_corrupt(off, end, "record CRC mismatch");

    RecordRef r;
    r.offset = off;
    r.size = end - off;
    r.seqno = Seqno(get_u64(p + 8));
    r.ts = Hlc(get_u64(p + 16));
    r.op_type = get_u16(p + 24);
    std::memcpy(r.prev_hash.data(), p + 26, 32);
    r.payload = bytes_.substr(off + kRecordFrameBytes + kRecordBodyFixedBytes, length - kRecordBodyFixedBytes);
    // A valid CRC with wrong lineage is never a torn write: it is corruption (or forgery).
    if (r.seqno != next_seqno_)
      return fail(SegmentEnd::corrupt, off, "seqno " + std::to_string(r.seqno.value) + " where " +
                                                std::to_string(next_seqno_.value) + " was expected");
    if (r.prev_hash != prev_hash_) return fail(SegmentEnd::corrupt, off, "chain mismatch: previous hash differs");
    if (r.ts < last_ts_) return fail(SegmentEnd::corrupt, off, "effective timestamp goes backwards");
    Status ps = validate_op(r.op_type, r.payload);
    if (!ps.ok())
      return fail(ps.code() == Code::incompatible ? SegmentEnd::incompatible : SegmentEnd::corrupt, off, ps.message());
    // A redacted record keeps the hash its writer computed over the payload it replaced
    // (protocol/redaction.hpp): the next record's previous hash is what checks it.
    r.hash = is_redacted_op_type(r.op_type) ? decode_redaction_marker(r.op_type, r.payload)->record_hash
                                            : chain_hash(expect_.instance, r.seqno, r.ts, r.op_type, r.prev_hash, r.payload);
    prev_hash_ = r.hash;
    last_ts_ = r.ts;
    next_seqno_ = Seqno(r.seqno.value + 1);
    scan_.records.push_back(r);
    scan_.verified_bytes = end;
    off = end;
    return true;
  }

  std::string_view bytes_;
  const ScanExpect& expect_;
  SegmentScan scan_;
  Seqno next_seqno_;
  Hash256 prev_hash_{};
  Hlc last_ts_;
  uint64_t records_before_ = 0;
};

}  // namespace

SegmentScan scan_segment(std::string_view bytes, const ScanExpect& expect) { return Scanner(bytes, expect).run(); }

SegmentScan scan_continuation(std::string_view bytes, const SegmentContinuation& at, bool cut) {
  ScanExpect expect;
  expect.instance = at.instance;
  expect.tail_may_be_cut = cut;
  expect.tail_may_be_torn = !cut;
  return Scanner(bytes, expect).run_continuation(at);
}

}  // namespace vasana
