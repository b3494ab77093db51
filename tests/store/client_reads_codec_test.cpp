// protocol/client_reads.hpp through the client codec: get, list, recall's tags and known_at, the
// hits' tags and valid time, recall's corrections, a memory view and a page all come back as
// they were sent; and the checks a list request and the new recall fields pass.
#include <catch2/catch.hpp>

#include "protocol/client_codec.hpp"
#include "protocol/recall_input.hpp"

using namespace vasana;

namespace {

const MemoryId kId{InstanceId(0x9f3c2a1b4d5e6f70), Seqno(42)};

ClientRequest round_trip(const ClientRequest& r) {
  auto back = decode_request(encode_request(r));
  REQUIRE(back.ok());
  return back.value();
}

ClientResponse round_trip(const ClientResponse& r) {
  auto back = decode_response(encode_response(r));
  REQUIRE(back.ok());
  return back.value();
}

MemoryView full_view() {
  MemoryView v;
  v.id = kId;
  v.realm = "work";
  v.kind = MemoryKind::operational;
  v.text = "prod deploys need two approvals — ünïcode";
  v.tags = {"deploy", "policy"};
  v.ref = "r-1";
  v.status = MemoryStatus::superseded;
  v.status_reason = "replaced by the new policy";
  v.replaced_by = MemoryId{InstanceId(7), Seqno(9)};
  v.epistemic = Epistemic::tool_derived;
  v.confidence = 0.7f;
  v.pinned = true;
  v.valid_from_ms = 1'700'000'000'000;
  v.valid_to_ms = 1'800'000'000'000;
  v.recorded_at_ms = 1'750'000'000'000;
  v.updated_at_ms = 1'750'000'000'123;
  v.deleted = true;
  v.reviewed = true;
  v.review_decision = ReviewVerdict::reject;
  v.source_session = "s-1";
  v.source_tool = "cli";
  v.claim_status = "contradicted";
  v.versions = {{"prod deploys need one approval", 1'750'000'000'000}, {"ünïcode first draft", 1'750'000'000'050}};
  return v;
}

void check_same(const MemoryView& a, const MemoryView& b) {
  CHECK(a.id == b.id);
  CHECK(a.realm == b.realm);
  CHECK(a.kind == b.kind);
  CHECK(a.text == b.text);
  CHECK(a.tags == b.tags);
  CHECK(a.ref == b.ref);
  CHECK(a.status == b.status);
  CHECK(a.status_reason == b.status_reason);
  CHECK(a.replaced_by == b.replaced_by);
  CHECK(a.epistemic == b.epistemic);
  CHECK(a.confidence == b.confidence);
  CHECK(a.pinned == b.pinned);
  CHECK(a.valid_from_ms == b.valid_from_ms);
  CHECK(a.valid_to_ms == b.valid_to_ms);
  CHECK(a.recorded_at_ms == b.recorded_at_ms);
  CHECK(a.updated_at_ms == b.updated_at_ms);
  CHECK(a.deleted == b.deleted);
  CHECK(a.reviewed == b.reviewed);
  CHECK(a.review_decision == b.review_decision);
  CHECK(a.source_session == b.source_session);
  CHECK(a.source_tool == b.source_tool);
  CHECK(a.claim_status == b.claim_status);
  REQUIRE(a.versions.size() == b.versions.size());
  for (size_t i = 0; i < a.versions.size(); ++i) {
    CHECK(a.versions[i].text == b.versions[i].text);
    CHECK(a.versions[i].recorded_at_ms == b.versions[i].recorded_at_ms);
  }
}

}  // namespace

TEST_CASE("a get request carries its memory id through the client codec") {
  ClientRequest r;
  r.request_id = 5;
  r.kind = ClientRequest::Kind::get;
  r.get = kId;
  ClientRequest back = round_trip(r);
  CHECK(back.kind == ClientRequest::Kind::get);
  CHECK(back.request_id == 5);
  CHECK(back.get == kId);
}

TEST_CASE("a list request carries every filter, its start and its limit through the client codec") {
  ClientRequest r;
  r.kind = ClientRequest::Kind::list;
  r.list.realm = "work";
  r.list.kinds = {MemoryKind::episode, MemoryKind::correction};
  r.list.tags = {"a", "b c"};
  r.list.statuses = {MemoryStatus::archived, MemoryStatus::proposed};
  r.list.include_deleted = true;
  r.list.unreviewed = true;
  r.list.after = kId;
  r.list.limit = 250;
  r.list.versions = true;
  ClientRequest back = round_trip(r);
  REQUIRE(back.kind == ClientRequest::Kind::list);
  CHECK(back.list.realm == "work");
  CHECK(back.list.kinds == r.list.kinds);
  CHECK(back.list.tags == r.list.tags);
  CHECK(back.list.statuses == r.list.statuses);
  CHECK(back.list.include_deleted);
  CHECK(back.list.unreviewed);
  CHECK(back.list.after == kId);
  CHECK(back.list.limit == 250);
  CHECK(back.list.versions);

  ClientRequest plain;
  plain.kind = ClientRequest::Kind::list;
  plain.list.realm = "work";
  ClientRequest plain_back = round_trip(plain);
  CHECK(plain_back.list.kinds.empty());
  CHECK(plain_back.list.statuses.empty());
  CHECK_FALSE(plain_back.list.include_deleted);
  CHECK(plain_back.list.after.seqno.value == 0);
  CHECK(plain_back.list.limit == 100);
  CHECK_FALSE(plain_back.list.versions);
}

TEST_CASE("a recall query carries its tags and known_at, and leaves known_at unset when not given") {
  ClientRequest r;
  r.kind = ClientRequest::Kind::recall;
  r.recall.text = "deploys";
  r.recall.realms = {"work"};
  r.recall.tags = {"deploy", "prod"};
  r.recall.known_at_ms = 1'700'000'000'000;
  ClientRequest back = round_trip(r);
  CHECK(back.recall.tags == r.recall.tags);
  REQUIRE(back.recall.known_at_ms.has_value());
  CHECK(*back.recall.known_at_ms == 1'700'000'000'000);

  r.recall.known_at_ms.reset();
  r.recall.tags.clear();
  ClientRequest now = round_trip(r);
  CHECK_FALSE(now.recall.known_at_ms.has_value());
  CHECK(now.recall.tags.empty());

  r.recall.known_at_ms = 0;  // the epoch is a time, not "none"
  CHECK(round_trip(r).recall.known_at_ms == std::optional<int64_t>(0));
}

TEST_CASE("a recall answer carries its hits' tags and valid time and its corrections") {
  ClientResponse r;
  r.kind = ClientResponse::Kind::recalled;
  RecallHit h;
  h.id = kId;
  h.text = "x";
  h.tags = {"t1", "t2"};
  h.valid_from_ms = 1000;
  h.valid_to_ms = kOpenFuture;
  r.answer.hits.push_back(h);
  r.answer.corrections.push_back(CorrectionHit{MemoryId{InstanceId(3), Seqno(4)}, "work", "eu-west-2", "eu-west-1", "moved"});
  ClientResponse back = round_trip(r);
  REQUIRE(back.answer.hits.size() == 1);
  CHECK(back.answer.hits[0].tags == h.tags);
  CHECK(back.answer.hits[0].valid_from_ms == 1000);
  CHECK(back.answer.hits[0].valid_to_ms == kOpenFuture);
  REQUIRE(back.answer.corrections.size() == 1);
  const CorrectionHit& c = back.answer.corrections[0];
  CHECK(c.id == MemoryId{InstanceId(3), Seqno(4)});
  CHECK(c.realm == "work");
  CHECK(c.wrong == "eu-west-2");
  CHECK(c.right == "eu-west-1");
  CHECK(c.note == "moved");
}

TEST_CASE("a memory view and a page of them come back with every field") {
  ClientResponse r;
  r.request_id = 9;
  r.kind = ClientResponse::Kind::memory;
  r.memory = full_view();
  ClientResponse back = round_trip(r);
  REQUIRE(back.kind == ClientResponse::Kind::memory);
  CHECK(back.request_id == 9);
  check_same(back.memory, r.memory);

  ClientResponse page;
  page.kind = ClientResponse::Kind::listed;
  page.page.memories = {full_view(), MemoryView{}};
  page.page.next = kId;
  ClientResponse page_back = round_trip(page);
  REQUIRE(page_back.kind == ClientResponse::Kind::listed);
  REQUIRE(page_back.page.memories.size() == 2);
  check_same(page_back.page.memories[0], full_view());
  check_same(page_back.page.memories[1], MemoryView{});
  CHECK(page_back.page.next == kId);
}

TEST_CASE("the not-found and conflict error codes come back as themselves") {
  for (ClientError code : {ClientError::not_found, ClientError::conflict, ClientError::bad_input}) {
    ClientResponse back = round_trip(error_response(3, code, "no memory 9f3c2a1b4d5e6f70-42"));
    CHECK(back.kind == ClientResponse::Kind::error);
    CHECK(back.error == code);
    CHECK(back.message == "no memory 9f3c2a1b4d5e6f70-42");
  }
}

TEST_CASE("a list request is checked: realm, tags, limit") {
  ListRequest r;
  r.realm = "work";
  CHECK(validate_list(r).ok());
  r.limit = kMaxListLimit;
  CHECK(validate_list(r).ok());

  ListRequest no_realm = r;
  no_realm.realm = "";
  CHECK_THAT(validate_list(no_realm).message(), Catch::Contains("realm"));
  ListRequest zero = r;
  zero.limit = 0;
  CHECK_THAT(validate_list(zero).message(), Catch::Contains("limit must be from 1 to 10000"));
  ListRequest big = r;
  big.limit = kMaxListLimit + 1;
  CHECK(validate_list(big).code() == Code::invalid_argument);
  ListRequest bad_tag = r;
  bad_tag.tags = {"ok", "has\ncontrol"};
  CHECK_THAT(validate_list(bad_tag).message(), Catch::Contains("tag"));
  ListRequest empty_tag = r;
  empty_tag.tags = {""};
  CHECK(validate_list(empty_tag).code() == Code::invalid_argument);
}

TEST_CASE("a recall's tags follow the tag rules and its known_at must be a supported time") {
  RecallQuery q;
  q.text = "deploys";
  q.realms = {"work"};
  q.tags = {"deploy"};
  q.known_at_ms = 1'700'000'000'000;
  CHECK(validate_recall(q, InputLimits{}, {}).ok());

  RecallQuery bad_time = q;
  bad_time.known_at_ms = kMaxTimeMs + 1;
  CHECK_THAT(validate_recall(bad_time, InputLimits{}, {}).message(), Catch::Contains("known-at"));
  RecallQuery bad_tag = q;
  bad_tag.tags = {std::string(kMaxTagBytes + 1, 'x')};
  CHECK_THAT(validate_recall(bad_tag, InputLimits{}, {}).message(), Catch::Contains("tag"));
  RecallQuery many = q;
  many.tags.assign(kMaxTags + 1, "t");
  CHECK_THAT(validate_recall(many, InputLimits{}, {}).message(), Catch::Contains("too many tags"));
}

TEST_CASE("kind, status and origin names map to the schema enums and unknown names are refused") {
  MemoryKind k{};
  CHECK(parse_kind_name("episode", k));
  CHECK(k == MemoryKind::episode);
  CHECK_FALSE(parse_kind_name("episodes", k));
  MemoryStatus s{};
  CHECK(parse_status_name("archived", s));
  CHECK(s == MemoryStatus::archived);
  CHECK_FALSE(parse_status_name("deleted", s));
  Epistemic e{};
  CHECK(parse_epistemic_name("model_inferred", e));
  CHECK(e == Epistemic::model_inferred);
  CHECK_FALSE(parse_epistemic_name("", e));
}
