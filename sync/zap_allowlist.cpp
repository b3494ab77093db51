#include "sync/zap_allowlist.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <iterator>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "sync/curve_keys.hpp"

namespace vasana {

namespace {

constexpr auto kPollTimeout = std::chrono::milliseconds(100);  // bounds how long the destructor waits

// Canonical Z85 of a 32-byte key, so that the allowlist compares keys, not spellings.
std::string z85_of(const uint8_t* key32) {
  char text[kCurveKeyZ85Chars + 1] = {0};
  if (zmq_z85_encode(text, key32, 32) == nullptr) return "";
  return text;
}

}  // namespace

struct ZapAllowlist::Decision {
  bool accept = false;
  std::string key;     // Z85, or "-" when the mechanism carries none
  std::string reason;  // why it was refused
};

namespace {

// The keys in canonical Z85; InvalidArgument naming the first bad one's position.
Result<std::unordered_set<std::string>> canonical_keys(const std::vector<std::string>& keys) {
  std::unordered_set<std::string> allowed;
  for (size_t i = 0; i < keys.size(); ++i) {
    Status s = check_curve_key_z85(keys[i]);
    if (!s.ok()) return Status::InvalidArgument("allowed public key " + std::to_string(i + 1) + " " + s.message());
    uint8_t bytes[32];
    zmq_z85_decode(bytes, keys[i].c_str());
    allowed.insert(z85_of(bytes));
  }
  return allowed;
}

}  // namespace

Status ZapAllowlist::set_allowed(const std::vector<std::string>& keys) {
  auto allowed = canonical_keys(keys);
  if (!allowed.ok()) return allowed.status();
  std::lock_guard<std::mutex> g(mutex_);
  allowed_ = std::move(allowed.value());
  return Status::Ok();
}

bool ZapAllowlist::allows(const std::string& z85) const {
  std::lock_guard<std::mutex> g(mutex_);
  return allowed_.count(z85) > 0;
}

Result<std::unique_ptr<ZapAllowlist>> ZapAllowlist::start(zmq::context_t& ctx, Options options) {
  auto keys = canonical_keys(options.allowed_public_keys);
  if (!keys.ok()) return keys.status();
  std::unordered_set<std::string> allowed = std::move(keys.value());
  std::unique_ptr<zmq::socket_t> socket;
  try {
    socket = std::make_unique<zmq::socket_t>(ctx, zmq::socket_type::rep);
    socket->set(zmq::sockopt::linger, 0);
    socket->bind(kEndpoint);
  } catch (const zmq::error_t& e) {
    return Status::IoError(std::string("cannot start the ZAP handler on ") + kEndpoint + ": " + e.what() +
                           (e.num() == EADDRINUSE ? " (this context already has a ZAP handler)" : ""));
  }
  std::unique_ptr<ZapAllowlist> handler(new ZapAllowlist(std::move(allowed), std::move(options)));
  // The socket moves to the handler's thread; std::thread's start is the memory barrier that
  // libzmq asks for when a socket changes threads.
  handler->thread_ = std::thread(&ZapAllowlist::run, handler.get(), std::move(socket));
  return handler;
}

ZapAllowlist::ZapAllowlist(std::unordered_set<std::string> allowed, Options options)
    : allowed_(std::move(allowed)), domain_(std::move(options.domain)), log_(std::move(options.log)) {}

ZapAllowlist::~ZapAllowlist() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

ZapAllowlist::Decision ZapAllowlist::decide(const std::string& domain, const std::string& address,
                                            const std::string& mechanism,
                                            const std::vector<std::string>& credentials) const {
  Decision d;
  d.key = "-";
  if (mechanism != "CURVE") {
    d.reason = "mechanism " + (mechanism.empty() ? std::string("(none)") : mechanism) + " is not allowed, only CURVE";
    return d;
  }
  if (credentials.size() != 1 || credentials[0].size() != 32) {
    d.reason = "malformed CURVE credentials";
    return d;
  }
  d.key = z85_of(reinterpret_cast<const uint8_t*>(credentials[0].data()));
  if (!domain_.empty() && domain != domain_) {
    d.reason = "ZAP domain '" + domain + "' is not '" + domain_ + "'";
    return d;
  }
  if (!allows(d.key)) {
    d.reason = "key not in the allowlist";
    return d;
  }
  d.accept = true;
  return d;
}

void ZapAllowlist::run(std::unique_ptr<zmq::socket_t> socket) {
  auto say = [this](const std::string& line) {
    if (!log_) return;
    try {
      log_(line);
    } catch (...) {
      // A throwing logger must not take the handler down: without it libzmq would let anyone in.
    }
  };
  // The thread keeps its socket bound until told to stop: if it went away, libzmq would accept
  // every client. Only stop_ or a terminated context ends it.
  while (!stop_.load()) {
    try {
      zmq::pollitem_t items[] = {{socket->handle(), 0, ZMQ_POLLIN, 0}};
      zmq::poll(items, 1, kPollTimeout);
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(*socket, std::back_inserter(frames), zmq::recv_flags::dontwait)) continue;
      std::vector<std::string> f;
      f.reserve(frames.size());
      for (const auto& m : frames) f.push_back(m.to_string());

      // Request (RFC 27): version, request id, domain, address, routing id, mechanism, credentials...
      // Reply: version, request id, status code, status text, user id, metadata.
      std::string request_id = f.size() > 1 ? f[1] : "";
      std::string code, text, user_id;
      if (f.size() < 6 || f[0] != "1.0") {
        code = "500";
        text = "malformed ZAP request";
        say("ZAP: malformed request of " + std::to_string(f.size()) + " frames; answered 500");
      } else {
        std::vector<std::string> credentials(f.begin() + 6, f.end());
        Decision d = decide(f[2], f[3], f[5], credentials);
        if (d.accept) {
          accepted_.fetch_add(1);
          code = "200";
          text = "OK";
          user_id = d.key;
        } else {
          refused_.fetch_add(1);
          code = "400";
          text = d.reason;
          say("peer refused: key " + d.key + " from " + (f[3].empty() ? "(unknown address)" : f[3]) + ": " +
              d.reason);
        }
      }
      std::array<zmq::const_buffer, 6> reply = {zmq::str_buffer("1.0"), zmq::buffer(request_id), zmq::buffer(code),
                                                zmq::buffer(text),       zmq::buffer(user_id),    zmq::const_buffer()};
      zmq::send_multipart(*socket, reply, zmq::send_flags::dontwait);
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) break;  // the context is being terminated: close the socket so it can end
      if (e.num() == EINTR) continue;
      say(std::string("ZAP handler: ") + e.what());
      std::this_thread::sleep_for(kPollTimeout);  // no busy loop on a persistent error
    } catch (const std::exception& e) {
      say(std::string("ZAP handler: ") + e.what());
    }
  }
  // Unbinding frees the endpoint now; close alone frees it later, on libzmq's reaper thread, and
  // a new handler started right after this one's destructor could then not bind.
  try {
    socket->unbind(kEndpoint);
  } catch (const zmq::error_t&) {
    // ETERM: the context is going away and takes the endpoint with it.
  }
  socket->close();
}

}  // namespace vasana
