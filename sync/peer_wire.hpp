// Sending and receiving peer messages on a ZeroMQ socket: the tag frame, then one PeerMessage
// (protocol/peer.capnp). A ROUTER's frames start with the routing id. Shared by the serving side
// and the sessions; each socket is still used by one thread only.
#pragma once

#include <optional>
#include <string>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "protocol/peer_codec.hpp"

namespace vasana {

// Returns false when the message could not be queued (no such peer, or its queue is full).
bool send_peer(zmq::socket_t& s, const PeerMessage& m, const std::string* routing_id = nullptr);

struct ReceivedPeer {
  std::string routing_id;  // ROUTER only
  std::string user_id;     // the sender's CURVE public key (Z85) as ZAP accepted it
  std::string address;     // ROUTER only: the sender's IP address ("Peer-Address"), "" if unknown
  Result<PeerMessage> message = Status::Corruption("nothing received");
  bool oversized = false;  // message failed: past a limit of protocol/peer_codec.hpp
};
// One message without waiting; nullopt when none is queued.
std::optional<ReceivedPeer> receive_peer(zmq::socket_t& s, bool router);

// The checks both sides make at hello: same cluster, protocol version and vector space.
// Returns the refusal to send (and count) when they differ.
std::optional<PeerRefused> check_peer_hello(const PeerHello& theirs, const PeerHello& ours);

}  // namespace vasana
