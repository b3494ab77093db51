#include "sync/peer_port_monitor.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "sync/log_limiter.hpp"

namespace vasana {

namespace {

constexpr int kEvents = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                        ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;

// "127.0.0.1:51330", "[::1]:51330"; "" when fd is no connected socket (any more).
std::string remote_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "";
  char ip[INET6_ADDRSTRLEN] = "";
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    if (!::inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip)) return "";
    return std::string(ip) + ":" + std::to_string(ntohs(a->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (!::inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip)) return "";
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(a->sin6_port));
  }
  return "";
}

// The address without its port: the log limiter's key, so that one host's reconnects share it.
std::string host_of(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

std::string protocol_error_text(uint32_t code) {
  switch (code) {
    case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH: return "security mechanism mismatch (not CURVE)";
    case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC: return "CURVE cryptographic error (wrong server key?)";
    case ZMQ_PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND: return "unexpected ZMTP command";
    case ZMQ_PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE: return "invalid ZMTP sequence";
    case ZMQ_PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE: return "CURVE key exchange failed";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08x", code);
      return std::string("ZMTP error ") + hex;
    }
  }
}

}  // namespace

struct PeerPortMonitor::Impl {
  std::unique_ptr<zmq::socket_t> pair;
  LogFn log;
  LogLimiter limiter;

  mutable std::mutex mutex;  // guards failures
  std::map<std::string, uint64_t> failures;

  // The rest belongs to the monitor's thread.
  struct Outcome {
    bool ok = false;
    std::string reason;  // failures: the metric's label
    std::string detail;  // for the log
  };
  struct Connection {
    std::string address;  // "" when it could not be read
    bool in_handshake = true;
  };
  std::map<int, Connection> connections;  // by file descriptor, from ACCEPTED to DISCONNECTED
  std::deque<Outcome> unmatched;          // outcomes that came while several were in handshake

  void count(const std::string& reason) {
    std::lock_guard<std::mutex> g(mutex);
    failures[reason]++;
  }
  void report(const std::string& address, const Outcome& o) {
    const std::string from = address.empty() ? "unknown address" : address;
    auto line = limiter.admit("handshake " + host_of(from),
                              "peer port: handshake failed from " + from + ": " + o.reason + " (" + o.detail + ")");
    if (line && log) log(*line);
  }
  size_t in_handshake() const {
    size_t n = 0;
    for (const auto& [fd, c] : connections) n += c.in_handshake ? 1 : 0;
    return n;
  }
  Connection* only_in_handshake() {
    Connection* found = nullptr;
    for (auto& [fd, c] : connections) {
      if (!c.in_handshake) continue;
      if (found) return nullptr;
      found = &c;
    }
    return found;
  }
  void settle(Connection& c, const Outcome& o) {
    c.in_handshake = false;
    if (!o.ok) report(c.address, o);
  }
  // While exactly one connection is in its handshake, the oldest unmatched outcome is its.
  void match_unmatched() {
    while (!unmatched.empty()) {
      Connection* c = only_in_handshake();
      if (!c) break;
      settle(*c, unmatched.front());
      unmatched.pop_front();
    }
    if (in_handshake() == 0) {
      for (const Outcome& o : unmatched)
        if (!o.ok) report("", o);
      unmatched.clear();
    }
  }

  void on_accepted(int fd) {
    connections[fd] = Connection{remote_address(fd), true};
    match_unmatched();
  }
  void on_outcome(Outcome o) {
    if (!o.ok) count(o.reason);
    unmatched.push_back(std::move(o));
    match_unmatched();
  }
  void on_disconnected(int fd) {
    auto it = connections.find(fd);
    if (it == connections.end()) return;
    Connection c = it->second;
    connections.erase(it);
    if (c.in_handshake) {
      // A failure ends its connection at once; a success keeps it open. So the first unmatched
      // failure is most likely this one's; with none, it succeeded only if every connection
      // still in its handshake did.
      auto failed = std::find_if(unmatched.begin(), unmatched.end(), [](const Outcome& o) { return !o.ok; });
      if (failed != unmatched.end()) {
        report(c.address, *failed);
        unmatched.erase(failed);
      } else if (!unmatched.empty() && unmatched.size() >= in_handshake() + 1) {
        unmatched.pop_front();
      } else {
        Outcome o{false, "protocol", "closed by the node without a handshake: not ZMTP 3"};
        count(o.reason);
        report(c.address, o);
      }
    }
    match_unmatched();
  }
};

Result<std::unique_ptr<PeerPortMonitor>> PeerPortMonitor::start(zmq::context_t& ctx, zmq::socket_t& router,
                                                                LogFn log) {
  static std::atomic<uint64_t> next{0};
  const std::string endpoint = "inproc://vasana.peer-port-monitor." + std::to_string(next.fetch_add(1));
  std::unique_ptr<PeerPortMonitor> m(new PeerPortMonitor());
  m->impl_ = std::make_unique<Impl>();
  m->impl_->log = std::move(log);
  if (zmq_socket_monitor(router.handle(), endpoint.c_str(), kEvents) != 0)
    return Status::IoError(std::string("cannot monitor the peer port: ") + zmq_strerror(zmq_errno()));
  try {
    m->impl_->pair = std::make_unique<zmq::socket_t>(ctx, zmq::socket_type::pair);
    m->impl_->pair->set(zmq::sockopt::linger, 0);
    m->impl_->pair->set(zmq::sockopt::rcvtimeo, 100);
    m->impl_->pair->connect(endpoint);
  } catch (const zmq::error_t& e) {
    zmq_socket_monitor(router.handle(), nullptr, 0);
    return Status::IoError(std::string("cannot monitor the peer port: ") + e.what());
  }
  m->thread_ = std::thread([p = m.get()] { p->run(); });
  return m;
}

PeerPortMonitor::~PeerPortMonitor() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

std::map<std::string, uint64_t> PeerPortMonitor::failures() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->failures;
}

void PeerPortMonitor::run() {
  pthread_setname_np(pthread_self(), "vasana.peermon");
  Impl& i = *impl_;
  while (!stop_.load(std::memory_order_relaxed)) {
    std::vector<zmq::message_t> frames;
    try {
      if (!zmq::recv_multipart(*i.pair, std::back_inserter(frames))) continue;  // rcvtimeo: look at stop_
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) break;
      continue;
    }
    if (frames.size() != 2 || frames[0].size() != 6) continue;
    uint16_t event = 0;
    uint32_t value = 0;
    std::memcpy(&event, frames[0].data(), 2);
    std::memcpy(&value, static_cast<const char*>(frames[0].data()) + 2, 4);
    switch (event) {
      case ZMQ_EVENT_ACCEPTED: i.on_accepted(int(value)); break;
      case ZMQ_EVENT_DISCONNECTED: i.on_disconnected(int(value)); break;
      case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: i.on_outcome({true, "", ""}); break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: i.on_outcome({false, "protocol", protocol_error_text(value)}); break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        i.on_outcome({false, "auth", "the key is not allowed (ZAP status " + std::to_string(value) + ")"});
        break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        i.on_outcome({false, "no-detail", std::string("connection ended in the handshake: ") + std::strerror(int(value))});
        break;
      default: break;
    }
  }
}

}  // namespace vasana
