// A seeded multi-writer op workload for convergence tests: several writers produce random ops
// (puts, concurrent updates of the same memories, some with a valid time, equal timestamps
// across writers, deletes, triplets added and retracted (some twice), conflicting functional claims with both
// policies, corrections, reviews, pins, erases of memories whose other ops keep coming), and any interleaving that keeps
// each writer's order can be replayed. Replay a failure with VASANA_TEST_SEED=<seed>.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "protocol/op_values.hpp"
#include "replica/order_key.hpp"

namespace vasana::test {

struct KeyedOp {
  OrderKey key;
  OpValue op;
};

inline uint64_t test_seed() {
  if (const char* s = std::getenv("VASANA_TEST_SEED"); s && *s) return std::strtoull(s, nullptr, 10);
  return std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32);
}

// Per writer, its ops in seqno order. Timestamps come from a small shared range so that ops of
// different writers often share one, and updates often race. Updates and deletes name a revision
// of their memory as their based_on: mostly its latest one ordered before them, sometimes an
// older one (a writer that had not seen the latest: a conflict), sometimes none (unknown).
inline std::vector<std::vector<KeyedOp>> generate(std::mt19937_64& rng, size_t writers, size_t ops_per_writer) {
  std::vector<std::vector<KeyedOp>> out(writers);
  std::vector<MemoryId> memories, triplets, retracted;
  std::vector<uint64_t> clock(writers, 1000);
  std::map<MemoryId, std::vector<OrderKey>> revisions;  // per memory, its put's and updates' keys
  std::map<MemoryId, std::string> realms;                // per memory, its put's realm
  auto pick = [&](const std::vector<MemoryId>& v) { return v[rng() % v.size()]; };
  auto based_on = [&](const MemoryId& m, const OrderKey& key) {
    std::vector<OrderKey> before;
    for (const OrderKey& k : revisions[m])
      if (k < key) before.push_back(k);
    std::sort(before.begin(), before.end());
    const unsigned roll = rng() % 6;
    if (before.empty() || roll == 0) return Revision{};
    const OrderKey& k = roll == 1 ? before[rng() % before.size()] : before.back();
    return Revision{k.ts, k.op_id()};
  };
  const char* words[] = {"deploy", "cluster", "staging", "retry", "budget", "latency", "owner", "schema"};
  auto text = [&] { return std::string(words[rng() % 8]) + " " + words[rng() % 8] + " " + std::to_string(rng() % 100); };
  // Round-robin so that ids created by one writer are used by the others' later ops.
  for (size_t n = 0; n < ops_per_writer; ++n) {
    for (size_t w = 0; w < writers; ++w) {
      clock[w] = std::max<uint64_t>(clock[w] + (rng() % 3 == 0 ? 0 : 1), 1000 + n);  // equal ts happen
      OrderKey key{Hlc::make(clock[w], 0), InstanceId(0x1000 + w), Seqno(out[w].size() + 1)};
      OpValue op;
      unsigned roll = rng() % 100;
      if (memories.empty() || roll < 25) {
        PutMemoryOp p;
        p.realm = rng() % 2 ? "work" : "home";
        p.kind = static_cast<MemoryKind>(rng() % 6);
        p.text = text();
        p.tags = {words[rng() % 8]};
        if (rng() % 4 == 0) p.ref = "ref-" + std::to_string(rng() % 5);  // duplicate refs across writers
        if (rng() % 3 == 0) p.vector = {float(rng() % 7) / 7.0f, 0.5f};
        op = p;
        memories.push_back(key.op_id());
        revisions[key.op_id()].push_back(key);
        realms[key.op_id()] = p.realm;
      } else if (roll < 40) {
        UpdateContentOp u{pick(memories), text(), rng() % 2 == 0, {words[rng() % 8]}};
        if (rng() % 3 == 0) {
          u.has_valid_time = true;
          u.valid_from_ms = int64_t(rng() % 3) * 1000;
          u.valid_to_ms = rng() % 2 ? kOpenFuture : u.valid_from_ms + 5000;
        }
        u.based_on = based_on(u.memory, key);
        revisions[u.memory].push_back(key);
        op = u;
      } else if (roll < 48) {
        op = SetStatusOp{pick(memories), static_cast<MemoryStatus>(rng() % 7), "because", MemoryId{}};
      } else if (roll < 52) {
        const MemoryId m = pick(memories);
        op = DeleteMemoryOp{m, "gone", based_on(m, key)};
      } else if (roll < 56) {
        op = SetVectorOp{pick(memories), {float(rng() % 5), 1.0f}, "test/2/1"};
      } else if (roll < 62) {
        op = AddTripletOp{"work", words[rng() % 8], "uses", words[rng() % 8], kOpenPast, kOpenFuture, pick(memories)};
        triplets.push_back(key.op_id());
      } else if (roll < 70) {
        // Functional claims on two subjects: objects differ, valid times often overlap.
        // The predicate is spelled three ways: claims group by its normalised words.
        const char* cities[] = {"lisbon", "porto", "faro"};
        const char* spellings[] = {"lives_in", "Lives In", "lives in"};
        AddTripletOp t{"work", rng() % 2 ? "ana" : "rui", spellings[rng() % 3], cities[rng() % 3], kOpenPast, kOpenFuture,
                       rng() % 5 ? pick(memories) : MemoryId{}};
        if (rng() % 2) t.valid_from_ms = int64_t(rng() % 4) * 1000;
        if (rng() % 4 == 0) t.valid_to_ms = t.valid_from_ms + 2500;
        t.functional = true;
        t.on_conflict = rng() % 3 ? ConflictPolicy::supersede : ConflictPolicy::contradict;
        op = t;
        triplets.push_back(key.op_id());
      } else if (roll < 76 && !triplets.empty()) {
        // Half the time a triplet retracted already: two nodes retracting the same claim.
        const MemoryId t = !retracted.empty() && rng() % 2 == 0 ? pick(retracted) : pick(triplets);
        retracted.push_back(t);
        op = RetractTripletOp{t, "wrong"};
      } else if (roll < 80) {
        op = AddCorrectionOp{"work", words[rng() % 8], words[rng() % 8], "", pick(memories)};
      } else if (roll < 85) {
        op = ReviewDecisionOp{pick(memories), static_cast<ReviewVerdict>(rng() % 3), "ana", ""};  // approve, reject, reopen
      } else if (roll < 88) {
        // Membership changes of three keys, made on every writer: admits and removals race.
        const std::string k(40, "abc"[rng() % 3]);
        const bool admit = rng() % 3 != 0;
        op = SetMemberOp{k, admit ? "tcp://10.0.0." + std::to_string(rng() % 4) + ":7102" : "", admit, "n"};
      } else if (roll < 90) {
        // An erase by any writer, sometimes of a memory erased already; ops on it keep coming.
        const MemoryId m = pick(memories);
        op = EraseMemoryOp{m, realms[m], revisions[m].front().ts, "w" + std::to_string(w), "holds a secret"};
      } else {
        op = SetPinnedOp{pick(memories), rng() % 2 == 0};
      }
      out[w].push_back(KeyedOp{key, std::move(op)});
    }
  }
  return out;
}

// One random interleaving that keeps each writer's own order.
inline std::vector<const KeyedOp*> interleave(const std::vector<std::vector<KeyedOp>>& streams, std::mt19937_64& rng) {
  std::vector<size_t> next(streams.size(), 0);
  std::vector<const KeyedOp*> out;
  for (;;) {
    std::vector<size_t> open;
    for (size_t w = 0; w < streams.size(); ++w)
      if (next[w] < streams[w].size()) open.push_back(w);
    if (open.empty()) return out;
    size_t w = open[rng() % open.size()];
    out.push_back(&streams[w][next[w]++]);
  }
}


}  // namespace vasana::test
