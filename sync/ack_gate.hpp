// Acknowledgement mode replicated:N: a write's reply waits until N peers have made it durable
// (their acks name the writer and seqno they synced), or until a deadline, when the reply says
// the write is durable on this node but not yet on N peers.
//
// Only direct peers' acks count: in a chain A-B-C, C's copy of A's write is acked to B.
//
// Threading: every method may be called from any thread. Callbacks run on the thread that
// completes them (the serving side's, for acks; the gate's own timer thread, for deadlines),
// outside the gate's lock; they must not block.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol/ids.hpp"

namespace vasana {

class AckGate {
 public:
  using Done = std::function<void(bool replicated)>;
  AckGate(InstanceId own, uint32_t replicas, std::chrono::milliseconds timeout);
  ~AckGate();  // completes every waiting callback with false
  AckGate(const AckGate&) = delete;
  AckGate& operator=(const AckGate&) = delete;

  // done(true) once `replicas` peers acked own seqno (at once if they already have).
  void wait(Seqno seqno, Done done);
  // peer has made writer's ops up to seqno durable.
  void on_ack(InstanceId peer, InstanceId writer, Seqno seqno);
  // How many peers hold own seqno.
  uint32_t holders(Seqno seqno) const;

 private:
  struct Waiter {
    Seqno seqno;
    std::chrono::steady_clock::time_point deadline;
    Done done;
  };
  uint32_t holders_locked(Seqno seqno) const;
  void run_timer();

  const InstanceId own_;
  const uint32_t replicas_;
  const std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<InstanceId, Seqno> acked_;  // by peer: highest own seqno it synced
  std::vector<Waiter> waiting_;
  bool stopping_ = false;
  std::thread timer_;
};

}  // namespace vasana
