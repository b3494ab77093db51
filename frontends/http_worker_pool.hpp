// The HTTP server's worker threads: they run the routes of complete, admitted requests. Each
// thread owns one NodeClient (ZeroMQ sockets are not thread-safe), connected on its first call
// and kept for the thread's life; a job finds it through current_client().
//
// Threading: submit() from any thread; shutdown() (and the destructor) from the owner's.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/status.hpp"

namespace zmq {
class context_t;
}  // namespace zmq

namespace vasana {

class NodeClient;

class HttpWorkerPool {
 public:
  // n threads whose clients connect to endpoint (the node's IPC socket) within context.
  HttpWorkerPool(size_t n, std::string endpoint, zmq::context_t& context);
  ~HttpWorkerPool();  // shutdown()s

  void submit(std::function<void()> job);
  // Runs the jobs already queued, then ends the threads (their clients close with them).
  void shutdown();

  // The calling worker thread's client, connected now if it is not yet; FailedPrecondition when
  // this is not a worker thread or the node's socket cannot be opened.
  static Result<NodeClient*> current_client();

 private:
  void run();

  const std::string endpoint_;
  zmq::context_t& context_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace vasana
