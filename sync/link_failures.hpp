// Connections of peer links that failed, counted by peer, side and reason: what a node shows
// when the bytes of a peer link were garbled, refused or cut (NodeStatus::connection_failures,
// `vasana status`, vasana_peer_connection_failures_total).
//
// side: "session", the connection this node's session opened to the peer (a DEALER:
// sync/peer_session.hpp, its events read by sync/session_monitor.hpp); "port", a connection the
// peer opened to this node's peer port (the ROUTER: sync/peer_port_monitor.hpp).
//
// reason, from libzmq 4.3.4's socket monitor events:
//   handshake-protocol   (session) the CURVE handshake failed on bytes from the peer this end
//                        could not take (ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: garbled, not CURVE)
//   handshake-auth       (session) the peer's ZAP handler refused this node's key
//   handshake-no-detail  (session) the connection ended during the handshake: closed by the peer,
//                        which failed it on its side (garbled bytes, a wrong server key), or reset
//   message-corrupt      (session) after the handshake, a message failed CURVE's checks (its MAC,
//                        nonce order or framing): bytes altered on the way. libzmq then stops
//                        reading the connection without closing it; the session replaces its socket.
//   timed-out            (session) the session gave the connection up: the peer silent, or its
//                        hello unanswered, for peer_timeout (a hung peer, or bytes garbled so that
//                        libzmq waits for the rest of a frame that never ends)
//   dropped              the connection ended after the handshake: closed by the other end (after
//                        a failure there, a restart, or its session giving up on the link), reset
//                        on the way, or closed by this end's libzmq for bytes that broke ZMTP's
//                        framing or CURVE's checks (on the port every such case counts here:
//                        see sync/peer_port_monitor.hpp).
// The port's failed handshakes are counted by reason alone (NodeStatus::handshake_failures): a
// connection names no peer before its handshake is through.
//
// peer: the peer's configured address (PeerConfig::address, the label of every per-peer metric);
// on the port, the address configured for the key the connection authenticated with, "key:"
// and the key (Z85) for an allowed key of no configured peer, "unknown" for a connection that
// ended before its first message.
//
// Threading: add() and snapshot() may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "sync/replication_status.hpp"

namespace vasana {

class LinkFailures {
 public:
  void add(const std::string& peer, const std::string& side, const std::string& reason);
  // Every (peer, side, reason) counted so far, sorted.
  std::vector<ConnectionFailure> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> counts_;
};

}  // namespace vasana
