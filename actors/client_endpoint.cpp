#include "actors/client_endpoint.hpp"

#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace vasana {

namespace {

constexpr size_t kMaxBatch = 1024;

struct OutgoingReply {
  uint8_t socket;
  std::string routing_id;
  std::string body;
};

}  // namespace

struct ClientEndpoint::Impl {
  zmq::context_t ctx{1};
  std::vector<zmq::socket_t> sockets;  // touched only by the socket thread after start
  Dispatch dispatch;
  int wake_fd = -1;
  std::mutex mu;
  std::deque<OutgoingReply> outbox;  // guarded by mu
  std::atomic<bool> stopping{false};
  std::thread thread;

  ~Impl() {
    if (wake_fd >= 0) ::close(wake_fd);
  }

  void wake() {
    uint64_t one = 1;
    ssize_t n = ::write(wake_fd, &one, sizeof one);
    (void)n;  // eventfd write fails only on counter overflow, which still wakes the poller
  }

  void send_replies() {
    std::deque<OutgoingReply> batch;
    {
      std::lock_guard<std::mutex> lock(mu);
      batch.swap(outbox);
    }
    for (auto& r : batch) {
      std::array<zmq::const_buffer, 3> frames = {zmq::buffer(r.routing_id),
                                                 zmq::buffer(kClientTag.data(), kClientTag.size()),
                                                 zmq::buffer(r.body)};
      try {
        zmq::send_multipart(sockets[r.socket], frames, zmq::send_flags::dontwait);
      } catch (const zmq::error_t&) {
        // The caller went away (EHOSTUNREACH with router_mandatory): its answer has nobody to go to.
      }
    }
  }

  // Decodes every request waiting on socket idx into calls (at most a bounded batch, so one
  // busy socket cannot starve the replies).
  void receive(uint8_t idx, std::vector<ClientCall>& calls) {
    for (size_t n = 0; n < kMaxBatch; ++n) {
      std::vector<zmq::message_t> frames;
      zmq::recv_result_t got;
      try {
        got = zmq::recv_multipart(sockets[idx], std::back_inserter(frames), zmq::recv_flags::dontwait);
      } catch (const zmq::error_t&) {
        return;
      }
      if (!got) return;
      if (frames.empty()) continue;
      ClientCall call;
      call.socket = idx;
      call.routing_id = frames[0].to_string();
      if (frames.size() != 3 || frames[1].to_string_view() != kClientTag) {
        reply_now(call, error_response(0, ClientError::protocol_mismatch,
                                       "expected the frames [" + std::string(kClientTag) + ", request]"));
        continue;
      }
      auto req = decode_request(frames[2].to_string_view());
      if (!req.ok()) {
        reply_now(call, error_response(0, ClientError::bad_input, "unreadable request: " + req.status().message()));
        continue;
      }
      call.request = std::move(req.value());
      calls.push_back(std::move(call));
    }
  }

  void reply_now(const ClientCall& call, const ClientResponse& r) {
    {
      std::lock_guard<std::mutex> lock(mu);
      outbox.push_back(OutgoingReply{call.socket, call.routing_id, encode_response(r)});
    }
    send_replies();
  }

  void run() {
    std::vector<zmq::pollitem_t> items;
    for (auto& s : sockets) items.push_back({s.handle(), 0, ZMQ_POLLIN, 0});
    items.push_back({nullptr, wake_fd, ZMQ_POLLIN, 0});
    while (!stopping.load(std::memory_order_acquire)) {
      try {
        zmq::poll(items.data(), items.size(), std::chrono::milliseconds(200));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        return;
      }
      if (items.back().revents & ZMQ_POLLIN) {
        uint64_t v;
        ssize_t n = ::read(wake_fd, &v, sizeof v);
        (void)n;
      }
      std::vector<ClientCall> calls;
      for (size_t i = 0; i + 1 < items.size(); ++i)
        if (items[i].revents & ZMQ_POLLIN) receive(static_cast<uint8_t>(i), calls);
      // Requests that arrived together are handed on together (one message to the writer).
      if (!calls.empty()) dispatch(std::move(calls));
      send_replies();
    }
  }
};

ClientEndpoint::ClientEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<ClientEndpoint>> ClientEndpoint::bind(const std::vector<std::string>& endpoints) {
  auto impl = std::make_unique<Impl>();
  std::vector<std::string> bound;
  for (const auto& ep : endpoints) {
    if (ep.rfind("ipc://", 0) == 0 && ep.size() - 6 >= 107)
      return Status::InvalidArgument("IPC path " + ep.substr(6) + " is longer than the 107 bytes a Unix socket allows; use a shorter data directory or client.endpoint");
    try {
      zmq::socket_t s(impl->ctx, zmq::socket_type::router);
      s.set(zmq::sockopt::linger, 0);
      s.set(zmq::sockopt::router_mandatory, 1);
      s.set(zmq::sockopt::sndhwm, 100000);
      s.set(zmq::sockopt::rcvhwm, 100000);
      if (ep.find("://[") != std::string::npos) s.set(zmq::sockopt::ipv6, 1);
      s.bind(ep);
      bound.push_back(s.get(zmq::sockopt::last_endpoint));
      impl->sockets.push_back(std::move(s));
    } catch (const zmq::error_t& e) {
      return Status::IoError("cannot bind client endpoint " + ep + ": " + e.what());
    }
  }
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->wake_fd < 0) return Status::IoError("eventfd failed");
  std::unique_ptr<ClientEndpoint> ep(new ClientEndpoint(std::move(impl)));
  ep->bound_ = std::move(bound);
  return ep;
}

void ClientEndpoint::run(Dispatch dispatch) {
  impl_->dispatch = std::move(dispatch);
  Impl* raw = impl_.get();
  impl_->thread = std::thread([raw] {
    pthread_setname_np(pthread_self(), "vasana.client");
    raw->run();
  });
}

ClientEndpoint::~ClientEndpoint() { stop(); }

void ClientEndpoint::stop() {
  impl_->stopping.store(true, std::memory_order_release);
  impl_->wake();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->sockets.clear();
  impl_->dispatch = nullptr;  // drops what it holds (the gateway handle)
}

void ClientEndpoint::reply(const ClientCall& call, const ClientResponse& response) {
  std::string body = encode_response(response);
  bool was_empty;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    was_empty = impl_->outbox.empty();
    impl_->outbox.push_back(OutgoingReply{call.socket, call.routing_id, std::move(body)});
  }
  // One wake-up per batch of replies: the socket thread drains the whole outbox when it wakes.
  if (was_empty) impl_->wake();
}

}  // namespace vasana
