#include <catch2/catch.hpp>

#include "replica/admission.hpp"
#include "replica/replica_state.hpp"

namespace vasana {
namespace {

struct Fixture {
  ReplicaState state;
  uint64_t seq = 0;
  OrderKey next(uint64_t ms) { return OrderKey{Hlc::make(ms, 0), InstanceId(1), Seqno(++seq)}; }
  MemoryId put(const std::string& realm, int64_t from = kOpenPast, int64_t to = kOpenFuture,
               MemoryStatus status = MemoryStatus::active) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = "t";
    p.valid_from_ms = from;
    p.valid_to_ms = to;
    p.status = status;
    OrderKey k = next(100 + seq);
    REQUIRE(state.apply(k, p).ok());
    return k.op_id();
  }
  void apply(const OpValue& op) { REQUIRE(state.apply(next(1000 + seq), op).ok()); }
  const MemoryRecord& m(const MemoryId& id) { return *state.memory(id); }
};

const QueryScope kWork{{"work"}, 5000, false};

}  // namespace

TEST_CASE("an active memory of a named realm is admitted, another realm's is not") {
  Fixture f;
  auto work = f.put("work"), home = f.put("home");
  auto a = admit(f.m(work), kWork);
  REQUIRE(a);
  CHECK(a->status_weight == 1.0);
  CHECK(!admit(f.m(home), kWork));
  CHECK(admit(f.m(home), QueryScope{{"work", "home"}, 5000, false}));  // named explicitly: yes
  CHECK(!admit(f.m(work), QueryScope{{}, 5000, false}));                // no realm named: nothing
}

TEST_CASE("superseded, contradicted, archived and deleted memories get no admission at all") {
  Fixture f;
  auto keep = f.put("work");
  auto sup = f.put("work"), con = f.put("work"), arc = f.put("work"), del = f.put("work");
  f.apply(SetStatusOp{sup, MemoryStatus::superseded, "newer", keep});
  f.apply(SetStatusOp{con, MemoryStatus::contradicted, "", {}});
  f.apply(SetStatusOp{arc, MemoryStatus::archived, "", {}});
  f.apply(DeleteMemoryOp{del, ""});
  CHECK(admit(f.m(keep), kWork));
  for (auto id : {sup, con, arc, del}) CHECK(!admit(f.m(id), kWork));
}

TEST_CASE("valid time is a window at the query's as_of") {
  Fixture f;
  auto always = f.put("work");
  auto past = f.put("work", 1000, 2000);
  auto future = f.put("work", 9000, kOpenFuture);
  CHECK(admit(f.m(always), kWork));
  CHECK(!admit(f.m(past), kWork));
  CHECK(admit(f.m(past), QueryScope{{"work"}, 1500, false}));
  CHECK(!admit(f.m(past), QueryScope{{"work"}, 2000, false}));  // valid_to is exclusive
  CHECK(!admit(f.m(future), kWork));
  CHECK(admit(f.m(future), QueryScope{{"work"}, 9000, false}));
}

TEST_CASE("a query that admits future memories shows one valid later, marked, and still hides an ended one") {
  Fixture f;
  auto always = f.put("work");
  auto past = f.put("work", 1000, 2000);
  auto future = f.put("work", 9000, kOpenFuture);
  auto future_window = f.put("work", 9000, 12000);
  QueryScope now = kWork;
  now.admit_future = true;
  auto a = admit(f.m(future), now);
  REQUIRE(a);
  CHECK(a->future);
  REQUIRE(admit(f.m(future_window), now));
  CHECK(admit(f.m(future_window), now)->future);
  // Positive control: a memory valid now is admitted and not marked.
  REQUIRE(admit(f.m(always), now));
  CHECK(!admit(f.m(always), now)->future);
  // Negative: an ended memory stays hidden, and a scope that does not admit future memories
  // (an explicit as_of) keeps the old rule.
  CHECK(!admit(f.m(past), now));
  CHECK(!admit(f.m(future), kWork));
  CHECK(valid_time_admits(now, 9000, kOpenFuture));
  CHECK(!valid_time_admits(kWork, 9000, kOpenFuture));
  CHECK(!valid_time_admits(now, 1000, 2000));
}

TEST_CASE("a proposed memory stays out until approved, and a rejected one stays out for good") {
  Fixture f;
  auto approved = f.put("work", kOpenPast, kOpenFuture, MemoryStatus::proposed);
  auto waiting = f.put("work", kOpenPast, kOpenFuture, MemoryStatus::proposed);
  auto rejected = f.put("work");
  f.apply(ReviewDecisionOp{approved, ReviewVerdict::approve, "ana", ""});
  f.apply(ReviewDecisionOp{rejected, ReviewVerdict::reject, "ana", ""});
  CHECK(admit(f.m(approved), kWork));
  CHECK(!admit(f.m(waiting), kWork));
  auto staged = admit(f.m(waiting), QueryScope{{"work"}, 5000, true});
  REQUIRE(staged);
  CHECK(staged->staged);
  CHECK(staged->status_weight < 1.0);
  CHECK(!admit(f.m(rejected), QueryScope{{"work"}, 5000, true}));
}

TEST_CASE("epistemic status only weights, within a bounded positive range") {
  for (auto e : {Epistemic::user_stated, Epistemic::tool_derived, Epistemic::model_inferred,
                 Epistemic::autonomous_synthesis}) {
    CHECK(epistemic_weight(e) >= 0.5);
    CHECK(epistemic_weight(e) <= 1.0);
  }
  CHECK(epistemic_weight(Epistemic::user_stated) > epistemic_weight(Epistemic::autonomous_synthesis));
}

}  // namespace vasana
