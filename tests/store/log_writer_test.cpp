// The append side: durability of a commit, sealing by size and by age, and a chain that
// continues across segments.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "store/little_endian.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("a staged record is on disk only after commit returns ok", "[writer]") {
  DataDirFixture fx;
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{});
  const std::string path = segment_path(fx.wdir, 0);
  const size_t header_bytes = read_file(path).size();
  SegmentHeader ours;
  ours.vector_space = fx.id.vector_space;
  CHECK(header_bytes == header_size(ours));

  const std::string p1 = put_payload(1), p2 = put_payload(2);
  StagedRecord a = w->stage(test_ts(1), kPut, p1);
  StagedRecord b = w->stage(test_ts(1), kPut, p2);
  CHECK(a.seqno == Seqno(1));
  CHECK(b.seqno == Seqno(2));
  CHECK(w->pending_records() == 2);
  CHECK(w->last_durable() == Seqno(0));
  CHECK(read_file(path).size() == header_bytes);

  const uint64_t syncs = w->syncs();
  REQUIRE(w->commit().ok());
  CHECK(w->syncs() == syncs + 1);  // one group commit, one sync, for both records
  CHECK(w->last_durable() == Seqno(2));
  CHECK(w->pending_records() == 0);
  CHECK(read_file(path).size() == header_bytes + record_size(p1.size()) + record_size(p2.size()));
  CHECK(b.hash == chain_hash(fx.id.instance, Seqno(2), test_ts(1), kPut, a.hash, p2));
}

TEST_CASE("a writer with a small size budget seals segments whose trailers verify and whose chain continues",
          "[writer]") {
  DataDirFixture fx;
  LogWriterOptions opt;
  opt.seal_bytes = 600;  // header 104 + 226 per record: the third record passes the budget
  std::vector<Written> written = write_stream(fx.wdir, fx.id.instance, fx.id.vector_space, 10, opt);

  const std::vector<std::string> names = file_names(fx.wdir);
  REQUIRE(names.size() == 4);
  std::vector<Seen> seen;
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &seen);
  REQUIRE(scan.ok());
  CHECK(scan->healthy());
  CHECK_FALSE(scan->stopped_at.has_value());
  CHECK(seqnos_of(seen) == seqno_range(1, 10));
  REQUIRE(seen.size() == written.size());
  for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i].hash == written[i].hash);

  Hash256 head = kZeroHash;
  for (uint64_t i = 0; i < 4; ++i) {
    INFO("segment " << i);
    const SegmentSummary& sum = scan->segments[i];
    CHECK(names[i] == segment_file_name(SegmentIndex(i)));
    CHECK(sum.end == (i < 3 ? SegmentEnd::sealed : SegmentEnd::open));
    CHECK(sum.records == (i < 3 ? 3u : 1u));
    CHECK(sum.first_seqno == Seqno(3 * i + 1));

    const std::string bytes = read_file(segment_path(fx.wdir, i));
    size_t consumed = 0;
    auto h = decode_header(bytes, &consumed);
    REQUIRE(h.ok());
    CHECK(h->chain_head == head);  // the header carries the hash of the previous segment's last record
    if (i < 3) {
      const Written& last = written[3 * i + 2];
      auto t = reinterpret_cast<const uint8_t*>(bytes.data() + bytes.size() - kTrailerBytes);
      CHECK(get_u32(t) == kTrailerMarker);
      CHECK(get_u64(t + 8) == 3u);
      CHECK(get_u64(t + 16) == last.seqno.value);
      CHECK(std::equal(last.hash.begin(), last.hash.end(), t + 24));
      head = last.hash;
    }
  }
}

TEST_CASE("a writer seals by age once now passes created plus seal_age_ms, and only when it holds a record",
          "[writer]") {
  DataDirFixture fx;
  LogWriterOptions opt;
  opt.seal_age_ms = 500;
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);

  REQUIRE(w->maybe_seal(1'000'000).ok());
  CHECK(w->open_segment() == SegmentIndex(0));  // an empty segment is never sealed

  append_one(*w, 1000);
  REQUIRE(w->maybe_seal(1499).ok());
  CHECK(w->open_segment() == SegmentIndex(0));
  REQUIRE(w->maybe_seal(1500).ok());
  CHECK(w->open_segment() == SegmentIndex(1));

  // Records staged but not committed hold the seal back.
  w->stage(test_ts(2), kPut, put_payload(2));
  REQUIRE(w->maybe_seal(10'000).ok());
  CHECK(w->open_segment() == SegmentIndex(1));
  REQUIRE(w->commit().ok());
  REQUIRE(w->maybe_seal(1999).ok());
  CHECK(w->open_segment() == SegmentIndex(1));  // segment 1 was created at 1500
  REQUIRE(w->maybe_seal(2000).ok());
  CHECK(w->open_segment() == SegmentIndex(2));

  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, nullptr);
  REQUIRE(scan.ok());
  REQUIRE(scan->segments.size() == 3);
  CHECK(scan->segments[0].end == SegmentEnd::sealed);
  CHECK(scan->segments[1].end == SegmentEnd::sealed);
  CHECK(scan->segments[1].created_ms == 1500);
  CHECK(scan->segments[2].end == SegmentEnd::open);
  CHECK(scan->segments[2].created_ms == 2000);
  CHECK(scan->records == 2);
}

TEST_CASE("a writer reopened on a recovered open segment continues it and seals it with a full trailer",
          "[writer]") {
  DataDirFixture fx;
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  std::vector<Written> written;
  {
    auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
    written.push_back(append_one(*w, 1000));
    written.push_back(append_one(*w, 1000));
  }
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, nullptr);
  REQUIRE(scan.ok());
  REQUIRE(scan->segments.size() == 1);
  StreamTail tail;
  tail.last_seqno = scan->last_seqno;
  tail.last_hash = scan->last_hash;
  tail.last_ts = scan->last_ts;
  tail.has_open_segment = true;
  tail.open_index = SegmentIndex(0);
  tail.open_bytes = scan->segments[0].verified_bytes;
  tail.open_created_ms = scan->segments[0].created_ms;
  tail.open_records = scan->segments[0].records;
  tail.next_index = SegmentIndex(1);

  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, tail, opt, 1500);
  CHECK(w->open_segment() == SegmentIndex(0));
  written.push_back(append_one(*w, 1500));
  CHECK(written.back().seqno == Seqno(3));
  REQUIRE(w->maybe_seal(2000).ok());  // age counts from the segment's creation (1000), not the reopen
  CHECK(w->open_segment() == SegmentIndex(1));

  std::vector<Seen> seen;
  auto after = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, false, &seen);
  REQUIRE(after.ok());
  CHECK_FALSE(after->stopped_at.has_value());
  REQUIRE(after->segments.size() == 2);
  CHECK(after->segments[0].end == SegmentEnd::sealed);  // trailer record_count 3 matched the records
  CHECK(after->segments[0].records == 3);
  CHECK(seqnos_of(seen) == seqno_range(1, 3));
  CHECK(seen.back().hash == written.back().hash);
}
