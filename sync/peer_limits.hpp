// How large a message each side of a peer link takes (ZMQ_MAXMSGSIZE), derived from the largest
// message it legitimately receives. libzmq drops a connection that sends a larger frame at once,
// before any of it is buffered; what passes is still checked against the per-kind limits of
// protocol/peer_codec.hpp when decoded (sync/peer_server.hpp, sync/peer_session.hpp).
#pragma once

#include <chrono>
#include <cstdint>

#include "protocol/peer_codec.hpp"

namespace vasana {

// Room for everything around a payload: the Cap'n Proto segment table, pointers and structs of
// a PeerMessage (under 200 bytes), and CurveZMQ's MESSAGE command around each frame (33 bytes).
inline constexpr int64_t kPeerFramingBytes = 64 << 10;

// A stream head in an advert or an ack: a struct of 5 data words and 1 pointer, plus its 32-byte
// hash.
inline constexpr int64_t kEncodedHeadBytes = 6 * 8 + 32;

// A session (DEALER) receives hellos, refusals, adverts and chunks; the largest is a chunk.
inline constexpr int64_t kMaxSessionMessageBytes = int64_t(kMaxPeerChunkBytes) + kPeerFramingBytes;
// A peer link in an advert: a struct of 3 data words and 1 pointer, plus its key text.
inline constexpr int64_t kEncodedReachBytes = 4 * 8 + int64_t(kMaxRefusalTextBytes) + 8;
static_assert(int64_t(kMaxAdvertHeads) * kEncodedHeadBytes + int64_t(kMaxAdvertReach) * kEncodedReachBytes +
                  kPeerFramingBytes <=
              kMaxSessionMessageBytes);

// The serving side (ROUTER) receives hellos, fetches and acks; the largest is an ack naming
// kMaxAdvertHeads heads (320 KiB).
inline constexpr int64_t kMaxServerMessageBytes = 1 << 20;
static_assert(int64_t(kMaxAdvertHeads) * kEncodedHeadBytes + kPeerFramingBytes <= kMaxServerMessageBytes);
static_assert(int64_t(kMaxHelloBytes) + kPeerFramingBytes <= kMaxServerMessageBytes);

// A connection that sent the serving side a message it cannot decode is refused ("bad message")
// and everything else it sends is dropped unread for this long.
inline constexpr auto kBadPeerMute = std::chrono::seconds(60);

}  // namespace vasana
