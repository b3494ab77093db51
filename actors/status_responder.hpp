// Answers `status` calls on a thread of its own. A status takes a fresh state digest from a
// forked child (actors/forked_digest.hpp: most of a second at a million memories), which must not
// hold up the endpoint thread and every other client's call queued behind it. The calls that
// arrive while one status is being taken are answered together by the next one, taken after
// they arrived: each caller sees a state at least as new as its call, and a flood of status calls
// costs one status at a time and no memory beyond the calls the endpoint lets in flight.
// Status takes longer than slow_after: one log line says how long, and how many calls it answered.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/client_endpoint.hpp"
#include "sync/replication_status.hpp"

namespace vasana {

class StatusResponder {
 public:
  using Take = std::function<NodeStatus()>;
  using Reply = std::function<void(const ClientCall&, const ClientResponse&)>;
  using Log = std::function<void(const std::string&)>;

  // take: the node's status (called on the responder's thread only); reply: sends an answer
  // (thread-safe); log may be null.
  StatusResponder(Take take, Reply reply, Log log = nullptr,
                  std::chrono::milliseconds slow_after = std::chrono::seconds(2));
  // Waits for a status being taken; calls still waiting get no answer (the endpoint has stopped).
  ~StatusResponder();
  StatusResponder(const StatusResponder&) = delete;
  StatusResponder& operator=(const StatusResponder&) = delete;

  // Thread-safe: queues call for the next status.
  void submit(ClientCall&& call);
  // Statuses taken so far (each answering one or more calls).
  uint64_t taken() const;

 private:
  void run();
  Take take_;
  Reply reply_;
  Log log_;
  std::chrono::milliseconds slow_after_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<ClientCall> waiting_;  // guarded by mutex_
  uint64_t taken_ = 0;               // guarded by mutex_
  bool stopping_ = false;            // guarded by mutex_
  std::thread thread_;
};

}  // namespace vasana
