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

}  // namespace vasana
