// The serving side of replication: one ROUTER socket (CurveZMQ server; the ZAP allowlist has
// already refused unknown keys before a message gets here) and the thread that owns it.
//
// For each peer that said an acceptable hello it sends this node's version vector (StreamHeads)
// at once, whenever a head moves (the live tail: the writer's flush or a mirror's store wakes
// the thread through StreamHeads' eventfd), and every advert_interval (anti-entropy: a lost
// message is repaired by the next one). It answers fetches with bytes of any writer's segment
// it holds, never past that writer's head, so only verified, durable bytes leave the node;
// sealed segments below the head are served whole. A peer whose last chunk of a writer ended at
// the head then (it is level: the live tail) is sent the new bytes of that writer's open segment
// unasked, just before the advert, so it needs no fetch round trip (at most 256 KiB per move;
// a new segment, or a peer behind, is left to its fetches). Acks from peers go to the ack
// callback.
//
// Threading: start() spawns the thread; the destructor stops and joins it (within ~100 ms).
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

  // Binds options.listen as a CURVE server with secret_key. The ZAP handler of ctx must be
  // running already. IoError when the bind fails.
  static Result<std::unique_ptr<PeerServer>> start(zmq::context_t& ctx, const SyncOptions& options, PeerHello ours,
                                                   DataDir dir, const StreamHeads* heads, LogFn log, AckFn ack,
                                                   RefuseFn refuse);
  ~PeerServer();

  std::string endpoint() const { return endpoint_; }  // as bound (the port when it was 0)
  uint64_t fetches_served() const { return fetches_.load(); }
  uint64_t bytes_served() const { return bytes_.load(); }
  uint64_t tails_pushed() const { return pushes_.load(); }

 private:
  PeerServer() = default;
  void run();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string endpoint_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> fetches_{0}, bytes_{0}, pushes_{0};
  std::thread thread_;
};

// Reads up to max bytes of segment `segment` of writer from offset, as far as head allows:
// below the head's segment the whole (sealed) file, in it head.segment_bytes. Used by the
// serving side; public for tests.
PeerChunk read_chunk(const DataDir& dir, const std::optional<StreamHead>& head, const PeerFetch& fetch,
                     uint32_t max_bytes);

}  // namespace vasana
