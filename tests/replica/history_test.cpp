// A memory's past: the register history that known_at admission reads (replica/memory_as_of.hpp)
// and the keys of every op that touched it (ReplicaState::history_keys).
#include <catch2/catch.hpp>

#include "replica/admission.hpp"
#include "replica/memory_as_of.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/order_keys.hpp"

namespace vasana {
namespace {

PutMemoryOp put(const std::string& text, MemoryStatus status = MemoryStatus::active) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  p.status = status;
  return p;
}

QueryScope at(std::optional<int64_t> known_at, bool staged = false) {
  QueryScope s{{"work"}, 50'000, staged};
  s.known_at_ms = known_at;
  return s;
}

}  // namespace

TEST_CASE("known_at admits a memory as the store held it then") {
  ReplicaState s;
  const OrderKey sup = key_at(1000, 1, 1), del = key_at(1001, 1, 2), prop = key_at(1002, 1, 3), late = key_at(5000, 2, 1);
  REQUIRE(s.apply(sup, put("old fact")).ok());
  REQUIRE(s.apply(del, put("deleted later")).ok());
  REQUIRE(s.apply(prop, put("proposed", MemoryStatus::proposed)).ok());
  REQUIRE(s.apply(key_at(3000, 1, 4), SetStatusOp{sup.op_id(), MemoryStatus::superseded, "newer", {}}).ok());
  REQUIRE(s.apply(key_at(3000, 1, 5), DeleteMemoryOp{del.op_id(), "gone"}).ok());
  REQUIRE(s.apply(key_at(3000, 1, 6), ReviewDecisionOp{prop.op_id(), ReviewVerdict::approve, "ana", ""}).ok());
  REQUIRE(s.apply(late, put("created later")).ok());

  const auto m = [&](const OrderKey& k) { return *s.memory(k.op_id()); };
  SECTION("superseded today, found before the supersede") {
    CHECK(!admit(m(sup), at(std::nullopt)));
    CHECK(admit(m(sup), at(2000)));
    CHECK(!admit(m(sup), at(3000)));  // the op's own millisecond counts as known
  }
  SECTION("deleted after T, found at T") {
    CHECK(!admit(m(del), at(std::nullopt)));
    CHECK(admit(m(del), at(2999)));
  }
  SECTION("created after T, not found at T") {
    CHECK(admit(m(late), at(std::nullopt)));
    CHECK(admit(m(late), at(5000)));
    CHECK(!admit(m(late), at(4999)));
  }
  SECTION("a proposed memory approved after T is staged at T") {
    auto now = admit(m(prop), at(std::nullopt));
    REQUIRE(now);
    CHECK(!now->staged);
    CHECK(!admit(m(prop), at(2000)));  // staged: only for a query that asks for staged ones
    auto then = admit(m(prop), at(2000, true));
    REQUIRE(then);
    CHECK(then->staged);
  }
}

TEST_CASE("known_at sees the text and valid time of its time, whatever order the ops arrived in") {
  const OrderKey p = key_at(1000, 1, 1), u = key_at(3000, 2, 1);
  UpdateContentOp upd{p.op_id(), "new text", false, {}};
  upd.has_valid_time = true;
  upd.valid_from_ms = 40'000;
  upd.valid_to_ms = 45'000;
  for (bool update_first : {false, true}) {
    CAPTURE(update_first);
    ReplicaState s;
    if (update_first) REQUIRE(s.apply(u, upd).ok());
    REQUIRE(s.apply(p, put("old text")).ok());
    if (!update_first) REQUIRE(s.apply(u, upd).ok());
    const MemoryRecord& m = *s.memory(p.op_id());
    CHECK(*memory_as_of(m).text == "new text");
    CHECK(!memory_as_of(m, 2000).text);  // not the current text: the archive's
    CHECK(s.text_at(m, memory_as_of(m, 2000).text_version) == "old text");
    CHECK(*memory_as_of(m, 3000).text == "new text");
    CHECK(s.text_at(m, memory_as_of(m, 3000).text_version) == "new text");
    CHECK(!admit(m, at(std::nullopt)));  // as_of 50 s is past the new valid time
    CHECK(admit(m, at(2000)));           // then it held for ever
  }
}

TEST_CASE("the earlier texts of a memory are in the value archive until the memory is erased") {
  auto archive = std::make_shared<InMemoryValueArchive>();
  ReplicaState s;
  s.set_value_archive(archive);
  const OrderKey p = key_at(1000, 1, 1), u = key_at(3000, 1, 2), other = key_at(1500, 2, 1);
  REQUIRE(s.apply(p, put("old text")).ok());
  REQUIRE(s.apply(other, put("untouched")).ok());
  CHECK(archive->size() == 0);  // a memory only its put touched keeps nothing there
  REQUIRE(s.apply(u, UpdateContentOp{p.op_id(), "new text", false, {}}).ok());
  // The put's text and the update's, each under its op's key; the record holds their hashes.
  CHECK(archive->size() == 2);
  CHECK(archive->find_text(p.op_id(), p, text_hash("old text")) == std::string("old text"));
  CHECK(!archive->find_text(p.op_id(), p, text_hash("new text")));  // a text is found by its own hash
  const MemoryRecord& m = *s.memory(p.op_id());
  CHECK(m.verdicts->history->content.size() == 2);
  CHECK(s.text_at(m, p) == std::string("old text"));
  CHECK(s.text_at(m, u) == std::string("new text"));
  CHECK(!s.text_at(m, other));  // no write of this memory's content
  REQUIRE(s.apply(key_at(4000, 1, 3), EraseMemoryOp{p.op_id(), "work", p.ts, "admin", "asked"}).ok());
  CHECK(archive->size() == 0);
  CHECK(!archive->find_text(p.op_id(), p, text_hash("old text")));
}

TEST_CASE("a memory only its put touched keeps no history") {
  ReplicaState s;
  REQUIRE(s.apply(key_at(1000, 1, 1), put("plain")).ok());
  REQUIRE(s.apply(key_at(1001, 1, 2), put("changed")).ok());
  REQUIRE(s.apply(key_at(1002, 1, 3), SetStatusOp{MemoryId{InstanceId(1), Seqno(2)}, MemoryStatus::verified, "", {}}).ok());
  CHECK(!s.memory(MemoryId{InstanceId(1), Seqno(1)})->verdicts.allocated());
  CHECK(s.memory(MemoryId{InstanceId(1), Seqno(2)})->verdicts->history.allocated());
}

TEST_CASE("known_at applies the tags filter on the current tags") {
  ReplicaState s;
  PutMemoryOp p = put("tagged");
  p.tags = {"infra", "deploy"};
  REQUIRE(s.apply(key_at(1000, 1, 1), p).ok());
  const MemoryRecord& m = *s.memory(MemoryId{InstanceId(1), Seqno(1)});
  QueryScope scope = at(std::nullopt);
  scope.tags = {"deploy"};
  CHECK(admit(m, scope));
  scope.tags = {"deploy", "infra"};
  CHECK(admit(m, scope));
  scope.tags = {"deploy", "billing"};
  CHECK(!admit(m, scope));
}

TEST_CASE("history keys list every op that touched a memory, in order, in any arrival order") {
  const OrderKey p = key_at(1000, 1, 1);
  const MemoryId id = p.op_id();
  const std::vector<std::pair<OrderKey, OpValue>> ops = {
      {key_at(1100, 2, 1), UpdateContentOp{id, "v2", false, {}}},
      {key_at(1200, 2, 2), SetStatusOp{id, MemoryStatus::verified, "", {}}},
      {key_at(1300, 2, 3), SetPinnedOp{id, true}},
      {key_at(1400, 2, 4), SetPinnedOp{id, false}},
      {key_at(1500, 2, 5), AddTripletOp{"work", "a", "b", "c", kOpenPast, kOpenFuture, id}},
      {key_at(1600, 2, 6), RetractTripletOp{MemoryId{InstanceId(2), Seqno(5)}, "wrong"}},
      {key_at(1700, 2, 7), AddCorrectionOp{"work", "x", "y", "", id}},
      {key_at(1800, 2, 8), ReviewDecisionOp{id, ReviewVerdict::approve, "ana", ""}},
      {key_at(1900, 2, 9), SetVectorOp{id, {1, 0}, "t/2/1"}},
      {key_at(2000, 2, 10), DeleteMemoryOp{id, "gone"}},
  };
  std::vector<OrderKey> expected{p};
  for (const auto& [k, op] : ops) expected.push_back(k);
  for (bool put_last : {false, true}) {
    CAPTURE(put_last);
    ReplicaState s;
    if (!put_last) REQUIRE(s.apply(p, put("v1")).ok());
    for (const auto& [k, op] : ops) REQUIRE(s.apply(k, op).ok());
    REQUIRE(s.apply(key_at(2100, 3, 1), put("another")).ok());  // negative control: not listed
    if (put_last) REQUIRE(s.apply(p, put("v1")).ok());
    CHECK(s.history_keys(id) == expected);
    CHECK(s.history_keys(MemoryId{InstanceId(3), Seqno(1)}) == std::vector<OrderKey>{key_at(2100, 3, 1)});
    ReplicaState copy(s);
    CHECK(copy.history_keys(id) == expected);
  }
}

}  // namespace vasana
