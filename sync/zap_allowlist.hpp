// The ZAP handler (ZeroMQ RFC 27) that decides which peers may connect: a CURVE client is
// accepted only when its public key is in the allowlist (DESIGN.md "Replication": a peer whose
// key is not allowed is refused).
//
// How ZeroMQ uses it: a socket with curve_server = 1 asks the ZAP handler of its own context,
// at "inproc://zeromq.zap.01", about every client that completes the CURVE handshake; the
// handler answers 200 (accept) or 400 (refuse, the connection is dropped before any message
// passes). An accepted connection's messages carry the client's Z85 public key as their
// "User-Id" property (zmq_msg_gets), so the server can tell which peer sent what.
//
// ORDER MATTERS: start the handler BEFORE any CURVE server socket of the context binds or
// accepts. libzmq 4.3 accepts every client whose handshake is valid when no ZAP handler is
// bound, whatever its key (ZMQ_ZAP_ENFORCE_DOMAIN, which would fail closed, is a draft option
// that Debian's libzmq 4.3.4 does not have). For the same reason keep the handler alive as long
// as such sockets exist, and destroy it before the context (the context must outlive it).
//
// One handler per context: a second one fails to bind (address in use).
//
// Policy: only the CURVE mechanism is accepted; PLAIN, and NULL sockets that set a zap_domain,
// are refused. A NULL socket without a zap_domain never asks (checked with libzmq 4.3.4), so a
// client endpoint sharing the context is unaffected. When Options::domain is non-empty, the
// request's ZAP domain must equal it (set the server socket's zmq::sockopt::zap_domain to the
// same value); with an empty domain, any domain is accepted.

//
// Threading: the handler owns one thread, which alone uses its REP socket. accepted() and
// refused() may be read from any thread. The log callback runs on the handler's thread while
// the handshake waits for the answer: it must be thread-safe and quick. set_allowed() replaces
// the allowlist from any thread (membership changes, sync/replicator.hpp); it decides the
// handshakes that follow, not connections already accepted (PeerServer checks those). The destructor stops the thread within about 100 ms (the thread polls with that
// timeout) and joins it; it never waits for a peer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "protocol/status.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace vasana {

class ZapAllowlist {
 public:
  struct Options {
    std::vector<std::string> allowed_public_keys;  // Z85, 40 characters each
    std::string domain;                            // "" = any ZAP domain
    // One line per refusal, naming the key (Z85, or "-" when the mechanism has none), the
    // peer address and the reason. Optional.
    std::function<void(const std::string&)> log;
  };

  // Binds the REP socket on "inproc://zeromq.zap.01" in ctx (in the calling thread, so the
  // handler is in place when this returns) and starts the thread. InvalidArgument for a key
  // that is not 40 characters of Z85 (the message names its position in the list); IoError
  // when the bind fails (another ZAP handler in this context, or ctx is terminated).
  static Result<std::unique_ptr<ZapAllowlist>> start(zmq::context_t& ctx, Options options);

  ~ZapAllowlist();
  ZapAllowlist(const ZapAllowlist&) = delete;
  ZapAllowlist& operator=(const ZapAllowlist&) = delete;

  // Replaces the allowlist; InvalidArgument (and the list kept) for a key that is not Z85.
  Status set_allowed(const std::vector<std::string>& keys);
  // Whether the key (canonical Z85, as a message's User-Id carries it) is allowed now.
  bool allows(const std::string& z85) const;

  // Answers 200 and 400 since start (a malformed request, answered 500, counts in neither).
  uint64_t accepted() const { return accepted_.load(std::memory_order_relaxed); }
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

  // The ZAP endpoint every libzmq context asks.
  static constexpr const char* kEndpoint = "inproc://zeromq.zap.01";

 private:
  struct Decision;
  ZapAllowlist(std::unordered_set<std::string> allowed, Options options);
  void run(std::unique_ptr<zmq::socket_t> socket);  // the thread's body
  Decision decide(const std::string& domain, const std::string& address, const std::string& mechanism,
                  const std::vector<std::string>& credentials) const;

  mutable std::mutex mutex_;
  std::unordered_set<std::string> allowed_;  // canonical Z85, under mutex_
  const std::string domain_;
  const std::function<void(const std::string&)> log_;
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace vasana
