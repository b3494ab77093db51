// Start-up recovery of the own stream (store/stream_repair.hpp): corruption is quarantined and
// turns the writer read-only, a gap stops the stream, another vector space refuses to start.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "store/stream_repair.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// Segments 0 and 1 sealed by age with three records each, segment 2 open with one.
void write_three_segments(const DataDirFixture& fx, const VectorSpace& space) {
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  auto w = open_writer(fx.wdir, fx.id.instance, space, StreamTail{}, opt, 1000);
  for (int i = 0; i < 3; ++i) append_one(*w, 1000);
  REQUIRE(w->maybe_seal(2000).ok());
  for (int i = 0; i < 3; ++i) append_one(*w, 2000);
  REQUIRE(w->maybe_seal(3000).ok());
  append_one(*w, 3000);
  REQUIRE(w->open_segment() == SegmentIndex(2));
}

struct Recovered {
  Recovery rec;
  std::vector<uint64_t> seqnos;
};

Recovered recover(const DataDirFixture& fx) {
  Recovered out;
  auto r = recover_own_stream(fx.dir, fx.id, [&](const RecordRef& rr) { out.seqnos.push_back(rr.seqno.value); }, false);
  REQUIRE(r.ok());
  out.rec = std::move(r.value());
  return out;
}

// The records of segment `index` as a scan sees them.
std::vector<Seen> records_of(const DataDirFixture& fx, uint64_t index) {
  std::vector<Seen> seen;
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &seen);
  REQUIRE(scan.ok());
  REQUIRE(index < scan->segments.size());
  uint64_t first = 0;
  for (uint64_t i = 0; i < index; ++i) first += scan->segments[i].records;
  return std::vector<Seen>(seen.begin() + first, seen.begin() + first + scan->segments[index].records);
}

void flip(const std::string& path, uint64_t off, uint8_t mask) {
  std::string bytes = read_file(path);
  REQUIRE(off < bytes.size());
  bytes[off] = static_cast<char>(static_cast<uint8_t>(bytes[off]) ^ mask);
  write_file(path, bytes);
}

}  // namespace

TEST_CASE("recovery quarantines a corrupt sealed segment, keeps its verified prefix and turns read-only",
          "[recovery]") {
  DataDirFixture fx;
  write_three_segments(fx, fx.id.vector_space);

  // Positive control: the undamaged stream recovers writable, nothing quarantined.
  Recovered clean = recover(fx);
  CHECK(clean.rec.writable);
  CHECK(clean.rec.corruptions == 0);
  CHECK(clean.seqnos == seqno_range(1, 7));
  CHECK(quarantined_segments(fx.dir, fx.id.instance).empty());

  // One flipped byte in the payload of the middle record (seqno 5) of sealed segment 1.
  const std::vector<Seen> seg1_records = records_of(fx, 1);
  REQUIRE(seg1_records.size() == 3);
  const Seen& middle = seg1_records[1];
  REQUIRE(middle.seqno == Seqno(5));
  const std::string seg1_path = segment_path(fx.wdir, 1);
  const std::string original = read_file(seg1_path);
  const std::string seg2_before = read_file(segment_path(fx.wdir, 2));
  flip(seg1_path, middle.offset + middle.size / 2, 0x10);
  const std::string damaged = read_file(seg1_path);

  Recovered first = recover(fx);
  CHECK_FALSE(first.rec.writable);
  CHECK_THAT(first.rec.read_only_reason, Catch::Contains("corrupt"));
  CHECK(first.rec.corruptions == 1);
  CHECK(first.rec.torn_bytes == 0);
  CHECK(first.seqnos == seqno_range(1, 4));
  CHECK(first.rec.scan.state() == SegmentEnd::corrupt);
  REQUIRE_FALSE(first.rec.actions.empty());
  CHECK_THAT(first.rec.actions.front(), Catch::Contains("quarantined"));

  // The damaged file is kept whole in quarantine/ with a note; its verified prefix stays in place.
  auto held = quarantined_segments(fx.dir, fx.id.instance);
  REQUIRE(held.size() == 1);
  CHECK_THAT(held[0], Catch::StartsWith(to_hex(fx.id.instance) + "-" + segment_file_name(SegmentIndex(1))));
  CHECK(read_file(fx.dir.quarantine_dir() + "/" + held[0]) == damaged);
  const std::string why = read_file(fx.dir.quarantine_dir() + "/" + held[0] + ".why");
  CHECK_THAT(why, Catch::Contains("segment 1") && Catch::Contains("corrupt") &&
                      Catch::Contains("offset " + std::to_string(middle.offset)));
  CHECK(read_file(seg1_path) == original.substr(0, middle.offset));
  CHECK(read_file(segment_path(fx.wdir, 2)) == seg2_before);  // beyond the stop: untouched

  // A second start finds the same verified prefix, counts no new corruption and stays read-only.
  Recovered second = recover(fx);
  CHECK_FALSE(second.rec.writable);
  CHECK_FALSE(second.rec.read_only_reason.empty());
  CHECK(second.rec.corruptions == 0);
  CHECK(second.seqnos == seqno_range(1, 4));
  CHECK(quarantined_segments(fx.dir, fx.id.instance).size() == 1);

  // Even once the remaining stream verifies clean, the quarantine marker keeps the writer read-only:
  // writing on could reuse seqnos that a peer holds in its copy of the damaged segment.
  REQUIRE(fs::remove(segment_path(fx.wdir, 2)));
  Recovered third = recover(fx);
  CHECK(third.rec.scan.healthy());
  CHECK_FALSE(third.rec.scan.stopped_at.has_value());
  CHECK_FALSE(third.rec.writable);
  CHECK_THAT(third.rec.read_only_reason, Catch::Contains("quarantine"));
  CHECK(third.seqnos == seqno_range(1, 4));
}

TEST_CASE("recovery refuses a segment written in another vector space and names both spaces", "[recovery]") {
  DataDirFixture fx;
  // Positive control: the store's own space starts.
  write_three_segments(fx, fx.id.vector_space);
  REQUIRE(recover_own_stream(fx.dir, fx.id, nullptr, false).ok());

  clear_dir(fx.wdir);
  VectorSpace other;
  other.model = "other-model";
  other.dim = 8;
  REQUIRE(other != fx.id.vector_space);
  write_three_segments(fx, other);
  auto r = recover_own_stream(fx.dir, fx.id, nullptr, false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::incompatible);
  CHECK_THAT(r.status().message(), Catch::Contains(other.id()) && Catch::Contains(fx.id.vector_space.id()));
  CHECK(quarantined_segments(fx.dir, fx.id.instance).empty());
  CHECK(file_names(fx.wdir).size() == 3);  // refused, not repaired
}

TEST_CASE("a missing middle segment is a gap: the stream stops there, read-only, nothing quarantined",
          "[recovery]") {
  DataDirFixture fx;
  write_three_segments(fx, fx.id.vector_space);
  REQUIRE(fs::remove(segment_path(fx.wdir, 1)));

  Recovered r = recover(fx);
  CHECK(r.rec.scan.state() == SegmentEnd::gap);
  CHECK_FALSE(r.rec.writable);
  CHECK_THAT(r.rec.read_only_reason, Catch::Contains("segment 1 is missing"));
  CHECK(r.rec.corruptions == 0);
  CHECK(r.seqnos == seqno_range(1, 3));
  CHECK(quarantined_segments(fx.dir, fx.id.instance).empty());
  CHECK(file_names(fx.dir.quarantine_dir()).empty());
  CHECK(file_names(fx.wdir) ==
        std::vector<std::string>{segment_file_name(SegmentIndex(0)), segment_file_name(SegmentIndex(2))});
}

// A damaged length field that claims the record runs past the end of the file is taken for a
// torn write when it sits in the own last segment. These two cases show that records which were
// durable (commit() returned ok, and for the sealed segment the trailer was synced after them) are
// then cut away and their seqnos handed out again.
TEST_CASE("a damaged record length in the own last sealed segment is corruption, not a torn tail",
          "[recovery][torn]") {
  DataDirFixture fx;
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  {
    auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
    for (int i = 0; i < 3; ++i) append_one(*w, 1000);
    REQUIRE(w->maybe_seal(2000).ok());
  }
  // The node died after sealing segment 0 and before segment 1 got its header.
  REQUIRE(fs::remove(segment_path(fx.wdir, 1)));
  const std::vector<Seen> recs = records_of(fx, 0);
  REQUIRE(recs.size() == 3);
  // Byte 1 of record 2's length: the length grows by 0xFF00 and now runs past the end of the file.
  flip(segment_path(fx.wdir, 0), recs[1].offset + 1, 0xFF);

  Recovered r = recover(fx);
  CHECK(r.rec.scan.state() == SegmentEnd::corrupt);
  CHECK(r.rec.corruptions == 1);
  CHECK(r.rec.torn_bytes == 0);
  CHECK_FALSE(r.rec.writable);
  CHECK(quarantined_segments(fx.dir, fx.id.instance).size() == 1);
}

TEST_CASE("a damaged record length in the own open segment does not drop the durable records after it",
          "[recovery][torn]") {
  DataDirFixture fx;
  {
    auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{});
    for (int i = 0; i < 3; ++i) append_one(*w);  // three commits: all three records acknowledged
  }
  const std::vector<Seen> recs = records_of(fx, 0);
  REQUIRE(recs.size() == 3);
  flip(segment_path(fx.wdir, 0), recs[0].offset + 1, 0xFF);

  Recovered r = recover(fx);
  CHECK(r.rec.scan.state() == SegmentEnd::corrupt);
  CHECK_FALSE(r.rec.writable);
  CHECK(r.rec.torn_bytes == 0);
  CHECK(quarantined_segments(fx.dir, fx.id.instance).size() == 1);
}
