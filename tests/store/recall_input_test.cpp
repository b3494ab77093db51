// protocol/recall_input.hpp: the checks a recall query passes on the node; and the client codec
// carrying text whole, so that those checks see every byte a client sent.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "protocol/client_codec.hpp"
#include "protocol/recall_input.hpp"

using namespace vasana;

namespace {

const std::vector<std::string> kLanes = {"semantic", "keyword", "temporal"};

RecallQuery good_query() {
  RecallQuery q;
  q.text = "which deploy broke staging";
  q.realms = {"work", "ops"};
  q.limit = 10;
  return q;
}

void check_refused(const RecallQuery& q, const std::string& names) {
  Status s = validate_recall(q, InputLimits{}, kLanes);
  CHECK(s.code() == Code::invalid_argument);
  CHECK_THAT(s.message(), Catch::Contains(names));
}

}  // namespace

TEST_CASE("a well-formed recall query passes, with the extreme limits and times", "[protocol]") {
  CHECK(validate_recall(good_query(), InputLimits{}, kLanes).ok());
  RecallQuery q = good_query();
  q.limit = kMaxRecallLimit;
  q.lanes = {"keyword", "temporal"};
  q.as_of_ms = kMaxTimeMs;
  q.window_from_ms = kMinTimeMs;
  q.window_to_ms = kMaxTimeMs;
  q.text = std::string(InputLimits{}.max_text_bytes, 'q');
  CHECK(validate_recall(q, InputLimits{}, kLanes).ok());
  q.lanes = {"made-up"};
  CHECK(validate_recall(q, InputLimits{}, {}).ok());  // the client does not know the node's lanes
}

TEST_CASE("recall validation refuses bad realms, lanes, limits, text, vectors and times", "[protocol]") {
  RecallQuery q = good_query();
  q.realms = {};
  check_refused(q, "at least one realm");
  q.realms = {"ok", "bad\nrealm"};
  check_refused(q, "realm contains control characters");
  q.realms = {std::string(kMaxRealmBytes + 1, 'r')};
  check_refused(q, "realm is 129 bytes");
  q.realms = std::vector<std::string>(kMaxRecallRealms + 1, "r");
  check_refused(q, "65 realms");

  q = good_query();
  q.lanes = {"keyword", "gossip"};
  check_refused(q, "unknown lane 'gossip'; lanes are: semantic, keyword, temporal");
  q.lanes = std::vector<std::string>(kMaxRecallLanes + 1, "keyword");
  check_refused(q, "lanes; the limit is");

  q = good_query();
  q.limit = 0;
  check_refused(q, "limit must be from 1 to 1000 (got 0)");
  q.limit = kMaxRecallLimit + 1;
  check_refused(q, "(got 1001)");

  q = good_query();
  q.text = std::string(InputLimits{}.max_text_bytes + 1, 'q');
  check_refused(q, "query is 65537 bytes");
  q.text = std::string("a\0b", 3);
  check_refused(q, "query contains a NUL byte");
  q.text = "\xC0\xAF";
  check_refused(q, "query is not valid UTF-8");

  q = good_query();
  q.vector = {1.0f, std::nanf("")};
  check_refused(q, "not a finite number");
  q.vector = std::vector<float>(kMaxVectorDim + 1, 0.5f);
  check_refused(q, "4097 dimensions");

  q = good_query();
  q.as_of_ms = kMaxTimeMs + 1;
  check_refused(q, "as-of 253402300800000 ms is outside the supported times");
  q = good_query();
  q.window_from_ms = -1 - kMaxTimeMs * 1000;
  check_refused(q, "since");
  q = good_query();
  q.window_from_ms = 2000;
  q.window_to_ms = 1000;
  check_refused(q, "since (1970-01-01T00:00:02.000Z) is after until");
  // An open bound's extreme is no time, in any of the four.
  q = good_query();
  q.known_at_ms = kOpenFuture;
  check_refused(q, "known-at 9223372036854775807 ms is outside the supported times");
  q = good_query();
  q.as_of_ms = kOpenPast;
  check_refused(q, "as-of -9223372036854775808 ms");
  q = good_query();
  q.window_from_ms = kOpenFuture;
  check_refused(q, "since 9223372036854775807 ms");
  q = good_query();
  q.window_to_ms = kOpenPast;
  check_refused(q, "until -9223372036854775808 ms");
}

TEST_CASE("the client codec carries text whole, bytes after a NUL included", "[protocol]") {
  const std::string nul("nul\0byte", 8);
  ClientRequest remember;
  remember.kind = ClientRequest::Kind::remember;
  remember.memory.realm = "r";
  remember.memory.text = nul;
  remember.memory.ref = nul;
  remember.memory.tags = {nul};
  auto back = decode_request(encode_request(remember));
  REQUIRE(back.ok());
  CHECK(back->memory.text == nul);
  CHECK(back->memory.ref == nul);
  CHECK(back->memory.tags == std::vector<std::string>{nul});
  // So the node's check sees the NUL and refuses, instead of storing "nul".
  CHECK_THAT(validate_memory(back->memory, InputLimits{}).message(), Catch::Contains("NUL"));

  ClientRequest recall;
  recall.kind = ClientRequest::Kind::recall;
  recall.recall.text = nul;
  recall.recall.realms = {nul};
  auto rb = decode_request(encode_request(recall));
  REQUIRE(rb.ok());
  CHECK(rb->recall.text == nul);
  CHECK(rb->recall.realms == std::vector<std::string>{nul});
}
