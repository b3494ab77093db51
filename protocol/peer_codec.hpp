// The peer protocol's messages as plain values, and their Cap'n Proto encoding (peer.capnp).
// Decoding untrusted bytes never throws: a malformed message, or one past the limits below, is a
// Corruption status.
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

// What one message may hold; decoding refuses more (a peer sending more is broken or hostile).
// An advert or an ack names at most this many writers' heads (a cluster of more writers is
// advertised in part: sync/peer_server.hpp).
inline constexpr size_t kMaxAdvertHeads = 4096;
// A hello, encoded, is at most this long: the cluster id and the vector space id fit in it
// (about 440 bytes together).
inline constexpr size_t kMaxHelloBytes = 512;
// A refusal's reason and message are each at most this long; peer_refused() cuts longer ones.
inline constexpr size_t kMaxRefusalTextBytes = 256;
// A chunk carries at most this many bytes: whatever a fetch asks, a server sends no more.
inline constexpr uint32_t kMaxPeerChunkBytes = 32u << 20;

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

// An advert carries at most this many of the sender's links (a larger list is refused as
// oversized; the sender names its first ones).
inline constexpr size_t kMaxAdvertReach = 256;

// How an advert's sender reaches one of its peers.
struct PeerReach {
  std::string public_key;  // Z85
  InstanceId instance;     // 0 until it said hello
  bool up = false;
  int64_t last_heard_ms = -1;  // -1: never
};

struct PeerAdvert {
  std::vector<StreamHead> heads;
  uint64_t sent_ms = 0;
  std::vector<PeerReach> reach;
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
// Corruption when bytes are not a well-formed message or exceed a limit above; *oversized (when
// given) tells which: true for a message past a limit.
Result<PeerMessage> decode_peer_message(std::string_view bytes, bool* oversized = nullptr);

PeerMessage peer_hello(PeerHello h);
// Reason and message cut to kMaxRefusalTextBytes (at a UTF-8 character boundary).
PeerMessage peer_refused(std::string reason, std::string message);
PeerMessage peer_advert(PeerAdvert a);
PeerMessage peer_fetch(PeerFetch f);
PeerMessage peer_chunk(PeerChunk c);
PeerMessage peer_ack(PeerAck a);

}  // namespace vasana
