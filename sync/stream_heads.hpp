// The version vector a node advertises: per writer, how far its verified copy of that writer's
// stream reaches (protocol/peer_codec.hpp StreamHead). The own writer's entry moves when the
// writer makes records durable or seals a segment; a mirrored writer's when a verified chunk
// has been stored. The serving side sends only bytes below these heads, so nothing unverified
// or not yet durable ever leaves the node.
//
// Threading: every method may be called from any thread. wait_changed() lets a thread sleep until
// a head moves; subscribe() gives a thread that polls sockets its own eventfd for the same (the
// serving side sends adverts on it: the live tail; a peer session sends acknowledgements).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "protocol/peer_codec.hpp"

namespace vasana {

class StreamHeads {
 public:
  StreamHeads();
  ~StreamHeads();
  StreamHeads(const StreamHeads&) = delete;
  StreamHeads& operator=(const StreamHeads&) = delete;

  // Records head for its writer when it is ahead of what is held (a later seqno, or the same
  // seqno in a later segment or with more bytes: a seal). Returns whether it moved.
  bool update(const StreamHead& head);
  std::optional<StreamHead> get(InstanceId writer) const;
  std::vector<StreamHead> all() const;  // by writer
  // Increases with every move.
  uint64_t version() const;
  // Returns the version once it differs from seen, or after timeout.
  uint64_t wait_changed(uint64_t seen, std::chrono::milliseconds timeout) const;
  // A new eventfd (owned here, closed with this object) that becomes readable whenever a head
  // moves, for one thread that polls sockets too (zmq_poll). Each caller gets its own, so
  // one reader draining it never hides a move from another. -1 when the kernel refuses one.
  // Const: it changes who is told, not what is held.
  int subscribe() const;
  // Which moves make fd (from subscribe()) readable from now on: writer's when writer_moves,
  // every other writer's when others_moves. subscribe() starts with every move. A thread wakes
  // only for what it acts on: the serving side for other writers' moves, and only while it is
  // not pacing relay adverts (its own writer's moves reach it through on_move()); a peer
  // session only for its peer's writer, and only when that peer asked for acknowledgements.
  // Each wake-up is a thread switch per op on every node. Moves no longer reported are not
  // queued: a subscriber that widens its watch reads the heads afterwards.
  void watch(int fd, InstanceId writer, bool writer_moves, bool others_moves) const;
  // Calls fn with every move of writer's head, on the thread that moved it, after the move is
  // visible to get() and the subscribers have been told: the serving side pushes the live tail
  // from the writer's own thread this way, one thread switch less per op. fn must be quick,
  // must not block (it may try a lock), and must not update these heads. Returns a handle for
  // cancel().
  using MoveFn = std::function<void(const StreamHead&)>;
  uint64_t on_move(InstanceId writer, MoveFn fn) const;  // const: as subscribe()
  // Removes a callback; once it returns, the callback is not running and will not run again.
  void cancel(uint64_t handle) const;
  // Empties a subscribed fd's counter without blocking.
  static void drain(int fd);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<InstanceId, StreamHead> heads_;
  uint64_t version_ = 0;
  struct Subscriber {
    int fd;
    InstanceId writer;  // watch()
    bool writer_moves;
    bool others_moves;
  };
  mutable std::vector<Subscriber> subscribers_;  // subscribe(); guarded by mutex_
  struct Mover {
    uint64_t handle;
    InstanceId writer;
    MoveFn fn;
  };
  // on_move(); guarded by movers_mutex_, held while they run (so cancel() waits for a call).
  mutable std::mutex movers_mutex_;
  mutable std::vector<Mover> movers_;
  mutable uint64_t next_handle_ = 0;
};

}  // namespace vasana
