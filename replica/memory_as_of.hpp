// A memory as the store held it now or at an earlier transaction time (QueryScope::known_at_ms):
// what admission and the read paths use instead of the record's raw registers.
//
// Effective status: the status register or the claim outcome of conflicting functional claims
// (replica/claims.hpp), whichever has the later version (the claim outcome's version is the key
// of the claim that caused it). So a set_status written after a conflict (someone resolving it)
// wins, and replicas still agree.
//
// Known at T: a memory created after T (created_key's physical ms > T) does not exist then; its
// status, tombstone, review, pin, valid time and text are those of the newest write with a
// physical time <= T (RegisterHistory), its claim outcome that of the claims live at T. The text
// then is the content write text_version names: the current text when it is the content's
// version, else one the state's value archive holds (ReplicaState::text_at).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "replica/claims.hpp"
#include "replica/memory_record.hpp"

namespace vasana {

struct MemoryAsOf {
  bool exists = false;  // created (at T: created at or before T)
  MemoryStatus status = MemoryStatus::active;  // the effective status
  OrderKey status_version;
  bool deleted = false;
  std::optional<ReviewVerdict> review;
  bool pinned = false;
  ValidTime valid;
  OrderKey text_version;                 // the key of the content write in force
  // The content when text_version is the current one (valid while the record is unchanged);
  // null when the text in force then was an earlier one.
  const std::string* text = nullptr;
  std::optional<ClaimEntry> claim;       // the claim outcome, when one holds
};

// known_at_ms: none = now.
MemoryAsOf memory_as_of(const MemoryRecord& m, std::optional<int64_t> known_at_ms = std::nullopt);

// The effective status now (status register or claim outcome, the later one).
MemoryStatus effective_status(const MemoryRecord& m);

}  // namespace vasana
