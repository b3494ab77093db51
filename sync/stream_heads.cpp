#include "sync/stream_heads.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>

namespace vasana {

StreamHeads::StreamHeads() = default;

StreamHeads::~StreamHeads() {
  for (const Subscriber& s : subscribers_) ::close(s.fd);
}

int StreamHeads::subscribe() const {
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return -1;
  std::lock_guard<std::mutex> g(mutex_);
  subscribers_.push_back(Subscriber{fd, InstanceId(), false, true});
  return fd;
}

void StreamHeads::watch(int fd, InstanceId writer, bool writer_moves, bool others_moves) const {
  std::lock_guard<std::mutex> g(mutex_);
  for (Subscriber& s : subscribers_)
    if (s.fd == fd) {
      s.writer = writer;
      s.writer_moves = writer_moves;
      s.others_moves = others_moves;
    }
}

uint64_t StreamHeads::on_move(InstanceId writer, MoveFn fn) const {
  std::lock_guard<std::mutex> g(movers_mutex_);
  movers_.push_back(Mover{++next_handle_, writer, std::move(fn)});
  return next_handle_;
}

void StreamHeads::cancel(uint64_t handle) const {
  std::lock_guard<std::mutex> g(movers_mutex_);
  movers_.erase(std::remove_if(movers_.begin(), movers_.end(), [&](const Mover& m) { return m.handle == handle; }),
                movers_.end());
}

void StreamHeads::drain(int fd) {
  uint64_t n;
  while (fd >= 0 && ::read(fd, &n, sizeof n) == sizeof n) {
  }
}

bool StreamHeads::update(const StreamHead& head) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    auto [it, inserted] = heads_.try_emplace(head.writer, head);
    if (!inserted) {
      const StreamHead& h = it->second;
      auto key = [](const StreamHead& x) { return std::make_tuple(x.last_seqno, x.segment, x.segment_bytes); };
      if (!(key(h) < key(head))) return false;
      it->second = head;
    }
    ++version_;
    const uint64_t one = 1;
    for (const Subscriber& s : subscribers_)
      if (s.writer == head.writer ? s.writer_moves : s.others_moves) (void)!::write(s.fd, &one, sizeof one);
  }
  changed_.notify_all();
  std::lock_guard<std::mutex> g(movers_mutex_);
  for (const Mover& m : movers_)
    if (m.writer == head.writer) m.fn(head);
  return true;
}

std::optional<StreamHead> StreamHeads::get(InstanceId writer) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = heads_.find(writer);
  if (it == heads_.end()) return std::nullopt;
  return it->second;
}

std::vector<StreamHead> StreamHeads::all() const {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<StreamHead> out;
  out.reserve(heads_.size());
  for (const auto& [w, h] : heads_) out.push_back(h);
  return out;
}

uint64_t StreamHeads::version() const {
  std::lock_guard<std::mutex> g(mutex_);
  return version_;
}

uint64_t StreamHeads::wait_changed(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> g(mutex_);
  changed_.wait_for(g, timeout, [&] { return version_ != seen; });
  return version_;
}

}  // namespace vasana
