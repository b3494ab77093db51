// What happens to the connection of one session's DEALER (sync/peer_session.hpp), read from its
// ZeroMQ socket monitor: each connection that failed, with its reason (sync/link_failures.hpp).
//
// A DEALER connected to one endpoint has at most one connection at a time, so the events need
// no matching: CONNECTED starts one, HANDSHAKE_SUCCEEDED makes it established, a handshake event
// (failed: protocol, auth, no detail) before that fails it, and DISCONNECTED ends it. After the
// handshake, libzmq 4.3.4 reports a message that fails CURVE's checks as
// HANDSHAKE_FAILED_PROTOCOL (value ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC for a MAC that does not
// verify) and, while a monitor takes that event, leaves the connection open with its reading side
// stopped (no DISCONNECTED follows): the owner must replace the socket ("message-corrupt").
// An established connection that ends without such an event is "dropped".
//
// Threading: attach() may run on any thread; the monitor is then used by the thread that owns
// the DEALER, and must be destroyed (it stops monitoring) before the DEALER is closed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace vasana {

class SessionMonitor {
 public:
  struct Failure {
    std::string reason;  // a reason of sync/link_failures.hpp
    std::string detail;  // for the log
  };

  // Monitors dealer, which must not have connected yet (its first events would be lost).
  static Result<std::unique_ptr<SessionMonitor>> attach(zmq::context_t& ctx, zmq::socket_t& dealer);
  ~SessionMonitor();
  SessionMonitor(const SessionMonitor&) = delete;
  SessionMonitor& operator=(const SessionMonitor&) = delete;

  // The socket to poll for ZMQ_POLLIN (a zmq_pollitem_t's socket): events are waiting.
  void* pollable() const;
  // Reads the waiting events without blocking; the connection failures they tell, in order.
  std::vector<Failure> drain();

 private:
  SessionMonitor() = default;
  void on_event(uint16_t event, uint32_t value, std::vector<Failure>* out);

  zmq::socket_t* dealer_ = nullptr;
  std::unique_ptr<zmq::socket_t> pair_;
  bool connected_ = false;    // a connection exists (CONNECTED, not yet DISCONNECTED)
  bool established_ = false;  // its handshake succeeded
  bool failed_ = false;       // a failure of it was reported already
};

}  // namespace vasana
