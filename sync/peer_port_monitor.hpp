// Who knocks on the peer port without getting in: a ZeroMQ socket monitor on the serving side's
// ROUTER, read by a thread of its own, that counts failed handshakes by reason and logs each with
// the remote address (rate-limited: sync/log_limiter.hpp, one line per address a minute).
//
// Reasons: "protocol" (not ZMTP 3 with CURVE: raw TCP, HTTP, a plain ZeroMQ socket, a broken
// CURVE handshake; libzmq closes some of these without a handshake event, which counts here too),
// "auth" (the ZAP allowlist refused the key; logged by the allowlist, counted here as well), and
// "no-detail" (the connection ended mid-handshake: reset, closed, or the handshake timed out).
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
// router is closed. failures() may be called from any thread.
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

class PeerPortMonitor {
 public:
  using LogFn = std::function<void(const std::string&)>;

  static Result<std::unique_ptr<PeerPortMonitor>> start(zmq::context_t& ctx, zmq::socket_t& router, LogFn log);
  ~PeerPortMonitor();
  PeerPortMonitor(const PeerPortMonitor&) = delete;
  PeerPortMonitor& operator=(const PeerPortMonitor&) = delete;

  // Failed handshakes since start, by reason.
  std::map<std::string, uint64_t> failures() const;

  struct Impl;

 private:
  PeerPortMonitor() = default;
  void run();

  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace vasana
