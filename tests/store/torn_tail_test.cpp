// A torn write at the end of the own open segment: cut the file at every byte of its last
// record (or of its header), and recovery must keep every earlier record and let the writer go on.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "store/restore_marker.hpp"
#include "store/stream_repair.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// Seals segment 0 by age after `sealed` records, then leaves `open` records in segment 1.
void write_two_segments(const DataDirFixture& fx, int sealed, int open) {
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
  for (int i = 0; i < sealed; ++i) append_one(*w, 1000);
  REQUIRE(w->maybe_seal(2000).ok());
  REQUIRE(w->open_segment() == SegmentIndex(1));
  for (int i = 0; i < open; ++i) append_one(*w, 2000);
}

// After recovery: a writer on the returned tail appends the next seqno, and the stream verifies
// clean from both the own and a peer's point of view.
void append_after_recovery_and_rescan(const DataDirFixture& fx, const Recovery& rec, uint64_t expect_last) {
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, rec.tail, LogWriterOptions{}, 3000);
  Written next = append_one(*w, 3000);
  CHECK(next.seqno.value == expect_last + 1);

  for (bool own : {true, false}) {
    std::vector<Seen> seen;
    auto again = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, own, &seen);
    REQUIRE(again.ok());
    CHECK_FALSE(again->stopped_at.has_value());
    CHECK(again->state() == SegmentEnd::open);
    CHECK(seqnos_of(seen) == seqno_range(1, expect_last + 1));
    REQUIRE_FALSE(seen.empty());
    CHECK(seen.back().hash == next.hash);
  }
}

}  // namespace

TEST_CASE("a torn tail cut at every byte of the last record recovers every earlier record", "[torn]") {
  DataDirFixture fx;
  write_two_segments(fx, 2, 3);
  const std::string seg0 = read_file(segment_path(fx.wdir, 0));
  const std::string seg1 = read_file(segment_path(fx.wdir, 1));
  std::vector<Seen> all;
  REQUIRE(scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &all).ok());
  REQUIRE(seqnos_of(all) == seqno_range(1, 5));
  const uint64_t last_off = all.back().offset;
  REQUIRE(last_off + all.back().size == seg1.size());

  for (uint64_t cut = last_off; cut <= seg1.size(); ++cut) {
    INFO("segment 1 cut to " << cut << " bytes; the last record spans [" << last_off << ", " << seg1.size() << ")");
    clear_dir(fx.wdir);
    write_file(segment_path(fx.wdir, 0), seg0);
    write_file(segment_path(fx.wdir, 1), std::string_view(seg1).substr(0, cut));
    const bool boundary = cut == last_off || cut == seg1.size();
    const uint64_t survivors = cut == seg1.size() ? 5 : 4;

    std::vector<Seen> seen;
    auto own = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, /*own=*/true, &seen);
    REQUIRE(own.ok());
    CHECK(own->state() == (boundary ? SegmentEnd::open : SegmentEnd::torn_tail));
    CHECK(own->healthy());
    CHECK(seqnos_of(seen) == seqno_range(1, survivors));
    REQUIRE(own->segments.size() == 2);
    CHECK(own->segments[1].verified_bytes == (boundary ? cut : last_off));

    // The same bytes as a peer's copy: the peer cannot know the writer died; it is not torn.
    auto peer = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, /*own=*/false, nullptr);
    REQUIRE(peer.ok());
    CHECK(peer->state() != SegmentEnd::torn_tail);
    CHECK(peer->state() == (boundary ? SegmentEnd::open : SegmentEnd::corrupt));
    CHECK(peer->records == survivors);

    std::vector<Seen> recovered;
    auto rec = recover_own_stream(fx.dir, fx.id, [&](const RecordRef& r) {
      recovered.push_back(Seen{r.seqno, r.ts, r.op_type, std::string(r.payload), r.hash, r.offset, r.size});
    }, false);
    REQUIRE(rec.ok());
    CHECK(rec->writable);
    CHECK(rec->corruptions == 0);
    CHECK(rec->torn_bytes == (boundary ? 0 : cut - last_off));
    CHECK(seqnos_of(recovered) == seqno_range(1, survivors));
    CHECK(rec->tail.last_seqno.value == survivors);
    CHECK(rec->tail.last_hash == all[survivors - 1].hash);
    CHECK(rec->tail.has_open_segment);
    CHECK(rec->tail.open_index == SegmentIndex(1));
    CHECK(read_file(segment_path(fx.wdir, 1)).size() == (boundary ? cut : last_off));
    CHECK(file_names(fx.dir.quarantine_dir()).empty());

    append_after_recovery_and_rescan(fx, *rec, survivors);
  }
}

TEST_CASE("a segment torn while its header was being written is removed and started again", "[torn]") {
  DataDirFixture fx;
  write_two_segments(fx, 2, 0);  // segment 1 holds only its header
  const std::string seg0 = read_file(segment_path(fx.wdir, 0));
  const std::string seg1 = read_file(segment_path(fx.wdir, 1));
  SegmentHeader ours;
  ours.vector_space = fx.id.vector_space;
  REQUIRE(seg1.size() == header_size(ours));

  for (uint64_t cut = 0; cut <= seg1.size(); ++cut) {
    INFO("segment 1 cut to " << cut << " of its " << seg1.size() << " header bytes");
    clear_dir(fx.wdir);
    write_file(segment_path(fx.wdir, 0), seg0);
    write_file(segment_path(fx.wdir, 1), std::string_view(seg1).substr(0, cut));
    const bool whole = cut == seg1.size();

    std::vector<Seen> seen;
    auto own = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &seen);
    REQUIRE(own.ok());
    CHECK(own->state() == (whole ? SegmentEnd::open : SegmentEnd::torn_tail));
    CHECK(seqnos_of(seen) == seqno_range(1, 2));
    auto peer = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, false, nullptr);
    REQUIRE(peer.ok());
    CHECK(peer->state() == (whole ? SegmentEnd::open : SegmentEnd::corrupt));

    auto rec = recover_own_stream(fx.dir, fx.id, nullptr, false);
    REQUIRE(rec.ok());
    CHECK(rec->writable);
    CHECK(rec->tail.last_seqno == Seqno(2));
    CHECK(rec->tail.has_open_segment == whole);
    if (!whole) {
      CHECK(rec->tail.next_index == SegmentIndex(1));
      CHECK_FALSE(fs::exists(segment_path(fx.wdir, 1)));
    }
    CHECK(file_names(fx.dir.quarantine_dir()).empty());

    append_after_recovery_and_rescan(fx, *rec, 2);
  }
}

TEST_CASE("zero bytes after the last record of the own open segment are a torn tail, not corruption", "[torn]") {
  DataDirFixture fx;
  write_two_segments(fx, 2, 3);
  const std::string seg0 = read_file(segment_path(fx.wdir, 0));
  const std::string seg1 = read_file(segment_path(fx.wdir, 1));

  // The file system extended the file but the data never reached the disk.
  for (size_t zeros : {1u, 3u, 4u, 7u, 8u, 57u, 4096u}) {
    INFO(zeros << " zero bytes after the last record");
    clear_dir(fx.wdir);
    write_file(segment_path(fx.wdir, 0), seg0);
    write_file(segment_path(fx.wdir, 1), seg1 + std::string(zeros, '\0'));

    std::vector<Seen> seen;
    auto own = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &seen);
    REQUIRE(own.ok());
    CHECK(own->state() == SegmentEnd::torn_tail);
    CHECK(seqnos_of(seen) == seqno_range(1, 5));
    auto peer = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, false, nullptr);
    REQUIRE(peer.ok());
    CHECK(peer->state() == SegmentEnd::corrupt);

    auto rec = recover_own_stream(fx.dir, fx.id, nullptr, false);
    REQUIRE(rec.ok());
    CHECK(rec->writable);
    CHECK(rec->torn_bytes == zeros);
    CHECK(read_file(segment_path(fx.wdir, 1)) == seg1);
    append_after_recovery_and_rescan(fx, *rec, 5);
  }

  // Negative control: a non-zero byte in the same place is not a torn write.
  clear_dir(fx.wdir);
  write_file(segment_path(fx.wdir, 0), seg0);
  std::string tail(64, '\0');
  tail[40] = 1;
  write_file(segment_path(fx.wdir, 1), seg1 + tail);
  auto own = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, nullptr);
  REQUIRE(own.ok());
  CHECK(own->state() == SegmentEnd::corrupt);
}

TEST_CASE("recovery that may cut an acknowledged record marks the directory durably before the cut", "[torn]") {
  DataDirFixture fx;
  write_two_segments(fx, 2, 3);
  const std::string seg1 = read_file(segment_path(fx.wdir, 1));
  const std::string marker = restore_marker_path(fx.dir);
  const std::string torn = seg1.substr(0, seg1.size() - 5);

  // Without mark_torn_cut (a node with no peer): cut, unmarked.
  write_file(segment_path(fx.wdir, 1), torn);
  auto plain = recover_own_stream(fx.dir, fx.id, nullptr, false);
  REQUIRE(plain.ok());
  CHECK(plain->torn_bytes > 0);
  CHECK_FALSE(plain->marked);
  CHECK_FALSE(read_restore_marker(fx.dir)->has_value());

  // With it: the marker names the reason and the last record kept, and the tail is cut.
  write_file(segment_path(fx.wdir, 1), torn);
  auto marked = recover_own_stream(fx.dir, fx.id, nullptr, true);
  REQUIRE(marked.ok());
  CHECK(marked->marked);
  auto m = read_restore_marker(fx.dir);
  REQUIRE(m.ok());
  REQUIRE(m->has_value());
  CHECK((*m)->reason == RestoreMarker::kTornTail);
  CHECK((*m)->own_last_seqno == Seqno(4));
  CHECK(read_file(segment_path(fx.wdir, 1)).size() < torn.size());

  // A clean stream is never marked.
  REQUIRE(remove_restore_marker(fx.dir).ok());
  auto clean = recover_own_stream(fx.dir, fx.id, nullptr, true);
  REQUIRE(clean.ok());
  CHECK(clean->torn_bytes == 0);
  CHECK_FALSE(read_restore_marker(fx.dir)->has_value());

  // A marker that cannot be written stops recovery before anything is cut.
  write_file(segment_path(fx.wdir, 1), torn);
  std::filesystem::create_directory(marker + ".tmp");
  auto refused = recover_own_stream(fx.dir, fx.id, nullptr, true);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("RESTORED") != std::string::npos);
  CHECK(read_file(segment_path(fx.wdir, 1)) == torn);
  CHECK_FALSE(read_restore_marker(fx.dir)->has_value());
}
