// `vasana verify` checks every record's payload as the node applies it: a record with a sound
// frame and chain but a payload that is not an op this build can apply (in the own stream or in
// a copy of another writer's) is reported with its writer, segment, offset and reason, and the
// command exits 1; a directory of sound records passes.
#include <catch2/catch.hpp>

#include <string>

#include "store/data_dir.hpp"
#include "store/log_writer.hpp"
#include "store/segment_format.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"
#include "tests/support/crafted_ops.hpp"

namespace vasana::test {
namespace {

constexpr uint16_t kPutType = static_cast<uint16_t>(OpType::put_memory);

std::string sound_put(uint64_t i) {
  MemoryInput m;
  m.realm = "r";
  m.text = "memory " + std::to_string(i);
  return encode_put_memory(m);
}

// Writes writer's stream into dir's writers/<writer>/: n sound puts, and the payload bad (when
// not empty, of op type bad_type) as record bad_at (1-based). Returns the offset bad's record
// starts at.
uint64_t write_stream(const DataDir& dir, InstanceId writer, const VectorSpace& space, uint64_t n,
                      const std::string& bad = "", uint64_t bad_at = 0, uint16_t bad_type = kPutType) {
  fs::create_directories(dir.writer_dir(writer));
  auto w = LogWriter::open(posix_file_system(), dir.writer_dir(writer), writer, space, StreamTail{},
                           LogWriterOptions{}, 1000);
  REQUIRE(w.ok());
  uint64_t bad_offset = 0;
  for (uint64_t i = 1; i <= n; ++i) {
    const bool is_bad = !bad.empty() && i == bad_at;
    if (is_bad) bad_offset = w.value()->durable_segment_bytes();
    w.value()->stage(Hlc::make(1'700'000'000'000ull + i, 0), is_bad ? bad_type : kPutType, is_bad ? bad : sound_put(i));
    REQUIRE(w.value()->commit().ok());
  }
  return bad_offset;
}

struct VerifyFixture {
  TempDir tmp;
  std::string data = tmp.sub("data");
  Identity id;
  VerifyFixture() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    auto loaded = load_identity(DataDir{data});
    REQUIRE(loaded.ok());
    id = *loaded;
  }
  DataDir dir() const { return DataDir{data}; }
};

std::string utf8_broken_put() {
  return put_with([](schema::PutMemory::Builder p) {
    const char bad[] = "caf\xc3 au lait";
    p.setText(capnp::Text::Reader(bad, sizeof(bad) - 1));
  });
}

}  // namespace

TEST_CASE("verify passes a directory of sound records and reports a malformed op in the own stream with exit 1") {
  VerifyFixture f;
  write_stream(f.dir(), f.id.instance, f.id.vector_space, 5);
  auto healthy = run_vasana({"verify", f.data}, f.tmp.path());
  CAPTURE(healthy.out, healthy.err);
  CHECK(healthy.status.exited);
  CHECK(healthy.status.code == 0);
  CHECK(contains(healthy.out, "5 records"));
  CHECK(contains(healthy.out, "verify: ok"));

  VerifyFixture g;
  const uint64_t offset = write_stream(g.dir(), g.id.instance, g.id.vector_space, 5, utf8_broken_put(), 4);
  REQUIRE(offset > 0);
  auto damaged = run_vasana({"verify", g.data}, g.tmp.path());
  CAPTURE(damaged.out, damaged.err);
  CHECK(damaged.status.exited);
  CHECK(damaged.status.code == 1);
  CHECK(contains(damaged.out, "3 records"));
  CHECK(contains(damaged.out, "corrupt in segment 0"));
  CHECK(contains(damaged.out, "at offset " + std::to_string(offset) + ": put_memory: text is not valid UTF-8"));
  CHECK(contains(damaged.out, "verify: CORRUPTION FOUND"));
}

TEST_CASE("verify reports a malformed op in a copy of another writer's stream with exit 1") {
  VerifyFixture f;
  write_stream(f.dir(), f.id.instance, f.id.vector_space, 2);
  const InstanceId other(0x0123456789abcdefull);
  const std::string realm_struct = put_with([](schema::PutMemory::Builder p) {
    any_struct(p).getPointerSection()[0].initAs<schema::MemoryId>().setSeqno(3);
  });
  const uint64_t offset = write_stream(f.dir(), other, f.id.vector_space, 3, realm_struct, 2);
  auto r = run_vasana({"verify", f.data}, f.tmp.path());
  CAPTURE(r.out, r.err);
  CHECK(r.status.exited);
  CHECK(r.status.code == 1);
  CHECK(contains(r.out, "writer " + to_hex(other) + ": 1 records"));
  CHECK(contains(r.out, "at offset " + std::to_string(offset) + ": put_memory: malformed message"));
  CHECK(contains(r.out, "verify: CORRUPTION FOUND"));
}

TEST_CASE("verify reports a record of the retired access op type as corruption with exit 1") {
  VerifyFixture f;
  capnp::MallocMessageBuilder mb;
  auto a = mb.initRoot<schema::Op>().initAccess();
  a.initMemory().setSeqno(1);
  a.setKind(schema::AccessKind::REINFORCED);
  a.setWeight(1.0f);
  const uint64_t offset =
      write_stream(f.dir(), f.id.instance, f.id.vector_space, 4, message_bytes(mb), 3, static_cast<uint16_t>(OpType::access));
  auto r = run_vasana({"verify", f.data}, f.tmp.path());
  CAPTURE(r.out, r.err);
  CHECK(r.status.exited);
  CHECK(r.status.code == 1);
  CHECK(contains(r.out, "2 records"));
  CHECK(contains(r.out, "at offset " + std::to_string(offset) + ": op type 10 (access) is retired"));
  CHECK(contains(r.out, "verify: CORRUPTION FOUND"));
}

}  // namespace vasana::test
