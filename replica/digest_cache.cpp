#include "replica/digest_cache.hpp"

namespace vasana {

std::string applied_vector_tag(const std::map<InstanceId, Seqno>& applied) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ULL;
    }
  };
  for (const auto& [writer, seqno] : applied) {
    mix(writer.value);
    mix(seqno.value);
  }
  static const char* const kHex = "0123456789abcdef";
  std::string out(16, '0');
  for (int k = 15; k >= 0; --k, h >>= 4) out[size_t(k)] = kHex[h & 0xf];
  return out;
}

StateDigest digest_in_process(const RecallEngine& engine, const std::function<void(const ReplicaState&)>& also) {
  StateDigest d;
  engine.read([&](const ReplicaState& state) {
    if (also) also(state);
    d.digest = state.digest();
    d.applied = state.applied();
  });
  return d;
}

std::string DigestCache::get(const RecallEngine& engine, std::string* vector) {
  std::lock_guard<std::mutex> g(mu_);
  const Clock::time_point now = Clock::now();
  if (!have_ || now - computed_at_ >= min_interval_) {
    std::map<InstanceId, Seqno> applied;
    engine.read([&](const ReplicaState& state) { applied = state.applied(); });
    if (!have_ || applied != applied_) {
      StateDigest d = source_(engine);
      applied_ = std::move(d.applied);
      digest_ = to_hex(d.digest);
      computed_at_ = now;
      have_ = true;
      ++computations_;
    }
  }
  if (vector) *vector = applied_vector_tag(applied_);
  return digest_;
}

uint64_t DigestCache::computations() const {
  std::lock_guard<std::mutex> g(mu_);
  return computations_;
}

}  // namespace vasana
