// Who knocks on the peer port without getting in: a ZeroMQ socket monitor on the serving side's
// ROUTER, read by a thread of its own, that counts failed handshakes by reason and logs each with
// the remote address (rate-limited: sync/log_limiter.hpp, one line per address a minute).
//
// Reasons: "protocol" (not ZMTP 3 with CURVE: raw TCP, HTTP, a plain ZeroMQ socket, a broken
// CURVE handshake: libzmq closes the connection before its handshake is through), "auth" (the
// ZAP allowlist refused the key; logged by the allowlist, counted here as well), and "no-detail"
// (the connection ended mid-handshake: reset, closed, or the handshake timed out).
//
// The monitor does not take ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: with that event taken, libzmq
// 4.3.4 answers a message that fails CURVE's checks after the handshake (bytes altered on the
// way) by no longer reading the connection, and never closes it (the monitor's send clobbers
// errno, so the engine takes the failure for back-pressure); the peer's requests would vanish
// while its session still hears this node. Without it, libzmq closes such a connection, and a
// protocol failure in the handshake shows as a connection closed in its handshake ("protocol").
//
// Connections after their handshake: one that ends (closed by either end, after a message that
// failed CURVE's checks or broke ZMTP's framing here, or reset) counts as "dropped" for its peer
// in the LinkFailures given (side "port", sync/link_failures.hpp). The peer is what the serving
// thread noted for the connection's file descriptor from the messages it took (note_peer);
// "unknown" when none came.
//
// libzmq's events carry the bound endpoint, not the remote one, and a handshake event carries no
// connection: the remote address is read (getpeername) from the file descriptor of the ACCEPTED
// event and kept until that descriptor's DISCONNECTED; a handshake outcome is matched to the one
// connection still in its handshake, or, when several are, to the next of them that disconnects
// (a failed one first). A connection that libzmq closes before this thread reads its ACCEPTED
// event is logged without its address ("unknown address"); it is counted all the same.
//
// Threading: start() attaches the monitor on the caller's thread, which must own the router
// then; the destructor stops and joins the thread (within ~100 ms) and must run before the
// router is closed. failures() and note_peer() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "protocol/status.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace vasana {

class LinkFailures;

class PeerPortMonitor {
 public:
  using LogFn = std::function<void(const std::string&)>;

  // links (may be null) must outlive the monitor.
  static Result<std::unique_ptr<PeerPortMonitor>> start(zmq::context_t& ctx, zmq::socket_t& router, LogFn log,
                                                        LinkFailures* links = nullptr);
  ~PeerPortMonitor();
  PeerPortMonitor(const PeerPortMonitor&) = delete;
  PeerPortMonitor& operator=(const PeerPortMonitor&) = delete;

  // Failed handshakes since start, by reason.
  std::map<std::string, uint64_t> failures() const;
  // The connection on file descriptor fd (a message's ZMQ_SRCFD) belongs to peer (a label of
  // sync/link_failures.hpp); kept until that descriptor's DISCONNECTED.
  void note_peer(int fd, const std::string& peer);

  struct Impl;

 private:
  PeerPortMonitor() = default;
  void run();

  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace vasana
