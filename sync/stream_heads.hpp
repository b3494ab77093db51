// The version vector a node advertises: per writer, how far its verified copy of that writer's
// stream reaches (protocol/peer_codec.hpp StreamHead). The own writer's entry moves when the
// writer makes records durable or seals a segment; a mirrored writer's when a verified chunk
// has been stored. The serving side sends only bytes below these heads, so nothing unverified
// or not yet durable ever leaves the node.
//
// Threading: every method may be called from any thread. wait_changed() lets the serving thread
// sleep until a head moves (the live tail).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
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
  // An eventfd that becomes readable when a head moves, for a thread that polls sockets too
  // (the serving side's zmq_poll). Its reader drains it with drain_change_fd().
  int change_fd() const { return event_fd_; }
  void drain_change_fd() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<InstanceId, StreamHead> heads_;
  uint64_t version_ = 0;
  int event_fd_ = -1;
};

}  // namespace vasana
