// Records whose CRC is valid but whose place in the writer's chain is wrong: forged or misplaced
// bytes. Each is refused as corruption, even at the tail of the own open segment.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

constexpr InstanceId kWriter{0x0123456789abcdefull};

// A segment 0 with two good records, then a third built by `third` (given the chain so far).
struct HandBuilt {
  std::string bytes;
  Hash256 hash2{};  // chain hash of record 2
  uint64_t third_offset = 0;
};

using ThirdRecord = std::function<void(std::string& out, const Hash256& prev)>;

HandBuilt build(const ThirdRecord& third) {
  SegmentHeader h;
  h.instance = kWriter;
  h.first_seqno = Seqno(1);
  HandBuilt b;
  b.bytes = encode_header(h);
  Hash256 prev = kZeroHash;
  for (uint64_t s = 1; s <= 2; ++s) {
    append_record(b.bytes, Seqno(s), test_ts(s * 10), kPut, prev, put_payload(s));
    prev = chain_hash(kWriter, Seqno(s), test_ts(s * 10), kPut, prev, put_payload(s));
  }
  b.hash2 = prev;
  b.third_offset = b.bytes.size();
  third(b.bytes, prev);
  return b;
}

// Scanned as the tail of the own open segment: the most lenient view there is.
SegmentScan scan_as_own_tail(const std::string& bytes) {
  ScanExpect e = first_segment_expect(kWriter);
  e.tail_may_be_torn = true;
  return scan_segment(bytes, e);
}

void check_refused(const HandBuilt& b, const std::string& why) {
  SegmentScan s = scan_as_own_tail(b.bytes);
  CHECK(s.end == SegmentEnd::corrupt);
  CHECK(s.records.size() == 2);
  CHECK(s.verified_bytes == b.third_offset);
  CHECK(s.problem_offset == b.third_offset);
  CHECK_THAT(s.problem, Catch::Contains(why));
}

}  // namespace

TEST_CASE("a record with a valid CRC but a wrong previous hash is refused", "[lineage]") {
  // Positive control: the right previous hash verifies.
  HandBuilt good = build([](std::string& out, const Hash256& prev) {
    append_record(out, Seqno(3), test_ts(30), kPut, prev, put_payload(3));
  });
  SegmentScan ok = scan_as_own_tail(good.bytes);
  CHECK(ok.end == SegmentEnd::open);
  CHECK(ok.records.size() == 3);

  HandBuilt bad = build([](std::string& out, const Hash256& prev) {
    Hash256 wrong = prev;
    wrong[31] ^= 0x01;
    append_record(out, Seqno(3), test_ts(30), kPut, wrong, put_payload(3));
  });
  check_refused(bad, "chain mismatch");
}

TEST_CASE("a record with a valid CRC but a wrong seqno is refused", "[lineage]") {
  for (uint64_t wrong : {2ull, 4ull, 0ull}) {
    INFO("third record carries seqno " << wrong);
    HandBuilt bad = build([wrong](std::string& out, const Hash256& prev) {
      append_record(out, Seqno(wrong), test_ts(30), kPut, prev, put_payload(3));
    });
    check_refused(bad, "where 3 was expected");
  }
}

TEST_CASE("a record whose effective timestamp goes backwards is refused, an equal one is accepted", "[lineage]") {
  HandBuilt equal = build([](std::string& out, const Hash256& prev) {
    append_record(out, Seqno(3), test_ts(20), kPut, prev, put_payload(3));
  });
  SegmentScan ok = scan_as_own_tail(equal.bytes);
  CHECK(ok.end == SegmentEnd::open);
  CHECK(ok.records.size() == 3);

  HandBuilt back = build([](std::string& out, const Hash256& prev) {
    append_record(out, Seqno(3), Hlc(test_ts(20).value - 1), kPut, prev, put_payload(3));
  });
  check_refused(back, "goes backwards");
}

TEST_CASE("a record whose payload holds another op than its op type says is refused", "[lineage]") {
  HandBuilt bad = build([](std::string& out, const Hash256& prev) {
    append_record(out, Seqno(3), test_ts(30), kDelete, prev, put_payload(3));
  });
  check_refused(bad, "op type");
}

TEST_CASE("a segment header whose chain head is not the previous segment's last hash is refused", "[lineage]") {
  TempDir tmp;
  const VectorSpace space;
  // Segment 0: the two good records, sealed.
  HandBuilt first = build([](std::string&, const Hash256&) {});
  SegmentTrailer t;
  t.record_count = 2;
  t.last_seqno = Seqno(2);
  t.last_hash = first.hash2;
  write_file(tmp.sub(segment_file_name(SegmentIndex(0))), first.bytes + encode_trailer(t));

  auto write_second = [&](const Hash256& head) {
    SegmentHeader h;
    h.instance = kWriter;
    h.index = SegmentIndex(1);
    h.first_seqno = Seqno(3);
    h.chain_head = head;
    std::string seg = encode_header(h);
    append_record(seg, Seqno(3), test_ts(30), kPut, head, put_payload(3));
    write_file(tmp.sub(segment_file_name(SegmentIndex(1))), seg);
  };

  // Positive control: the right chain head continues the stream.
  write_second(first.hash2);
  std::vector<Seen> seen;
  auto good = scan_collect(tmp.path(), kWriter, space, true, &seen);
  REQUIRE(good.ok());
  CHECK(good->healthy());
  CHECK(seqnos_of(seen) == seqno_range(1, 3));

  // The record inside is self-consistent with the wrong head; only the header link is broken.
  Hash256 wrong = first.hash2;
  wrong[0] ^= 0x80;
  write_second(wrong);
  seen.clear();
  auto bad = scan_collect(tmp.path(), kWriter, space, true, &seen);
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->healthy());
  CHECK(bad->state() == SegmentEnd::corrupt);
  REQUIRE(bad->stopped_at.has_value());
  CHECK(*bad->stopped_at == 1);
  CHECK(bad->segments[1].problem_offset == 0);
  CHECK_THAT(bad->segments[1].problem, Catch::Contains("chain mismatch"));
  CHECK(seqnos_of(seen) == seqno_range(1, 2));
}
