// WriterMirror (sync/writer_mirror.hpp) fed with real segments: an origin node writes its stream
// with the LogWriter; a second node's mirror fetches it through next_fetch() and read_chunk()
// (sync/peer_server.hpp), as a peer session and the serving side would. The copy must end byte
// for byte the origin's files, hand back every record once in order, refuse damaged bytes whole,
// ignore stale chunks, and resume from a damaged copy after quarantining it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// The smallest fetch with which every chunk can hold a whole header, record or trailer.
uint32_t smallest_whole_fetch(const std::vector<SegmentLayout>& layout) {
  uint64_t n = kTrailerBytes;
  for (const auto& s : layout) {
    n = std::max(n, s.header_bytes);
    for (const auto& r : s.records) n = std::max(n, r.size);
  }
  return uint32_t(n);
}

uint64_t largest_record(const std::vector<SegmentLayout>& layout) {
  uint64_t n = 0;
  for (const auto& s : layout)
    for (const auto& r : s.records) n = std::max(n, r.size);
  return n;
}

// Feeds bad to m and checks it is refused as Corruption with nothing stored, applied or moved.
void check_refused(WriterMirror& m, const std::string& wdir, const PeerChunk& bad) {
  const auto sizes = file_sizes(wdir);
  const StreamHead head = m.head();
  const PeerFetch next = m.next_fetch(1);
  auto a = m.accept(bad);
  if (a.ok()) {
    INFO("accepted: stale " << a->stale << ", " << a->bytes << " bytes stored, " << a->records.size()
                            << " records handed on");
    CHECK_FALSE(a.ok());
  } else {
    INFO(a.status().to_string());
    CHECK(a.status().code() == Code::corruption);
  }
  CHECK(file_sizes(wdir) == sizes);
  CHECK(same_head(m.head(), head));
  CHECK(same_fetch(m.next_fetch(1), next));
}

// Accepts good and checks that it is stored whole and hands on want.
void check_accepted(WriterMirror& m, const PeerChunk& good, const std::vector<Written>& want) {
  auto a = m.accept(good);
  REQUIRE(a.ok());
  CHECK_FALSE(a->stale);
  CHECK(a->bytes == good.bytes.size());
  check_records_exactly_once(a->records, want);
}

struct Flip {
  std::string what;
  uint64_t offset;  // in the chunk
};

}  // namespace

TEST_CASE("writer mirror: chunks ending at every byte boundary give a byte-identical copy, each record once in order",
          "[sync][mirror]") {
  Origin origin(12, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  REQUIRE(layout.size() >= 3);
  REQUIRE(layout.front().sealed);
  REQUIRE_FALSE(layout.back().sealed);
  REQUIRE_FALSE(layout.back().records.empty());

  MirrorNode node;
  auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
  // Negative control: an empty copy is behind, holds nothing and asks for segment 0 from 0.
  CHECK(m->empty());
  CHECK(m->behind(origin.head()));
  CHECK(file_sizes(node.wdir(origin.instance())).empty());
  CHECK(same_fetch(m->next_fetch(9), PeerFetch{origin.instance(), SegmentIndex(0), 0, 9}));

  // Every chunk the mirror gets ends one byte further than the last: each byte boundary of the
  // stream (inside headers, records and trailers) is a chunk end once.
  std::vector<MirroredRecord> got;
  uint64_t fetches = 0;
  const StreamHead head = origin.head();
  while (m->behind(head) && fetches < 100000) {
    PeerFetch f = m->next_fetch(0);
    for (uint32_t len = 1;; ++len) {
      ++fetches;
      f.max_bytes = len;
      const PeerChunk c = origin.serve(f);
      REQUIRE_FALSE(c.missing);
      auto a = m->accept(c);
      REQUIRE(a.ok());
      REQUIRE_FALSE(a->stale);
      for (auto& r : a->records) got.push_back(std::move(r));
      if (a->bytes > 0) {
        // Only whole headers, records and trailers are stored.
        CHECK(a->bytes <= c.bytes.size());
        break;
      }
      REQUIRE(c.bytes.size() == len);  // the server had more: the mirror must wait for it
    }
  }
  REQUIRE_FALSE(m->behind(head));
  check_records_exactly_once(got, origin.written);
  check_byte_identical(origin, node.wdir(origin.instance()));
  CHECK(same_head(m->head(), head));

  // The live tail: one more record at the origin puts the copy behind by exactly that record.
  origin.append(/*seal=*/false);
  CHECK(m->behind(origin.head()));
  DriveResult more = drive(*m, origin, 4096);
  REQUIRE(more.caught_up);
  check_records_exactly_once(more.records, origin.written, origin.written.size() - 1);
  check_byte_identical(origin, node.wdir(origin.instance()));
}

TEST_CASE("writer mirror: fixed fetch sizes (cuts within records, 4 KiB, 1 MiB, unbounded) give a byte-identical copy",
          "[sync][mirror]") {
  Origin origin(12, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const uint32_t smallest = smallest_whole_fetch(layout);
  const uint32_t record = uint32_t(largest_record(layout));
  // Sizes from the smallest workable one to one record more cut the stream at many offsets
  // within records (every single cut position is the previous test's); then larger fetches.
  std::vector<uint32_t> sizes = {smallest,
                                 smallest + 1,
                                 smallest + 2,
                                 smallest + 13,
                                 smallest + 57,
                                 smallest + record / 2,
                                 smallest + record - 1,
                                 smallest + record,
                                 2 * smallest + 3,
                                 4096u,
                                 1u << 20,
                                 std::numeric_limits<uint32_t>::max()};

  for (uint32_t size : sizes) {
    INFO("fetch size " << size);
    MirrorNode node;
    auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
    REQUIRE(m->behind(origin.head()));  // negative control
    DriveResult r = drive(*m, origin, size);
    INFO(r.problem);
    REQUIRE_FALSE(r.failed);
    REQUIRE(r.caught_up);
    check_records_exactly_once(r.records, origin.written);
    check_byte_identical(origin, node.wdir(origin.instance()));
    CHECK(same_head(m->head(), origin.head()));
  }
}

// The peer protocol (protocol/peer.capnp) says a chunk holds whole records (the header at offset
// 0, the trailer when sealed). read_chunk cuts at max_bytes wherever it falls, and the mirror
// asks again from its verified end with the same max_bytes: a fetch smaller than a header or a
// record can then never make progress.
TEST_CASE("writer mirror: fetches smaller than a header or a record (1, 7, 100 bytes) still make progress",
          "[sync][mirror]") {
  Origin origin(6, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const uint32_t smallest = smallest_whole_fetch(layout);
  {
    // Positive control: the smallest fetch that holds a whole header/record works.
    MirrorNode node;
    auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
    DriveResult r = drive(*m, origin, smallest);
    REQUIRE(r.caught_up);
  }
  for (uint32_t size : {1u, 7u, 100u}) {
    REQUIRE(size < smallest);
    INFO("fetch size " << size << " (header " << layout.front().header_bytes << " bytes, records up to "
                       << largest_record(layout) << ")");
    MirrorNode node;
    auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
    DriveResult r = drive(*m, origin, size, /*max_rounds=*/20000);
    INFO(r.rounds << " fetches, " << r.empty_rounds << " stored nothing; " << r.problem);
    CHECK_FALSE(r.failed);
    CHECK(r.caught_up);
    if (r.caught_up) {
      check_records_exactly_once(r.records, origin.written);
      check_byte_identical(origin, node.wdir(origin.instance()));
    }
  }
}

// The same with the configuration's own bounds: sync.fetch_bytes may be as small as 65536
// (config/node_config.cpp) and a memory's text as large as limits.max_memory_bytes (64 KiB by
// default, up to 1 MiB): one such memory's record is larger than a fetch.
TEST_CASE("writer mirror: a record larger than the smallest allowed fetch_bytes (64 KiB) still replicates",
          "[sync][mirror]") {
  Origin origin(3, 1u << 20);
  MemoryInput big;
  big.realm = "t";
  big.text = std::string(64 * 1024, 'x');  // the default limits.max_memory_bytes
  origin.append(/*seal=*/false, encode_put_memory(big));
  origin.append(/*seal=*/false);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  REQUIRE(largest_record(layout) > 65536);
  {
    // Positive control: a fetch as large as the record works.
    MirrorNode node;
    auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
    DriveResult r = drive(*m, origin, 1u << 20);
    REQUIRE(r.caught_up);
    check_records_exactly_once(r.records, origin.written);
  }
  MirrorNode node;
  auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
  DriveResult r = drive(*m, origin, 65536, /*max_rounds=*/200);
  INFO(r.rounds << " fetches, " << r.empty_rounds << " stored nothing; the copy stands at seqno "
                << m->head().last_seqno.value << "; " << r.problem);
  CHECK(r.caught_up);
}

TEST_CASE("writer mirror: a chunk with one flipped byte (header, record length, CRC, seqno, payload) is refused whole",
          "[sync][mirror][corruption]") {
  Origin origin(12, 700);  // three records to a sealed segment
  const StreamHead before = origin.head();
  const size_t written_before = origin.written.size();
  for (int i = 0; i < 3; ++i) origin.append(/*seal=*/false);  // the open segment grows by three records
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());

  SECTION("the first chunk of a segment: header, records and trailer") {
    const SegmentLayout& seg = layout.front();
    REQUIRE(seg.sealed);
    REQUIRE(seg.records.size() >= 3);
    const uint64_t h = seg.header_bytes;
    const Seen& r0 = seg.records[0];
    const Seen& r1 = seg.records[1];
    const std::vector<Flip> flips = {
        {"header magic", 0},
        {"header instance", 12},
        {"header first seqno", 28},
        {"header chain head", 36},
        {"header CRC", h - 1},
        {"first record length, low byte", r0.offset},
        {"first record length, high byte", r0.offset + 3},
        {"first record CRC", r0.offset + 4},
        {"first record seqno", r0.offset + 8},
        {"first record timestamp", r0.offset + 16},
        {"first record op type", r0.offset + 24},
        {"first record previous hash", r0.offset + 26},
        {"first record payload", r0.offset + 58 + (r0.size - 58) / 2},
        {"second record length", r1.offset},
        {"second record payload", r1.offset + r1.size - 1},
        {"trailer marker", seg.trailer_offset},
    };
    const PeerFetch f{origin.instance(), SegmentIndex(0), 0, 1u << 20};
    const PeerChunk good = origin.serve(f);
    REQUIRE(good.bytes.size() == seg.file_bytes);
    for (const Flip& fl : flips) {
      for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
        INFO(fl.what << " (byte " << fl.offset << " of " << good.bytes.size() << ") xor 0x" << std::hex << int(mask));
        auto p = mirror_up_to(origin, StreamHead{});
        PeerChunk bad = good;
        bad.bytes = flip(good.bytes, fl.offset, mask);
        check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
        // Positive control: the correct chunk is then accepted whole.
        check_accepted(*p->mirror, good, slice(origin.written, 0, seg.records.size()));
        CHECK(p->mirror->next_fetch(1).segment == SegmentIndex(1));
      }
    }
  }

  SECTION("a chunk continuing the open segment: a record that is not the chunk's last") {
    const SegmentLayout& seg = layout.back();
    REQUIRE(seg.records.size() >= 3);
    const Seen& r0 = seg.records[seg.records.size() - 3];
    const Seen& r1 = seg.records[seg.records.size() - 2];
    REQUIRE(r0.offset == before.segment_bytes);
    const std::vector<Flip> flips = {
        {"record length, low byte", 0},
        {"record length, high byte", 3},
        {"record CRC", 4},
        {"record seqno", 8},
        {"record previous hash", 26},
        {"record payload", r0.size - 1},
        {"second record length", r1.offset - r0.offset},
        {"second record payload", r1.offset - r0.offset + 60},
    };
    for (const Flip& fl : flips) {
      INFO(fl.what << " (byte " << fl.offset << " of the chunk)");
      auto p = mirror_up_to(origin, before);
      const PeerChunk good = origin.serve(p->mirror->next_fetch(1u << 20));
      REQUIRE(good.offset == before.segment_bytes);
      REQUIRE(good.bytes.size() == seg.file_bytes - before.segment_bytes);
      PeerChunk bad = good;
      bad.bytes = flip(good.bytes, fl.offset);
      check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
      check_accepted(*p->mirror, good, slice(origin.written, written_before, origin.written.size()));
      CHECK(same_head(p->mirror->head(), origin.head()));
    }
  }
}

// A complete record that fails its CRC is never a "record cut at the chunk's end": the chunk
// holds all of it. The verifier calls damage in a chunk's last record a torn tail
// (store/segment_reader.cpp torn_or_corrupt: record_end >= size), so the mirror stores the
// records before it and hands them on instead of refusing the chunk, the peer is never counted
// as bad, and a peer that keeps sending it stalls the writer.
TEST_CASE("writer mirror: a flipped byte in the last record of a chunk is refused whole", "[sync][mirror][corruption]") {
  Origin origin(12, 500);
  const StreamHead before = origin.head();
  const size_t written_before = origin.written.size();
  for (int i = 0; i < 3; ++i) origin.append(/*seal=*/false);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const SegmentLayout& seg = layout.back();
  const Seen& last = seg.records.back();
  const uint64_t at = last.offset - before.segment_bytes;  // in the chunk
  const std::vector<Flip> flips = {
      {"last record CRC", at + 4},
      {"last record seqno", at + 8},
      {"last record timestamp", at + 16},
      {"last record previous hash", at + 26},
      {"last record payload", at + last.size - 1},
  };
  for (const Flip& fl : flips) {
    INFO(fl.what << " (byte " << fl.offset << " of the chunk)");
    auto p = mirror_up_to(origin, before);
    const PeerChunk good = origin.serve(p->mirror->next_fetch(1u << 20));
    REQUIRE(good.bytes.size() == at + last.size);
    PeerChunk bad = good;
    bad.bytes = flip(good.bytes, fl.offset);
    check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
    // Positive control: the correct chunk from the mirror's (unchanged) position is accepted.
    const PeerChunk again = origin.serve(p->mirror->next_fetch(1u << 20));
    auto a = p->mirror->accept(again);
    REQUIRE(a.ok());
    CHECK_FALSE(a->stale);
    CHECK(same_head(p->mirror->head(), origin.head()));
    check_byte_identical(origin, p->node.wdir(origin.instance()));
  }
  // A disk that lost the write serves zeros: the last record zeroed, or the whole chunk.
  for (bool whole : {false, true}) {
    INFO((whole ? "the whole chunk zeroed" : "the last record zeroed"));
    auto p = mirror_up_to(origin, before);
    const PeerChunk good = origin.serve(p->mirror->next_fetch(1u << 20));
    PeerChunk bad = good;
    std::fill(bad.bytes.begin() + long(whole ? 0 : at), bad.bytes.end(), '\0');
    check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
    // Positive control: the correct chunk from the mirror's position completes the copy.
    REQUIRE(drive(*p->mirror, origin, 1u << 20).caught_up);
    check_byte_identical(origin, p->node.wdir(origin.instance()));
  }
  // The same for a chunk that holds a single record.
  {
    INFO("a chunk of one record, payload flipped");
    auto p = mirror_up_to(origin, before);
    const PeerFetch f = p->mirror->next_fetch(uint32_t(seg.records[seg.records.size() - 3].size));
    const PeerChunk good = origin.serve(f);
    PeerChunk bad = good;
    bad.bytes = flip(good.bytes, good.bytes.size() - 1);
    check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
    check_accepted(*p->mirror, good, slice(origin.written, written_before, written_before + 1));
    REQUIRE(drive(*p->mirror, origin, 1u << 20).caught_up);
    check_byte_identical(origin, p->node.wdir(origin.instance()));
  }
}

// A sealed segment's last chunk ends with the trailer; right after a seal the trailer alone is the
// chunk, and the next segment is only a header. A flipped byte in them is damage, not a cut.
TEST_CASE("writer mirror: a flipped byte in a trailer, or in a header-only chunk, is refused whole",
          "[sync][mirror][corruption]") {
  Origin origin(12, 1u << 20);  // nothing sealed by size: segment 0 holds every record
  const StreamHead before = origin.head();
  REQUIRE(origin.writer->maybe_seal(1000 + 3600 * 1000).ok());  // sealed by age: segment 1 has a header only
  REQUIRE(origin.segments() == 2);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  REQUIRE(layout[0].sealed);
  REQUIRE(layout[1].records.empty());

  SECTION("the trailer inside the segment's whole first chunk") {
    const uint64_t t = layout[0].trailer_offset;
    const PeerChunk good = origin.serve(PeerFetch{origin.instance(), SegmentIndex(0), 0, 1u << 20});
    for (const Flip& fl : std::vector<Flip>{{"trailer CRC", t + 4},
                                            {"trailer record count", t + 8},
                                            {"trailer last seqno", t + 16},
                                            {"trailer last hash", t + 24},
                                            {"trailer last byte", t + kTrailerBytes - 1}}) {
      INFO(fl.what);
      auto p = mirror_up_to(origin, StreamHead{});
      PeerChunk bad = good;
      bad.bytes = flip(good.bytes, fl.offset);
      check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
    }
    auto p = mirror_up_to(origin, StreamHead{});
    check_accepted(*p->mirror, good, origin.written);  // positive control
  }

  SECTION("a chunk that is only the trailer") {
    for (const Flip& fl : std::vector<Flip>{{"trailer marker", 0},
                                            {"trailer CRC", 4},
                                            {"trailer record count", 8},
                                            {"trailer last seqno", 16},
                                            {"trailer last hash", 24}}) {
      INFO(fl.what);
      auto p = mirror_up_to(origin, before);
      const PeerChunk good = origin.serve(p->mirror->next_fetch(1u << 20));
      REQUIRE(good.bytes.size() == kTrailerBytes);
      PeerChunk bad = good;
      bad.bytes = flip(good.bytes, fl.offset);
      check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
      check_accepted(*p->mirror, good, {});  // positive control
      CHECK(p->mirror->next_fetch(1).segment == SegmentIndex(1));
    }
  }

  SECTION("a chunk that is a whole header and nothing else") {
    for (const Flip& fl : std::vector<Flip>{{"header magic", 0},
                                            {"header instance", 12},
                                            {"header chain head", 36},
                                            {"header CRC", layout[1].header_bytes - 1}}) {
      INFO(fl.what);
      // A mirror that holds segment 0 sealed and asks for segment 1 from 0.
      auto p = mirror_up_to(origin, before);
      PeerChunk trailer = origin.serve(p->mirror->next_fetch(1u << 20));
      REQUIRE(p->mirror->accept(trailer).ok());
      const PeerChunk good = origin.serve(p->mirror->next_fetch(1u << 20));
      REQUIRE(good.segment == SegmentIndex(1));
      REQUIRE(good.offset == 0);
      REQUIRE(good.bytes.size() == layout[1].header_bytes);
      PeerChunk bad = good;
      bad.bytes = flip(good.bytes, fl.offset);
      check_refused(*p->mirror, p->node.wdir(origin.instance()), bad);
      check_accepted(*p->mirror, good, {});  // positive control
      CHECK(same_head(p->mirror->head(), origin.head()));
      check_byte_identical(origin, p->node.wdir(origin.instance()));
    }
  }
}

TEST_CASE("writer mirror: a chunk for another position (offset, segment, writer) or a missing one is stale and changes nothing",
          "[sync][mirror]") {
  Origin origin(12, 500);
  const StreamHead before = origin.head();
  for (int i = 0; i < 2; ++i) origin.append(/*seal=*/false);
  auto p = mirror_up_to(origin, before);
  const std::string wdir = p->node.wdir(origin.instance());
  WriterMirror& m = *p->mirror;
  const PeerFetch at = m.next_fetch(1u << 20);
  REQUIRE(at.segment == before.segment);
  REQUIRE(at.offset == before.segment_bytes);
  const PeerChunk good = origin.serve(at);
  REQUIRE_FALSE(good.bytes.empty());

  auto variant = [&](const char* what, std::function<void(PeerChunk&)> change) {
    PeerChunk c = good;
    change(c);
    return std::make_pair(std::string(what), c);
  };
  const std::vector<std::pair<std::string, PeerChunk>> stale = {
      variant("offset one byte later", [](PeerChunk& c) { c.offset += 1; }),
      variant("offset one byte earlier", [](PeerChunk& c) { c.offset -= 1; }),
      variant("offset 0 of the open segment", [](PeerChunk& c) { c.offset = 0; }),
      variant("offset inside the previous record", [&](PeerChunk& c) { c.offset = before.segment_bytes - 1; }),
      variant("the next segment", [](PeerChunk& c) { c.segment = SegmentIndex(c.segment.value + 1); }),
      variant("the previous segment", [](PeerChunk& c) { c.segment = SegmentIndex(c.segment.value - 1); }),
      variant("another writer", [](PeerChunk& c) { c.writer = InstanceId(c.writer.value ^ 1); }),
      variant("marked missing", [](PeerChunk& c) { c.missing = true; }),
      variant("marked missing, empty", [](PeerChunk& c) {
        c.missing = true;
        c.bytes.clear();
      }),
  };
  for (const auto& [what, c] : stale) {
    INFO(what);
    const auto sizes = file_sizes(wdir);
    const StreamHead head = m.head();
    auto a = m.accept(c);
    REQUIRE(a.ok());
    CHECK(a->stale);
    CHECK(a->records.empty());
    CHECK(a->bytes == 0);
    CHECK(file_sizes(wdir) == sizes);
    CHECK(same_head(m.head(), head));
    CHECK(same_fetch(m.next_fetch(1u << 20), at));
  }
  {
    // At the right position but empty (nothing new yet): not stale, nothing changes.
    PeerChunk empty = good;
    empty.bytes.clear();
    const auto sizes = file_sizes(wdir);
    auto a = m.accept(empty);
    REQUIRE(a.ok());
    CHECK_FALSE(a->stale);
    CHECK(a->bytes == 0);
    CHECK(file_sizes(wdir) == sizes);
  }
  // Positive control: the chunk for the position is accepted; afterwards it is itself stale.
  check_accepted(m, good, slice(origin.written, origin.written.size() - 2, origin.written.size()));
  check_byte_identical(origin, wdir);
  auto again = m.accept(good);
  REQUIRE(again.ok());
  CHECK(again->stale);
  CHECK(again->records.empty());
  check_byte_identical(origin, wdir);
}

namespace {

// A node holding a complete, byte-identical copy of origin, mirror closed.
std::unique_ptr<MirrorNode> complete_copy(const Origin& origin) {
  auto node = std::make_unique<MirrorNode>();
  auto m = open_empty_mirror(node->dir(), origin.instance(), origin.space());
  DriveResult r = drive(*m, origin, 1u << 20);
  REQUIRE(r.caught_up);
  check_byte_identical(origin, node->wdir(origin.instance()));
  return node;
}

struct Reopened {
  std::unique_ptr<WriterMirror> mirror;
  WriterScan scan;
  std::vector<std::string> actions;
  std::vector<Seen> seen;  // what the scan verified
};

Reopened reopen(const MirrorNode& node, const Origin& origin) {
  Reopened out;
  auto scan = scan_collect(node.wdir(origin.instance()), origin.instance(), origin.space(), /*own=*/false, &out.seen);
  REQUIRE(scan.ok());
  out.scan = scan.value();
  auto m = WriterMirror::open(node.dir(), origin.instance(), origin.space(), out.scan, &out.actions);
  REQUIRE(m.ok());
  out.mirror = std::move(m.value());
  return out;
}

void damage(const std::string& path, uint64_t off) { write_file(path, flip(read_file(path), off)); }

}  // namespace

TEST_CASE("writer mirror: open() of an undamaged copy resumes where it ends, quarantining nothing", "[sync][mirror]") {
  Origin origin(12, 500);
  auto node = complete_copy(origin);
  Reopened r = reopen(*node, origin);
  CHECK_FALSE(r.scan.stopped_at.has_value());
  CHECK(r.actions.empty());
  CHECK(quarantined_segments(node->dir(), origin.instance()).empty());
  CHECK(same_head(r.mirror->head(), origin.head()));
  CHECK_FALSE(r.mirror->behind(origin.head()));
  CHECK(same_fetch(r.mirror->next_fetch(5),
                   PeerFetch{origin.instance(), origin.head().segment, origin.head().segment_bytes, 5}));
  // Negative control: once the origin moves on, the resumed copy is behind and fetches exactly
  // the new record, continuing the open segment.
  origin.append(/*seal=*/false);
  DriveResult d = drive(*r.mirror, origin, 1u << 20);
  REQUIRE(d.caught_up);
  check_records_exactly_once(d.records, origin.written, origin.written.size() - 1);
  check_byte_identical(origin, node->wdir(origin.instance()));
  // The origin seals the segment the copy resumed in: its trailer counts the records from before
  // the reopen too, and the copy takes it.
  REQUIRE(origin.writer->maybe_seal(1000 + 3600 * 1000).ok());
  DriveResult sealed = drive(*r.mirror, origin, 1u << 20);
  INFO(sealed.problem);
  REQUIRE(sealed.caught_up);
  CHECK(sealed.records.empty());
  check_byte_identical(origin, node->wdir(origin.instance()));
}

TEST_CASE("writer mirror: open() of a copy whose last segment has a flipped byte quarantines it, keeps the verified "
          "prefix and fetches the rest",
          "[sync][mirror][corruption]") {
  Origin origin(12, 500);
  for (int i = 0; i < 3; ++i) origin.append(/*seal=*/false);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const uint64_t last = layout.size() - 1;
  const SegmentLayout& seg = layout.back();
  REQUIRE(seg.records.size() >= 3);
  const Seen& hit = seg.records[seg.records.size() - 2];  // a record in the middle of the segment
  auto node = complete_copy(origin);
  const std::string wdir = node->wdir(origin.instance());
  const std::string path = segment_path(wdir, last);
  damage(path, hit.offset + 60);
  const std::string damaged = read_file(path);

  Reopened r = reopen(*node, origin);
  REQUIRE(r.scan.stopped_at == std::optional<size_t>(last));
  CHECK(r.scan.segments[last].end == SegmentEnd::corrupt);
  CHECK(r.actions.size() == 1);
  // The damaged file is kept in quarantine/, the copy keeps its verified prefix.
  const auto held = quarantined_segments(node->dir(), origin.instance());
  REQUIRE(held.size() == 1);
  CHECK(read_file(node->dir().quarantine_dir() + "/" + held.front()) == damaged);
  CHECK(fs::exists(node->dir().quarantine_dir() + "/" + held.front() + ".why"));
  CHECK(read_file(path) == origin.segment_bytes(last).substr(0, hit.offset));
  // It resumes at the damaged record.
  const PeerFetch f = r.mirror->next_fetch(1u << 20);
  CHECK(f.segment == SegmentIndex(last));
  CHECK(f.offset == hit.offset);
  CHECK(r.mirror->head().last_seqno.value + 1 == hit.seqno.value);
  CHECK(r.mirror->head().last_hash == seg.records[seg.records.size() - 3].hash);
  CHECK(r.mirror->behind(origin.head()));

  // The origin's bytes from there complete it, byte-identical, handing on only the refetched records.
  DriveResult d = drive(*r.mirror, origin, 1u << 20);
  INFO(d.problem);
  REQUIRE(d.caught_up);
  check_records_exactly_once(d.records, origin.written, hit.seqno.value - 1);
  check_byte_identical(origin, wdir);
  CHECK(same_head(r.mirror->head(), origin.head()));
  // The origin seals that segment: the trailer counts the records kept from before the reopen
  // and those fetched after it.
  REQUIRE(origin.writer->maybe_seal(1000 + 3600 * 1000).ok());
  DriveResult sealed = drive(*r.mirror, origin, 1u << 20);
  INFO(sealed.problem);
  REQUIRE(sealed.caught_up);
  check_byte_identical(origin, wdir);
  // Reopened once more, it is clean.
  Reopened again = reopen(*node, origin);
  CHECK_FALSE(again.scan.stopped_at.has_value());
  CHECK(again.actions.empty());
}

TEST_CASE("writer mirror: open() of a copy with a flipped byte in a sealed middle segment refetches from there",
          "[sync][mirror][corruption]") {
  Origin origin(16, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  REQUIRE(layout.size() >= 4);
  const uint64_t bad_seg = 1;
  const Seen& hit = layout[bad_seg].records[1];
  auto node = complete_copy(origin);
  const std::string wdir = node->wdir(origin.instance());
  damage(segment_path(wdir, bad_seg), hit.offset + 9);  // the record's seqno

  Reopened r = reopen(*node, origin);
  REQUIRE(r.scan.stopped_at == std::optional<size_t>(bad_seg));
  // The damaged segment and every later one are quarantined; only the verified prefix stays.
  CHECK(quarantined_segments(node->dir(), origin.instance()).size() == layout.size() - bad_seg);
  CHECK(file_names(wdir) == std::vector<std::string>{segment_file_name(SegmentIndex(0)),
                                                     segment_file_name(SegmentIndex(1))});
  CHECK(read_file(segment_path(wdir, bad_seg)) == origin.segment_bytes(bad_seg).substr(0, hit.offset));
  CHECK(same_fetch(r.mirror->next_fetch(7), PeerFetch{origin.instance(), SegmentIndex(bad_seg), hit.offset, 7}));
  CHECK(r.mirror->head().last_seqno.value + 1 == hit.seqno.value);

  DriveResult d = drive(*r.mirror, origin, 300);
  INFO(d.problem);
  REQUIRE(d.caught_up);
  check_records_exactly_once(d.records, origin.written, hit.seqno.value - 1);
  check_byte_identical(origin, wdir);
}

TEST_CASE("writer mirror: open() of a copy whose last segment's header is damaged removes it and refetches it whole",
          "[sync][mirror][corruption]") {
  Origin origin(12, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const uint64_t last = layout.size() - 1;
  auto node = complete_copy(origin);
  const std::string wdir = node->wdir(origin.instance());
  damage(segment_path(wdir, last), 20);  // the header's segment index

  Reopened r = reopen(*node, origin);
  REQUIRE(r.scan.stopped_at == std::optional<size_t>(last));
  CHECK(quarantined_segments(node->dir(), origin.instance()).size() == 1);
  CHECK_FALSE(fs::exists(segment_path(wdir, last)));
  // The segment before it is sealed and whole: fetch the damaged one from 0.
  CHECK(same_fetch(r.mirror->next_fetch(7), PeerFetch{origin.instance(), SegmentIndex(last), 0, 7}));
  CHECK(r.mirror->head().last_seqno == layout[last - 1].records.back().seqno);

  DriveResult d = drive(*r.mirror, origin, 1u << 20);
  INFO(d.problem);
  REQUIRE(d.caught_up);
  check_records_exactly_once(d.records, origin.written, layout[last - 1].records.back().seqno.value);
  check_byte_identical(origin, wdir);
}

TEST_CASE("read_chunk: serves a writer's segment bytes up to the advertised head and never past it", "[sync][mirror]") {
  Origin origin(12, 500);
  const auto layout = layout_of(origin.fx.wdir, origin.instance(), origin.space());
  const StreamHead head = origin.head();
  const uint64_t last = head.segment.value;
  REQUIRE(last >= 2);
  const std::string seg0 = origin.segment_bytes(0);
  const std::string open_seg = origin.segment_bytes(last);

  // A sealed segment below the head: the whole file, sealed when the chunk reaches its end.
  PeerChunk c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), SegmentIndex(0), 0, 1u << 20}, 1u << 20);
  CHECK_FALSE(c.missing);
  CHECK(c.sealed);
  CHECK(c.bytes == seg0);
  // A fetch smaller than the record at its offset still gets that whole record (and no more).
  const auto& first = layout.front().records.front();
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), SegmentIndex(0), first.offset, 20}, 20);
  CHECK_FALSE(c.sealed);
  CHECK(c.bytes == seg0.substr(first.offset, first.size));
  CHECK(c.offset == first.offset);
  // A fetch larger than a record gets what it asked for.
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), SegmentIndex(0), first.offset, 700}, 700);
  CHECK(c.bytes == seg0.substr(first.offset, 700));

  // The head's segment: up to head.segment_bytes, even when the file holds more (bytes the
  // writer has written but not yet synced are never served).
  StreamHead short_head = head;
  short_head.segment_bytes = layout.back().records.front().offset;
  c = read_chunk(origin.dir(), short_head, PeerFetch{origin.instance(), head.segment, 0, 1u << 20}, 1u << 20);
  CHECK_FALSE(c.missing);
  CHECK_FALSE(c.sealed);
  CHECK(c.bytes == open_seg.substr(0, short_head.segment_bytes));
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), head.segment, 0, 1u << 20}, 1u << 20);
  CHECK(c.bytes == open_seg);
  // At the head: nothing new, not missing.
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), head.segment, head.segment_bytes, 100}, 100);
  CHECK_FALSE(c.missing);
  CHECK(c.bytes.empty());
  // Negative: past the head's bytes, two segments past the head, an unknown writer: missing.
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), head.segment, head.segment_bytes + 1, 100}, 100);
  CHECK(c.missing);
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), SegmentIndex(last + 2), 0, 100}, 100);
  CHECK(c.missing);
  c = read_chunk(origin.dir(), std::nullopt, PeerFetch{origin.instance(), SegmentIndex(0), 0, 100}, 100);
  CHECK(c.missing);
  CHECK(c.bytes.empty());
  // The segment after the head's may simply not exist yet: empty, not missing.
  c = read_chunk(origin.dir(), head, PeerFetch{origin.instance(), SegmentIndex(last + 1), 0, 100}, 100);
  CHECK_FALSE(c.missing);
  CHECK(c.bytes.empty());
}

TEST_CASE("writer mirror: a copy serves on: a third node mirrors the second and ends byte-identical to the origin",
          "[sync][mirror]") {
  Origin origin(12, 500);
  auto second = complete_copy(origin);
  Reopened b = reopen(*second, origin);
  const StreamHead b_head = b.mirror->head();
  REQUIRE(same_head(b_head, origin.head()));

  // The origin moves on; the second node has not fetched that yet, so the third cannot get it
  // from the second (negative control) ...
  origin.append(/*seal=*/false);
  MirrorNode third;
  auto c = open_empty_mirror(third.dir(), origin.instance(), origin.space());
  DriveResult r = drive(*c, serve_at(second->dir(), b_head), b_head, 333);
  REQUIRE(r.caught_up);
  check_records_exactly_once(r.records, slice(origin.written, 0, origin.written.size() - 1));
  CHECK(c->behind(origin.head()));
  // ... and gets the last record from the origin itself, continuing the same bytes.
  DriveResult rest = drive(*c, origin, 1u << 20);
  REQUIRE(rest.caught_up);
  check_records_exactly_once(rest.records, origin.written, origin.written.size() - 1);
  check_byte_identical(origin, third.wdir(origin.instance()));
}
