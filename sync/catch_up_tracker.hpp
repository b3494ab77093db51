// When this node last held everything one peer had told it of each writer: the "caught up" time
// that replication lag in seconds counts from (docs/replication.md, "Lag").
//
// The peer re-advertises every writer's head at least every sync.advert_interval_ms. Each advert
// is noted here as (when heard, head) per writer. This node was caught up with that peer, for a
// writer, at the latest time t at which the head the peer had told it of by t is no higher than
// what this node holds now. So the time moves on only while adverts keep arriving and this node
// keeps up with them: a link that stops carrying adverts (a partition, a one-way cut, a stopped
// peer) freezes it, and the lag counted from it grows.
//
// Notes of one writer are bounded (kMaxPending): when a writer's notes are full, the oldest is
// dropped. The caught-up time is the hearing of the newest note this node holds the head of, so
// a dropped note matters only while this node is behind every newer one; then the time found is
// an earlier one, never a later: the lag shown can only err high. The peer session settles the
// notes with what this node holds at each advert, so they stay few while it keeps up.
//
// Threading: none of its own; PeerSession calls it under its status mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>

#include "protocol/ids.hpp"

namespace vasana {

class CatchUpTracker {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxPending = 64;

  // The peer said, in a message heard at `at`, that it holds writer up to seqno head.
  void told(InstanceId writer, uint64_t head, Clock::time_point at);

  // When this node, holding `held` of writer now, was last caught up with what the peer had
  // told it; nullopt when the peer never named the writer, or named it only with a head above
  // held.
  std::optional<Clock::time_point> caught_up(InstanceId writer, uint64_t held);

 private:
  struct Writer {
    std::optional<Clock::time_point> caught_up;
    std::deque<std::pair<Clock::time_point, uint64_t>> pending;  // (heard, head), oldest first
  };
  std::map<InstanceId, Writer> writers_;
};

}  // namespace vasana
