// A copy of another writer that could not be written (a full disk, a file in the way) is not
// given up: it is rewound to what is durable and fetched into again, and every record reaches
// the apply function once.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "sync/mirror_set.hpp"
#include "sync/stream_heads.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("writer mirror: rewind cuts what is not durable, and the copy is fetched again to the origin's bytes",
          "[sync][mirror][retry]") {
  Origin origin(1, 1u << 20);  // one open segment, one record
  MirrorNode node;
  auto m = open_empty_mirror(node.dir(), origin.instance(), origin.space());
  REQUIRE(m->accept(origin.serve(m->next_fetch(1u << 20))).ok());  // header and record 1: synced
  const StreamHead durable = m->durable_head();
  origin.append(false);
  origin.append(false);
  auto more = m->accept(origin.serve(m->next_fetch(1u << 20)));
  REQUIRE(more.ok());
  CHECK(more->records.size() == 2);
  auto stale_point = m->sync_point();
  REQUIRE(stale_point.has_value());
  // Half of a further chunk reached the file before the disk filled up.
  const std::string path = segment_path(node.wdir(origin.instance()), 0);
  { std::ofstream(path, std::ios::app | std::ios::binary) << "half a record"; }

  REQUIRE(m->rewind().ok());
  CHECK(same_head(m->head(), durable));
  CHECK(std::filesystem::file_size(path) == durable.segment_bytes);
  CHECK(m->next_fetch(1u << 20).offset == durable.segment_bytes);
  // A sync of the bytes the rewind cut, reported late, does not count.
  m->synced(*stale_point);
  CHECK(same_head(m->durable_head(), durable));

  // Fetched again: records 2 and 3 come once more, and the copy ends byte for byte the origin's.
  DriveResult again = drive(*m, origin, 1u << 20);
  REQUIRE(again.caught_up);
  CHECK(again.records.size() == 2);
  check_byte_identical(origin, node.wdir(origin.instance()));
}

TEST_CASE("mirror set: a copy that cannot be written is shown, counted and fetched again once it can be",
          "[sync][mirror][retry]") {
  Origin origin(6, 500);  // segment 0 sealed, and more after it
  REQUIRE(origin.segments() >= 2);
  MirrorNode node;
  StreamHeads heads;
  std::set<uint64_t> applied;
  size_t applied_twice = 0;
  std::vector<std::string> log;
  MirrorSet set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
                [&](InstanceId, const std::vector<MirroredRecord>& records) {
                  for (const MirroredRecord& r : records) applied_twice += !applied.insert(r.seqno.value).second;
                },
                [&](const std::string& line) { log.push_back(line); });
  const uint64_t s1 = 1;

  // Segment 1 cannot be created here: something is in its place.
  const std::string blocker = segment_path(node.wdir(origin.instance()), 1);
  std::filesystem::create_directories(blocker);
  bool failed = false;
  for (int round = 0; round < 100 && !failed; ++round) {
    auto fetches = set.claim(s1, {origin.head()}, 1u << 20);
    REQUIRE(fetches.size() == 1);
    auto d = set.deliver(s1, origin.serve(fetches.front()));
    failed = !d.ok();
    if (failed) CHECK(d.status().code() == Code::io_error);
  }
  REQUIRE(failed);
  CHECK(set.copy_failures() == 1);
  auto problems = set.problems();
  REQUIRE(problems.size() == 1);
  CHECK_FALSE(problems[0].failed.empty());
  CHECK(set.claim(s1, {origin.head()}, 1u << 20).empty());  // not fetched into meanwhile
  size_t lines = log.size();
  CHECK(lines >= 1);

  // The retry comes after its interval, while the cause is still there: still failed, no new line.
  std::this_thread::sleep_for(std::chrono::milliseconds(5100));
  auto fetches = set.claim(s1, {origin.head()}, 1u << 20);
  if (!fetches.empty()) {
    auto d = set.deliver(s1, origin.serve(fetches.front()));
    CHECK_FALSE(d.ok());
  }
  CHECK_FALSE(set.problems().empty());
  CHECK(log.size() == lines);  // the failure was told once

  // The cause is gone: after the next interval the copy is fetched into and catches up.
  std::filesystem::remove(blocker);
  std::this_thread::sleep_for(std::chrono::milliseconds(5100));
  for (int round = 0; round < 100; ++round) {
    auto f = set.claim(s1, {origin.head()}, 1u << 20);
    if (f.empty()) break;
    auto d = set.deliver(s1, origin.serve(f.front()));
    REQUIRE(d.ok());
  }
  set.flush();
  CHECK(set.problems().empty());
  CHECK(log.size() == lines + 1);  // and so is the recovery
  CHECK(log.back().find("written again") != std::string::npos);
  CHECK(applied.size() == origin.written.size());
  CHECK(applied_twice == 0);
  auto head = heads.get(origin.instance());
  REQUIRE(head.has_value());
  CHECK(head->last_seqno == origin.head().last_seqno);
  check_byte_identical(origin, node.wdir(origin.instance()));
}
