// Fuzz target: the bytes of one segment file through the verifying reader (store/segment_reader),
// as recovery, `vasana verify`, a shared-directory tailer and a peer's chunk read them.
//
// Input: a segment file (corpus/segment holds real ones from the log writer). The expectation
// is taken from the header when it decodes (so records can verify), else a default one. Each
// input is scanned three ways (a complete file, the own open segment whose tail may be torn, a
// peer's chunk cut anywhere) and once more after its framing is repaired: header, record and
// trailer CRCs and the hash chain recomputed, as a hostile peer that computes them would send.
//
// Invariants checked, beyond "no crash, no sanitizer report":
// - the verified prefix is consistent: records contiguous from the header, seqnos gapless from
//   first_seqno, each prev_hash the previous record's hash, timestamps never going back, and
//   verified_bytes where the last record (or the trailer) ends; open and sealed verify every byte;
// - every verified record's payload decodes (decode_op), as the replica will decode it;
// - the verified prefix alone scans clean (open or sealed) with the same records;
// - scan_continuation after the header agrees with scan_segment;
// - a clean segment cut at any point is a torn tail or open, never corrupt, in the own-tail and
//   the peer-chunk modes (a crash or a chunk boundary is not corruption).
#include <cstring>

#include "fuzz_check.hpp"
#include "protocol/op_codec.hpp"
#include "store/chain_hash.hpp"
#include "store/crc32c.hpp"
#include "store/little_endian.hpp"
#include "store/segment_reader.hpp"

namespace vasana {
namespace {

enum class Mode { whole, own_tail, peer_chunk };

ScanExpect expect_for(std::string_view bytes, Mode mode, size_t* header_bytes) {
  ScanExpect e;
  e.instance = InstanceId(1);
  e.first_seqno = Seqno(1);
  *header_bytes = 0;
  auto h = decode_header(bytes, header_bytes);
  if (h.ok()) {
    e.instance = h->instance;
    e.index = h->index;
    e.first_seqno = h->first_seqno;
    e.chain_head = h->chain_head;
    e.vector_space = h->vector_space;
  } else {
    *header_bytes = 0;
  }
  e.tail_may_be_torn = mode == Mode::own_tail;
  e.tail_may_be_cut = mode == Mode::peer_chunk;
  return e;
}

std::string where(const SegmentScan& s) {
  return std::string(segment_end_name(s.end)) + " at " + std::to_string(s.problem_offset) + ": " + s.problem;
}

void check_scan(std::string_view bytes, const ScanExpect& e, const SegmentScan& s, uint64_t start,
                Seqno first_seqno, const Hash256& chain_head) {
  FUZZ_CHECK(s.verified_bytes <= bytes.size(), where(s));
  if (s.end == SegmentEnd::open || s.end == SegmentEnd::sealed)
    FUZZ_CHECK(s.verified_bytes == bytes.size(), where(s));
  else
    FUZZ_CHECK(!s.problem.empty() && s.problem_offset <= bytes.size(), where(s));
  FUZZ_CHECK(s.trailer.has_value() == (s.end == SegmentEnd::sealed), where(s));
  uint64_t off = start;
  Seqno next = first_seqno;
  Hash256 prev = chain_head;
  Hlc ts = e.min_ts;
  for (const RecordRef& r : s.records) {
    FUZZ_CHECK(r.offset == off, "record at " + std::to_string(r.offset) + ", expected " + std::to_string(off));
    FUZZ_CHECK(r.size == record_size(r.payload.size()), "framed size");
    FUZZ_CHECK(r.seqno == next, "seqno " + std::to_string(r.seqno.value));
    FUZZ_CHECK(r.prev_hash == prev, "chain");
    FUZZ_CHECK(r.ts >= ts, "timestamp goes back");
    FUZZ_CHECK(r.hash == chain_hash(e.instance, r.seqno, r.ts, r.op_type, r.prev_hash, r.payload), "hash");
    auto op = decode_op(r.op_type, r.payload);
    FUZZ_CHECK(op.ok(), "a verified record does not decode: " + op.status().message());
    FUZZ_CHECK(op_type_of(*op) == r.op_type, "decoded op type");
    off += r.size;
    next = Seqno(r.seqno.value + 1);
    prev = r.hash;
    ts = r.ts;
  }
  if (s.trailer) {
    FUZZ_CHECK(s.trailer->record_count >= s.records.size(), "trailer count");
    off += kTrailerBytes;
  }
  FUZZ_CHECK(s.verified_bytes == off, "verified bytes " + std::to_string(s.verified_bytes) + ", records end at " + std::to_string(off));
}

SegmentScan scan_checked(std::string_view bytes, Mode mode) {
  size_t header_bytes = 0;
  const ScanExpect e = expect_for(bytes, mode, &header_bytes);
  SegmentScan s = scan_segment(bytes, e);
  check_scan(bytes, e, s, header_bytes, e.first_seqno, e.chain_head);
  if (!s.header) return s;
  FUZZ_CHECK(header_bytes != 0, "a header the scan accepted does not decode");

  // The verified prefix alone: clean, the same records.
  if (s.verified_bytes < bytes.size()) {
    const ScanExpect whole = expect_for(bytes, Mode::whole, &header_bytes);
    SegmentScan p = scan_segment(bytes.substr(0, s.verified_bytes), whole);
    FUZZ_CHECK(p.end == SegmentEnd::open || p.end == SegmentEnd::sealed, "verified prefix: " + where(p));
    FUZZ_CHECK(p.records.size() == s.records.size(), "verified prefix holds other records");
  }

  // The same bytes after the header, as a continuation.
  if (mode != Mode::whole) {
    SegmentContinuation at{e.instance, e.first_seqno, e.chain_head, e.min_ts, 0};
    SegmentScan c = scan_continuation(bytes.substr(header_bytes), at, mode == Mode::peer_chunk);
    check_scan(bytes.substr(header_bytes), e, c, 0, e.first_seqno, e.chain_head);
    FUZZ_CHECK(c.end == s.end, "continuation ends " + where(c) + ", segment " + where(s));
    FUZZ_CHECK(c.records.size() == s.records.size(), "continuation holds other records");
    FUZZ_CHECK(c.verified_bytes + header_bytes == s.verified_bytes, "continuation length");
  }
  return s;
}

// A clean segment cut at `cut` bytes: what a crash leaves of the own open segment, or a peer's
// chunk boundary. Never corrupt, and its records are a prefix of the whole one's.
void check_cut(std::string_view bytes, const SegmentScan& whole, size_t cut, Mode mode) {
  size_t header_bytes = 0;
  const ScanExpect e = expect_for(bytes, mode, &header_bytes);
  SegmentScan s = scan_segment(bytes.substr(0, cut), e);
  FUZZ_CHECK(s.end == SegmentEnd::open || s.end == SegmentEnd::torn_tail,
             "a clean segment cut at " + std::to_string(cut) + " of " + std::to_string(bytes.size()) + ": " + where(s));
  FUZZ_CHECK(s.records.size() <= whole.records.size(), "cut holds more records");
  for (size_t i = 0; i < s.records.size(); ++i)
    FUZZ_CHECK(s.records[i].offset == whole.records[i].offset && s.records[i].hash == whole.records[i].hash,
               "cut holds other records");
}

void check_all(std::string_view bytes) {
  SegmentScan whole = scan_checked(bytes, Mode::whole);
  scan_checked(bytes, Mode::own_tail);
  scan_checked(bytes, Mode::peer_chunk);
  if (whole.header && (whole.end == SegmentEnd::open || whole.end == SegmentEnd::sealed) && bytes.size() > 1) {
    // A cut point picked by the input's own bytes, so that it is reproducible.
    const size_t cut = crc32c::value(bytes.data(), bytes.size()) % bytes.size();
    check_cut(bytes, whole, cut, Mode::own_tail);
    check_cut(bytes, whole, cut, Mode::peer_chunk);
  }
}

// The framing a writer computes, recomputed over bytes: the header CRC, each record's CRC and
// (unless its prev_hash starts with 0xEE, so that chain mismatches stay reachable) its chain
// link, the trailer's last hash and CRC. Walks records as long as their lengths are sound.
std::string repair_framing(std::string_view in) {
  std::string b(in);
  auto p = reinterpret_cast<uint8_t*>(b.data());
  if (b.size() < kHeaderFixedBytes || in.substr(0, 8) != kSegmentMagic) return b;
  const size_t len = get_u16(p + 10);
  if (len < kHeaderFixedBytes || len > b.size()) return b;
  put_u32(p + len - 4, crc32c::value(p, len - 4));
  const InstanceId instance(get_u64(p + 12));
  Hash256 prev;
  std::memcpy(prev.data(), p + 36, 32);
  size_t off = len;
  while (off + 4 <= b.size()) {
    uint8_t* r = p + off;
    const uint32_t length = get_u32(r);
    if (length == kTrailerMarker) {
      if (off + kTrailerBytes > b.size()) break;
      std::memcpy(r + 24, prev.data(), 32);
      uint32_t crc = crc32c::extend(0, r, 4);
      put_u32(r + 4, crc32c::extend(crc, r + 8, kTrailerBytes - 8));
      break;
    }
    if (length < kRecordBodyFixedBytes || length > kMaxRecordBody || off + kRecordFrameBytes + length > b.size()) break;
    if (r[26] != 0xEE) std::memcpy(r + 26, prev.data(), 32);
    uint32_t crc = crc32c::extend(0, r, 4);
    put_u32(r + 4, crc32c::extend(crc, r + 8, length));
    Hash256 link;
    std::memcpy(link.data(), r + 26, 32);
    const size_t body = kRecordFrameBytes + kRecordBodyFixedBytes;
    prev = chain_hash(instance, Seqno(get_u64(r + 8)), Hlc(get_u64(r + 16)), get_u16(r + 24), link,
                      std::string_view(b.data() + off + body, length - kRecordBodyFixedBytes));
    off += kRecordFrameBytes + length;
  }
  return b;
}

}  // namespace
}  // namespace vasana

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = vasana::fuzz::bytes_of(data, size);
  vasana::check_all(bytes);
  const std::string repaired = vasana::repair_framing(bytes);
  if (repaired != bytes) vasana::check_all(repaired);
  return 0;
}
