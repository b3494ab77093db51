// ArchiveStore (store/archive_store.hpp): earlier texts and clients' vectors kept on disk, read
// back from the buffer, the database or the op in the segments; an erase leaves no file holding
// them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/archive_store.hpp"
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

TEST_CASE("archived values are read back from the buffer, and from the database after a reopen") {
  DataDirFixture f;
  const MemoryId m{f.id.instance, Seqno(1)}, other{f.id.instance, Seqno(2)};
  const MemoryId put{f.id.instance, Seqno(1)}, update{f.id.instance, Seqno(5)};
  {
    auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
    t->keep(m, put, 't', "the deploy runs on fridays");
    t->keep(m, put, 'v', "four");  // another kind under the same op
    t->keep(m, update, 't', "the deploy runs on tuesdays");
    CHECK(t->stored(m, put, 't') == std::string("the deploy runs on fridays"));  // from the buffer
    REQUIRE(t->flush().ok());
    CHECK(t->stats().written == 3);
    CHECK(t->stats().pending == 0);
  }
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
  CHECK(t->stats().open);
  CHECK(t->stored(m, put, 't') == std::string("the deploy runs on fridays"));
  CHECK(t->stored(m, put, 'v') == std::string("four"));
  CHECK(t->stored(m, update, 't') == std::string("the deploy runs on tuesdays"));
  // Negative: what was never kept, under another memory, another op or another kind.
  CHECK(!t->stored(other, put, 't'));
  CHECK(!t->stored(m, MemoryId{f.id.instance, Seqno(6)}, 't'));
  CHECK(!t->stored(m, update, 'v'));
}

TEST_CASE("an archived value is read from the op in the segments: a text or a vector the op gave the memory") {
  DataDirFixture f;
  auto w = open_writer(f.wdir, f.id.instance, f.id.vector_space, StreamTail{});
  REQUIRE(append_one(*w).seqno == Seqno(1));  // put_memory, text "m1", no vector
  REQUIRE(append_one(*w).seqno == Seqno(2));  // put_memory, text "m2"
  const MemoryId m1{f.id.instance, Seqno(1)}, m2{f.id.instance, Seqno(2)};
  w->stage(test_ts(3), static_cast<uint16_t>(OpType::update_content),
           encode_op(UpdateContentOp{m1, "m1, corrected", false, {}}));
  w->stage(test_ts(4), static_cast<uint16_t>(OpType::set_vector), encode_op(SetVectorOp{m1, {0.5f, -2.0f}, "m/2"}));
  REQUIRE(w->commit().ok());
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
  const MemoryId op3{f.id.instance, Seqno(3)}, op4{f.id.instance, Seqno(4)};
  // Negative among them: another memory's put, an update of another memory, a put without a
  // vector, a text of a set_vector, an op not there.
  auto got = t->from_log({{m1, m1, 't'},
                          {m1, m2, 't'},
                          {m1, op3, 't'},
                          {m2, op3, 't'},
                          {m1, op4, 'v'},
                          {m1, m1, 'v'},
                          {m1, op4, 't'},
                          {m1, MemoryId{f.id.instance, Seqno(9)}, 't'}});
  REQUIRE(got.size() == 8);
  CHECK(got[0].text == std::string("m1"));
  CHECK(!got[1].text);
  CHECK(got[2].text == std::string("m1, corrected"));
  CHECK(!got[3].text);
  CHECK(got[4].vector == std::vector<float>{0.5f, -2.0f});
  CHECK(!got[5].vector);
  CHECK(!got[6].text);
  CHECK(!got[7].text);
  CHECK(t->stats().read_from_log == 3);
}

TEST_CASE("an erased memory's archived values leave every file of the archive database") {
  DataDirFixture f;
  const MemoryId gone{f.id.instance, Seqno(7)}, kept{f.id.instance, Seqno(8)};
  // No run of bytes shared between them or within one, so compression cannot hide either.
  const std::string secret = "vault-code:4471-9982-3310";
  const std::string other = "LOBBY_KEY=qwerty.ZXCVBN";
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
  t->keep(gone, gone, 't', secret);
  t->keep(kept, kept, 't', other);
  REQUIRE(t->flush().ok());
  // Positive control: the values are in the database's files.
  REQUIRE(any_file_holds(archive_dir(f.dir.root), secret));
  REQUIRE(any_file_holds(archive_dir(f.dir.root), other));
  t->drop(gone);
  CHECK(!t->stored(gone, gone, 't'));
  REQUIRE(t->flush().ok());
  CHECK(!t->stored(gone, gone, 't'));
  CHECK(t->stored(kept, kept, 't') == other);
  t->close();
  CHECK(!any_file_holds(archive_dir(f.dir.root), secret));
  CHECK(any_file_holds(archive_dir(f.dir.root), other));
}

TEST_CASE("archived values whose database cannot be opened are left to the segments, and say so") {
  DataDirFixture f;
  write_file(archive_dir(f.dir.root), "not a folder");
  std::vector<std::string> lines;
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, [&](const std::string& l) { lines.push_back(l); });
  CHECK(!t->stats().open);
  REQUIRE(!lines.empty());
  CHECK(lines[0].find("earlier texts and vectors are read from the segments") != std::string::npos);
  const MemoryId m{f.id.instance, Seqno(1)};
  t->keep(m, m, 't', "text");
  CHECK(!t->flush().ok());
  CHECK(!t->stored(m, m, 't'));  // not held in RAM for a database that is not there
  CHECK(t->stats().dropped == 1);
}

TEST_CASE("a damaged archive database is made anew") {
  DataDirFixture f;
  const MemoryId m{f.id.instance, Seqno(1)};
  {
    auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
    t->keep(m, m, 't', "before the damage");
    REQUIRE(t->flush().ok());
  }
  fs::remove(archive_dir(f.dir.root) + "/CURRENT");
  for (const auto& e : fs::directory_iterator(archive_dir(f.dir.root)))
    if (e.path().filename().string().rfind("MANIFEST", 0) == 0) write_file(e.path().string(), "garbage");
  std::vector<std::string> lines;
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, [&](const std::string& l) { lines.push_back(l); });
  CHECK(t->stats().open);
  CHECK(!t->stored(m, m, 't'));  // its values come from the segments again
  t->keep(m, m, 't', "after");
  REQUIRE(t->flush().ok());
  CHECK(t->stored(m, m, 't') == std::string("after"));
}

TEST_CASE("values kept faster than they are written wait for the buffer, and none is lost") {
  DataDirFixture f;
  auto t = ArchiveStore::open(f.dir, f.id.vector_space, nullptr);
  const std::string big(256 << 10, 'x');  // 400 of them: 100 MiB, more than the 64 MiB buffer
  for (uint64_t i = 1; i <= 400; ++i) t->keep(MemoryId{f.id.instance, Seqno(i)}, MemoryId{f.id.instance, Seqno(i)}, 'v', big);
  REQUIRE(t->flush().ok());
  CHECK(t->stats().written == 400);
  CHECK(t->stats().dropped == 0);
  CHECK(t->stored(MemoryId{f.id.instance, Seqno(1)}, MemoryId{f.id.instance, Seqno(1)}, 'v') == big);
  CHECK(t->stored(MemoryId{f.id.instance, Seqno(400)}, MemoryId{f.id.instance, Seqno(400)}, 'v') == big);
}

}  // namespace vasana::test
