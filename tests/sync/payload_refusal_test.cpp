// Bytes from a peer or a shared directory's sibling whose records have a sound frame (CRC, seqno,
// chain hash) but a payload that is not an op this build can apply (tests/support/crafted_ops.hpp)
// are refused at the door, as damaged bytes are: WriterMirror::check() fails, MirrorSet stores and
// applies nothing of the chunk and reports the refusal, so they are never kept, relayed or
// applied.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sync/mirror_set.hpp"
#include "sync/stream_heads.hpp"
#include "tests/support/crafted_ops.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// The put_memory ones: Origin writes every record as put_memory.
std::vector<CraftedOp> malformed_puts() {
  std::vector<CraftedOp> out;
  for (auto& c : malformed_ops())
    if (c.op_type == kPut) out.push_back(c);
  REQUIRE(out.size() >= 10);
  return out;
}

}  // namespace

TEST_CASE("writer mirror: check() refuses a chunk holding a malformed op from a peer and from a shared directory",
          "[sync][mirror]") {
  for (const CraftedOp& bad : malformed_puts()) {
    INFO(bad.name);
    Origin origin(6, 500);
    const StreamHead before = origin.head();
    origin.append(/*seal=*/false);
    const Written w = origin.append(/*seal=*/false, bad.payload);
    origin.append(/*seal=*/false);
    auto p = mirror_up_to(origin, before);
    WriterMirror& m = *p->mirror;
    const PeerChunk chunk = origin.serve(m.next_fetch(1u << 20));
    REQUIRE(chunk.bytes.find(bad.payload) != std::string::npos);  // the record is in the chunk
    const auto sizes = file_sizes(p->node.wdir(origin.instance()));
    const StreamHead head = m.head();

    for (bool mid_write : {false, true}) {
      INFO("mid_write " << mid_write);
      auto checked = WriterMirror::check(m.expectation(), chunk, mid_write);
      REQUIRE_FALSE(checked.ok());
      CHECK(checked.status().code() == bad.refused_as);
      CHECK_THAT(checked.status().message(), Catch::Contains("writer " + to_hex(origin.instance())) &&
                                                 Catch::Contains("put_memory"));
      auto accepted = m.accept(chunk, mid_write);
      REQUIRE_FALSE(accepted.ok());
      CHECK(accepted.status().code() == bad.refused_as);
    }
    CHECK(file_sizes(p->node.wdir(origin.instance())) == sizes);  // nothing stored
    CHECK(same_head(m.head(), head));

    // Positive control: the same chunk cut before the malformed record is taken.
    PeerChunk good = chunk;
    good.bytes.resize(good.bytes.find(bad.payload) - record_size(0));
    auto taken = m.accept(good);
    REQUIRE(taken.ok());
    REQUIRE(taken->records.size() == 1);
    CHECK(taken->records[0].seqno == Seqno(w.seqno.value - 1));
  }
}

TEST_CASE("mirror set: a chunk holding a malformed op is refused, and nothing of it is stored or applied",
          "[sync][mirror_set]") {
  Origin origin(3, 1u << 20);  // one open segment
  origin.append(/*seal=*/false, malformed_puts().front().payload);
  origin.append(/*seal=*/false);

  MirrorNode node;
  StreamHeads heads;
  size_t applied = 0;
  MirrorSet set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
                [&](InstanceId, const std::vector<MirroredRecord>& r) { applied += r.size(); });
  auto fetches = set.claim(1, {origin.head()}, 1u << 20);
  REQUIRE(fetches.size() == 1);
  auto d = set.deliver(1, origin.serve(fetches.front()));
  REQUIRE(d.ok());
  CHECK(d->refused);
  CHECK_THAT(d->problem, Catch::Contains("corrupt") || Catch::Contains("put_memory"));
  CHECK(d->records == 0);
  CHECK(applied == 0);
  CHECK_FALSE(std::filesystem::exists(node.wdir(origin.instance())));

  // Positive control: the same writer's first three records, sound, are taken from another
  // session once the refusing one is passed over.
  const PeerChunk full = origin.serve(PeerFetch{origin.instance(), SegmentIndex(0), 0, 1u << 20});
  PeerChunk sound = full;
  sound.bytes.resize(full.bytes.find(malformed_puts().front().payload) - record_size(0));
  auto d2 = set.deliver(2, sound);
  REQUIRE(d2.ok());
  CHECK_FALSE(d2->refused);
  set.flush();
  CHECK(applied == 3);
}
