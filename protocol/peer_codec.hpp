// The peer protocol's messages as plain values, and their Cap'n Proto encoding (peer.capnp).
// Decoding untrusted bytes never throws: a malformed message is a Corruption status.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"

namespace vasana {

inline constexpr std::string_view kPeerTag = "vasana.peer.1";
inline constexpr uint16_t kPeerProtocolVersion = 1;

struct PeerHello {
  std::string cluster;
  InstanceId instance;
  uint16_t protocol_version = kPeerProtocolVersion;
  std::string vector_space;
  bool acks_wanted = true;  // the answering server's node counts acks (replicated:N)
};

// One writer's verified stream as a node holds it.
struct StreamHead {
  InstanceId writer;
  Seqno last_seqno;
  Hash256 last_hash{};
  Hlc last_ts;
  SegmentIndex segment;       // newest segment held
  uint64_t segment_bytes = 0; // its verified bytes (the whole file when sealed)
};

struct PeerAdvert {
  std::vector<StreamHead> heads;
  uint64_t sent_ms = 0;
};

struct PeerFetch {
  InstanceId writer;
  SegmentIndex segment;
  uint64_t offset = 0;
  uint32_t max_bytes = 0;
};

struct PeerChunk {
  InstanceId writer;
  SegmentIndex segment;
  uint64_t offset = 0;
  std::string bytes;
  bool sealed = false;   // bytes end with the segment's trailer
  bool missing = false;  // the sender does not hold the segment from that offset
};

struct PeerAck {
  std::vector<StreamHead> heads;  // writer and last_seqno: durable at the sender
};

struct PeerRefused {
  std::string reason;   // short, used as a metric label: "cluster id", "vector space", ...
  std::string message;  // for the log
};

struct PeerMessage {
  enum class Kind { hello, refused, advert, fetch, chunk, ack } kind = Kind::hello;
  PeerHello hello;
  PeerRefused refused;
  PeerAdvert advert;
  PeerFetch fetch;
  PeerChunk chunk;
  PeerAck ack;
};

std::string encode_peer_message(const PeerMessage& m);
Result<PeerMessage> decode_peer_message(std::string_view bytes);

PeerMessage peer_hello(PeerHello h);
PeerMessage peer_refused(std::string reason, std::string message);
PeerMessage peer_advert(PeerAdvert a);
PeerMessage peer_fetch(PeerFetch f);
PeerMessage peer_chunk(PeerChunk c);
PeerMessage peer_ack(PeerAck a);

}  // namespace vasana
