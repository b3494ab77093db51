// The serving side of replication: one ROUTER socket (CurveZMQ server; the ZAP allowlist has
// already refused unknown keys before a message gets here) and the thread that serves it.
//
// It answers fetches with bytes of any writer's segment it holds, never past that writer's head,
// so only verified, durable bytes leave the node; sealed segments below the head are served
// whole.
// - the live tail: when this node's own writer's head moves, a peer whose last chunk of that
//   writer ended at the head then (it is level) is sent the new bytes of the open segment
//   unasked, so it needs no fetch round trip (at most 256 KiB per move; a new segment, or a
//   peer behind, is left to its fetches). The push leaves from the thread that moved the head
//   (the writer's, right after its fdatasync: StreamHeads::on_move), one thread switch less on
//   the path from the origin's fdatasync to a peer's recall; it only tries the lock, and when
//   the serving thread holds it (answering a fetch, say) that thread is woken to push instead.
//   Other writers' copies are never pushed: in a mesh each peer has them from their origin
//   already, and a second copy would arrive stale.
// - adverts (this node's version vector) go to each peer that was accepted at hello only with
//   news it has not had (neither in its last advert nor in a chunk that reached the head): at
//   once for this node's own writer (the pushing thread wakes the serving thread for a peer
//   that was not level), at most every 5 ms for other writers' copies (for a peer that cannot
//   reach their origin: it fetches them from here; their moves wake the serving thread through
//   StreamHeads' eventfd while no relay advert is being paced), never for the peer's own
//   writer; and to every peer every advert_interval (anti-entropy: a lost message is repaired
//   by the next one). A peer level with the live tail thus gets no advert per write, and the
//   serving thread does not wake for it.
// Acks from peers go to the ack callback; the hello this server answers with (ours) says
// whether it wants any (PeerHello::acks_wanted).
// Limits (sync/peer_limits.hpp): the socket takes no frame over kMaxServerMessageBytes (libzmq
// drops the connection); a message that does not decode, or exceeds a per-kind limit, is counted
// (bad-message callback: "malformed" or "oversized"), logged with the sender's address (at most
// once a minute per address), answered with a refusal "bad message", and its connection is
// forgotten and ignored for kBadPeerMute (a ROUTER cannot close one connection; a vasana session
// drops its socket and reconnects on that refusal). An advert names at most kMaxAdvertHeads
// writers: this node's own first. Failed handshakes on the port are counted and logged by a
// PeerPortMonitor (sync/peer_port_monitor.hpp).
//
// Threading: start() spawns the thread; the destructor stops and joins it (within ~100 ms).
// The socket is used by that thread and by the live tail's pushing thread, under one mutex
// (the serving thread waits on the socket's file descriptor, not in zmq_poll on the socket).
// Counters may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "protocol/peer_codec.hpp"
#include "store/data_dir.hpp"
#include "sync/stream_heads.hpp"
#include "sync/sync_options.hpp"

namespace zmq {
class context_t;
}

namespace vasana {

class PeerServer {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // Called on the server's thread for every ack: the peer (instance) has made writer's ops up
  // to seqno durable.
  using AckFn = std::function<void(InstanceId peer, InstanceId writer, Seqno seqno)>;
  // Refusals by reason, kept by the caller (shared with the sessions).
  using RefuseFn = std::function<void(const std::string& reason)>;
  // Messages that could not be taken, by reason ("malformed", "oversized"), kept by the caller.
  using BadMessageFn = std::function<void(const std::string& reason)>;
  // Whether a CurveZMQ key (Z85) may still talk to this node (the ZAP allowlist's answer now).
  using KeyCheckFn = std::function<bool(const std::string& z85)>;

  // Binds options.listen as a CURVE server with secret_key. The ZAP handler of ctx must be
  // running already. allowed (optional) is asked for every message: one from a key it no
  // longer allows (a removed member) is refused with reason "removed", and its connection
  // forgotten and ignored. IoError when the bind fails; InvalidArgument when ours does not fit a hello
  // (kMaxHelloBytes: the cluster id and vector space id are too long).
  static Result<std::unique_ptr<PeerServer>> start(zmq::context_t& ctx, const SyncOptions& options, PeerHello ours,
                                                   DataDir dir, const StreamHeads* heads, LogFn log, AckFn ack,
                                                   RefuseFn refuse, BadMessageFn bad = nullptr,
                                                   KeyCheckFn allowed = nullptr);
  ~PeerServer();

  std::string endpoint() const { return endpoint_; }  // as bound (the port when it was 0)
  // What adverts say of this node's own links (sync/replicator.hpp); none until set. Any thread.
  using ReachFn = std::function<std::vector<PeerReach>()>;
  void set_reach(ReachFn reach);
  // Forgets the connections of keys allowed() no longer allows, so that nothing more is pushed
  // or advertised to them (any thread; after the allowlist changed).
  void drop_disallowed();
  uint64_t fetches_served() const { return fetches_.load(); }
  uint64_t bytes_served() const { return bytes_.load(); }
  uint64_t tails_pushed() const { return pushes_.load(); }
  uint64_t adverts_sent() const { return adverts_.load(); }
  uint64_t acks_received() const { return acks_.load(); }
  // Failed handshakes on the port since start, by reason (sync/peer_port_monitor.hpp).
  std::map<std::string, uint64_t> handshake_failures() const;

 private:
  PeerServer() = default;
  void run();

  struct Impl;
  struct Loop;  // run()'s state, one method per step (peer_server.cpp)
  std::unique_ptr<Impl> impl_;
  std::string endpoint_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> fetches_{0}, bytes_{0}, pushes_{0}, adverts_{0}, acks_{0};
  std::thread thread_;
};

// Reads up to max bytes of segment `segment` of writer from offset, as far as head allows:
// below the head's segment the whole (sealed) file, in it head.segment_bytes. Used by the
// serving side; public for tests.
PeerChunk read_chunk(const DataDir& dir, const std::optional<StreamHead>& head, const PeerFetch& fetch,
                     uint32_t max_bytes);

}  // namespace vasana
