// HistoryTexts (store/history_texts.hpp): the earlier texts of memories kept on disk, read back
// from the buffer, the database or the op in the segments; an erase leaves no file holding them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/history_texts.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

// Whether any file under folder holds bytes.
bool any_file_holds(const std::string& folder, const std::string& bytes) {
  for (const auto& e : fs::recursive_directory_iterator(folder))
    if (e.is_regular_file() && read_file(e.path().string()).find(bytes) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("history texts are read back from the buffer, and from the database after a reopen") {
  DataDirFixture f;
  const MemoryId m{f.id.instance, Seqno(1)}, other{f.id.instance, Seqno(2)};
  const MemoryId put{f.id.instance, Seqno(1)}, update{f.id.instance, Seqno(5)};
  {
    auto t = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
    t->keep(m, put, "the deploy runs on fridays");
    t->keep(m, update, "the deploy runs on tuesdays");
    CHECK(t->stored(m, put) == std::string("the deploy runs on fridays"));  // from the buffer
    REQUIRE(t->flush().ok());
    CHECK(t->stats().written == 2);
    CHECK(t->stats().pending == 0);
  }
  auto t = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
  CHECK(t->stats().open);
  CHECK(t->stored(m, put) == std::string("the deploy runs on fridays"));
  CHECK(t->stored(m, update) == std::string("the deploy runs on tuesdays"));
  // Negative: what was never kept, under another memory or another op.
  CHECK(!t->stored(other, put));
  CHECK(!t->stored(m, MemoryId{f.id.instance, Seqno(6)}));
}

TEST_CASE("a history text is read from the op in the segments: a put of the memory or an update naming it") {
  DataDirFixture f;
  auto w = open_writer(f.wdir, f.id.instance, f.id.vector_space, StreamTail{});
  REQUIRE(append_one(*w).seqno == Seqno(1));  // put_memory, text "m1"
  REQUIRE(append_one(*w).seqno == Seqno(2));  // put_memory, text "m2"
  const MemoryId m1{f.id.instance, Seqno(1)}, m2{f.id.instance, Seqno(2)};
  const std::string update = encode_op(UpdateContentOp{m1, "m1, corrected", false, {}});
  w->stage(test_ts(3), static_cast<uint16_t>(OpType::update_content), update);
  REQUIRE(w->commit().ok());
  auto t = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
  const MemoryId op3{f.id.instance, Seqno(3)};
  // Negative among them: another memory's put, an update of another memory, an op not there.
  auto texts = t->from_log({{m1, m1}, {m1, m2}, {m1, op3}, {m2, op3}, {m1, MemoryId{f.id.instance, Seqno(9)}}});
  REQUIRE(texts.size() == 5);
  CHECK(texts[0] == std::string("m1"));
  CHECK(!texts[1]);
  CHECK(texts[2] == std::string("m1, corrected"));
  CHECK(!texts[3]);
  CHECK(!texts[4]);
  CHECK(t->stats().read_from_log == 2);
}

TEST_CASE("an erased memory's history texts leave every file of the history database") {
  DataDirFixture f;
  const MemoryId gone{f.id.instance, Seqno(7)}, kept{f.id.instance, Seqno(8)};
  // No run of bytes shared between them or within one, so compression cannot hide either.
  const std::string secret = "vault-code:4471-9982-3310";
  const std::string other = "LOBBY_KEY=qwerty.ZXCVBN";
  auto t = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
  t->keep(gone, gone, secret);
  t->keep(kept, kept, other);
  REQUIRE(t->flush().ok());
  // Positive control: the texts are in the database's files.
  REQUIRE(any_file_holds(history_texts_dir(f.dir.root), secret));
  REQUIRE(any_file_holds(history_texts_dir(f.dir.root), other));
  t->drop(gone);
  CHECK(!t->stored(gone, gone));
  REQUIRE(t->flush().ok());
  CHECK(!t->stored(gone, gone));
  CHECK(t->stored(kept, kept) == other);
  t->close();
  CHECK(!any_file_holds(history_texts_dir(f.dir.root), secret));
  CHECK(any_file_holds(history_texts_dir(f.dir.root), other));
}

TEST_CASE("history texts whose database cannot be opened are left to the segments, and say so") {
  DataDirFixture f;
  write_file(history_texts_dir(f.dir.root), "not a folder");
  std::vector<std::string> lines;
  auto t = HistoryTexts::open(f.dir, f.id.vector_space, [&](const std::string& l) { lines.push_back(l); });
  CHECK(!t->stats().open);
  REQUIRE(!lines.empty());
  CHECK(lines[0].find("earlier texts are read from the segments") != std::string::npos);
  const MemoryId m{f.id.instance, Seqno(1)};
  t->keep(m, m, "text");
  CHECK(!t->flush().ok());
  CHECK(!t->stored(m, m));  // not held in RAM for a database that is not there
  CHECK(t->stats().dropped == 1);
}

TEST_CASE("a damaged history database is made anew") {
  DataDirFixture f;
  const MemoryId m{f.id.instance, Seqno(1)};
  {
    auto t = HistoryTexts::open(f.dir, f.id.vector_space, nullptr);
    t->keep(m, m, "before the damage");
    REQUIRE(t->flush().ok());
  }
  fs::remove(history_texts_dir(f.dir.root) + "/CURRENT");
  for (const auto& e : fs::directory_iterator(history_texts_dir(f.dir.root)))
    if (e.path().filename().string().rfind("MANIFEST", 0) == 0) write_file(e.path().string(), "garbage");
  std::vector<std::string> lines;
  auto t = HistoryTexts::open(f.dir, f.id.vector_space, [&](const std::string& l) { lines.push_back(l); });
  CHECK(t->stats().open);
  CHECK(!t->stored(m, m));  // its texts come from the segments again
  t->keep(m, m, "after");
  REQUIRE(t->flush().ok());
  CHECK(t->stored(m, m) == std::string("after"));
}

}  // namespace vasana::test
