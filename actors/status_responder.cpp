#include "actors/status_responder.hpp"

#include "status/status_json.hpp"

namespace vasana {

StatusResponder::StatusResponder(Take take, Reply reply, Log log, std::chrono::milliseconds slow_after)
    : take_(std::move(take)), reply_(std::move(reply)), log_(std::move(log)), slow_after_(slow_after) {
  thread_ = std::thread([this] { run(); });
}

StatusResponder::~StatusResponder() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StatusResponder::submit(ClientCall&& call) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    waiting_.push_back(std::move(call));
  }
  wake_.notify_one();
}

uint64_t StatusResponder::taken() const {
  std::lock_guard<std::mutex> g(mutex_);
  return taken_;
}

void StatusResponder::run() {
  for (;;) {
    std::vector<ClientCall> calls;
    {
      std::unique_lock<std::mutex> g(mutex_);
      wake_.wait(g, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      calls.swap(waiting_);
    }
    // Taken after every call in `calls` arrived.
    const auto t0 = std::chrono::steady_clock::now();
    ClientResponse r;
    r.kind = ClientResponse::Kind::status;
    r.status_json = status_to_json(take_());
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    {
      std::lock_guard<std::mutex> g(mutex_);
      ++taken_;
    }
    for (const ClientCall& call : calls) {
      r.request_id = call.request.request_id;
      reply_(call, r);
    }
    if (log_ && took >= slow_after_)
      log_("status: taken in " + std::to_string(took.count()) + " ms for " + std::to_string(calls.size()) +
           " call(s) (the state digest is taken by a forked child; other calls were answered meanwhile)");
  }
}

}  // namespace vasana
