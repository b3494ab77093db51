// The client codec reads every text of a request whole: the identity a request acts as and the
// front end it came through are not cut at a NUL, so that a name with a NUL inside matches no
// configured client instead of the one its first bytes name.
#include <catch2/catch.hpp>

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
