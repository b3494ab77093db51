#include "actors/client_endpoint.hpp"

#include "actors/client_grant_check.hpp"
#include "actors/request_labels.hpp"
#include "status/node_probe.hpp"

#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <utility>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "store/file_access.hpp"
#include "sync/zap_allowlist.hpp"

namespace vasana {

namespace {

constexpr size_t kMaxBatch = 1024;
// The ZAP domain of the CURVE client sockets (the peer sockets use "vasana").
constexpr const char* kClientZapDomain = "vasana.client";
// At most this many bytes of replies ZeroMQ could not take at once are held in all (the oldest
// go first past that).
constexpr size_t kHeldBytesAtMost = size_t{64} << 20;

struct OutgoingReply {
  uint8_t socket;
  std::string routing_id;
  std::string body;
};

}  // namespace

ClientEndpointLimits client_endpoint_limits(const InputLimits& limits) {
  ClientEndpointLimits l;
  l.max_message_bytes = limits.max_text_bytes + 64 * 1024;
  return l;
}

// What the socket thread and the in-flight slots share: slots may outlive the endpoint (a call
// still in an actor's mailbox when the node stops), so this lives as long as the last of them.
struct InFlightGate {
  int wake_fd = -1;
  size_t max_calls = 0, max_bytes = 0;
  std::atomic<size_t> calls{0}, bytes{0};

  ~InFlightGate() {
    if (wake_fd >= 0) ::close(wake_fd);
  }
  void wake() const {
    uint64_t one = 1;
    ssize_t n = ::write(wake_fd, &one, sizeof one);
    (void)n;  // eventfd write fails only on counter overflow, which still wakes the poller
  }
  bool open() const {
    return calls.load(std::memory_order_acquire) < max_calls && bytes.load(std::memory_order_acquire) < max_bytes;
  }
};

struct InFlightSlot {
  std::shared_ptr<InFlightGate> gate;
  size_t bytes;
  InFlightSlot(std::shared_ptr<InFlightGate> g, size_t b) : gate(std::move(g)), bytes(b) {
    gate->calls.fetch_add(1, std::memory_order_acq_rel);
    gate->bytes.fetch_add(bytes, std::memory_order_acq_rel);
  }
  ~InFlightSlot() {
    const bool was_full = !gate->open();
    gate->calls.fetch_sub(1, std::memory_order_acq_rel);
    gate->bytes.fetch_sub(bytes, std::memory_order_acq_rel);
    if (was_full) gate->wake();  // the socket thread may be waiting for room to read again
  }
};

struct ClientEndpoint::Impl {
  zmq::context_t ctx{1};
  // Admits the listed client keys on the CURVE sockets; started before they bind, destroyed
  // before ctx (declared after it).
  std::unique_ptr<ZapAllowlist> zap;
  std::vector<zmq::socket_t> sockets;  // touched only by the socket thread after start
  std::vector<ClientTransport> transports;  // of sockets[i]
  std::vector<bool> curve;                  // sockets[i] is a CURVE server
  ClientEndpointLimits limits;
  Dispatch dispatch;
  std::shared_ptr<InFlightGate> gate = std::make_shared<InFlightGate>();
  std::mutex mu;
  std::deque<OutgoingReply> outbox;  // guarded by mu
  std::atomic<uint64_t> dropped{0};
  std::atomic<bool> stopping{false};
  std::shared_ptr<NodeProbe> probe;     // set before the thread starts; may be null

  // Books one answer in the probe; kind is the request's (or "unreadable").
  void count(const ClientCall& call, const char* kind, const ClientResponse& r) const {
    if (!probe || call.socket >= transports.size()) return;
    probe->request_answered(transport_label(transports[call.socket], call.request.via), kind, response_result_label(r));
  }
  std::thread thread;

  void wake() { gate->wake(); }

  // Replies ZeroMQ did not take (EAGAIN: the caller's queue was full), retried in order on every
  // turn of the socket thread until their deadline. Touched only by the socket thread.
  struct Held {
    OutgoingReply reply;
    std::chrono::steady_clock::time_point deadline;
  };
  std::deque<Held> held;
  size_t held_bytes = 0;

  // Sends r now; false when ZeroMQ refused it for a full queue. A caller that went away
  // (EHOSTUNREACH with router_mandatory) counts as sent: its answer has nobody to go to.
  bool try_send(const OutgoingReply& r) {
    std::array<zmq::const_buffer, 3> frames = {zmq::buffer(r.routing_id),
                                               zmq::buffer(kClientTag.data(), kClientTag.size()),
                                               zmq::buffer(r.body)};
    try {
      return zmq::send_multipart(sockets[r.socket], frames, zmq::send_flags::dontwait).has_value();
    } catch (const zmq::error_t&) {
      return true;
    }
  }

  void drop_held_front() {
    held_bytes -= held.front().reply.body.size();
    held.pop_front();
    dropped.fetch_add(1, std::memory_order_relaxed);
  }

  // Held replies first, then the new ones. A caller's replies keep their order: once one of its
  // replies is held, its later ones wait behind it.
  void send_replies() {
    std::deque<OutgoingReply> batch;
    {
      std::lock_guard<std::mutex> lock(mu);
      batch.swap(outbox);
    }
    const auto now = std::chrono::steady_clock::now();
    std::set<std::pair<uint8_t, std::string>> blocked;  // callers with a reply still held
    std::deque<Held> still;
    for (auto& h : held) {
      auto who = std::make_pair(h.reply.socket, h.reply.routing_id);
      if (!blocked.count(who) && try_send(h.reply)) {
        held_bytes -= h.reply.body.size();
        continue;
      }
      if (h.deadline <= now) {  // its caller has not read for limits.hold_replies: given up
        held_bytes -= h.reply.body.size();
        dropped.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      blocked.insert(std::move(who));
      still.push_back(std::move(h));
    }
    held.swap(still);
    for (auto& r : batch) {
      auto who = std::make_pair(r.socket, r.routing_id);
      if (!blocked.count(who) && try_send(r)) continue;
      blocked.insert(std::move(who));
      held_bytes += r.body.size();
      held.push_back(Held{std::move(r), now + limits.hold_replies});
    }
    while (held_bytes > kHeldBytesAtMost && !held.empty()) drop_held_front();
  }

  // Decodes requests waiting on socket idx into calls: at most a bounded batch, so one busy
  // socket cannot starve the replies, and only while the in-flight gate is open.
  void receive(uint8_t idx, std::vector<ClientCall>& calls) {
    for (size_t n = 0; n < kMaxBatch && gate->open(); ++n) {
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
      call.transport = transports[idx];
      if (curve[idx]) {
        // The ZAP handler's user id: the client's Z85 public key.
        const char* key = zmq_msg_gets(frames.back().handle(), "User-Id");
        if (key) call.client_key = key;
      }
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
      call.slot = std::make_shared<InFlightSlot>(gate, frames[2].size());
      calls.push_back(std::move(call));
    }
  }

  void reply_now(const ClientCall& call, const ClientResponse& r) {
    count(call, "unreadable", r);
    {
      std::lock_guard<std::mutex> lock(mu);
      outbox.push_back(OutgoingReply{call.socket, call.routing_id, encode_response(r)});
    }
    send_replies();
  }

  void run() {
    std::vector<zmq::pollitem_t> items;
    for (auto& s : sockets) items.push_back({s.handle(), 0, ZMQ_POLLIN, 0});
    items.push_back({nullptr, gate->wake_fd, ZMQ_POLLIN, 0});
    while (!stopping.load(std::memory_order_acquire)) {
      // With the gate closed the sockets are not read: their requests wait in ZeroMQ's queues
      // until answers free room (a freed slot wakes this thread).
      const short want = gate->open() ? ZMQ_POLLIN : 0;
      for (size_t i = 0; i + 1 < items.size(); ++i) items[i].events = want;
      try {
        // Held replies are retried every few milliseconds; otherwise the wake fd is enough.
        zmq::poll(items.data(), items.size(), std::chrono::milliseconds(held.empty() ? 200 : 2));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        return;
      }
      if (items.back().revents & ZMQ_POLLIN) {
        uint64_t v;
        ssize_t n = ::read(gate->wake_fd, &v, sizeof v);
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

Result<std::unique_ptr<ClientEndpoint>> ClientEndpoint::bind(const std::vector<std::string>& endpoints,
                                                             ClientEndpointLimits limits, ClientEndpointCurve curve) {
  auto impl = std::make_unique<Impl>();
  const bool with_curve = !curve.client_keys.empty();
  if (with_curve) {
    ZapAllowlist::Options zo;
    zo.allowed_public_keys = curve.client_keys;
    zo.domain = kClientZapDomain;
    zo.log = curve.log;
    auto zap = ZapAllowlist::start(impl->ctx, std::move(zo));
    if (!zap.ok())
      return zap.status().code() == Code::invalid_argument
                 ? Status::InvalidArgument("client keys: " + zap.status().message())
                 : Status::IoError("client endpoint: " + zap.status().message());
    impl->zap = std::move(zap.value());
  }
  impl->limits = limits;
  impl->gate->max_calls = limits.max_in_flight;
  impl->gate->max_bytes = limits.max_in_flight_bytes;
  std::vector<std::string> bound;
  for (const auto& ep : endpoints) {
    const bool ipc = ep.rfind("ipc://", 0) == 0;
    if (ipc && ep.size() - 6 >= 107)
      return Status::InvalidArgument("IPC path " + ep.substr(6) + " is longer than the 107 bytes a Unix socket allows; use a shorter data directory or client.endpoint");
    try {
      zmq::socket_t s(impl->ctx, zmq::socket_type::router);
      s.set(zmq::sockopt::linger, 0);
      s.set(zmq::sockopt::router_mandatory, 1);
      s.set(zmq::sockopt::sndhwm, limits.queue_per_client);
      s.set(zmq::sockopt::rcvhwm, limits.queue_per_client);
      s.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(limits.max_message_bytes));
      if (ep.find("://[") != std::string::npos) s.set(zmq::sockopt::ipv6, 1);
      const bool tcp = ep.rfind("tcp://", 0) == 0;
      if (tcp && with_curve) {
        s.set(zmq::sockopt::zap_domain, kClientZapDomain);
        s.set(zmq::sockopt::curve_server, 1);
        s.set(zmq::sockopt::curve_secretkey, curve.server_secret_z85);
      }
      s.bind(ep);
      bound.push_back(s.get(zmq::sockopt::last_endpoint));
      impl->sockets.push_back(std::move(s));
      impl->transports.push_back(tcp ? ClientTransport::tcp : ClientTransport::ipc);
      impl->curve.push_back(tcp && with_curve);
    } catch (const zmq::error_t& e) {
      return Status::IoError("cannot bind client endpoint " + ep + ": " + e.what());
    }
    // Connecting to a Unix socket needs write permission on it: this decides who may be a client.
    if (ipc && ep.size() > 6 && ep[6] != '@') {
      Status s = set_mode(bound.back().substr(6), private_socket_mode());
      if (!s.ok()) return s;
    }
  }
  impl->gate->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->gate->wake_fd < 0) return Status::IoError("eventfd failed");
  std::unique_ptr<ClientEndpoint> ep(new ClientEndpoint(std::move(impl)));
  ep->bound_ = std::move(bound);
  return ep;
}

void ClientEndpoint::set_probe(std::shared_ptr<NodeProbe> probe) { impl_->probe = std::move(probe); }

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

uint64_t ClientEndpoint::dropped_replies() const { return impl_->dropped.load(std::memory_order_relaxed); }

const ClientEndpointLimits& ClientEndpoint::limits() const { return impl_->limits; }

void ClientEndpoint::reply(const ClientCall& call, const ClientResponse& response) {
  impl_->count(call, request_kind_label(call.request.kind), response);
  std::string body = encode_response(response);
  if (body.size() > impl_->limits.max_reply_bytes)
    body = encode_response(error_response(
        response.request_id, ClientError::bad_input,
        "the answer is " + std::to_string(body.size()) + " bytes, more than the " +
            std::to_string(impl_->limits.max_reply_bytes) + " bytes a reply may carry; ask for fewer hits (a lower limit)"));
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
