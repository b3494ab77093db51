// Corruption of a sealed segment: flip one byte at every offset (header, records, trailer) and
// check that verification never accepts the segment and never hands on a damaged or later record.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

struct SealedStream {
  std::string seg0;  // sealed: three records and a trailer
  std::string seg1;  // open: one record
};

SealedStream write_sealed_then_open(const DataDirFixture& fx) {
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
  for (int i = 0; i < 3; ++i) append_one(*w, 1000);
  REQUIRE(w->maybe_seal(2000).ok());
  append_one(*w, 2000);
  return SealedStream{read_file(segment_path(fx.wdir, 0)), read_file(segment_path(fx.wdir, 1))};
}

// How the flipped segment is presented to scan_writer.
struct View {
  const char* name;
  bool own;            // scanned as the node's own stream (a torn tail is possible) or a peer's copy
  bool followed;       // the open segment 1 follows the sealed one, or the sealed one is the last file
};

}  // namespace

TEST_CASE("a single flipped byte anywhere in a sealed segment is detected and nothing from it on is yielded",
          "[corruption]") {
  DataDirFixture fx;
  const SealedStream s = write_sealed_then_open(fx);
  const ScanExpect expect = first_segment_expect(fx.id.instance, fx.id.vector_space);
  const uint64_t trailer_off = s.seg0.size() - kTrailerBytes;

  // Positive controls: the undamaged segment verifies sealed, in every view.
  SegmentScan clean = scan_segment(s.seg0, expect);
  REQUIRE(clean.end == SegmentEnd::sealed);
  REQUIRE(clean.records.size() == 3);
  REQUIRE(clean.records.back().offset + clean.records.back().size == trailer_off);
  const View views[] = {{"peer copy, segment 1 follows", false, true},
                        {"peer copy, last file", false, false},
                        {"own stream, segment 1 follows", true, true},
                        {"own stream, sealed segment is the last file", true, false}};
  for (const View& v : views) {
    INFO(v.name);
    clear_dir(fx.wdir);
    write_file(segment_path(fx.wdir, 0), s.seg0);
    if (v.followed) write_file(segment_path(fx.wdir, 1), s.seg1);
    std::vector<Seen> seen;
    auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, v.own, &seen);
    REQUIRE(scan.ok());
    CHECK_FALSE(scan->stopped_at.has_value());
    CHECK(seen.size() == (v.followed ? 4u : 3u));
  }

  for (uint64_t off = 0; off < s.seg0.size(); ++off) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0xFF)}) {
      std::string flipped = s.seg0;
      flipped[off] = static_cast<char>(static_cast<uint8_t>(flipped[off]) ^ mask);
      INFO("byte " << off << " of " << s.seg0.size() << " xor 0x" << std::hex << int(mask) << std::dec
                   << " (trailer starts at " << trailer_off << ")");

      SegmentScan pure = scan_segment(flipped, expect);
      CHECK(pure.end == SegmentEnd::corrupt);
      CHECK_FALSE(pure.trailer.has_value());
      for (const RecordRef& r : pure.records) CHECK(r.offset + r.size <= off);

      for (const View& v : views) {
        INFO(v.name);
        clear_dir(fx.wdir);
        write_file(segment_path(fx.wdir, 0), flipped);
        if (v.followed) write_file(segment_path(fx.wdir, 1), s.seg1);
        std::vector<Seen> seen;
        auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, v.own, &seen);
        REQUIRE(scan.ok());
        REQUIRE(scan->stopped_at.has_value());
        CHECK(*scan->stopped_at == 0);
        CHECK(scan->state() != SegmentEnd::sealed);
        for (const Seen& r : seen) {
          CHECK(r.seqno.value <= 3);  // nothing from segment 1, beyond the damage
          CHECK(r.offset + r.size <= off);
        }
        if (v.own && !v.followed && off >= trailer_off) {
          // Damage inside the trailer of the own last segment looks exactly like a torn trailer
          // write (the writer died while sealing): every record before it is intact and kept.
          CHECK((scan->state() == SegmentEnd::torn_tail || scan->state() == SegmentEnd::corrupt));
          CHECK(seen.size() == 3);
        } else {
          // Anywhere before the trailer, the records after the damage were durable when the
          // trailer was written: losing them silently is never a torn write.
          CHECK(scan->state() == SegmentEnd::corrupt);
          CHECK_FALSE(scan->healthy());
        }
      }
    }
  }
}
