#include "frontends/http_worker_pool.hpp"

#include <zmq.hpp>

#include "frontends/http_stream.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

namespace {

// The running worker's client slot, endpoint and context (null outside a worker thread).
struct WorkerSlot {
  std::unique_ptr<NodeClient>* client = nullptr;
  const std::string* endpoint = nullptr;
  zmq::context_t* context = nullptr;
};
thread_local WorkerSlot t_worker;

}  // namespace

HttpWorkerPool::HttpWorkerPool(size_t n, std::string endpoint, zmq::context_t& context)
    : endpoint_(std::move(endpoint)), context_(context) {
  for (size_t i = 0; i < std::max<size_t>(1, n); ++i) threads_.emplace_back([this] { run(); });
}

HttpWorkerPool::~HttpWorkerPool() { shutdown(); }

void HttpWorkerPool::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> g(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void HttpWorkerPool::shutdown() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

Result<NodeClient*> HttpWorkerPool::current_client() {
  if (!t_worker.client) return Status::FailedPrecondition("not a worker thread of the HTTP server");
  if (!*t_worker.client) {
    auto c = NodeClient::connect(*t_worker.endpoint, t_worker.context);
    if (!c.ok()) return Status::FailedPrecondition("cannot reach the node: " + c.status().message());
    *t_worker.client = std::move(c.value());
  }
  return t_worker.client->get();
}

void HttpWorkerPool::run() {
  block_sigpipe_in_this_thread();  // a job writes its answer on the connection's stream
  std::unique_ptr<NodeClient> client;
  t_worker = WorkerSlot{&client, &endpoint_, &context_};
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) break;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
  t_worker = WorkerSlot{};
}

}  // namespace vasana
