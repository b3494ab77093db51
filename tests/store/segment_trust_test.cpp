// Sealed segments taken on trust (store/segment_trust.hpp, scan_writer's trusted facts): a scan
// given the facts a full verification found reads none of those segments' records and ends where
// the full scan ends; a segment whose size, header or last record changed, or that the stream
// reaches elsewhere than recorded, is verified record by record; a byte flipped between header
// and last record passes the cheap check and is what a full verification of the file finds.
#include <catch2/catch.hpp>

#include <filesystem>

#include "protocol/redaction.hpp"
#include "store/record_redaction.hpp"
#include "store/segment_trust.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

// A stream of 30 records in segments of a few records each, the last one open.
struct TrustFixture : DataDirFixture {
  std::vector<Written> written;
  WriterScan full;                          // scanned record by record
  std::vector<SealedSegmentFacts> sealed;   // what full found of its sealed segments
  TrustFixture() {
    LogWriterOptions opt;
    opt.seal_bytes = 400;
    written = write_stream(wdir, id.instance, id.vector_space, 30, opt);
    auto s = scan_writer(wdir, id.instance, id.vector_space, true, nullptr);
    REQUIRE(s.ok());
    full = std::move(s.value());
    for (const SegmentSummary& seg : full.segments)
      if (seg.sealed) sealed.push_back(*seg.sealed);
    REQUIRE(sealed.size() >= 4);
    REQUIRE(full.segments.back().end == SegmentEnd::open);
  }
  // A scan given sealed as trusted; the seqnos its visitor saw.
  WriterScan trusting(std::vector<uint64_t>* visited) const {
    auto s = scan_writer(wdir, id.instance, id.vector_space, true,
                         [visited](const RecordRef& r) { visited->push_back(r.seqno.value); }, &sealed);
    REQUIRE(s.ok());
    return std::move(s.value());
  }
  std::string path(uint64_t index) const { return segment_path(wdir, index); }
};

ScanExpect expect_for(const TrustFixture& f, const SealedSegmentFacts& facts) {
  ScanExpect e = first_segment_expect(f.id.instance, f.id.vector_space);
  e.index = facts.index;
  e.first_seqno = facts.first_seqno;
  e.chain_head = facts.chain_head;
  return e;
}

}  // namespace

TEST_CASE("a scan given the facts of the sealed segments reads none of their records and ends where a full scan does") {
  TrustFixture f;
  // Negative control: without facts every record is visited.
  std::vector<Seen> seen;
  REQUIRE(scan_collect(f.wdir, f.id.instance, f.id.vector_space, true, &seen).ok());
  CHECK(seen.size() == 30);

  std::vector<uint64_t> visited;
  const WriterScan t = f.trusting(&visited);
  CHECK(t.trusted_segments() == f.sealed.size());
  // Only the open segment's records are visited.
  CHECK(visited == seqno_range(f.sealed.back().last_seqno.value + 1, 30));
  CHECK(t.records == f.full.records);
  CHECK(t.last_seqno == f.full.last_seqno);
  CHECK(t.last_hash == f.full.last_hash);
  CHECK(t.last_ts == f.full.last_ts);
  CHECK_FALSE(t.stopped_at.has_value());
  REQUIRE(t.segments.size() == f.full.segments.size());
  for (size_t i = 0; i < t.segments.size(); ++i) {
    CAPTURE(i);
    CHECK(t.segments[i].verified_bytes == f.full.segments[i].verified_bytes);
    CHECK(t.segments[i].records == f.full.segments[i].records);
    CHECK(t.segments[i].end == f.full.segments[i].end);
    CHECK(t.segments[i].trust_refused.empty());
  }
}

TEST_CASE("a sealed segment whose size or last record or header changed is verified record by record") {
  TrustFixture f;
  const SealedSegmentFacts s1 = f.sealed[1];
  SECTION("a byte appended") {
    std::ofstream(f.path(1), std::ios::app | std::ios::binary) << 'x';
  }
  SECTION("a byte of the last record flipped") {
    xor_byte(f.path(1), s1.last_record_offset + kRecordFrameBytes + kRecordBodyFixedBytes + 2);
  }
  SECTION("a byte of the header flipped") {
    xor_byte(f.path(1), 30);
  }
  std::vector<uint64_t> visited;
  const WriterScan t = f.trusting(&visited);
  REQUIRE(t.segments.size() > 2);
  CHECK_FALSE(t.segments[1].trusted);
  CHECK_FALSE(t.segments[1].trust_refused.empty());
  // It was read: the scan stops in it, and the segments before it stay trusted.
  CHECK(t.segments[0].trusted);
  REQUIRE(t.stopped_at.has_value());
  CHECK(*t.stopped_at == 1);
  CHECK(t.segments[1].end == SegmentEnd::corrupt);
}

TEST_CASE("facts of a segment the stream reaches elsewhere than recorded are not trusted") {
  TrustFixture f;
  std::vector<SealedSegmentFacts> shifted = f.sealed;
  shifted[2].chain_head[0] ^= 1;  // recorded after another stream than the one on disk
  std::vector<uint64_t> visited;
  auto s = scan_writer(f.wdir, f.id.instance, f.id.vector_space, true,
                       [&](const RecordRef& r) { visited.push_back(r.seqno.value); }, &shifted);
  REQUIRE(s.ok());
  CHECK(s->segments[1].trusted);  // positive control: the others still are
  CHECK_FALSE(s->segments[2].trusted);
  CHECK(s->segments[2].trust_refused == "the stream before it is not the one recorded");
  CHECK(std::count(visited.begin(), visited.end(), f.sealed[2].first_seqno.value) == 1);
  CHECK_FALSE(s->stopped_at.has_value());
}

TEST_CASE("a byte flipped between header and last record passes the cheap check and a full verification finds it") {
  TrustFixture f;
  const SealedSegmentFacts s2 = f.sealed[2];
  const ScanExpect e = expect_for(f, s2);
  REQUIRE(check_sealed_segment(f.path(2), s2, e).ok());
  auto sound = verify_segment_file(f.path(2), e);
  REQUIRE(sound.ok());
  REQUIRE(sound->facts.has_value());  // positive control: it verifies sealed, as recorded
  CHECK(*sound->facts == s2);

  xor_byte(f.path(2), s2.last_record_offset / 2 + 20);
  CHECK(check_sealed_segment(f.path(2), s2, e).ok());
  auto damaged = verify_segment_file(f.path(2), e);
  REQUIRE(damaged.ok());
  CHECK_FALSE(damaged->facts.has_value());
  CHECK(damaged->end == SegmentEnd::corrupt);
  CHECK(damaged->problem_offset > 0);
  CHECK(damaged->problem_offset < s2.last_record_offset);
}

TEST_CASE("a sealed segment whose last record an erasure redacted still passes the cheap check") {
  TrustFixture f;
  const SealedSegmentFacts s0 = f.sealed[0];
  const uint64_t before = fs::file_size(f.path(0));
  RedactionReport report;
  const MemoryId last{f.id.instance, s0.last_seqno};
  REQUIRE(redact_records(f.dir, f.id.vector_space, {RedactionTarget{OpKey{f.id.instance, s0.last_seqno}, last}}, &report)
              .ok());
  REQUIRE(report.redacted == 1);
  REQUIRE(fs::file_size(f.path(0)) == before);
  CHECK(check_sealed_segment(f.path(0), s0, expect_for(f, s0)).ok());
  // Negative control: the same redacted record with its hash field changed does not.
  xor_byte(f.path(0), s0.last_record_offset + kRecordFrameBytes + kRecordBodyFixedBytes + 10);
  CHECK_FALSE(check_sealed_segment(f.path(0), s0, expect_for(f, s0)).ok());
}

}  // namespace vasana::test
