// WriterMirror (sync/writer_mirror.hpp): what is written and what is durable. Appends to an open
// segment are handed on to be applied at once and made durable later, through sync_point() and
// synced() (MirrorSet's syncer); a segment's first bytes and its seal are synced inside accept().
#include <catch2/catch.hpp>

#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("writer mirror: appends to an open segment are durable only after sync_point() is synced, and a segment's "
          "first bytes and its seal are synced at once",
          "[sync][mirror]") {
  Origin origin(1, 1u << 20);  // one open segment, one record
  MirrorNode node;
  auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
  CHECK_FALSE(m->sync_point().has_value());  // nothing written yet

  // The segment's first chunk (header and record 1) is synced inside accept().
  auto first = m->accept(origin.serve(m->next_fetch(1u << 20)));
  REQUIRE(first.ok());
  REQUIRE(first->records.size() == 1);
  CHECK(same_head(m->durable_head(), m->head()));
  CHECK_FALSE(m->sync_point().has_value());

  // Records 2 and 3 further into the open segment: written and handed on, not yet durable.
  origin.append(/*seal=*/false);
  origin.append(/*seal=*/false);
  auto more = m->accept(origin.serve(m->next_fetch(1u << 20)));
  REQUIRE(more.ok());
  CHECK(more->records.size() == 2);
  CHECK(m->head().last_seqno == Seqno(3));
  CHECK(m->durable_head().last_seqno == Seqno(1));
  auto point = m->sync_point();
  REQUIRE(point.has_value());
  REQUIRE(point->file != nullptr);
  CHECK(same_head(point->head, m->head()));
  REQUIRE(point->file->sync().ok());
  m->synced(*point);
  CHECK(same_head(m->durable_head(), m->head()));
  CHECK_FALSE(m->sync_point().has_value());
  // A late report of an older sync never moves the durable head back.
  WriterMirror::SyncPoint older = *point;
  older.head.last_seqno = Seqno(1);
  older.head.segment_bytes -= 1;
  m->synced(older);
  CHECK(same_head(m->durable_head(), m->head()));

  // Sealing: the trailer is synced inside accept(), so the next segment never starts on an
  // unsynced predecessor.
  origin.append(/*seal=*/false);
  REQUIRE(origin.writer->maybe_seal(1000 + 3600 * 1000).ok());
  size_t records = 0;
  for (int round = 0; round < 4 && m->behind(origin.head()); ++round) {
    auto sealed = m->accept(origin.serve(m->next_fetch(1u << 20)));
    REQUIRE(sealed.ok());
    records += sealed->records.size();
  }
  CHECK(records == 1);
  CHECK_FALSE(m->behind(origin.head()));
  CHECK(m->next_fetch(1).segment == SegmentIndex(1));  // sealed: the next one comes next
  CHECK(same_head(m->durable_head(), m->head()));
  CHECK_FALSE(m->sync_point().has_value());
}
