#include <catch2/catch.hpp>

#include <set>
#include <thread>
#include <vector>

#include "replica/memory_record.hpp"
#include "replica/replica_state.hpp"

namespace vasana {
namespace {

OrderKey key(uint64_t seq) { return OrderKey{Hlc::make(1000 + seq, 0), InstanceId(7), Seqno(seq)}; }

TEST_CASE("a memory record stays within 264 bytes") {
  // A replica holds one per memory (x86-64, libstdc++): the rare fields (a ref, an own vector,
  // the verdicts) are one pointer each and the repeated strings are interned. A field added
  // carelessly (or padding) fails this.
  CHECK(sizeof(MemoryRecord) <= 264);
  CHECK(sizeof(InternedString) == sizeof(void*));
  CHECK(sizeof(OutOfLine<MemoryVerdicts>) == sizeof(void*));
  CHECK(sizeof(OutOfLine<std::string>) == sizeof(void*));
}

TEST_CASE("an out-of-line value reads as its default until set, and copies deeply") {
  OutOfLine<StatusNote> a;
  CHECK_FALSE(a.allocated());
  CHECK(a->reason.empty());
  CHECK(a->replaced_by.seqno.value == 0);

  a.set(StatusNote{"merged into another", MemoryId{InstanceId(3), Seqno(9)}});
  REQUIRE(a.allocated());
  CHECK(a->reason == "merged into another");

  OutOfLine<StatusNote> b = a;  // a deep copy: changing it leaves a alone
  b.mut().reason = "changed";
  CHECK(a->reason == "merged into another");
  CHECK(b->reason == "changed");

  OutOfLine<StatusNote> c = std::move(b);
  CHECK(c->reason == "changed");
  CHECK_FALSE(b.allocated());  // NOLINT(bugprone-use-after-move): a moved-from value reads as the default
  CHECK(b->reason.empty());

  a.set(StatusNote{});  // back to the default: nothing held out of line
  CHECK_FALSE(a.allocated());
  CHECK(a->reason.empty());
}

TEST_CASE("interned strings are equal exactly when their texts are, from any thread") {
  const InternedString work = InternedString::of("work");
  CHECK(work.str() == "work");
  CHECK(InternedString::of(std::string("wo") + "rk") == work);
  CHECK(&InternedString::of("work").str() == &work.str());  // one copy of the text
  CHECK(InternedString::of("home") != work);
  CHECK(InternedString() == InternedString::of(""));
  CHECK(InternedString().empty());
  CHECK_FALSE(work.empty());

  // Threads interning the same new texts at once get the same entries.
  std::vector<std::vector<const std::string*>> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) seen[t].push_back(&InternedString::of("session-" + std::to_string(i % 500)).str());
    });
  for (auto& th : threads) th.join();
  std::set<const std::string*> distinct;
  for (const auto& s : seen)
    for (const std::string* p : s) distinct.insert(p);
  CHECK(distinct.size() == 500);
  for (size_t t = 1; t < seen.size(); ++t) CHECK(seen[t] == seen[0]);
}

TEST_CASE("a record holds a status note, a tombstone or a review out of line only once an op gives one") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the deploy needs two approvals";
  p.source_tool = "vasana-cli";
  p.source_session = "3f2b8c1e-5d4a-4c7e-9a61-0b2d7e4f8c13";
  REQUIRE(s.apply(key(1), p, nullptr).ok());
  REQUIRE(s.apply(key(2), p, nullptr).ok());
  const MemoryId first{InstanceId(7), Seqno(1)}, second{InstanceId(7), Seqno(2)};

  const MemoryRecord* m = s.memory(first);
  REQUIRE(m);
  CHECK(m->realm.str() == "work");
  CHECK(m->source_tool.str() == "vasana-cli");
  CHECK(m->source_session.str() == p.source_session);
  CHECK(m->realm == s.memory(second)->realm);  // one interned text
  CHECK_FALSE(m->status.value.note.allocated());
  CHECK_FALSE(m->verdicts.allocated());

  SetStatusOp st;
  st.memory = first;
  st.status = MemoryStatus::superseded;
  st.reason = "replaced by the new policy";
  st.replaced_by = second;
  REQUIRE(s.apply(key(3), st, nullptr).ok());
  DeleteMemoryOp del;
  del.memory = first;
  REQUIRE(s.apply(key(4), del, nullptr).ok());

  m = s.memory(first);
  CHECK(m->status.value.status == MemoryStatus::superseded);
  CHECK(m->status.value.note->reason == "replaced by the new policy");
  CHECK(m->status.value.note->replaced_by == second);
  CHECK(m->verdicts->deleted.value);
  // The other memory got none of it.
  const MemoryRecord* other = s.memory(second);
  CHECK_FALSE(other->status.value.note.allocated());
  CHECK_FALSE(other->verdicts.allocated());
  CHECK_FALSE(other->verdicts->deleted.value);

  // A copy of the state holds its own copies, and the same digest.
  ReplicaState copy = s;
  CHECK(copy.digest() == s.digest());
  CHECK(&copy.memory(first)->status.value.note.get() != &m->status.value.note.get());
  CHECK(copy.memory(first)->status.value.note->reason == "replaced by the new policy");
}

}  // namespace
}  // namespace vasana
