#include "frontends/http_event_loop.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vasana {

namespace {

constexpr uint64_t kListenerTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr auto kTick = std::chrono::milliseconds(50);          // how often deadlines are checked
constexpr auto kAcceptPause = std::chrono::milliseconds(100);  // after running out of descriptors

// The peer's IP address as text; an IPv4-mapped IPv6 address as plain IPv4.
std::string peer_address(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (a.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6&>(a).sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&v6))
      ::inet_ntop(AF_INET, &v6.s6_addr[12], text, sizeof text);
    else
      ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  }
  return text[0] ? text : "unknown";
}

// What a connection over the limits gets (plain HTTP only) before it is closed.
const std::string& busy_answer() {
  static const std::string bytes = [] {
    HttpResponse res = json_error(503, "too_many_connections",
                                  "the server has as many connections open as it takes (from this address, or in all)");
    res.set_header("Retry-After", "1");
    return serialize_response(res, false);
  }();
  return bytes;
}

}  // namespace

HttpEventLoop::HttpEventLoop(int listener, const HttpOptions& options, TlsContext* tls, HttpAdmission& admission,
                             std::function<void(HttpConnection::Job)> dispatch)
    : listener_(listener), options_(options), tls_(tls), admission_(admission), dispatch_(std::move(dispatch)) {}

Result<std::unique_ptr<HttpEventLoop>> HttpEventLoop::open(int listener, const HttpOptions& options, TlsContext* tls,
                                                           HttpAdmission& admission,
                                                           std::function<void(HttpConnection::Job)> dispatch) {
  std::unique_ptr<HttpEventLoop> loop(new HttpEventLoop(listener, options, tls, admission, std::move(dispatch)));
  loop->epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  loop->wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop->epoll_ < 0 || loop->wake_ < 0) return Status::IoError(std::string("http: epoll: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerTag;
  if (::epoll_ctl(loop->epoll_, EPOLL_CTL_ADD, listener, &ev) != 0)
    return Status::IoError(std::string("http: epoll: ") + std::strerror(errno));
  ev.data.u64 = kWakeTag;
  if (::epoll_ctl(loop->epoll_, EPOLL_CTL_ADD, loop->wake_, &ev) != 0)
    return Status::IoError(std::string("http: epoll: ") + std::strerror(errno));
  return loop;
}

void HttpEventLoop::start() {
  if (!thread_.joinable() && !stopped_) thread_ = std::thread([this] { run(); });
}

HttpEventLoop::~HttpEventLoop() {
  stop();
  if (thread_.joinable()) thread_.join();
  for (auto& c : parked_) admission_.connection_closed(c->remote());
  parked_.clear();
  if (listener_ >= 0) ::close(listener_);
  if (epoll_ >= 0) ::close(epoll_);
  if (wake_ >= 0) ::close(wake_);
}

void HttpEventLoop::stop() {
  if (stopped_) return;
  stopped_ = true;
  stopping_.store(true);
  const uint64_t one = 1;
  if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void HttpEventLoop::post(uint64_t connection, std::string rest, int status, bool keep_alive, bool broken) {
  {
    std::lock_guard<std::mutex> g(answers_mu_);
    answers_.push_back(Answer{connection, std::move(rest), status, keep_alive, broken});
  }
  const uint64_t one = 1;
  (void)!::write(wake_, &one, sizeof one);
}

void HttpEventLoop::run() {
  block_sigpipe_in_this_thread();
  std::vector<epoll_event> events(256);
  Clock::time_point next_tick = Clock::now() + kTick;
  while (!stopping_.load()) {
    int timeout = 0;
    if (again_.empty()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - Clock::now()).count();
      timeout = int(std::max<int64_t>(0, left)) + 1;
    }
    const int n = ::epoll_wait(epoll_, events.data(), int(events.size()), timeout);
    const Clock::time_point now = Clock::now();
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[size_t(i)].data.u64;
      if (tag == kListenerTag) {
        accept_all(now);
      } else if (tag == kWakeTag) {
        uint64_t count = 0;
        (void)!::read(wake_, &count, sizeof count);
        take_answers(now);
      } else {
        auto it = slots_.find(tag);
        if (it == slots_.end()) continue;
        if (events[size_t(i)].events & (EPOLLERR | EPOLLHUP))
          it->second.connection->drop();
        else
          it->second.connection->advance(now);
        settle(tag);
      }
    }
    if (!again_.empty()) {
      std::vector<uint64_t> ids;
      ids.swap(again_);
      for (uint64_t id : ids) {
        auto it = slots_.find(id);
        if (it == slots_.end()) continue;
        it->second.connection->advance(now);
        settle(id);
      }
    }
    if (now >= next_tick) {
      expire(now);
      next_tick = now + kTick;
      if (listener_paused_ && now >= listener_paused_until_) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = kListenerTag;
        if (::epoll_ctl(epoll_, EPOLL_CTL_MOD, listener_, &ev) == 0) listener_paused_ = false;
      }
    }
  }
  close_all();
}

void HttpEventLoop::accept_all(Clock::time_point now) {
  for (int i = 0; i < 256; ++i) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    const int fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&a), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The connection waits in the backlog; accepting again at once would spin.
        epoll_event ev{};
        ev.data.u64 = kListenerTag;
        ::epoll_ctl(epoll_, EPOLL_CTL_MOD, listener_, &ev);
        listener_paused_ = true;
        listener_paused_until_ = now + kAcceptPause;
        admission_.refused("connection-limit", "this host", std::string("cannot accept: ") + std::strerror(errno));
      }
      return;
    }
    const std::string remote = peer_address(a);
    if (!admission_.connection_opened(remote)) {
      if (!tls_) (void)!::send(fd, busy_answer().data(), busy_answer().size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::unique_ptr<HttpStream> stream = tls_ ? tls_->accept(fd) : std::make_unique<HttpStream>(fd);
    if (!stream) {
      admission_.connection_closed(remote);
      continue;
    }
    const uint64_t id = next_id_++;
    HttpConnection::Env env{&options_, &admission_, dispatch_};
    auto c = std::make_unique<HttpConnection>(id, std::move(stream), remote, tls_ != nullptr, env, now);
    epoll_event ev{};
    ev.events = c->interest();
    ev.data.u64 = id;
    if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      admission_.connection_closed(remote);
      continue;  // c closes the socket
    }
    slots_.emplace(id, Slot{std::move(c), true, ev.events});
  }
}

void HttpEventLoop::take_answers(Clock::time_point now) {
  std::vector<Answer> ready;
  {
    std::lock_guard<std::mutex> g(answers_mu_);
    ready.swap(answers_);
  }
  for (Answer& a : ready) {
    auto it = slots_.find(a.connection);
    if (it == slots_.end()) continue;  // the client went away while a worker had its request
    it->second.connection->answer(std::move(a.rest), a.status, a.keep_alive, a.broken, now);
    settle(a.connection);
  }
}

void HttpEventLoop::expire(Clock::time_point now) {
  std::vector<uint64_t> due;
  for (const auto& [id, slot] : slots_)
    if (slot.connection->deadline() <= now) due.push_back(id);
  for (uint64_t id : due) {
    slots_.at(id).connection->expire(now);
    settle(id);
  }
}

void HttpEventLoop::settle(uint64_t id) {
  auto it = slots_.find(id);
  if (it == slots_.end()) return;
  Slot& s = it->second;
  const HttpConnection::Phase phase = s.connection->phase();
  if (s.watched && (phase == HttpConnection::Phase::closed || phase == HttpConnection::Phase::dispatched)) {
    // Out of epoll before the socket closes, or while a worker has the connection (a hang-up
    // must not make the loop touch it meanwhile).
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, s.connection->fd(), nullptr);
    s.watched = false;
  }
  if (phase == HttpConnection::Phase::closed) {
    admission_.connection_closed(s.connection->remote());
    slots_.erase(it);  // closes the socket
    return;
  }
  if (phase == HttpConnection::Phase::dispatched) return;
  const uint32_t want = s.connection->interest();
  epoll_event ev{};
  ev.events = want;
  ev.data.u64 = id;
  if (!s.watched) {
    if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, s.connection->fd(), &ev) != 0) {
      s.connection->drop();
      return settle(id);
    }
    s.watched = true;
    s.registered = want;
  } else if (want != s.registered && ::epoll_ctl(epoll_, EPOLL_CTL_MOD, s.connection->fd(), &ev) == 0) {
    s.registered = want;
  }
  if (s.connection->again()) again_.push_back(id);
}

void HttpEventLoop::close_all() {
  for (auto& [id, slot] : slots_) {
    if (slot.connection->phase() == HttpConnection::Phase::dispatched)
      parked_.push_back(std::move(slot.connection));  // a worker may be writing on it
    else
      admission_.connection_closed(slot.connection->remote());
  }
  slots_.clear();
  ::close(listener_);
  listener_ = -1;
}

}  // namespace vasana
