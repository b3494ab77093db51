// protocol/client_analogy.hpp through the client codec: an analogy request and both kinds of
// answer (candidates with their supporting triplets, an abstention with its reason) come back
// as they were sent; and the checks an analogy request passes.
#include <catch2/catch.hpp>

#include "protocol/client_codec.hpp"

using namespace vasana;

namespace {

const MemoryId kTriplet{InstanceId(0x9f3c2a1b4d5e6f70), Seqno(7)};
const MemoryId kSource{InstanceId(0x9f3c2a1b4d5e6f70), Seqno(6)};

AnalogyRequest paris_request() {
  AnalogyRequest r;
  r.a = "Paris";
  r.b = "France";
  r.c = "Madrid";
  r.realms = {"geo", "atlas"};
  return r;
}

}  // namespace

TEST_CASE("an analogy request comes back through the codec with its terms, realms and as_of") {
  ClientRequest q;
  q.kind = ClientRequest::Kind::analogy;
  q.analogy = paris_request();
  q.analogy.as_of_ms = 1700000000000;
  q.acting_as = "agent-a";
  auto back = decode_request(encode_request(q));
  REQUIRE(back.ok());
  CHECK(back->kind == ClientRequest::Kind::analogy);
  CHECK(back->analogy.a == "Paris");
  CHECK(back->analogy.b == "France");
  CHECK(back->analogy.c == "Madrid");
  CHECK(back->analogy.realms == std::vector<std::string>{"geo", "atlas"});
  REQUIRE(back->analogy.as_of_ms.has_value());
  CHECK(*back->analogy.as_of_ms == 1700000000000);
  CHECK(back->acting_as == "agent-a");

  q.analogy.as_of_ms.reset();
  auto now = decode_request(encode_request(q));
  REQUIRE(now.ok());
  CHECK_FALSE(now->analogy.as_of_ms.has_value());
}

TEST_CASE("an analogy answer comes back with each candidate's predicates and supporting triplets") {
  ClientResponse r;
  r.kind = ClientResponse::Kind::analogy;
  AnalogyCandidateView c;
  c.d = "spain";
  c.predicates = {"capital_of"};
  c.support.push_back(AnalogyTripletView{kTriplet, "geo", "paris", "capital_of", "france", 10, 20, kSource});
  r.analogy.candidates.push_back(c);
  auto back = decode_response(encode_response(r));
  REQUIRE(back.ok());
  REQUIRE(back->kind == ClientResponse::Kind::analogy);
  CHECK_FALSE(back->analogy.abstained);
  REQUIRE(back->analogy.candidates.size() == 1);
  const AnalogyCandidateView& b = back->analogy.candidates[0];
  CHECK(b.d == "spain");
  CHECK(b.predicates == std::vector<std::string>{"capital_of"});
  REQUIRE(b.support.size() == 1);
  CHECK(b.support[0].id == kTriplet);
  CHECK(b.support[0].realm == "geo");
  CHECK(b.support[0].subject == "paris");
  CHECK(b.support[0].object == "france");
  CHECK(b.support[0].valid_from_ms == 10);
  CHECK(b.support[0].valid_to_ms == 20);
  CHECK(b.support[0].source_memory == kSource);
}

TEST_CASE("an analogy abstention comes back with its reason and no candidates") {
  ClientResponse r;
  r.kind = ClientResponse::Kind::analogy;
  r.analogy.abstained = true;
  r.analogy.reason = "no relation links 'paris' to 'spain'";
  auto back = decode_response(encode_response(r));
  REQUIRE(back.ok());
  CHECK(back->analogy.abstained);
  CHECK(back->analogy.reason == "no relation links 'paris' to 'spain'");
  CHECK(back->analogy.candidates.empty());
}

TEST_CASE("an analogy request needs a, b, c and at least one valid realm") {
  CHECK(validate_analogy(paris_request()).ok());
  AnalogyRequest r = paris_request();
  r.b.clear();
  CHECK(validate_analogy(r).message().find("'b' is empty") != std::string::npos);
  r = paris_request();
  r.realms.clear();
  CHECK(validate_analogy(r).message().find("at least one realm") != std::string::npos);
  r = paris_request();
  r.realms = {""};
  CHECK_FALSE(validate_analogy(r).ok());
  r = paris_request();
  r.c = std::string(1001, 'x');
  CHECK(validate_analogy(r).message().find("longer than") != std::string::npos);
}

TEST_CASE("an analogy request's as_of must be a supported time, never an open bound's extreme") {
  AnalogyRequest r = paris_request();
  r.as_of_ms = kMaxTimeMs;
  CHECK(validate_analogy(r).ok());
  for (int64_t t : {kOpenPast, kOpenFuture, kMaxTimeMs + 1}) {
    r.as_of_ms = t;
    CHECK(validate_analogy(r).message().find("as-of " + std::to_string(t) + " ms is outside the supported times") !=
          std::string::npos);
  }
}
