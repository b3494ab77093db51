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
  // Frame by frame: a peer message has 2 frames (3 on a ROUTER); more are read and dropped, so a
  // sender cannot make this side hold an endless multipart message.
  const size_t keep = router ? 3 : 2;
  std::vector<zmq::message_t> frames;
  size_t count = 0;
  try {
    for (;;) {
      zmq::message_t m;
      // The first frame only if one is queued; the rest of a message is there with it.
      if (!s.recv(m, count == 0 ? zmq::recv_flags::dontwait : zmq::recv_flags::none)) return std::nullopt;
      ++count;
      const bool more = m.more();
      if (frames.size() < keep) frames.push_back(std::move(m));
      if (!more) break;
    }
  } catch (const zmq::error_t&) {
    if (frames.empty()) return std::nullopt;
  }
  ReceivedPeer r;
  size_t i = 0;
  if (router) {
    r.routing_id = frames[0].to_string();
    i = 1;
    // Only a CURVE server's messages carry the key ZAP accepted; cppzmq throws when it is absent.
    if (frames.size() > 1) {
      try {
        r.user_id = frames[1].gets("User-Id");
      } catch (const zmq::error_t&) {
      }
      try {
        r.address = frames[1].gets("Peer-Address");
      } catch (const zmq::error_t&) {
      }
    }
  }
  if (count != i + 2 || frames[i].to_string_view() != kPeerTag) {
    r.message = Status::Corruption("not a vasana peer message (wrong tag or " + std::to_string(count) + " frames)");
    return r;
  }
  r.message = decode_peer_message(frames[i + 1].to_string_view(), &r.oversized);
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
