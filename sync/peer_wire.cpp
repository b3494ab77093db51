#include "sync/peer_wire.hpp"

#include <array>
#include <vector>

namespace vasana {

bool send_peer(zmq::socket_t& s, const PeerMessage& m, const std::string* routing_id) {
  const std::string body = encode_peer_message(m);
  try {
    if (routing_id && !s.send(zmq::buffer(*routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait))
      return false;
    if (!s.send(zmq::buffer(kPeerTag.data(), kPeerTag.size()), zmq::send_flags::sndmore | zmq::send_flags::dontwait))
      return false;
    return s.send(zmq::buffer(body), zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t&) {
    return false;  // EHOSTUNREACH: the peer went away (router_mandatory)
  }
}

std::optional<ReceivedPeer> receive_peer(zmq::socket_t& s, bool router) {
  std::vector<zmq::message_t> frames;
  try {
    auto got = zmq::recv_multipart(s, std::back_inserter(frames), zmq::recv_flags::dontwait);
    if (!got) return std::nullopt;
  } catch (const zmq::error_t&) {
    return std::nullopt;
  }
  ReceivedPeer r;
  size_t i = 0;
  if (router) {
    if (frames.empty()) return r;
    r.routing_id = frames[0].to_string();
    i = 1;
  }
  if (frames.size() != i + 2 || frames[i].to_string_view() != kPeerTag) {
    r.message = Status::Corruption("not a vasana peer message (wrong tag or frame count)");
    return r;
  }
  // Only a CURVE server's messages carry the key ZAP accepted; cppzmq throws when it is absent.
  if (router) {
    try {
      r.user_id = frames[i + 1].gets("User-Id");
    } catch (const zmq::error_t&) {
    }
  }
  r.message = decode_peer_message(frames[i + 1].to_string_view());
  return r;
}

std::optional<PeerRefused> check_peer_hello(const PeerHello& theirs, const PeerHello& ours) {
  if (theirs.protocol_version != ours.protocol_version)
    return PeerRefused{"protocol version", "peer speaks peer protocol " + std::to_string(theirs.protocol_version) +
                                               ", this node " + std::to_string(ours.protocol_version)};
  if (theirs.cluster != ours.cluster)
    return PeerRefused{"cluster id", "peer is in cluster '" + theirs.cluster + "', this node in '" + ours.cluster + "'"};
  if (theirs.vector_space != ours.vector_space)
    return PeerRefused{"vector space", "peer uses vector space " + theirs.vector_space + ", this node " +
                                           ours.vector_space};
  if (theirs.instance == ours.instance)
    return PeerRefused{"same instance", "peer has this node's own writer instance " + to_hex(ours.instance) +
                                            " (a copied data directory?)"};
  return std::nullopt;
}

}  // namespace vasana
