// The state digest for frequent readers (every Prometheus scrape): ReplicaState::digest() hashes
// every memory, O(store), so it is computed again only when the
// state changed (the applied version vector moved: the state is a function of the ops applied)
// and at least min_interval after the last computation. Otherwise the last digest is returned,
// which may then describe an older state than the one applied now, by at most min_interval.
// With the digest goes the tag of the applied version vector it covers (applied_vector_tag):
// two nodes whose tags are equal applied the same ops, so their digests must be equal too,
// while nodes at different vectors (one has applied a write the other has not yet) are not
// compared at all.
//
// Threading: get() may be called from any thread; calls are serialized.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "protocol/ids.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

// A short name of an applied version vector: 16 hex digits of a 64-bit FNV-1a hash over each
// (writer, seqno) in writer order. Equal vectors have equal tags.
std::string applied_vector_tag(const std::map<InstanceId, Seqno>& applied);

// A state digest and the applied version vector of the state it is the digest of.
struct StateDigest {
  Hash256 digest{};
  std::map<InstanceId, Seqno> applied;
};
// Computed here, under the engine's read lock (writes wait for the whole pass). also, when given,
// runs under the same lock first: what else the caller reads of the state at that moment.
StateDigest digest_in_process(const RecallEngine& engine,
                              const std::function<void(const ReplicaState&)>& also = nullptr);

class DigestCache {
 public:
  using Source = std::function<StateDigest(const RecallEngine&)>;
  // source computes a digest when one is due (a node passes actors/forked_digest.hpp's, so that
  // writes wait only for a fork).
  explicit DigestCache(std::chrono::milliseconds min_interval,
                       Source source = [](const RecallEngine& e) { return digest_in_process(e); })
      : min_interval_(min_interval), source_(std::move(source)) {}

  // The digest of engine's state, hex (to_hex(Hash256)); *vector (when given) gets the
  // applied_vector_tag of the state it is the digest of.
  std::string get(const RecallEngine& engine, std::string* vector = nullptr);
  // How many times get() computed the digest (for tests).
  uint64_t computations() const;

 private:
  using Clock = std::chrono::steady_clock;
  const std::chrono::milliseconds min_interval_;
  const Source source_;
  mutable std::mutex mu_;
  bool have_ = false;                       // guarded by mu_
  std::map<InstanceId, Seqno> applied_;     // guarded by mu_: what digest_ covers
  std::string digest_;                      // guarded by mu_
  Clock::time_point computed_at_;           // guarded by mu_
  uint64_t computations_ = 0;               // guarded by mu_
};

}  // namespace vasana
