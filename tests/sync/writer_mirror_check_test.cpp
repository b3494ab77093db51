// WriterMirror's two-step accept (sync/writer_mirror.hpp): check() verifies a chunk against a
// copy of where the mirror stands, outside its owner's lock, and store() writes it unless the
// mirror moved meanwhile. Real segments from an origin node, as in writer_mirror_test.cpp.
#include <catch2/catch.hpp>

#include <string>

#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("writer mirror: check() verifies without touching the copy, store() writes it once, and a "
          "chunk checked before the copy moved is stale",
          "[sync][mirror]") {
  Origin origin(12, 500);
  const StreamHead before = origin.head();
  for (int i = 0; i < 3; ++i) origin.append(/*seal=*/false);
  auto p = mirror_up_to(origin, before);
  const std::string wdir = p->node.wdir(origin.instance());
  WriterMirror& m = *p->mirror;
  const PeerChunk good = origin.serve(m.next_fetch(1u << 20));
  const auto expect = m.expectation();
  const auto sizes = file_sizes(wdir);
  const StreamHead head = m.head();

  // Two checks of the same chunk (two sessions with the same bytes): the copy is untouched.
  auto first = WriterMirror::check(expect, good, /*mid_write=*/false);
  auto second = WriterMirror::check(expect, good, /*mid_write=*/false);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(file_sizes(wdir) == sizes);
  CHECK(same_head(m.head(), head));
  REQUIRE(first->records.size() == 3);

  // The first store writes and hands the records on; the second finds the copy moved: stale.
  auto stored = m.store(good, std::move(first.value()));
  REQUIRE(stored.ok());
  CHECK_FALSE(stored->stale);
  CHECK(stored->bytes == good.bytes.size());
  check_records_exactly_once(stored->records, slice(origin.written, origin.written.size() - 3, origin.written.size()));
  check_byte_identical(origin, wdir);
  const auto after = file_sizes(wdir);
  auto late = m.store(good, std::move(second.value()));
  REQUIRE(late.ok());
  CHECK(late->stale);
  CHECK(late->records.empty());
  CHECK(late->bytes == 0);
  CHECK(file_sizes(wdir) == after);
  check_byte_identical(origin, wdir);

  // Damaged bytes fail in check(), before anything could be stored.
  origin.append(/*seal=*/false);
  PeerChunk bad = origin.serve(m.next_fetch(1u << 20));
  REQUIRE(bad.bytes.size() > 20);
  bad.bytes[bad.bytes.size() - 5] ^= 0x40;
  auto refused = WriterMirror::check(m.expectation(), bad, /*mid_write=*/false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::corruption);
  CHECK(file_sizes(wdir) == after);
}
