// The client codec of the write requests (protocol/client_writes.hpp): every request and
// response round-trips field for field, and a plain remember carries no options.
#include <catch2/catch.hpp>

#include "protocol/client_codec.hpp"

namespace vasana {
namespace {

MemoryId id(uint64_t instance, uint64_t seqno) { return MemoryId{InstanceId(instance), Seqno(seqno)}; }

ClientRequest round_trip(const ClientRequest& r) {
  auto back = decode_request(encode_request(r));
  INFO(back.status().message());
  REQUIRE(back.ok());
  CHECK(back->kind == r.kind);
  CHECK(back->request_id == r.request_id);
  return back.value();
}

bool same_fact(const FactInput& a, const FactInput& b) {
  return a.subject == b.subject && a.predicate == b.predicate && a.object == b.object &&
         a.valid_from_ms == b.valid_from_ms && a.valid_to_ms == b.valid_to_ms;
}

}  // namespace

TEST_CASE("remember's options round-trip through the client codec", "[protocol]") {
  ClientRequest r;
  r.request_id = 7;
  r.kind = ClientRequest::Kind::remember;
  r.memory.realm = "r";
  r.memory.text = "alice lives in paris";
  r.memory.epistemic = "model_inferred";
  r.memory.status = "proposed";
  r.memory.confidence = 0.5f;
  r.memory.pinned = true;
  r.remember_options.on_existing_ref = RefPolicy::update;
  r.remember_options.supersedes = id(0xabc, 4);
  r.remember_options.facts.push_back(FactInput{"alice", "lives in", "paris", 1000, 2000});
  r.remember_options.facts.push_back(FactInput{"bob", "works for", "acme", kOpenPast, kOpenFuture});
  auto b = round_trip(r);
  CHECK(b.memory.text == r.memory.text);
  CHECK(b.memory.epistemic == "model_inferred");
  CHECK(b.memory.status == "proposed");
  CHECK(b.memory.confidence == 0.5f);
  CHECK(b.memory.pinned);
  CHECK(b.remember_options.on_existing_ref == RefPolicy::update);
  CHECK(b.remember_options.supersedes == id(0xabc, 4));
  REQUIRE(b.remember_options.facts.size() == 2);
  CHECK(same_fact(b.remember_options.facts[0], r.remember_options.facts[0]));
  CHECK(same_fact(b.remember_options.facts[1], r.remember_options.facts[1]));

  // A plain remember has the default options, and decodes to them.
  ClientRequest plain;
  plain.kind = ClientRequest::Kind::remember;
  plain.memory.realm = "r";
  plain.memory.text = "t";
  auto p = round_trip(plain);
  CHECK(p.remember_options.is_default());
  CHECK(p.remember_options.on_existing_ref == RefPolicy::refuse);
}

TEST_CASE("every write request round-trips through the client codec", "[protocol]") {
  ClientRequest u;
  u.kind = ClientRequest::Kind::update;
  u.update = UpdateRequest{id(1, 2), true, "new text", true, {"a", "b"}, true, 5, 9};
  auto ub = round_trip(u).update;
  CHECK(ub.memory == id(1, 2));
  CHECK(ub.has_text);
  CHECK(ub.text == "new text");
  CHECK(ub.replace_tags);
  CHECK(ub.tags == std::vector<std::string>{"a", "b"});
  CHECK(ub.has_valid_time);
  CHECK(ub.valid_from_ms == 5);
  CHECK(ub.valid_to_ms == 9);

  ClientRequest keep;  // nothing but tags cleared: the text and valid time stay
  keep.kind = ClientRequest::Kind::update;
  keep.update.memory = id(1, 3);
  keep.update.replace_tags = true;
  auto kb = round_trip(keep).update;
  CHECK_FALSE(kb.has_text);
  CHECK(kb.replace_tags);
  CHECK(kb.tags.empty());
  CHECK_FALSE(kb.has_valid_time);

  ClientRequest f;
  f.kind = ClientRequest::Kind::forget;
  f.forget = ForgetRequest{id(3, 4), "wrong"};
  auto fb = round_trip(f).forget;
  CHECK(fb.memory == id(3, 4));
  CHECK(fb.reason == "wrong");

  ClientRequest s;
  s.kind = ClientRequest::Kind::set_status;
  s.set_status = StatusRequest{id(5, 6), MemoryStatus::archived, "old"};
  auto sb = round_trip(s).set_status;
  CHECK(sb.memory == id(5, 6));
  CHECK(sb.status == MemoryStatus::archived);
  CHECK(sb.reason == "old");

  ClientRequest pin;
  pin.kind = ClientRequest::Kind::pin;
  pin.pin = PinRequest{id(7, 8), false};
  auto pb = round_trip(pin).pin;
  CHECK(pb.memory == id(7, 8));
  CHECK_FALSE(pb.pinned);

  ClientRequest fact;
  fact.kind = ClientRequest::Kind::fact;
  fact.fact = FactRequest{"realm", FactInput{"s", "p", "o", 10, 20}, id(9, 10)};
  auto tb = round_trip(fact).fact;
  CHECK(tb.realm == "realm");
  CHECK(same_fact(tb.fact, fact.fact.fact));
  CHECK(tb.source_memory == id(9, 10));

  ClientRequest c;
  c.kind = ClientRequest::Kind::correct;
  c.correct = CorrectRequest{"realm", "deploy on fridays", "never deploy on fridays", "outage", id(11, 12)};
  auto cb = round_trip(c).correct;
  CHECK(cb.realm == "realm");
  CHECK(cb.wrong == "deploy on fridays");
  CHECK(cb.right == "never deploy on fridays");
  CHECK(cb.note == "outage");
  CHECK(cb.source_memory == id(11, 12));

  ClientRequest rt;
  rt.kind = ClientRequest::Kind::retract;
  rt.retract = id(13, 14);
  CHECK(round_trip(rt).retract == id(13, 14));

  ClientRequest rv;
  rv.kind = ClientRequest::Kind::review;
  rv.review = ReviewRequest{id(15, 16), ReviewVerdict::reject, "carol", "not true"};
  auto vb = round_trip(rv).review;
  CHECK(vb.memory == id(15, 16));
  CHECK(vb.decision == ReviewVerdict::reject);
  CHECK(vb.reviewer == "carol");
  CHECK(vb.note == "not true");
}

TEST_CASE("the write responses round-trip, with the conflict, not-found and not-replicated errors", "[protocol]") {
  ClientResponse w;
  w.request_id = 3;
  w.kind = ClientResponse::Kind::written;
  w.id = id(1, 99);
  w.effective_ts = 12345;
  auto wb = decode_response(encode_response(w));
  REQUIRE(wb.ok());
  CHECK(wb->kind == ClientResponse::Kind::written);
  CHECK(wb->id == id(1, 99));
  CHECK(wb->effective_ts == 12345);

  ClientResponse m;
  m.kind = ClientResponse::Kind::remembered;
  m.id = id(2, 5);
  m.updated = true;
  m.stored_status = MemoryStatus::proposed;
  m.flagged_by = id(2, 4);
  auto mb = decode_response(encode_response(m));
  REQUIRE(mb.ok());
  CHECK(mb->updated);
  CHECK_FALSE(mb->existed);
  CHECK(mb->stored_status == MemoryStatus::proposed);
  CHECK(mb->flagged_by == id(2, 4));

  for (ClientError e : {ClientError::conflict, ClientError::not_found}) {
    auto eb = decode_response(encode_response(error_response(1, e, "memory x")));
    REQUIRE(eb.ok());
    CHECK(eb->error == e);
    CHECK(eb->message == "memory x");
    CHECK(eb->id == MemoryId{});  // none set, none carried
  }
  // A conflict on a ref names the memory that holds it.
  ClientResponse held = error_response(2, ClientError::conflict, "ref 'r' belongs to memory x");
  held.id = id(5, 8);
  auto hb = decode_response(encode_response(held));
  REQUIRE(hb.ok());
  CHECK(hb->error == ClientError::conflict);
  CHECK(hb->id == id(5, 8));

  // Durable on the node, not synced by enough peers: the error names the memory written.
  ClientResponse late = error_response(4, ClientError::not_replicated, "write is durable on this node");
  late.id = id(3, 17);
  auto lb = decode_response(encode_response(late));
  REQUIRE(lb.ok());
  CHECK(lb->kind == ClientResponse::Kind::error);
  CHECK(lb->error == ClientError::not_replicated);
  CHECK(lb->id == id(3, 17));
  CHECK(std::string(client_error_name(lb->error)) == "not_replicated");
}

}  // namespace vasana
