#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "store/crc32c.hpp"
#include "store/little_endian.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

SegmentHeader sample_header() {
  SegmentHeader h;
  h.instance = InstanceId(0x1122334455667788ull);
  h.index = SegmentIndex(7);
  h.first_seqno = Seqno(42);
  for (size_t i = 0; i < h.chain_head.size(); ++i) h.chain_head[i] = static_cast<uint8_t>(i + 1);
  h.created_ms = 1'700'000'123'456ull;
  h.vector_space.model = "test-model";
  h.vector_space.dim = 16;
  h.vector_space.text_format = 3;
  return h;
}

}  // namespace

TEST_CASE("a segment header decodes to the header that was encoded", "[format]") {
  const SegmentHeader h = sample_header();
  const std::string bytes = encode_header(h);
  CHECK(bytes.size() == header_size(h));
  CHECK(bytes.size() == kHeaderFixedBytes + h.vector_space.model.size());

  size_t consumed = 0;
  auto d = decode_header(bytes + "trailing record bytes", &consumed);
  REQUIRE(d.ok());
  CHECK(consumed == bytes.size());
  CHECK(d->version == kSegmentFormatVersion);
  CHECK(d->instance == h.instance);
  CHECK(d->index == h.index);
  CHECK(d->first_seqno == h.first_seqno);
  CHECK(d->chain_head == h.chain_head);
  CHECK(d->created_ms == h.created_ms);
  CHECK(d->vector_space == h.vector_space);

  // Negative controls: a damaged magic or CRC is corruption; a newer version is incompatible.
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  CHECK(decode_header(bad_magic, &consumed).status().code() == Code::corruption);
  std::string bad_crc = bytes;
  bad_crc[bad_crc.size() - 1] ^= 0x01;
  CHECK(decode_header(bad_crc, &consumed).status().code() == Code::corruption);
  CHECK(decode_header(bytes.substr(0, bytes.size() - 1), &consumed).status().code() == Code::corruption);
  SegmentHeader newer = h;
  newer.version = kSegmentFormatVersion + 1;
  auto nd = decode_header(encode_header(newer), &consumed);
  REQUIRE_FALSE(nd.ok());
  CHECK(nd.status().code() == Code::incompatible);
}

TEST_CASE("records appended by hand scan back with their fields and chain hashes, and the trailer round-trips",
          "[format]") {
  SegmentHeader h;
  h.instance = InstanceId(0xabcdef0123456789ull);
  h.index = SegmentIndex(0);
  h.first_seqno = Seqno(1);
  h.created_ms = 5;
  std::string seg = encode_header(h);

  std::vector<Written> written;
  Hash256 prev = kZeroHash;
  for (uint64_t s = 1; s <= 5; ++s) {
    Written w;
    w.seqno = Seqno(s);
    w.ts = s == 3 ? test_ts(2) : test_ts(s);  // equal timestamps are allowed; only going back is not
    w.op_type = s % 2 == 0 ? kDelete : kPut;
    w.payload = s % 2 == 0 ? delete_payload(s - 1) : put_payload(s);
    const size_t before = seg.size();
    append_record(seg, w.seqno, w.ts, w.op_type, prev, w.payload);
    CHECK(seg.size() - before == record_size(w.payload.size()));
    w.hash = chain_hash(h.instance, w.seqno, w.ts, w.op_type, prev, w.payload);
    prev = w.hash;
    written.push_back(w);
  }
  SegmentTrailer t;
  t.record_count = written.size();
  t.last_seqno = written.back().seqno;
  t.last_hash = written.back().hash;
  const std::string trailer = encode_trailer(t);
  CHECK(trailer.size() == kTrailerBytes);

  ScanExpect e = first_segment_expect(h.instance);
  SegmentScan open = scan_segment(seg, e);
  CHECK(open.end == SegmentEnd::open);
  CHECK(open.verified_bytes == seg.size());
  REQUIRE(open.records.size() == written.size());
  uint64_t off = header_size(h);
  for (size_t i = 0; i < written.size(); ++i) {
    INFO("record " << i);
    const RecordRef& r = open.records[i];
    CHECK(r.seqno == written[i].seqno);
    CHECK(r.ts == written[i].ts);
    CHECK(r.op_type == written[i].op_type);
    CHECK(r.payload == written[i].payload);
    CHECK(r.hash == written[i].hash);
    CHECK(r.prev_hash == (i == 0 ? kZeroHash : written[i - 1].hash));
    CHECK(r.offset == off);
    CHECK(r.size == record_size(written[i].payload.size()));
    off += r.size;
  }
  CHECK_FALSE(open.trailer.has_value());

  SegmentScan sealed = scan_segment(seg + trailer, e);
  CHECK(sealed.end == SegmentEnd::sealed);
  CHECK(sealed.verified_bytes == seg.size() + trailer.size());
  REQUIRE(sealed.trailer.has_value());
  CHECK(sealed.trailer->record_count == t.record_count);
  CHECK(sealed.trailer->last_seqno == t.last_seqno);
  CHECK(sealed.trailer->last_hash == t.last_hash);

  // Negative controls: a trailer that disagrees with the records, or bytes after it, is corrupt.
  SegmentTrailer wrong = t;
  wrong.record_count = t.record_count + 1;
  CHECK(scan_segment(seg + encode_trailer(wrong), e).end == SegmentEnd::corrupt);
  wrong = t;
  wrong.last_hash[0] ^= 1;
  CHECK(scan_segment(seg + encode_trailer(wrong), e).end == SegmentEnd::corrupt);
  SegmentScan after = scan_segment(seg + trailer + "x", e);
  CHECK(after.end == SegmentEnd::corrupt);
  CHECK_FALSE(after.trailer.has_value());
  // A header naming another writer is not this writer's segment.
  ScanExpect other = e;
  other.instance = InstanceId(h.instance.value + 1);
  CHECK(scan_segment(seg, other).end == SegmentEnd::corrupt);
}

TEST_CASE("the record frame is length, CRC32C over length and body, then the body fields", "[format]") {
  const std::string payload = put_payload(1);
  Hash256 prev{};
  prev.fill(0xAB);
  std::string rec;
  append_record(rec, Seqno(9), Hlc(0x0102030405060708ull), kPut, prev, payload);
  auto p = reinterpret_cast<const uint8_t*>(rec.data());
  CHECK(get_u32(p) == kRecordBodyFixedBytes + payload.size());
  uint32_t crc = crc32c::extend(0, p, 4);
  crc = crc32c::extend(crc, p + 8, rec.size() - 8);
  CHECK(get_u32(p + 4) == crc);
  CHECK(get_u64(p + 8) == 9u);
  CHECK(get_u64(p + 16) == 0x0102030405060708ull);
  CHECK(get_u16(p + 24) == kPut);
  CHECK(rec.substr(26, 32) == std::string(32, '\xAB'));
  CHECK(rec.substr(kRecordFrameBytes + kRecordBodyFixedBytes) == payload);
}

TEST_CASE("segment file names are eight zero-padded decimal digits and parse back to one spelling only",
          "[format]") {
  CHECK(segment_file_name(SegmentIndex(0)) == "00000000.seg");
  CHECK(segment_file_name(SegmentIndex(42)) == "00000042.seg");
  CHECK(segment_file_name(SegmentIndex(123456789)) == "123456789.seg");
  for (uint64_t i : {0ull, 1ull, 42ull, 99999999ull, 123456789ull}) {
    auto parsed = parse_segment_file_name(segment_file_name(SegmentIndex(i)));
    REQUIRE(parsed.has_value());
    CHECK(parsed->value == i);
  }
  CHECK_FALSE(parse_segment_file_name("1.seg").has_value());
  CHECK_FALSE(parse_segment_file_name("0000000a.seg").has_value());
  CHECK_FALSE(parse_segment_file_name("000000042.seg").has_value());  // a second spelling of 42
  CHECK_FALSE(parse_segment_file_name("00000042.seg.tmp").has_value());
  CHECK_FALSE(parse_segment_file_name("-0000001.seg").has_value());
  CHECK_FALSE(parse_segment_file_name("00000042.SEG").has_value());
}
