// StoredTextArchive (actors/stored_text_archive.hpp): a node's earlier texts, from the history
// database when it holds the text with the recorded hash, else from the op in the segments
// (written back, and logged); a text whose hash matches neither is not given.
#include <catch2/catch.hpp>

#include "actors/stored_text_archive.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {

TEST_CASE("the stored text archive checks hashes and reads what the database lacks from the segments") {
  DataDirFixture f;
  {
    auto w = open_writer(f.wdir, f.id.instance, f.id.vector_space, StreamTail{});
    REQUIRE(append_one(*w).seqno == Seqno(1));  // put_memory, text "m1"
    const MemoryId m1{f.id.instance, Seqno(1)};
    w->stage(test_ts(2), static_cast<uint16_t>(OpType::update_content),
             encode_op(UpdateContentOp{m1, "m1, corrected", false, {}}));
    REQUIRE(w->commit().ok());
  }
  const MemoryId m1{f.id.instance, Seqno(1)};
  const OrderKey put{test_ts(1), f.id.instance, Seqno(1)}, update{test_ts(2), f.id.instance, Seqno(2)};
  auto texts = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
  std::vector<std::string> lines;
  StoredTextArchive archive(texts, [&](const std::string& l) { lines.push_back(l); });

  archive.keep(m1, update, "m1, corrected");
  REQUIRE(texts->flush().ok());
  texts->keep(m1, put.op_id(), "not what the put wrote");  // a text the hash will not match
  // From the database: no segment read, nothing logged.
  CHECK(archive.find(m1, update, text_hash("m1, corrected")) == std::string("m1, corrected"));
  CHECK(texts->stats().read_from_log == 0);
  CHECK(lines.empty());
  // The database's text has another hash: the put's text from the segment, written back.
  auto both = archive.find_all({TextWanted{m1, put, text_hash("m1")}, TextWanted{m1, update, text_hash("m1, corrected")}});
  REQUIRE(both.size() == 2);
  CHECK(both[0] == std::string("m1"));
  CHECK(both[1] == std::string("m1, corrected"));
  CHECK(texts->stats().read_from_log == 1);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("1 earlier text(s) read from the segments") != std::string::npos);
  CHECK(texts->stored(m1, m1) == std::string("m1"));
  // Negative: a hash that neither the database's text nor the op's matches.
  CHECK(!archive.find(m1, put, text_hash("m2")));
  CHECK(!archive.find(m1, OrderKey{test_ts(3), f.id.instance, Seqno(3)}, text_hash("m1")));  // no such op
}

}  // namespace vasana::test
