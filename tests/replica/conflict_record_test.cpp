// replica/conflict_record.hpp: which updates of a memory lost to an op whose writer had not seen
// them, as a function of the memory's lineage alone.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "replica/conflict_record.hpp"
#include "replica/replica_state.hpp"

namespace vasana {
namespace {

OrderKey k(uint64_t ms, uint64_t writer = 1, uint64_t seqno = 0) {
  return OrderKey{Hlc::make(ms, 0), InstanceId(writer), Seqno(seqno ? seqno : ms)};
}
LineageEntry update(const OrderKey& key, const OrderKey& based_on) { return LineageEntry{key, based_on, false}; }
LineageEntry forget(const OrderKey& key, const OrderKey& based_on) { return LineageEntry{key, based_on, true}; }

std::vector<LineageEntry> lineage(std::vector<LineageEntry> es) {
  std::vector<LineageEntry> out;
  for (const LineageEntry& e : es) record_lineage(out, e);
  return out;
}

}  // namespace

TEST_CASE("updates each based on the one before lose nothing, and of two based on one revision the earlier loses") {
  const OrderKey put = k(100);
  // Negative control: a chain of updates, each writer saw the last.
  CHECK(conflicts_of(lineage({update(k(110), put), update(k(120), k(110)), update(k(130), k(120))})).empty());
  // Two writers updated the put without seeing each other: the later-ordered wins, the other lost to it.
  const auto c = conflicts_of(lineage({update(k(110, 1), put), update(k(115, 2), put)}));
  REQUIRE(c.size() == 1);
  CHECK(c[0].lost == k(110, 1));
  CHECK(c[0].to == k(115, 2));
  CHECK_FALSE(c[0].to_forget);
}

TEST_CASE("an update built on a version that lost for a moment revives it: only the skipped one is on record") {
  const OrderKey put = k(100);
  // U (110) and X (120) both from the put; Y (130) saw U but not X: X lost to Y, U did not lose.
  const auto c = conflicts_of(lineage({update(k(110), put), update(k(120), put), update(k(130), k(110))}));
  REQUIRE(c.size() == 1);
  CHECK(c[0].lost == k(120));
  CHECK(c[0].to == k(130));
}

TEST_CASE("a forget that had not seen an update makes it lose to the forget, and one that saw everything does not") {
  const OrderKey put = k(100);
  const auto unseen = conflicts_of(lineage({update(k(110), put), forget(k(105, 2), put)}));
  REQUIRE(unseen.size() == 1);
  CHECK(unseen[0].lost == k(110));
  CHECK(unseen[0].to == k(105, 2));
  CHECK(unseen[0].to_forget);
  // An update ordered after the forget, by a writer that had not seen it: lost to the forget too.
  CHECK(conflicts_of(lineage({forget(k(105), put), update(k(110, 2), put)})).size() == 1);
  // Negative control: the forget was based on the update.
  CHECK(conflicts_of(lineage({update(k(110), put), forget(k(120, 2), k(110))})).empty());
}

TEST_CASE("ops whose revision is unknown judge nothing") {
  const OrderKey put = k(100);
  CHECK(conflicts_of(lineage({update(k(110), put), update(k(120), OrderKey{})})).empty());
  CHECK(conflicts_of(lineage({update(k(110), put), forget(k(120), OrderKey{})})).empty());
  // A known link below an unknown one is not reached.
  CHECK(conflicts_of(lineage({update(k(105), put), update(k(110), put), update(k(120), OrderKey{})})).empty());
}

TEST_CASE("the conflicts are the same whatever order the lineage's ops were recorded in") {
  std::mt19937_64 rng(7);
  const OrderKey put = k(100);
  std::vector<LineageEntry> ops = {update(k(110, 1), put),      update(k(111, 2), put),      update(k(120, 1), k(110, 1)),
                                   update(k(125, 3), k(111, 2)), forget(k(130, 2), k(120, 1)), update(k(140, 1), k(120, 1))};
  const auto expected = conflicts_of(lineage(ops));
  REQUIRE_FALSE(expected.empty());
  for (int i = 0; i < 50; ++i) {
    std::shuffle(ops.begin(), ops.end(), rng);
    const auto got = conflicts_of(lineage(ops));
    REQUIRE(got.size() == expected.size());
    for (size_t j = 0; j < got.size(); ++j) {
      CHECK(got[j].lost == expected[j].lost);
      CHECK(got[j].to == expected[j].to);
      CHECK(got[j].to_forget == expected[j].to_forget);
    }
  }
}

TEST_CASE("an update that extends the line changes no conflict, and one that does not extend it is not taken for one") {
  const OrderKey put = k(100);
  std::vector<LineageEntry> l = lineage({update(k(110, 1), put), update(k(111, 2), put)});  // 110 lost to 111
  const LineageEntry next = update(k(120), k(111, 2));
  CHECK(extends_line(l, next));
  const size_t before = conflicts_of(l).size();
  record_lineage(l, next);
  CHECK(conflicts_of(l).size() == before);
  // Negative controls: based on an older revision, on a forget, or ordered before the last op.
  CHECK_FALSE(extends_line(l, update(k(130), k(111, 2))));
  CHECK_FALSE(extends_line(lineage({update(k(110), put), forget(k(115), k(110))}), update(k(120), k(115))));
  CHECK_FALSE(extends_line(l, update(k(115, 3), k(120))));
}

TEST_CASE("a memory updated 20,000 times one after the other records no conflict, and a stale update one") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  p.text = "a counter";
  REQUIRE(s.apply(k(100, 1, 1), p).ok());
  OrderKey last = k(100, 1, 1);
  UpdateContentOp u;
  u.memory = last.op_id();
  for (uint64_t i = 2; i <= 20001; ++i) {
    u.text = "a counter at " + std::to_string(i);
    u.based_on = as_revision(last);
    last = k(100 + i, 1, i);
    REQUIRE(s.apply(last, u).ok());
  }
  CHECK(s.conflict_count() == 0);
  // A second writer's update based on the put: it orders after them all and skips every one.
  u.based_on = as_revision(k(100, 1, 1));
  u.text = "a counter from another node";
  REQUIRE(s.apply(k(30000, 2, 1), u).ok());
  CHECK(s.conflict_count() == 20000);
}

TEST_CASE("a replica records a lost update in the memory's conflicts and its count, and a later revival clears it") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the deploy window is friday";
  const OrderKey put = k(100, 1, 1);
  REQUIRE(s.apply(put, p).ok());
  const MemoryId m = put.op_id();
  UpdateContentOp a;
  a.memory = m;
  a.text = "the deploy window is monday";
  a.based_on = as_revision(put);
  UpdateContentOp b = a;
  b.text = "the deploy window is tuesday";
  REQUIRE(s.apply(k(110, 1, 2), a).ok());
  CHECK(s.conflict_count() == 0);  // one update: nothing lost
  REQUIRE(s.apply(k(120, 2, 1), b).ok());
  CHECK(s.conflict_count() == 1);
  const auto c = s.conflicts(m);
  REQUIRE(c.size() == 1);
  CHECK(c[0].lost == k(110, 1, 2));
  CHECK(s.memory(m)->content.value.text == "the deploy window is tuesday");
  // A third update built on the first: the second is the one that lost now.
  UpdateContentOp again = a;
  again.text = "the deploy window is monday, confirmed";
  again.based_on = as_revision(k(110, 1, 2));
  REQUIRE(s.apply(k(130, 1, 3), again).ok());
  REQUIRE(s.conflicts(m).size() == 1);
  CHECK(s.conflicts(m)[0].lost == k(120, 2, 1));
  CHECK(s.conflict_count() == 1);
}

}  // namespace vasana
