// actors/client_reads.hpp on a replica state built from ops: get shows every field (a deleted
// memory too), names an id never created; list keeps to its realm and filters, pages in id
// order, and cuts a page that would scan too far with a `next` that goes on where it stopped.
#include <catch2/catch.hpp>

#include "actors/client_reads.hpp"

namespace vasana {
namespace {

constexpr uint64_t kWriter = 7;

struct World {
  ReplicaState state;
  uint64_t seq = 0;

  OrderKey next_key() {
    ++seq;
    return OrderKey{Hlc::make(1000 * seq, 0), InstanceId(kWriter), Seqno(seq)};
  }
  MemoryId put(const std::string& realm, const std::string& text, MemoryStatus status = MemoryStatus::active) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = text;
    p.ref = "ref-" + text;
    p.tags = {"t"};
    p.status = status;
    p.kind = MemoryKind::wisdom;
    p.epistemic = Epistemic::tool_derived;
    p.confidence = 0.5f;
    p.source_tool = "test";
    OrderKey k = next_key();
    REQUIRE(state.apply(k, p).ok());
    return k.op_id();
  }
  void op(const OpValue& v) { REQUIRE(state.apply(next_key(), v).ok()); }
};

std::vector<std::string> texts(const ClientResponse& r) {
  std::vector<std::string> out;
  for (const auto& m : r.page.memories) out.push_back(m.text);
  return out;
}

TEST_CASE("get answers every field of a memory, a deleted one with deleted set, and not found for an unknown id") {
  World w;
  const MemoryId a = w.put("work", "a");
  SetStatusOp archive;
  archive.memory = a;
  archive.status = MemoryStatus::archived;
  archive.reason = "old";
  w.op(archive);
  DeleteMemoryOp del;
  del.memory = a;
  w.op(del);

  ClientResponse r = answer_get(CallerView(w.state, nullptr, false), 4, a);
  REQUIRE(r.kind == ClientResponse::Kind::memory);
  CHECK(r.request_id == 4);
  const MemoryView& v = r.memory;
  CHECK(v.id == a);
  CHECK(v.realm == "work");
  CHECK(v.kind == MemoryKind::wisdom);
  CHECK(v.text == "a");
  CHECK(v.tags == std::vector<std::string>{"t"});
  CHECK(v.ref == "ref-a");
  CHECK(v.status == MemoryStatus::archived);
  CHECK(v.status_reason == "old");
  CHECK(v.epistemic == Epistemic::tool_derived);
  CHECK(v.confidence == 0.5f);
  CHECK(v.source_tool == "test");
  CHECK(v.recorded_at_ms == 1000);
  CHECK(v.updated_at_ms == 3000);  // the delete is the newest op
  CHECK(v.deleted);
  CHECK_FALSE(v.reviewed);

  ClientResponse missing = answer_get(CallerView(w.state, nullptr, false), 5, MemoryId{InstanceId(kWriter), Seqno(99)});
  CHECK(missing.kind == ClientResponse::Kind::error);
  CHECK(missing.error == ClientError::not_found);
  CHECK(missing.message == "no memory " + MemoryId{InstanceId(kWriter), Seqno(99)}.to_string() + " on this node");
}

TEST_CASE("list keeps to its realm, leaves deleted memories out unless asked, and filters the review queue") {
  World w;
  w.put("work", "a");
  w.put("home", "h");
  const MemoryId b = w.put("work", "b", MemoryStatus::proposed);
  const MemoryId c = w.put("work", "c", MemoryStatus::proposed);
  const MemoryId d = w.put("work", "d");
  ReviewDecisionOp review;
  review.memory = c;
  review.reviewer = "ann";
  w.op(review);
  DeleteMemoryOp del;
  del.memory = d;
  w.op(del);

  ListRequest req;
  req.realm = "work";
  CHECK(texts(answer_list(w.state, 1, req)) == std::vector<std::string>{"a", "b", "c"});
  req.include_deleted = true;
  ClientResponse with_deleted = answer_list(w.state, 1, req);
  CHECK(texts(with_deleted) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(with_deleted.page.memories.back().deleted);
  CHECK(with_deleted.page.next.seqno.value == 0);  // not a full page: done
  req.unreviewed = true;
  ClientResponse queue = answer_list(w.state, 1, req);
  REQUIRE(texts(queue) == std::vector<std::string>{"b"});
  CHECK(queue.page.memories[0].id == b);
  req.unreviewed = false;
  req.statuses = {MemoryStatus::proposed};
  ClientResponse proposed = answer_list(w.state, 1, req);
  CHECK(texts(proposed) == std::vector<std::string>{"b", "c"});
  CHECK(proposed.page.memories[1].reviewed);
  req.statuses.clear();
  req.tags = {"t", "other"};
  CHECK(answer_list(w.state, 1, req).page.memories.empty());
}

TEST_CASE("a full list page names its last id as next, and the following page starts after it") {
  World w;
  for (int i = 0; i < 5; ++i) w.put("work", std::to_string(i));
  ListRequest req;
  req.realm = "work";
  req.limit = 2;
  std::vector<std::string> all;
  int pages = 0;
  for (;;) {
    ClientResponse r = answer_list(w.state, 1, req);
    ++pages;
    auto t = texts(r);
    all.insert(all.end(), t.begin(), t.end());
    if (r.page.next.seqno.value == 0) break;
    CHECK(r.page.next == r.page.memories.back().id);
    req.after = r.page.next;
  }
  CHECK(pages == 3);  // 2 + 2 + 1
  CHECK(all == std::vector<std::string>{"0", "1", "2", "3", "4"});
}

TEST_CASE("a list page that scans its budget without filling stops with a next that goes on from there") {
  World w;
  const size_t others = kListScanPerPage + 5;
  // One memory of the realm, a scan budget of other realms' memories, then one more.
  w.put("work", "first");
  PutMemoryOp p;
  p.realm = "noise";
  p.text = "n";
  for (size_t i = 0; i < others; ++i) REQUIRE(w.state.apply(w.next_key(), p).ok());
  w.put("work", "last");

  ListRequest req;
  req.realm = "work";
  ClientResponse first = answer_list(w.state, 1, req);
  CHECK(texts(first) == std::vector<std::string>{"first"});
  REQUIRE(first.page.next.seqno.value == kListScanPerPage);  // the last memory it examined
  req.after = first.page.next;
  ClientResponse second = answer_list(w.state, 1, req);
  CHECK(texts(second) == std::vector<std::string>{"last"});
  CHECK(second.page.next.seqno.value == 0);
}

}  // namespace
}  // namespace vasana

namespace vasana {

TEST_CASE("facts pages through a realm's live triplets and corrections in op order, leaving out other realms and retracted ones") {
  World w;
  const MemoryId source = w.put("work", "postgres runs in us-west-2");
  auto triplet = [&](const std::string& realm, const std::string& object) {
    AddTripletOp t;
    t.realm = realm;
    t.subject = "postgres";
    t.predicate = "region";
    t.object = object;
    t.source_memory = realm == "work" ? source : MemoryId{};
    w.op(t);
    return MemoryId{InstanceId(kWriter), Seqno(w.seq)};
  };
  triplet("work", "a");
  triplet("other", "b");  // another realm: never listed
  const MemoryId gone = triplet("work", "c");
  w.op(AddCorrectionOp{"work", "us-east-2", "us-west-2", "moved", source});
  triplet("work", "d");
  w.op(RetractTripletOp{gone, ""});
  FactsRequest req;
  req.realm = "work";
  req.limit = 2;
  std::vector<std::string> seen;
  int pages = 0;
  for (;;) {
    ClientResponse r = answer_facts(w.state, 1, req);
    REQUIRE(r.kind == ClientResponse::Kind::facts);
    ++pages;
    for (const FactEntry& e : r.facts.entries) {
      seen.push_back(e.is_correction ? "correction " + e.wrong : "fact " + e.object);
      CHECK(e.source_memory == (e.object == "d" || e.object == "a" || e.is_correction ? source : MemoryId{}));
    }
    if (r.facts.next.seqno.value == 0) break;
    req.after = r.facts.next;
  }
  CHECK(seen == std::vector<std::string>{"fact a", "correction us-east-2", "fact d"});
  CHECK(pages == 2);
  // Negative control: a realm with nothing lists nothing, in one page.
  req = FactsRequest{};
  req.realm = "nobody";
  ClientResponse none = answer_facts(w.state, 1, req);
  CHECK(none.facts.entries.empty());
  CHECK(none.facts.next.seqno.value == 0);
}

}  // namespace vasana

namespace vasana {

TEST_CASE("realms lists the realms the caller may read, with their memories not forgotten, and no other") {
  World w;
  w.put("work", "a");
  const MemoryId gone = w.put("work", "b");
  w.put("private", "c");
  w.op(DeleteMemoryOp{gone, "gone", Revision{}});
  // Positive control: the owner sees every realm.
  ClientResponse owner = answer_realms(w.state, 1, nullptr);
  REQUIRE(owner.kind == ClientResponse::Kind::realms);
  REQUIRE(owner.realms.size() == 2);
  CHECK(owner.realms[0].name == "private");
  CHECK(owner.realms[0].memories == 1);
  CHECK(owner.realms[1].name == "work");
  CHECK(owner.realms[1].memories == 1);  // the forgotten one is not counted
  // A client that may read work only never learns that another realm exists.
  ClientGrant reader;
  reader.name = "reader";
  reader.read = {"work"};
  ClientResponse listed = answer_realms(w.state, 2, &reader);
  REQUIRE(listed.realms.size() == 1);
  CHECK(listed.realms[0].name == "work");
  ClientGrant nobody;
  nobody.name = "nobody";
  CHECK(answer_realms(w.state, 3, &nobody).realms.empty());
}

}  // namespace vasana
