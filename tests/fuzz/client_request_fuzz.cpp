// Fuzz target: the body of a client request through the client codec (protocol/client_codec),
// as the node's client endpoint decodes every request before the gateway checks it.
//
// Input: the request body, the third frame of [routing id, "vasana.client.1", body]
// (corpus/client_request holds every request type as the CLI's encoder writes it).
//
// Invariants checked, beyond "no crash, no sanitizer report":
// - a request that decodes encodes back to a body that decodes to the same request:
//   encode(decode(encode(req))) is encode(req), byte for byte;
// - what it decodes into is at most a bounded multiple of its size (no amplification);
// - the identity it acts as (actingAs) and the front end it came through (via) are the whole
//   texts the message holds, not cut at a NUL;
// - the checks the node runs next (validate_memory, validate_recall, validate_list,
//   validate_analogy, check_realm) do not crash, and a remember that passes validate_memory
//   becomes a put_memory payload that validate_op accepts: the node never writes a record its
//   own reader would refuse.
#include "fuzz_check.hpp"
#include "protocol/capnp_bytes.hpp"
#include "protocol/client.capnp.h"
#include "protocol/client_codec.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/recall_input.hpp"

namespace vasana {
namespace {

void check_whole_texts(std::string_view body, const ClientRequest& r) {
  Status s = read_message<schema::ClientRequest>(body, [&](schema::ClientRequest::Reader raw) {
    FUZZ_CHECK(r.acting_as.size() == raw.getActingAs().size(), "actingAs cut from " +
                                                                  std::to_string(raw.getActingAs().size()) + " bytes");
    FUZZ_CHECK(r.via.size() == raw.getVia().size(), "via cut");
    return Status::Ok();
  });
  FUZZ_CHECK(s.ok(), "a decoded request does not read again: " + s.message());
}

void check_node_validation(const ClientRequest& r) {
  InputLimits limits;  // the node's defaults: 64 KiB of text
  using K = ClientRequest::Kind;
  switch (r.kind) {
    case K::remember:
      if (validate_memory(r.memory, limits).ok()) {
        const std::string payload = encode_put_memory(r.memory);
        Status s = validate_op(static_cast<uint16_t>(OpType::put_memory), payload);
        FUZZ_CHECK(s.ok(), "a remember that passed validate_memory makes a refused op: " + s.message());
      }
      break;
    case K::recall: (void)validate_recall(r.recall, limits, {}); break;
    case K::list: (void)validate_list(r.list); break;
    case K::analogy: (void)validate_analogy(r.analogy); break;
    case K::contradictions:
    case K::conflicts:
      for (const auto& realm : r.listed_realms) (void)check_realm(realm);
      break;
    default: break;
  }
}

}  // namespace
}  // namespace vasana

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vasana;
  const std::string_view body = fuzz::bytes_of(data, size);
  auto req = decode_request(body);
  if (!req.ok()) return 0;
  check_whole_texts(body, *req);
  check_node_validation(*req);
  const std::string encoded = encode_request(*req);
  // What a request decodes into is bounded by its size: a few hundred bytes never become
  // megabytes of facts or vector values (the node counts a request's bytes, not what it decodes to).
  FUZZ_CHECK(encoded.size() <= 16 * body.size() + 8192, "a request of " + std::to_string(body.size()) +
                                                            " bytes decodes into one of " + std::to_string(encoded.size()));
  auto again = decode_request(encoded);
  FUZZ_CHECK(again.ok(), "a decoded request, encoded again, does not decode: " + again.status().message());
  FUZZ_CHECK(encode_request(*again) == encoded, "decode(encode(request)) is not the request");
  return 0;
}
