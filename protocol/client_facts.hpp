// The client protocol's facts request (protocol/client.capnp FactsRequest) as plain values: a
// realm's live triplets and its corrections together, paged in op id order. `vasana export`
// writes them after the realm's memories.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

constexpr uint32_t kMaxFactsPage = 10000;

struct FactsRequest {
  std::string realm;
  MemoryId after;         // the page starts after this op id (seqno 0 = from the start)
  uint32_t limit = 1000;  // 1..kMaxFactsPage
};

// A live triplet (is_correction false: subject, predicate, object, valid time) or a correction
// (wrong, right, note); source_memory for either (seqno 0 = none).
struct FactEntry {
  MemoryId id;  // the op that added it
  bool is_correction = false;
  std::string subject, predicate, object;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  std::string wrong, right, note;
  MemoryId source_memory;
};

// One page. next: give it as `after` for the next page; seqno 0 = no more.
struct FactsPage {
  std::vector<FactEntry> entries;
  MemoryId next;
};

// Ok, or InvalidArgument naming the field: the realm rules of a remember, limit in
// 1..kMaxFactsPage.
Status validate_facts_request(const FactsRequest& r);

}  // namespace vasana
