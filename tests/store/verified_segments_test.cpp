// What a checkpoint may record of the sealed segments (store/verified_segments.hpp): only those
// verified record by record in this run and wholly covered; segments a start took on trust only
// once their verification says so; segments sealed since the start read and verified first, and
// damage found in them reported once, after which that writer gives no more.
#include <catch2/catch.hpp>

#include "store/verified_segments.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

std::vector<SealedSegmentFacts> sealed_of(const WriterScan& scan) {
  std::vector<SealedSegmentFacts> out;
  for (const SegmentSummary& s : scan.segments)
    if (s.sealed) out.push_back(*s.sealed);
  return out;
}

WriterScan scan_of(const DataDirFixture& f, const std::vector<SealedSegmentFacts>* trusted = nullptr) {
  auto s = scan_writer(f.wdir, f.id.instance, f.id.vector_space, true, nullptr, trusted);
  REQUIRE(s.ok());
  return std::move(s.value());
}

std::vector<uint64_t> indices(const std::vector<SealedSegmentFacts>& facts) {
  std::vector<uint64_t> out;
  for (const auto& f : facts) out.push_back(f.index.value);
  return out;
}

struct Sink {
  std::vector<SegmentDamage> found;
  SegmentDamageSink fn() {
    return [this](const SegmentDamage& d) { found.push_back(d); };
  }
};

LogWriterOptions small_segments() {
  LogWriterOptions opt;
  opt.seal_bytes = 400;
  return opt;
}

}  // namespace

TEST_CASE("a checkpoint records the sealed segments a scan verified that it wholly covers") {
  DataDirFixture f;
  write_stream(f.wdir, f.id.instance, f.id.vector_space, 30, small_segments());
  const WriterScan full = scan_of(f);
  const std::vector<SealedSegmentFacts> sealed = sealed_of(full);
  REQUIRE(sealed.size() >= 4);
  Sink sink;
  VerifiedSegments v(f.dir, f.id.vector_space, sink.fn());
  v.add_scan(full);
  CHECK(v.covered(f.id.instance, Seqno(30)) == sealed);
  CHECK(indices(v.covered(f.id.instance, sealed[2].last_seqno)) == std::vector<uint64_t>{0, 1, 2});
  CHECK(indices(v.covered(f.id.instance, Seqno(sealed[2].last_seqno.value - 1))) == std::vector<uint64_t>{0, 1});
  CHECK(v.covered(InstanceId(12345), Seqno(30)).empty());
  CHECK(sink.found.empty());
}

TEST_CASE("segments a start took on trust are recorded only once verified") {
  DataDirFixture f;
  write_stream(f.wdir, f.id.instance, f.id.vector_space, 30, small_segments());
  const std::vector<SealedSegmentFacts> sealed = sealed_of(scan_of(f));
  const WriterScan trusting = scan_of(f, &sealed);
  REQUIRE(trusting.trusted_segments() == sealed.size());
  Sink sink;
  VerifiedSegments v(f.dir, f.id.vector_space, sink.fn());
  v.add_scan(trusting);
  CHECK(v.covered(f.id.instance, Seqno(30)).empty());
  v.verified(f.id.instance, sealed[1]);
  CHECK(indices(v.covered(f.id.instance, Seqno(30))) == std::vector<uint64_t>{1});
  // Facts other than the pending segment's do not verify it.
  SealedSegmentFacts other = sealed[2];
  other.records += 1;
  v.verified(f.id.instance, other);
  CHECK(indices(v.covered(f.id.instance, Seqno(30))) == std::vector<uint64_t>{1});
  v.damaged(f.id.instance, SegmentIndex(1));
  v.verified(f.id.instance, sealed[0]);
  CHECK(v.covered(f.id.instance, Seqno(30)).empty());
  CHECK(sink.found.empty());
}

TEST_CASE("segments sealed after the start are verified before a checkpoint records them and damage there is reported") {
  DataDirFixture f;
  auto w = open_writer(f.wdir, f.id.instance, f.id.vector_space, StreamTail{}, small_segments());
  for (int i = 0; i < 8; ++i) append_one(*w);
  Sink sink;
  VerifiedSegments v(f.dir, f.id.vector_space, sink.fn());
  const WriterScan at_start = scan_of(f);
  v.add_scan(at_start);
  const size_t sealed_at_start = sealed_of(at_start).size();
  for (int i = 0; i < 22; ++i) append_one(*w);
  const std::vector<SealedSegmentFacts> sealed = sealed_of(scan_of(f));
  REQUIRE(sealed.size() > sealed_at_start + 2);

  SECTION("sound") {
    CHECK(v.covered(f.id.instance, Seqno(30)) == sealed);
    CHECK(sink.found.empty());
  }
  SECTION("a byte flipped in one sealed since") {
    const SealedSegmentFacts& hit = sealed[sealed_at_start + 1];
    xor_byte(segment_path(f.wdir, hit.index.value), hit.last_record_offset / 2 + 30);
    const auto listed = v.covered(f.id.instance, Seqno(30));
    CHECK(listed.size() == sealed_at_start + 1);
    REQUIRE(sink.found.size() == 1);
    CHECK(sink.found[0].writer == f.id.instance);
    CHECK(sink.found[0].index == hit.index);
    CHECK(sink.found[0].end == SegmentEnd::corrupt);
    CHECK(sink.found[0].seqno >= hit.first_seqno);
    CHECK(sink.found[0].describe().find("corrupt in segment " + std::to_string(hit.index.value)) == 0);
    // Reported once: the writer gives nothing more in this run.
    CHECK(v.covered(f.id.instance, Seqno(30)).size() == sealed_at_start + 1);
    CHECK(sink.found.size() == 1);
  }
}

}  // namespace vasana::test
