// Every remote writer's copy on this node (sync/writer_mirror.hpp), shared by all peer sessions.
//
// A session that hears a peer's advert claims the fetches it should make: for each writer the
// peer holds further than this node, unless another session is already fetching that writer
// (one fetch in flight per writer, so two peers never send the same bytes twice over) or this
// peer sent bad bytes for it recently. deliver() verifies and writes a chunk, then applies its
// records (the apply function given at construction) in the writer's order, and returns. A peer
// session does the same in two steps (store(), then apply()) and sends its next fetch for the
// writer in between, so the next chunk travels while this one is applied. A syncer thread of this set then fdatasyncs every copy written
// since its last round (one sync for however many chunks came meanwhile: group commit) and only
// then moves the writer's head in StreamHeads. So what this node advertises or acknowledges is
// always durable here and already visible to recall, while a peer's fdatasync (0.3 ms typically,
// tens of ms when the disk stalls) is not on the path from the origin's acknowledgement to
// recall here. Applying before the local sync loses nothing: the origin acknowledged those ops
// only once they were durable there, and a node that dies before its sync fetches them again.
// A chunk that fails verification is refused, counted against its peer, and the writer is
// fetched from another peer for a while. A copy that cannot be written or synced (IoError) is
// no longer fetched into until the node restarts; it is logged.
//
// Threading: every method may be called from any thread; one mutex serialises them, except that
// apply() applies outside it (the recall engine's write lock serialises applying anyway; a
// writer held between store() and apply() keeps its own records in order). The syncer syncs
// outside it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sync/stream_heads.hpp"
#include "sync/writer_mirror.hpp"

namespace vasana {

class MirrorSet {
 public:
  using ApplyFn = std::function<void(InstanceId writer, const std::vector<MirroredRecord>& records)>;
  using LogFn = std::function<void(const std::string&)>;
  // own: this node's writer, never fetched from a peer. Starts the syncer thread.
  MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply, LogFn log = nullptr);
  // Syncs what is still unsynced, then stops the syncer.
  ~MirrorSet();
  MirrorSet(const MirrorSet&) = delete;
  MirrorSet& operator=(const MirrorSet&) = delete;

  // At start-up: a copy resumed from the node's scan.
  void add(std::unique_ptr<WriterMirror> mirror);

  // The fetches session should send now, given what its peer advertised. Each returned fetch
  // holds its writer until deliver() or release() for that writer by the same session.
  std::vector<PeerFetch> claim(uint64_t session, const std::vector<StreamHead>& advertised, uint32_t max_bytes);

  struct Delivery {
    size_t records = 0;   // applied
    uint64_t bytes = 0;   // written (synced soon after, by the syncer)
    bool refused = false; // failed verification: nothing stored or applied
    std::string problem;  // why, when refused or failed
  };
  // Stores and applies a chunk session fetched (or its peer pushed: the live tail), and releases
  // the writer when it answers the session's claimed fetch. Errors: IoError when
  // the copy cannot be written (the node should stop replicating that writer and say so).
  // mid_write: read from a file its writer may be appending to (WriterMirror::accept).
  // The same as store() and then apply().
  Result<Delivery> deliver(uint64_t session, const PeerChunk& chunk, bool mid_write = false);

  // deliver() in two steps, so that a session can ask for its next chunk while this one is
  // applied (a catch-up's fetch round trip overlaps applying). store() verifies and writes the
  // chunk and releases the claim like deliver(); when it kept records (stored->records non-empty)
  // the writer stays held for session until apply(): other sessions neither claim it nor store
  // into it (their chunks for it are stale), and the syncer leaves it alone, so heads still move
  // only past applied ops. The same session may claim it meanwhile: its next fetch. Every stored
  // chunk with records must be followed by apply() on the same thread before the next store()
  // for that writer.
  struct Stored {
    Delivery delivery;
    std::vector<MirroredRecord> records;  // to apply
  };
  Result<Stored> store(uint64_t session, const PeerChunk& chunk, bool mid_write = false);
  void apply(uint64_t session, InstanceId writer, const std::vector<MirroredRecord>& records);
  // Gives up session's claims (a lost connection, a fetch that timed out).
  void release(uint64_t session);
  // Waits until everything delivered before the call is synced and its heads moved (or failed).
  void flush();

 private:
  struct Entry {
    std::unique_ptr<WriterMirror> mirror;
    uint64_t claimed_by = 0;  // session id; 0: free
    std::chrono::steady_clock::time_point claimed_at;
    PeerFetch claimed;  // what the claim asked for
    std::map<uint64_t, std::chrono::steady_clock::time_point> shunned_until;  // by session
    uint64_t applying = 0;  // session between store() and apply(); 0: none
    bool dirty = false;   // written since the syncer last looked
    std::string failed;   // why the copy could not be written or synced; never fetched into again
  };
  Entry& entry(InstanceId writer);  // creates an empty copy when new
  void sync_loop();

  std::mutex mutex_;
  DataDir dir_;
  VectorSpace space_;
  InstanceId own_;
  StreamHeads* heads_;
  ApplyFn apply_;
  LogFn log_;
  std::map<InstanceId, Entry> entries_;
  std::vector<InstanceId> dirty_;       // entries with dirty set
  uint64_t written_rounds_ = 0;         // deliveries that wrote bytes
  uint64_t synced_rounds_ = 0;          // of which synced (or failed) with their heads moved
  bool stopping_ = false;
  std::condition_variable sync_wanted_;  // dirty_ non-empty or stopping_
  std::condition_variable synced_;       // synced_rounds_ moved
  std::thread syncer_;                   // last: started once everything above exists
};

}  // namespace vasana
