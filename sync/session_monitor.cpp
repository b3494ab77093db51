#include "sync/session_monitor.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>

#include <zmq.hpp>

namespace vasana {

namespace {

constexpr int kEvents = ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                        ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;

std::string zmtp_error_text(uint32_t code) {
  switch (code) {
    case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC: return "CURVE cryptographic error";
    case ZMQ_PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE: return "CURVE nonce out of sequence";
    case ZMQ_PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND: return "unexpected ZMTP command";
    case ZMQ_PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE: return "malformed CURVE MESSAGE";
    case ZMQ_PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE: return "CURVE key exchange failed";
    case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH: return "security mechanism mismatch (not CURVE)";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08x", code);
      return std::string("ZMTP error ") + hex;
    }
  }
}

}  // namespace

Result<std::unique_ptr<SessionMonitor>> SessionMonitor::attach(zmq::context_t& ctx, zmq::socket_t& dealer) {
  static std::atomic<uint64_t> next{0};
  const std::string endpoint = "inproc://vasana.session-monitor." + std::to_string(next.fetch_add(1));
  if (zmq_socket_monitor(dealer.handle(), endpoint.c_str(), kEvents) != 0)
    return Status::IoError(std::string("cannot monitor a peer session: ") + zmq_strerror(zmq_errno()));
  std::unique_ptr<SessionMonitor> m(new SessionMonitor());
  m->dealer_ = &dealer;
  try {
    m->pair_ = std::make_unique<zmq::socket_t>(ctx, zmq::socket_type::pair);
    m->pair_->set(zmq::sockopt::linger, 0);
    m->pair_->connect(endpoint);
  } catch (const zmq::error_t& e) {
    zmq_socket_monitor(dealer.handle(), nullptr, 0);
    m->dealer_ = nullptr;  // the destructor has nothing to stop
    return Status::IoError(std::string("cannot monitor a peer session: ") + e.what());
  }
  return m;
}

SessionMonitor::~SessionMonitor() {
  if (dealer_) zmq_socket_monitor(dealer_->handle(), nullptr, 0);
}

void* SessionMonitor::pollable() const { return pair_ ? pair_->handle() : nullptr; }

std::vector<SessionMonitor::Failure> SessionMonitor::drain() {
  std::vector<Failure> out;
  if (!pair_) return out;
  for (;;) {
    zmq::message_t head, endpoint;
    try {
      if (!pair_->recv(head, zmq::recv_flags::dontwait)) break;
      if (head.more()) (void)pair_->recv(endpoint, zmq::recv_flags::dontwait);
    } catch (const zmq::error_t&) {
      break;
    }
    if (head.size() != 6) continue;
    uint16_t event = 0;
    uint32_t value = 0;
    std::memcpy(&event, head.data(), 2);
    std::memcpy(&value, static_cast<const char*>(head.data()) + 2, 4);
    on_event(event, value, &out);
  }
  return out;
}

void SessionMonitor::on_event(uint16_t event, uint32_t value, std::vector<Failure>* out) {
  auto fail = [&](const char* reason, std::string detail) {
    if (failed_) return;
    failed_ = true;
    out->push_back({reason, std::move(detail)});
  };
  switch (event) {
    case ZMQ_EVENT_CONNECTED:
      connected_ = true;
      established_ = false;
      failed_ = false;
      break;
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: established_ = true; break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      if (established_) fail("message-corrupt", "a message failed CURVE's checks: " + zmtp_error_text(value));
      else fail("handshake-protocol", "handshake failed: " + zmtp_error_text(value));
      break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
      fail("handshake-auth", "the peer refused this node's key (ZAP status " + std::to_string(value) + ")");
      break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
      fail("handshake-no-detail", std::string("the connection ended in the handshake: ") + std::strerror(int(value)));
      break;
    case ZMQ_EVENT_DISCONNECTED:
      if (connected_ && established_) fail("dropped", "the connection ended after the handshake");
      connected_ = false;
      established_ = false;
      break;
    default: break;
  }
}

}  // namespace vasana
