// Redaction in place (store/record_redaction.hpp): the named records' payloads become redaction
// markers, the segments keep their sizes and still verify end to end, the original bytes are gone
// from the files, and a rewrite a crash interrupted is finished from DIR/redact.pending.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "protocol/redaction.hpp"
#include "store/record_redaction.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

struct RedactFixture : DataDirFixture {
  std::vector<Written> written;
  RedactFixture() {
    LogWriterOptions opt;
    opt.seal_bytes = 400;
    written = write_stream(wdir, id.instance, id.vector_space, 30, opt);
  }
  RedactionTarget target(uint64_t seqno) const {
    return RedactionTarget{OpKey{id.instance, Seqno(seqno)}, MemoryId{id.instance, Seqno(seqno)}};
  }
  std::vector<Seen> scan() const {
    std::vector<Seen> seen;
    auto r = scan_collect(wdir, id.instance, id.vector_space, true, &seen);
    INFO(r.status().message());
    REQUIRE(r.ok());
    return seen;
  }
  // Every segment file's bytes, concatenated.
  std::string all_bytes() const {
    std::string out;
    for (const auto& e : fs::directory_iterator(wdir)) out += read_file(e.path().string());
    return out;
  }
  std::map<std::string, uintmax_t> sizes() const {
    std::map<std::string, uintmax_t> out;
    for (const auto& e : fs::directory_iterator(wdir)) out[e.path().string()] = fs::file_size(e.path());
    return out;
  }
};

bool holds(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("redacted records keep their place and chain, lose their payload, and every segment still verifies") {
  RedactFixture f;
  REQUIRE(fs::exists(segment_path(f.wdir, 3)));  // several segments, some sealed
  const auto before = f.sizes();
  // Positive control: the payloads to redact are in the files before.
  for (uint64_t s : {3, 12, 30}) REQUIRE(holds(f.all_bytes(), f.written[s - 1].payload));

  RedactionReport report;
  REQUIRE(redact_records(f.dir, f.id.vector_space, {f.target(3), f.target(12), f.target(30), f.target(31)}, &report).ok());
  CHECK(report.redacted == 3);
  CHECK(report.missing == 1);  // seqno 31 is not written (yet)
  CHECK(report.problems.empty());
  CHECK(f.sizes() == before);
  CHECK_FALSE(fs::exists(f.dir.root + "/redact.pending"));

  const auto seen = f.scan();  // the whole stream verifies: frames, CRCs, the hash chain, trailers
  REQUIRE(seen.size() == 30);
  const std::string bytes = f.all_bytes();
  for (const Seen& s : seen) {
    const Written& w = f.written[s.seqno.value - 1];
    CAPTURE(s.seqno.value);
    CHECK(s.hash == w.hash);
    const bool target = s.seqno.value == 3 || s.seqno.value == 12 || s.seqno.value == 30;
    if (!target) {  // negative control: the others are untouched
      CHECK(s.op_type == kPut);
      CHECK(s.payload == w.payload);
      continue;
    }
    CHECK(s.op_type == (kPut | kRedactedBit));
    CHECK(s.payload.size() == w.payload.size());
    auto marker = decode_redaction_marker(s.op_type, s.payload);
    REQUIRE(marker.ok());
    CHECK(marker->op_type == kPut);
    CHECK(marker->record_hash == w.hash);
    CHECK(marker->memory == (MemoryId{f.id.instance, s.seqno}));
    CHECK_FALSE(holds(bytes, w.payload));
  }

  // A second pass finds them done.
  RedactionReport again;
  REQUIRE(redact_records(f.dir, f.id.vector_space, {f.target(3), f.target(12)}, &again).ok());
  CHECK(again.redacted == 0);
  CHECK(again.already == 2);
}

TEST_CASE("a rewrite a crash interrupted is finished from redact.pending and one that does not parse is refused") {
  RedactFixture f;
  const std::string path = segment_path(f.wdir, 0);
  const std::string whole = read_file(path);
  const uint64_t offset = f.scan().at(0).offset;
  RedactionReport report;
  REQUIRE(redact_records(f.dir, f.id.vector_space, {f.target(1)}, &report).ok());
  REQUIRE(report.redacted == 1);
  const std::string redacted = read_file(path);
  REQUIRE(redacted != whole);
  // The crash: the pending file was written, the segment still holds the old bytes (or a torn
  // write of the new ones: the record's first half).
  const size_t record_bytes = record_size(f.written[0].payload.size());
  const std::string record = redacted.substr(offset, record_bytes);
  for (bool torn : {false, true}) {
    std::string crashed = whole;
    if (torn) crashed.replace(offset, record_bytes / 2, record.substr(0, record_bytes / 2));
    write_file(path, crashed);
    write_file(f.dir.root + "/redact.pending", encode_pending_redaction(path, offset, record));
    REQUIRE(finish_pending_redaction(f.dir).ok());
    CHECK(read_file(path) == redacted);
    CHECK_FALSE(fs::exists(f.dir.root + "/redact.pending"));
    CHECK(f.scan().size() == 30);
  }
  CHECK(finish_pending_redaction(f.dir).ok());  // none pending: nothing to do

  std::string damaged = encode_pending_redaction(path, offset, record);
  damaged[20] ^= 1;
  write_file(f.dir.root + "/redact.pending", damaged);
  const Status s = finish_pending_redaction(f.dir);
  CHECK(s.code() == Code::corruption);
  CHECK_THAT(s.message(), Catch::Contains("remove it to start"));
  CHECK(fs::exists(f.dir.root + "/redact.pending"));  // left for the operator
  CHECK(read_file(path) == redacted);
}

}  // namespace vasana::test
