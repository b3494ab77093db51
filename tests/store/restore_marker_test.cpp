// The RESTORED marker (store/restore_marker.hpp): written owner-only and read back, a file that
// cannot be parsed still counts as a marker, a second one is refused, removing it is idempotent,
// and a torn-tail mark never replaces a backup's.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "store/restore_marker.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {

TEST_CASE("a restore marker is written owner-only, read back, refused twice and removed") {
  TempDir tmp;
  const DataDir dir{tmp.path()};
  auto none = read_restore_marker(dir);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  RestoreMarker m;
  m.backup_ms = 1764646240000;  // 2025-12-02T03:30:40Z
  m.source = "/srv/vasana/data";
  m.own_last_seqno = Seqno(42);
  REQUIRE(write_restore_marker(dir, m).ok());
  struct stat st {};
  REQUIRE(::stat(restore_marker_path(dir).c_str(), &st) == 0);
  CHECK((st.st_mode & 0077) == 0);
  CHECK_FALSE(write_restore_marker(dir, m).ok());

  auto back = read_restore_marker(dir);
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  CHECK((*back)->backup_ms == m.backup_ms);
  CHECK((*back)->source == m.source);
  CHECK((*back)->own_last_seqno == Seqno(42));
  CHECK((*back)->describe() ==
        "restored from a backup of /srv/vasana/data taken at 2025-12-02T03:30:40Z (own writer up to seqno 42)");

  REQUIRE(remove_restore_marker(dir).ok());
  CHECK_FALSE(read_restore_marker(dir)->has_value());
  CHECK(remove_restore_marker(dir).ok());
}

TEST_CASE("a restore marker that cannot be parsed still marks the directory restored") {
  TempDir tmp;
  const DataDir dir{tmp.path()};
  write_file(restore_marker_path(dir), "\x01\x02 not key value\n");
  auto m = read_restore_marker(dir);
  REQUIRE(m.ok());
  REQUIRE(m->has_value());
  CHECK((*m)->describe() == "restored from a backup");
}

TEST_CASE("a torn-tail mark says why, is written owner-only, and leaves a backup's marker as it is") {
  TempDir tmp;
  const DataDir dir{tmp.path()};
  REQUIRE(mark_torn_tail(dir, Seqno(17), 1764646240000).ok());
  struct stat st {};
  REQUIRE(::stat(restore_marker_path(dir).c_str(), &st) == 0);
  CHECK((st.st_mode & 0077) == 0);
  auto m = read_restore_marker(dir);
  REQUIRE(m.ok());
  REQUIRE(m->has_value());
  CHECK((*m)->reason == RestoreMarker::kTornTail);
  CHECK((*m)->own_last_seqno == Seqno(17));
  CHECK((*m)->describe() == "a torn tail was cut from the own stream at 2025-12-02T03:30:40Z (own writer up to seqno 17)");
  // Marking again (a second cut before the repair ended) keeps the first mark.
  REQUIRE(mark_torn_tail(dir, Seqno(16), 1764646300000).ok());
  CHECK((*read_restore_marker(dir))->own_last_seqno == Seqno(17));

  REQUIRE(remove_restore_marker(dir).ok());
  RestoreMarker backup;
  backup.source = "/srv/vasana/data";
  backup.own_last_seqno = Seqno(9);
  REQUIRE(write_restore_marker(dir, backup).ok());
  REQUIRE(mark_torn_tail(dir, Seqno(8), 1764646240000).ok());
  auto kept = read_restore_marker(dir);
  REQUIRE(kept.ok());
  CHECK((*kept)->reason == RestoreMarker::kBackup);
  CHECK((*kept)->own_last_seqno == Seqno(9));
}

}  // namespace vasana::test
