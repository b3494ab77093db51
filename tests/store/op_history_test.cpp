// read_ops (store/op_history.hpp): ops found by (writer, seqno) across segments with their
// bytes as written and verified = true; damage before a record (in its segment, or in the link
// to the previous segment) makes it unverified but still readable; an absent seqno is NotFound.
#include <catch2/catch.hpp>

#include "store/op_history.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

bool contains_text(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A stream of 30 records in segments of a few records each.
struct HistoryFixture : DataDirFixture {
  std::vector<Written> written;
  HistoryFixture() {
    LogWriterOptions opt;
    opt.seal_bytes = 400;
    written = write_stream(wdir, id.instance, id.vector_space, 30, opt);
  }
  std::vector<Result<HistoryOp>> read(const std::vector<uint64_t>& seqnos,
                                      HistoryCheck check = HistoryCheck::segment_link) const {
    std::vector<OpKey> keys;
    for (uint64_t s : seqnos) keys.push_back(OpKey{id.instance, Seqno(s)});
    return read_ops(dir, id.vector_space, keys, check);
  }
  HistoryOp one(uint64_t seqno, HistoryCheck check = HistoryCheck::segment_link) const {
    auto r = read({seqno}, check);
    REQUIRE(r.size() == 1);
    INFO(r[0].status().message());
    REQUIRE(r[0].ok());
    return r[0].value();
  }
  void flip(SegmentIndex segment, uint64_t offset) const {
    const std::string path = segment_path(wdir, segment.value);
    std::string bytes = read_file(path);
    REQUIRE(offset < bytes.size());
    bytes[offset] ^= 0x20;
    write_file(path, bytes);
  }
};

TEST_CASE("ops are found by writer and seqno in every segment, as written and verified") {
  HistoryFixture f;
  REQUIRE(fs::exists(segment_path(f.wdir, 3)));  // several segments
  std::vector<uint64_t> seqnos = {30, 1, 2, 7, 8, 15, 29, 16};
  auto results = f.read(seqnos);
  REQUIRE(results.size() == seqnos.size());
  for (size_t i = 0; i < seqnos.size(); ++i) {
    INFO("seqno " << seqnos[i] << ": " << results[i].status().message());
    REQUIRE(results[i].ok());
    const HistoryOp& op = *results[i];
    const Written& w = f.written[seqnos[i] - 1];
    CHECK(op.instance == f.id.instance);
    CHECK(op.seqno == w.seqno);
    CHECK(op.ts == w.ts);
    CHECK(op.op_type == w.op_type);
    CHECK(op.payload == w.payload);
    CHECK(op.verified);
    CHECK(op.problem.empty());
  }
  CHECK(results[0]->segment.value > results[1]->segment.value);  // 30 and 1 are in different segments
  CHECK(f.one(30, HistoryCheck::whole_stream).verified);
}

TEST_CASE("a seqno the stream does not hold, or a writer without a folder, is NotFound") {
  HistoryFixture f;
  auto r = f.read({31, 0, 1000});
  for (const auto& x : r) CHECK(x.status().code() == Code::not_found);
  auto other = read_ops(f.dir, f.id.vector_space, {OpKey{InstanceId(f.id.instance.value ^ 1), Seqno(1)}});
  CHECK(other[0].status().code() == Code::not_found);
  CHECK(f.read({30})[0].ok());  // the control next to it is there
}

TEST_CASE("a flipped byte before a record in its segment leaves that record readable but unverified") {
  HistoryFixture f;
  const HistoryOp target = f.one(12);
  REQUIRE(target.verified);
  const HistoryOp first = f.one(target.seqno.value - 1);  // an earlier record of the same segment
  REQUIRE(first.segment == target.segment);
  const HistoryOp earlier_segment = f.one(1);
  REQUIRE(earlier_segment.segment.value < target.segment.value);

  f.flip(first.segment, first.offset + kRecordFrameBytes + kRecordBodyFixedBytes + 2);  // in its payload
  const HistoryOp after = f.one(12);
  CHECK_FALSE(after.verified);
  CHECK(contains_text(after.problem, "segment " + std::to_string(target.segment.value)));
  CHECK(contains_text(after.problem, "CRC"));
  CHECK(after.payload == f.written[11].payload);  // still read from its own, intact bytes
  CHECK(after.offset == target.offset);
  CHECK_FALSE(f.one(12, HistoryCheck::whole_stream).verified);
  // The damaged record itself is unverified; records before the damage still verify.
  CHECK_FALSE(f.one(first.seqno.value).verified);
  CHECK(f.one(1).verified);
}

TEST_CASE("a damaged link to the previous segment leaves the next segment's records unverified") {
  HistoryFixture f;
  const HistoryOp target = f.one(20);
  REQUIRE(target.verified);
  REQUIRE(target.segment.value >= 2);
  // The last byte of the previous segment belongs to its trailer's last hash.
  const std::string prev = segment_path(f.wdir, target.segment.value - 1);
  f.flip(SegmentIndex(target.segment.value - 1), read_file(prev).size() - 1);
  const HistoryOp after = f.one(20);
  CHECK_FALSE(after.verified);
  CHECK(contains_text(after.problem, "segment " + std::to_string(target.segment.value - 1)));
  CHECK(after.payload == f.written[19].payload);
}

TEST_CASE("damage in an earlier segment's records is seen by the whole-stream check, not the segment link") {
  HistoryFixture f;
  const HistoryOp early = f.one(1);
  const HistoryOp target = f.one(25);
  REQUIRE(target.segment.value >= early.segment.value + 2);
  f.flip(early.segment, early.offset + kRecordFrameBytes + kRecordBodyFixedBytes + 2);
  // The segment link check reads only the target's segment and the previous one's trailer.
  CHECK(f.one(25).verified);
  const HistoryOp whole = f.one(25, HistoryCheck::whole_stream);
  CHECK_FALSE(whole.verified);
  CHECK(contains_text(whole.problem, "segment 0"));
}

}  // namespace
}  // namespace vasana::test
