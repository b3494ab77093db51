// Review decisions are final until reopened (replica/review_outcome.hpp): the first approve or
// reject in merge order decides, whatever order the ops arrive in, a later decision is ignored,
// and a reopen makes the memory undecided so that the next decision counts. Transaction-time
// reads (known_at) see the decision that held then.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica/admission.hpp"
#include "replica/memory_as_of.hpp"
#include "replica/replica_state.hpp"
#include "replica/review_outcome.hpp"
#include "tests/replica/order_keys.hpp"

namespace vasana {
namespace {

PutMemoryOp proposed(const std::string& text) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  p.status = MemoryStatus::proposed;
  return p;
}

ReviewDecisionOp decide(const MemoryId& id, ReviewVerdict d) { return ReviewDecisionOp{id, d, "ana", ""}; }

}  // namespace

TEST_CASE("the first review decision holds, in every arrival order, until a reopen") {
  const OrderKey p = key_at(1000, 1, 1);
  const MemoryId id = p.op_id();
  // reject (2000) then a concurrent approve ordered later (2100): the reject holds; a reopen
  // (3000) clears it and the approve after it (3100) decides; the reject at 3200 is ignored.
  // Each op comes from its own writer, so that any arrival order keeps every stream gapless.
  std::vector<std::pair<OrderKey, ReviewVerdict>> ops = {
      {key_at(2000, 2, 1), ReviewVerdict::reject},  {key_at(2100, 3, 1), ReviewVerdict::approve},
      {key_at(3000, 4, 1), ReviewVerdict::reopen},  {key_at(3100, 5, 1), ReviewVerdict::approve},
      {key_at(3200, 6, 1), ReviewVerdict::reject},
  };
  std::sort(ops.begin(), ops.end());
  std::string digest;
  size_t orders = 0;
  do {
    ReplicaState s;
    REQUIRE(s.apply(p, proposed("koalas are bears")).ok());
    for (const auto& [k, d] : ops) REQUIRE(s.apply(k, decide(id, d)).ok());
    const MemoryRecord& m = *s.memory(id);
    CHECK(m.verdicts->review.value == ReviewVerdict::approve);
    CHECK(m.verdicts->review.version == key_at(3100, 5, 1));
    // The two decisions that did not hold are on the conflict record, each with the one it lost to.
    const std::vector<ConflictEntry> lost = s.conflicts(id);
    REQUIRE(lost.size() == 2);
    CHECK((lost[0].review && lost[0].lost == key_at(2100, 3, 1) && lost[0].to == key_at(2000, 2, 1)));
    CHECK((lost[1].review && lost[1].lost == key_at(3200, 6, 1) && lost[1].to == key_at(3100, 5, 1)));
    CHECK(s.conflict_count() == 2);
    if (digest.empty()) digest = to_hex(s.digest());
    CHECK(to_hex(s.digest()) == digest);

    // As the store held it: undecided before 2000, rejected from 2000 (the approve at 2100
    // changes nothing), undecided after the reopen, approved from 3100.
    CHECK_FALSE(memory_as_of(m, 1500).review.has_value());
    CHECK(memory_as_of(m, 2000).review == ReviewVerdict::reject);
    CHECK(memory_as_of(m, 2500).review == ReviewVerdict::reject);
    CHECK_FALSE(memory_as_of(m, 3050).review.has_value());
    CHECK(memory_as_of(m, 3150).review == ReviewVerdict::approve);
    CHECK(memory_as_of(m, 4000).review == ReviewVerdict::approve);
    QueryScope then{{"work"}, 50'000, false};
    then.known_at_ms = 2500;
    CHECK_FALSE(admit(m, then));  // rejected then
    then.known_at_ms = 4000;
    CHECK(admit(m, then));
    ++orders;
  } while (std::next_permutation(ops.begin(), ops.end()));
  CHECK(orders == 120);
}

TEST_CASE("a rejected memory stays rejected through a later approve, and an undecided one has nothing to reopen") {
  RegisterWrites<std::optional<ReviewVerdict>> writes;
  CHECK_FALSE(review_outcome(writes).decision);
  record_write(writes, key_at(2000, 1, 1), std::optional<ReviewVerdict>(ReviewVerdict::reject));
  record_write(writes, key_at(2500, 1, 2), std::optional<ReviewVerdict>(ReviewVerdict::approve));
  CHECK(review_outcome(writes).decision == ReviewVerdict::reject);
  CHECK(review_outcome(writes).key == key_at(2000, 1, 1));
  // Positive control: the approve decides once a reopen ordered before it cleared the reject.
  record_write(writes, key_at(2200, 2, 1), std::optional<ReviewVerdict>(ReviewVerdict::reopen));
  CHECK(review_outcome(writes).decision == ReviewVerdict::approve);
  CHECK(review_outcome(writes, 2300).decision == std::nullopt);
  CHECK(review_outcome(writes, 2300).key == key_at(2200, 2, 1));
}

TEST_CASE("a review decision is on the conflict record only when it lost to an opposite decision") {
  RegisterWrites<std::optional<ReviewVerdict>> writes;
  auto write = [&](const OrderKey& k, ReviewVerdict d) { record_write(writes, k, std::optional<ReviewVerdict>(d)); };
  write(key_at(2000, 1, 1), ReviewVerdict::approve);
  write(key_at(2100, 2, 1), ReviewVerdict::approve);  // the same decision: nothing lost
  CHECK(review_conflicts(writes).empty());
  write(key_at(2200, 3, 1), ReviewVerdict::reject);  // the opposite one, made unseen: lost
  auto lost = review_conflicts(writes);
  REQUIRE(lost.size() == 1);
  CHECK(lost[0].lost == key_at(2200, 3, 1));
  CHECK(lost[0].to == key_at(2000, 1, 1));
  CHECK(lost[0].review);
  CHECK_FALSE(lost[0].to_forget);
  // A decision after a reopen decides: not lost.
  write(key_at(3000, 1, 2), ReviewVerdict::reopen);
  write(key_at(3100, 1, 3), ReviewVerdict::reject);
  CHECK(review_conflicts(writes).size() == 1);
}

TEST_CASE("erasing a memory takes its lost review decisions off the conflict count") {
  const OrderKey p = key_at(1000, 1, 1);
  const MemoryId id = p.op_id();
  ReplicaState s;
  REQUIRE(s.apply(p, proposed("koalas are bears")).ok());
  REQUIRE(s.apply(key_at(2000, 2, 1), decide(id, ReviewVerdict::reject)).ok());
  REQUIRE(s.apply(key_at(2100, 3, 1), decide(id, ReviewVerdict::approve)).ok());
  REQUIRE(s.conflict_count() == 1);
  size_t listed = 0;
  s.for_each_conflict([&](const MemoryRecord& m, const ConflictEntry& c) { listed += m.id == id && c.review; });
  CHECK(listed == 1);
  EraseMemoryOp e;
  e.memory = id;
  e.realm = "work";
  e.created_ts = p.ts;
  e.by = "ana";
  REQUIRE(s.apply(key_at(3000, 4, 1), e).ok());
  CHECK(s.conflict_count() == 0);
  CHECK(s.conflicts(id).empty());
}

}  // namespace vasana
