// The client protocol's history and contradictions requests (protocol/client.capnp) as plain
// values: every op that touched a memory, and the open contradictions of functional claims.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"

namespace vasana {

// One op that touched a memory, as read back from its writer's segment.
struct HistoryEntry {
  std::string op;           // op type name ("put_memory", "update_content", ...)
  InstanceId writer;
  Seqno seqno;
  uint64_t effective_ts = 0;  // hybrid logical clock value
  int64_t recorded_at_ms = 0;  // its physical part: the transaction time
  bool chain_verified = false;  // the writer's hash chain verifies up to this record
  std::string fields_json;      // the op's fields (protocol/op_codec.hpp op_fields_json)
  MemoryId lost_to;             // an update (or review decision) that lost: the op it lost to (seqno 0 = it did not lose)
  bool lost_to_forget = false;  // that op is a forget
  bool lost_to_review = false;  // a review decision that lost to the decision that held
};

// An update that lost to an op whose writer had not seen it (replica/conflict_record.hpp), or a
// review decision that did not hold against the one that did (replica/review_outcome.hpp).
struct ConflictView {
  MemoryId memory;
  std::string realm;
  MemoryId lost;          // the update_content (or review) op that lost
  uint64_t lost_ts = 0;   // its hybrid logical clock value
  MemoryId to;            // the op it lost to
  uint64_t to_ts = 0;
  bool to_forget = false;  // that op is a forget, else an update
  bool review = false;     // lost and to are review decisions
};

// The ops of a conflict as answers name them: the loser "update" or "review"; what it lost to
// "update", "forget" or "review".
inline const char* lost_op_name(const ConflictView& c) { return c.review ? "review" : "update"; }
inline const char* to_op_name(bool review, bool forget) { return review ? "review" : forget ? "forget" : "update"; }

struct ClaimView {
  MemoryId triplet;        // the id of the add_triplet op
  std::string object;
  MemoryId source_memory;  // seqno 0 = none
  int64_t valid_from_ms = 0;
  int64_t valid_to_ms = 0;
};

// Claims of one realm, subject and functional predicate that name different objects for
// overlapping valid times, under the contradict policy, not yet resolved.
struct ContradictionView {
  std::string realm, subject, predicate;
  std::vector<ClaimView> claims;
};

}  // namespace vasana
