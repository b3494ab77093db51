// StoredValueArchive (actors/stored_value_archive.hpp): a node's earlier texts and clients'
// vectors, from the archive database when it holds the value with the recorded hash, else from
// the op in the segments (written back, and logged); a value whose hash matches neither is not
// given.
#include <catch2/catch.hpp>

#include "actors/stored_value_archive.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {

TEST_CASE("the stored value archive checks hashes and reads what the database lacks from the segments") {
  DataDirFixture f;
  const MemoryId m1{f.id.instance, Seqno(1)};
  const std::vector<float> given{0.25f, -1.0f, 3.5f};
  {
    auto w = open_writer(f.wdir, f.id.instance, f.id.vector_space, StreamTail{});
    REQUIRE(append_one(*w).seqno == Seqno(1));  // put_memory, text "m1"
    w->stage(test_ts(2), static_cast<uint16_t>(OpType::update_content),
             encode_op(UpdateContentOp{m1, "m1, corrected", false, {}}));
    w->stage(test_ts(3), static_cast<uint16_t>(OpType::set_vector), encode_op(SetVectorOp{m1, given, "m/3"}));
    REQUIRE(w->commit().ok());
  }
  const OrderKey put{test_ts(1), f.id.instance, Seqno(1)}, update{test_ts(2), f.id.instance, Seqno(2)},
      set{test_ts(3), f.id.instance, Seqno(3)};
  auto store = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
  std::vector<std::string> lines;
  StoredValueArchive archive(store, [&](const std::string& l) { lines.push_back(l); });

  archive.keep_text(m1, update, "m1, corrected");
  REQUIRE(store->flush().ok());
  store->keep(m1, put.op_id(), 't', "not what the put wrote");  // a text the hash will not match
  // From the database: no segment read, nothing logged.
  CHECK(archive.find_text(m1, update, text_hash("m1, corrected")) == std::string("m1, corrected"));
  CHECK(store->stats().read_from_log == 0);
  CHECK(lines.empty());
  // The database's text has another hash: the put's text from the segment, written back.
  auto both = archive.find_texts({TextWanted{m1, put, text_hash("m1")}, TextWanted{m1, update, text_hash("m1, corrected")}});
  REQUIRE(both.size() == 2);
  CHECK(both[0] == std::string("m1"));
  CHECK(both[1] == std::string("m1, corrected"));
  CHECK(store->stats().read_from_log == 1);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("1 value(s) read from the segments") != std::string::npos);
  CHECK(store->stored(m1, m1, 't') == std::string("m1"));
  // A vector the database lacks: from the set_vector op, written back.
  CHECK(archive.find_vector(m1, set, vector_hash(given)) == given);
  CHECK(store->stats().read_from_log == 2);
  CHECK(store->stored(m1, set.op_id(), 'v') == vector_bytes(given));
  CHECK(archive.find_vector(m1, set, vector_hash(given)) == given);
  CHECK(store->stats().read_from_log == 2);  // now from the database
  // Negative: a hash that neither the database's value nor the op's matches; an op not there.
  CHECK(!archive.find_text(m1, put, text_hash("m2")));
  CHECK(!archive.find_vector(m1, set, vector_hash({0.25f, -1.0f, 3.0f})));
  CHECK(!archive.find_text(m1, OrderKey{test_ts(4), f.id.instance, Seqno(4)}, text_hash("m1")));
}

}  // namespace vasana::test
