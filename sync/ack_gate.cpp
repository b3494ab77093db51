#include "sync/ack_gate.hpp"

#include <algorithm>

namespace vasana {

AckGate::AckGate(InstanceId own, uint32_t replicas, std::chrono::milliseconds timeout)
    : own_(own), replicas_(replicas), timeout_(timeout), timer_([this] { run_timer(); }) {}

AckGate::~AckGate() {
  std::vector<Waiter> left;
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
    left.swap(waiting_);
  }
  wake_.notify_all();
  timer_.join();
  for (auto& w : left) w.done(false);
}

uint32_t AckGate::holders_locked(Seqno seqno) const {
  uint32_t n = 0;
  for (const auto& [peer, s] : acked_) n += s >= seqno;
  return n;
}

uint32_t AckGate::holders(Seqno seqno) const {
  std::lock_guard<std::mutex> g(mutex_);
  return holders_locked(seqno);
}

void AckGate::wait(Seqno seqno, Done done) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (holders_locked(seqno) < replicas_) {
      waiting_.push_back(Waiter{seqno, std::chrono::steady_clock::now() + timeout_, std::move(done)});
      wake_.notify_all();
      return;
    }
  }
  done(true);
}

void AckGate::on_ack(InstanceId peer, InstanceId writer, Seqno seqno) {
  if (writer != own_) return;
  std::vector<Done> ready;
  {
    std::lock_guard<std::mutex> g(mutex_);
    Seqno& held = acked_[peer];
    if (seqno <= held) return;
    held = seqno;
    auto it = std::stable_partition(waiting_.begin(), waiting_.end(),
                                    [&](const Waiter& w) { return holders_locked(w.seqno) < replicas_; });
    for (auto r = it; r != waiting_.end(); ++r) ready.push_back(std::move(r->done));
    waiting_.erase(it, waiting_.end());
  }
  for (auto& d : ready) d(true);
}

void AckGate::run_timer() {
  std::unique_lock<std::mutex> g(mutex_);
  while (!stopping_) {
    auto next = std::chrono::steady_clock::time_point::max();
    for (const auto& w : waiting_) next = std::min(next, w.deadline);
    if (next == std::chrono::steady_clock::time_point::max())
      wake_.wait(g);
    else
      wake_.wait_until(g, next);
    const auto now = std::chrono::steady_clock::now();
    auto it = std::stable_partition(waiting_.begin(), waiting_.end(), [&](const Waiter& w) { return w.deadline > now; });
    std::vector<Done> late;
    for (auto r = it; r != waiting_.end(); ++r) late.push_back(std::move(r->done));
    waiting_.erase(it, waiting_.end());
    if (late.empty()) continue;
    g.unlock();
    for (auto& d : late) d(false);
    g.lock();
  }
}

}  // namespace vasana
