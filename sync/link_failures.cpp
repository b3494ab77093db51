#include "sync/link_failures.hpp"

namespace vasana {

void LinkFailures::add(const std::string& peer, const std::string& side, const std::string& reason) {
  std::lock_guard<std::mutex> g(mutex_);
  counts_[{peer, side, reason}]++;
}

std::vector<ConnectionFailure> LinkFailures::snapshot() const {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<ConnectionFailure> out;
  out.reserve(counts_.size());
  for (const auto& [key, n] : counts_) out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
  return out;
}

}  // namespace vasana
