// Fuzz target: a peer message through the peer codec (protocol/peer_codec), as a peer link
// (sync/peer_wire) decodes every frame it receives; a chunk's bytes then go through the segment
// reader as a peer's continuation.
//
// Input: the message body (corpus/peer_message holds every message kind as the real encoder
// writes it, chunks carrying real segment bytes).
//
// Invariants checked, beyond "no crash, no sanitizer report":
// - a message that decodes is within the limits of peer_codec.hpp (heads, hello size, refusal
//   texts, chunk bytes), and a refusal says "oversized" only with an error;
// - a hello's cluster and vector space are the whole texts the message holds, not cut at a NUL;
// - a message that decodes encodes back to a message that decodes to the same one:
//   encode(decode(encode(m))) is encode(m), byte for byte;
// - a chunk's bytes scan as a continuation without crashing.
#include "fuzz_check.hpp"
#include "protocol/capnp_bytes.hpp"
#include "protocol/peer.capnp.h"
#include "protocol/peer_codec.hpp"
#include "store/segment_reader.hpp"

namespace vasana {
namespace {

void check_whole_texts(std::string_view body, const PeerMessage& m) {
  if (m.kind != PeerMessage::Kind::hello) return;
  Status s = read_message<schema::PeerMessage>(body, [&](schema::PeerMessage::Reader raw) {
    FUZZ_CHECK(m.hello.cluster.size() == raw.getHello().getCluster().size(),
               "cluster cut from " + std::to_string(raw.getHello().getCluster().size()) + " bytes");
    FUZZ_CHECK(m.hello.vector_space.size() == raw.getHello().getVectorSpace().size(), "vector space cut");
    return Status::Ok();
  });
  FUZZ_CHECK(s.ok(), "a decoded message does not read again: " + s.message());
}

void check_limits(std::string_view body, const PeerMessage& m) {
  using K = PeerMessage::Kind;
  switch (m.kind) {
    case K::hello: FUZZ_CHECK(body.size() <= kMaxHelloBytes, "hello size"); break;
    case K::refused:
      FUZZ_CHECK(m.refused.reason.size() <= kMaxRefusalTextBytes && m.refused.message.size() <= kMaxRefusalTextBytes,
                 "refusal text size");
      break;
    case K::advert: FUZZ_CHECK(m.advert.heads.size() <= kMaxAdvertHeads, "advert heads"); break;
    case K::ack: FUZZ_CHECK(m.ack.heads.size() <= kMaxAdvertHeads, "ack heads"); break;
    case K::chunk: {
      FUZZ_CHECK(m.chunk.bytes.size() <= kMaxPeerChunkBytes, "chunk size");
      SegmentContinuation at{m.chunk.writer, Seqno(1), Hash256{}, Hlc(0), 0};
      (void)scan_continuation(m.chunk.bytes, at, /*cut=*/true);
      break;
    }
    case K::fetch: break;
  }
}

}  // namespace
}  // namespace vasana

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vasana;
  const std::string_view body = fuzz::bytes_of(data, size);
  bool oversized = false;
  auto m = decode_peer_message(body, &oversized);
  if (!m.ok()) return 0;
  FUZZ_CHECK(!oversized, "oversized set on a message that decoded");
  check_limits(body, *m);
  check_whole_texts(body, *m);
  const std::string encoded = encode_peer_message(*m);
  bool again_oversized = false;
  auto again = decode_peer_message(encoded, &again_oversized);
  // A hello within the limit may hold its texts once for two fields (two pointers to the same
  // bytes); written out, each has its own copy and may pass the limit.
  if (!again.ok() && again_oversized && m->kind == PeerMessage::Kind::hello) return 0;
  FUZZ_CHECK(again.ok(), "a decoded message, encoded again, does not decode: " + again.status().message());
  FUZZ_CHECK(encode_peer_message(*again) == encoded, "decode(encode(message)) is not the message");
  return 0;
}
