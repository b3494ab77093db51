// One link to one configured peer: a DEALER socket (CurveZMQ client, pinned to the peer's
// public key) and the thread that owns it. It says hello, follows the peer's adverts, fetches
// what this node lacks (through MirrorSet, which stores and applies it) and acks what it
// stored. ZeroMQ reconnects by itself with backoff (100 ms doubling to 5 s) when the connection
// breaks. A peer that stops answering while the connection stays (a paused or hung process) is
// noticed by silence: a session up and silent for peer_timeout (the server advertises at least
// every advert_interval), or a hello unanswered for peer_timeout, marks it down (status: up
// false, last_heard growing), releases its claims (another peer may serve those writers) and
// replaces the socket, dropping what was queued for the old connection; hello is said again on
// the new one. So is a socket that has had no connection for max(peer_timeout, 5 s): libzmq
// never retries a connection that failed with a protocol error (a CURVE handshake garbled on the
// way), and a peer that is down only gets a new socket now and then. A refusal at hello is
// logged and counted, and retried after 5 s (a misconfigured peer may be fixed without
// restarting this node).
// Limits (sync/peer_limits.hpp): the socket takes no frame over kMaxSessionMessageBytes (libzmq
// drops the connection and reconnects); a message that does not decode or exceeds a per-kind
// limit is counted (bad-message callback), logged (at most once a minute per peer), and the
// socket is replaced. So is it when the peer refuses this node's message as bad.
//
// Threading: start() spawns the thread; the destructor stops and joins it. status() may be
// called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/peer_codec.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replication_status.hpp"
#include "sync/sync_options.hpp"

namespace zmq {
class context_t;
}

namespace vasana {

class PeerSession {
 public:
  using LogFn = std::function<void(const std::string&)>;
  using RefuseFn = std::function<void(const std::string& reason)>;
  // Messages that could not be taken, by reason ("malformed", "oversized").
  using BadMessageFn = std::function<void(const std::string& reason)>;

  // id: unique among this node's sessions (non-zero), used for MirrorSet claims.
  // InvalidArgument for a bad peer address, or when ours does not fit a hello (kMaxHelloBytes).
  static Result<std::unique_ptr<PeerSession>> start(zmq::context_t& ctx, uint64_t id, PeerConfig peer,
                                                    const SyncOptions& options, PeerHello ours,
                                                    const std::string& public_key, MirrorSet* mirrors,
                                                    const StreamHeads* heads, LogFn log, RefuseFn refuse,
                                                    BadMessageFn bad = nullptr);
  ~PeerSession();

  // The peer's state and, per writer it advertised, how far this node is behind it.
  PeerStatus status() const;

 private:
  PeerSession() = default;
  void run();

  struct Impl;
  struct Loop;  // run()'s state, one method per step (peer_session.cpp)
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace vasana
