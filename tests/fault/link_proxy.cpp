#include "tests/fault/link_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace vasana::test {

namespace {
using Clock = std::chrono::steady_clock;

// Bytes a direction may hold (delayed or not yet written) before the proxy stops reading its
// sender: TCP backpressure instead of unbounded memory.
constexpr size_t kMaxQueuedBytes = size_t(4) << 20;
constexpr size_t kReadBytes = 64 * 1024;

sockaddr_in parse_ipv4(const std::string& endpoint) {
  std::string s = endpoint;
  if (s.rfind("tcp://", 0) == 0) s = s.substr(6);
  const auto colon = s.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("link proxy: no port in '" + endpoint + "'");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  const int port = std::atoi(s.c_str() + colon + 1);
  if (port <= 0 || port > 65535 || ::inet_pton(AF_INET, s.substr(0, colon).c_str(), &a.sin_addr) != 1)
    throw std::runtime_error("link proxy: not an IPv4 endpoint: '" + endpoint + "'");
  a.sin_port = htons(uint16_t(port));
  return a;
}

// Closes with a reset (SO_LINGER 0): the other end sees the connection fail at once, as when a
// link breaks, and no TIME_WAIT is left behind.
void close_reset(int fd) {
  if (fd < 0) return;
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}

struct Pending {
  Clock::time_point due;
  std::string bytes;
};

struct Connection {
  std::array<int, 2> fd{-1, -1};  // [0] node i's side (client), [1] node j's side (server)
  bool connecting = true;         // fd[1]'s non-blocking connect has not completed
  std::array<std::deque<Pending>, 2> out;  // by direction: read from fd[d], written to fd[1 - d]
  std::array<size_t, 2> out_bytes{};
  std::array<size_t, 2> front_written{};   // bytes of out[d].front() written already
  bool dead = false;
};

struct Settings {
  bool cut = false;
  int blackhole = -1;  // a LinkDirection, or -1
  std::chrono::milliseconds delay{0};
  double corrupt = 0;
};
}  // namespace

struct LinkProxy::Impl {
  sockaddr_in target{};
  int listen_fd = -1;
  std::array<int, 2> wake{-1, -1};  // pipe: a setter or the destructor wakes the loop
  std::thread thread;
  std::atomic<bool> stop{false};

  mutable std::mutex mutex;  // guards settings, versions, counters, open
  std::condition_variable applied_cv;
  Settings settings;
  uint64_t version = 0;          // settings changes requested
  uint64_t applied_version = 0;  // settings changes the loop has taken
  LinkCounters counters;
  size_t open = 0;

  // Loop thread only.
  std::vector<std::unique_ptr<Connection>> conns;
  std::mt19937_64 rng;
  double corrupt_p = 0;
  uint64_t until_flip = 0;  // bytes to forward before the next flip (corrupt_p > 0)

  void change(const std::function<void(Settings&)>& f) {
    std::unique_lock<std::mutex> g(mutex);
    f(settings);
    const uint64_t v = ++version;
    const char c = 1;
    (void)!::write(wake[1], &c, 1);
    applied_cv.wait(g, [&] { return applied_version >= v || stop.load(); });
  }

  uint64_t draw_gap() {
    std::geometric_distribution<uint64_t> g(corrupt_p);
    return g(rng);
  }

  // Flips bytes of buf per the corruption probability; returns how many.
  uint64_t corrupt_bytes(std::string& buf) {
    if (corrupt_p <= 0) return 0;
    uint64_t flipped = 0;
    uint64_t pos = until_flip;
    std::uniform_int_distribution<int> value(1, 255);
    while (pos < buf.size()) {
      buf[pos] = char(uint8_t(buf[pos]) ^ uint8_t(value(rng)));
      ++flipped;
      pos += 1 + draw_gap();
    }
    until_flip = pos - buf.size();
    return flipped;
  }

  void close_connection(Connection& c) {
    std::lock_guard<std::mutex> g(mutex);
    for (int d = 0; d < 2; ++d) {
      counters.dropped[d] += c.out_bytes[d] - (c.out[d].empty() ? 0 : c.front_written[d]);
      c.out[d].clear();
      c.out_bytes[d] = 0;
    }
    close_reset(c.fd[0]);
    close_reset(c.fd[1]);
    c.fd = {-1, -1};
    c.dead = true;
    --open;
  }

  void accept_all(const Settings& s) {
    while (true) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      if (s.cut) {
        close_reset(fd);
        std::lock_guard<std::mutex> g(mutex);
        counters.refused++;
        continue;
      }
      const int up = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (up < 0 || (::connect(up, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0 &&
                     errno != EINPROGRESS)) {
        close_reset(fd);
        if (up >= 0) close_reset(up);
        continue;
      }
      auto c = std::make_unique<Connection>();
      c->fd = {fd, up};
      conns.push_back(std::move(c));
      std::lock_guard<std::mutex> g(mutex);
      counters.connections++;
      ++open;
    }
  }

  // Reads what fd[d] has into direction d's queue (or drops it); false when the side is gone.
  bool read_side(Connection& c, int d, const Settings& s) {
    std::string buf(kReadBytes, '\0');
    const ssize_t n = ::read(c.fd[d], buf.data(), buf.size());
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (n == 0) return false;
    buf.resize(size_t(n));
    if (s.blackhole == d) {
      std::lock_guard<std::mutex> g(mutex);
      counters.dropped[d] += buf.size();
      return true;
    }
    const uint64_t flipped = corrupt_bytes(buf);
    if (flipped > 0) {
      std::lock_guard<std::mutex> g(mutex);
      counters.corrupted[d] += flipped;
    }
    Clock::time_point due = Clock::now() + s.delay;
    if (!c.out[d].empty()) due = std::max(due, c.out[d].back().due);  // order kept when the delay shrinks
    c.out_bytes[d] += buf.size();
    c.out[d].push_back(Pending{due, std::move(buf)});
    return true;
  }

  // Writes direction d's due bytes to fd[1 - d]; false when that side is gone.
  bool write_side(Connection& c, int d) {
    const auto now = Clock::now();
    while (!c.out[d].empty() && c.out[d].front().due <= now) {
      Pending& p = c.out[d].front();
      const ssize_t n = ::send(c.fd[1 - d], p.bytes.data() + c.front_written[d], p.bytes.size() - c.front_written[d],
                               MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.front_written[d] += size_t(n);
      {
        std::lock_guard<std::mutex> g(mutex);
        counters.forwarded[d] += uint64_t(n);
      }
      if (c.front_written[d] == p.bytes.size()) {
        c.out_bytes[d] -= p.bytes.size();
        c.front_written[d] = 0;
        c.out[d].pop_front();
      }
    }
    return true;
  }

  void run() {
    pthread_setname_np(pthread_self(), "link-proxy");
    Settings s;
    while (!stop.load()) {
      uint64_t taken = 0;  // the settings version s holds: only that one is reported applied below
      {
        std::lock_guard<std::mutex> g(mutex);
        if (settings.corrupt != corrupt_p) {
          corrupt_p = std::clamp(settings.corrupt, 0.0, 1.0);
          if (corrupt_p > 0) until_flip = draw_gap();
        }
        s = settings;
        taken = version;
      }
      if (s.cut)
        for (auto& c : conns)
          if (!c->dead) close_connection(*c);
      conns.erase(std::remove_if(conns.begin(), conns.end(), [](const auto& c) { return c->dead; }), conns.end());
      {
        std::lock_guard<std::mutex> g(mutex);
        if (applied_version != taken) {
          applied_version = taken;
          applied_cv.notify_all();
        }
      }

      std::vector<pollfd> fds{{wake[0], POLLIN, 0}, {listen_fd, POLLIN, 0}};
      auto now = Clock::now();
      auto wait = std::chrono::milliseconds(100);
      for (auto& c : conns) {
        for (int side = 0; side < 2; ++side) {
          short ev = 0;
          if (side == 1 && c->connecting) {
            ev = POLLOUT;
          } else {
            if (c->out_bytes[side] < kMaxQueuedBytes) ev |= POLLIN;
            const int d = 1 - side;  // the direction written to this side
            if (!c->out[d].empty() && !(d == 0 && c->connecting)) {
              const auto due = c->out[d].front().due;
              if (due <= now) ev |= POLLOUT;
              else wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(due - now));
            }
          }
          fds.push_back({c->fd[side], ev, 0});
        }
      }
      ::poll(fds.data(), fds.size(), int(std::max<int64_t>(wait.count(), 1)));
      if (fds[0].revents & POLLIN) {
        char b[64];
        while (::read(wake[0], b, sizeof b) > 0) {
        }
      }
      if (stop.load()) break;
      {
        std::lock_guard<std::mutex> g(mutex);
        if (version != applied_version) continue;  // take the new settings before any byte moves
      }
      if (fds[1].revents & POLLIN) accept_all(s);
      for (size_t k = 0; k < conns.size() && 2 + 2 * k + 1 < fds.size(); ++k) {
        Connection& c = *conns[k];
        if (c.dead) continue;
        const pollfd& client = fds[2 + 2 * k];
        const pollfd& server = fds[2 + 2 * k + 1];
        bool ok = true;
        if (c.connecting && server.revents) {
          int err = 0;
          socklen_t len = sizeof err;
          ::getsockopt(c.fd[1], SOL_SOCKET, SO_ERROR, &err, &len);
          if (err != 0) ok = false;
          else c.connecting = false;
        } else if (!c.connecting) {
          if (server.revents & (POLLIN | POLLHUP | POLLERR)) ok = ok && read_side(c, 1, s);
          if (ok && (server.revents & POLLOUT)) ok = write_side(c, 0);
        }
        if (ok && (client.revents & (POLLIN | POLLHUP | POLLERR))) ok = read_side(c, 0, s);
        if (ok && !c.connecting && (client.revents & POLLOUT)) ok = write_side(c, 1);
        if (!ok) close_connection(c);
      }
    }
    for (auto& c : conns)
      if (!c->dead) close_connection(*c);
    conns.clear();
  }
};

LinkProxy::LinkProxy(const std::string& target, uint64_t seed) : target_(target), impl_(std::make_unique<Impl>()) {
  Impl& i = *impl_;
  i.target = parse_ipv4(target);
  i.rng.seed(seed);
  i.listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (i.listen_fd < 0 || ::bind(i.listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(i.listen_fd, 64) != 0 || ::getsockname(i.listen_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      ::pipe2(i.wake.data(), O_NONBLOCK | O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    if (i.listen_fd >= 0) ::close(i.listen_fd);
    throw std::runtime_error("link proxy: cannot listen on loopback: " + why);
  }
  endpoint_ = "tcp://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  i.thread = std::thread([&i] { i.run(); });
}

LinkProxy::~LinkProxy() {
  Impl& i = *impl_;
  i.stop.store(true);
  const char c = 1;
  (void)!::write(i.wake[1], &c, 1);
  i.thread.join();
  ::close(i.listen_fd);
  ::close(i.wake[0]);
  ::close(i.wake[1]);
}

void LinkProxy::pass() {
  impl_->change([](Settings& s) { s = Settings{}; });
}
void LinkProxy::cut() {
  impl_->change([](Settings& s) { s.cut = true; });
}
void LinkProxy::blackhole(LinkDirection d) {
  impl_->change([d](Settings& s) { s.blackhole = int(d); });
}
void LinkProxy::delay(std::chrono::milliseconds d) {
  impl_->change([d](Settings& s) { s.delay = d; });
}
void LinkProxy::corrupt(double probability) {
  impl_->change([probability](Settings& s) { s.corrupt = probability; });
}

LinkCounters LinkProxy::counters() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->counters;
}

size_t LinkProxy::open_connections() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->open;
}

std::string describe(const LinkCounters& c) {
  auto pair = [](const std::array<uint64_t, 2>& v) { return std::to_string(v[0]) + "/" + std::to_string(v[1]); };
  return "forwarded " + pair(c.forwarded) + " B, dropped " + pair(c.dropped) + ", corrupted " + pair(c.corrupted) +
         ", " + std::to_string(c.connections) + " connections, " + std::to_string(c.refused) + " refused";
}

}  // namespace vasana::test
