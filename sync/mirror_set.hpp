// Every remote writer's copy on this node (sync/writer_mirror.hpp), shared by all peer sessions.
//
// A session that hears a peer's advert claims the fetches it should make: for each writer the
// peer holds further than this node, unless another session is already fetching that writer
// (one fetch in flight per writer, so two peers never send the same bytes twice over) or this
// peer sent bad bytes for it recently. deliver() verifies and stores a chunk, then applies its
// records (the apply function given at construction) in the writer's order, then moves the
// writer's head in StreamHeads, so what this node advertises is always already visible to
// recall here. A chunk that fails verification is refused, counted against its peer, and the
// writer is fetched from another peer for a while.
//
// Threading: every method may be called from any thread; one mutex serialises them (applying
// is serialised by the recall engine's write lock anyway).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "sync/stream_heads.hpp"
#include "sync/writer_mirror.hpp"

namespace vasana {

class MirrorSet {
 public:
  using ApplyFn = std::function<void(InstanceId writer, const std::vector<MirroredRecord>& records)>;
  // own: this node's writer, never fetched from a peer.
  MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply);

  // At start-up: a copy resumed from the node's scan.
  void add(std::unique_ptr<WriterMirror> mirror);

  // The fetches session should send now, given what its peer advertised. Each returned fetch
  // holds its writer until deliver() or release() for that writer by the same session.
  std::vector<PeerFetch> claim(uint64_t session, const std::vector<StreamHead>& advertised, uint32_t max_bytes);

  struct Delivery {
    size_t records = 0;   // applied
    uint64_t bytes = 0;   // stored
    bool refused = false; // failed verification: nothing stored or applied
    std::string problem;  // why, when refused or failed
  };
  // Stores and applies a chunk session fetched, and releases the writer. Errors: IoError when
  // the copy cannot be written (the node should stop replicating that writer and say so).
  // mid_write: read from a file its writer may be appending to (WriterMirror::accept).
  Result<Delivery> deliver(uint64_t session, const PeerChunk& chunk, bool mid_write = false);
  // Gives up session's claims (a lost connection, a fetch that timed out).
  void release(uint64_t session);

 private:
  struct Entry {
    std::unique_ptr<WriterMirror> mirror;
    uint64_t claimed_by = 0;  // session id; 0: free
    std::chrono::steady_clock::time_point claimed_at;
    std::map<uint64_t, std::chrono::steady_clock::time_point> shunned_until;  // by session
  };
  Entry& entry(InstanceId writer);  // creates an empty copy when new

  std::mutex mutex_;
  DataDir dir_;
  VectorSpace space_;
  InstanceId own_;
  StreamHeads* heads_;
  ApplyFn apply_;
  std::map<InstanceId, Entry> entries_;
};

}  // namespace vasana
