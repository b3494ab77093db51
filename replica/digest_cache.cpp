#include "replica/digest_cache.hpp"

namespace vasana {

std::string DigestCache::get(const RecallEngine& engine) {
  std::lock_guard<std::mutex> g(mu_);
  const Clock::time_point now = Clock::now();
  if (have_ && now - computed_at_ < min_interval_) return digest_;
  engine.read([&](const ReplicaState& state) {
    if (have_ && state.applied() == applied_) return;
    applied_ = state.applied();
    digest_ = to_hex(state.digest());
    computed_at_ = now;
    have_ = true;
    ++computations_;
  });
  return digest_;
}

uint64_t DigestCache::computations() const {
  std::lock_guard<std::mutex> g(mu_);
  return computations_;
}

}  // namespace vasana
