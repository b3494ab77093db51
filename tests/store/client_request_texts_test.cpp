// The client codec reads a request as it was sent and no more: every text whole (the identity a
// request acts as and the front end it came through are not cut at a NUL, so that a name with a
// NUL inside matches no configured client instead of the one its first bytes name), and no list
// larger than the bytes that carry it.
#include <catch2/catch.hpp>

#include <capnp/any.h>
#include <capnp/message.h>

#include "protocol/capnp_bytes.hpp"
#include "protocol/client.capnp.h"
#include "protocol/client_codec.hpp"

using namespace vasana;

TEST_CASE("a request acting as a name with a NUL inside keeps the whole name and via") {
  // Found by tests/fuzz/client_request_fuzz.cpp: actingAs "alice\0admin" was read as "alice".
  const std::string as("alice\0admin", 11);
  const std::string via("http\0x", 6);
  capnp::MallocMessageBuilder mb;
  auto req = mb.initRoot<schema::ClientRequest>();
  req.setRequestId(9);
  req.setProtocolVersion(kClientProtocolVersion);
  req.setActingAs(text_of(as));
  req.setVia(text_of(via));
  req.setPing();
  auto d = decode_request(message_bytes(mb));
  REQUIRE(d.ok());
  CHECK(d->acting_as == as);
  CHECK(d->acting_as != "alice");
  CHECK(d->via == via);
  CHECK(d->via != "http");
  // Encoded again, the names stay whole.
  auto again = decode_request(encode_request(*d));
  REQUIRE(again.ok());
  CHECK(again->acting_as == as);
  CHECK(again->via == via);

  // Positive control: a plain name reads as it was sent.
  req.setActingAs("alice");
  req.setVia("http");
  auto plain = decode_request(message_bytes(mb));
  REQUIRE(plain.ok());
  CHECK(plain->acting_as == "alice");
  CHECK(plain->via == "http");
}

TEST_CASE("a request whose list claims millions of zero-sized facts is refused and not decoded into them") {
  // Found by tests/fuzz/client_request_fuzz.cpp: a list of zero-sized structs holds no bytes per
  // element, so a remember of a few hundred bytes decoded into 80 MB of facts (the node counts a
  // request's bytes against its in-flight budget, not what it decodes to).
  capnp::MallocMessageBuilder mb;
  auto req = mb.initRoot<schema::ClientRequest>();
  req.setRequestId(5);
  req.setProtocolVersion(kClientProtocolVersion);
  auto put = req.initRemember();
  put.setRealm("r");
  put.setText("t");
  auto opts = req.initRememberOptions();
  auto opts_any = capnp::toAny(opts);
  // facts (@2) is RememberOptions' second pointer: a list of 2^19 structs of no words (within
  // the traversal limit of a 64 MiB message, far past that of one of a few hundred bytes).
  opts_any.getPointerSection()[1].initAsListOfAnyStruct(0, 0, 1u << 19);
  const std::string body = message_bytes(mb);
  REQUIRE(body.size() < 512);
  auto d = decode_request(body);
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.status().message(), Catch::Contains("traversal limit"));

  // Positive controls: the same list with the facts a remember may carry decodes, and so does a
  // request near the client's 64 KiB text limit.
  opts_any.getPointerSection()[1].initAsListOfAnyStruct(0, 0, 8);
  auto few = decode_request(message_bytes(mb));
  REQUIRE(few.ok());
  CHECK(few->remember_options.facts.size() == 8);
  ClientRequest big;
  big.kind = ClientRequest::Kind::remember;
  big.memory.realm = "r";
  big.memory.text = std::string(64 * 1024, 'x');
  big.memory.tags = std::vector<std::string>(64, "tag");
  big.remember_options.facts = std::vector<FactInput>(64, FactInput{"s", "p", "o", 1, 2});
  auto back = decode_request(encode_request(big));
  REQUIRE(back.ok());
  CHECK(back->memory.text.size() == 64 * 1024);
  CHECK(back->remember_options.facts.size() == 64);
}

TEST_CASE("a write naming more facts than a write may carry is refused at decode, not decoded into them") {
  // Found by tests/fuzz/client_request_fuzz.cpp: within the traversal limit, a list of a few
  // hundred zero-sized facts in a request of 1,400 bytes still decoded into 31 KB.
  capnp::MallocMessageBuilder mb;
  auto req = mb.initRoot<schema::ClientRequest>();
  req.setRequestId(6);
  req.setProtocolVersion(kClientProtocolVersion);
  auto put = req.initRemember();
  put.setRealm("r");
  put.setText(std::string(1000, 't'));  // room in the traversal limit for the list
  auto opts_any = capnp::toAny(req.initRememberOptions());
  opts_any.getPointerSection()[1].initAsListOfAnyStruct(0, 0, 100);
  const std::string body = message_bytes(mb);
  REQUIRE(body.size() < 1500);
  auto d = decode_request(body);
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.status().message(), Catch::Contains("too many facts: 100; the limit is 64"));

  // The limit itself decodes (positive control); one more does not, for an update too.
  opts_any.getPointerSection()[1].initAsListOfAnyStruct(0, 0, kMaxFacts);
  auto at_limit = decode_request(message_bytes(mb));
  REQUIRE(at_limit.ok());
  CHECK(at_limit->remember_options.facts.size() == kMaxFacts);
  ClientRequest update;
  update.kind = ClientRequest::Kind::update;
  update.update.memory = MemoryId{InstanceId{1}, Seqno{1}};
  update.update.has_text = true;
  update.update.text = "t";
  update.update.facts = std::vector<FactInput>(kMaxFacts + 1, FactInput{"s", "p", "o", 1, 2});
  auto refused = decode_request(encode_request(update));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("too many facts"));
  update.update.facts.pop_back();
  CHECK(decode_request(encode_request(update)).ok());
}
