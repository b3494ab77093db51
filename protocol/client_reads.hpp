// The read requests of the client protocol (protocol/client.capnp) as plain C++ values: get (one
// memory with every field), list (a realm's memories, paged and filtered) and what recall's
// answer carries besides hits (corrections). Encoded by protocol/client_reads_codec.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/op_values.hpp"
#include "protocol/status.hpp"

namespace vasana {

// Every field of one memory, as the node holds it now (schema MemoryView).
// A text a memory held before its current one, and when it was written (its put or update).
struct MemoryVersion {
  std::string text;
  int64_t recorded_at_ms = 0;
};

struct MemoryView {
  MemoryId id;
  std::string realm;
  MemoryKind kind = MemoryKind::insight;
  std::string text;
  std::vector<std::string> tags;
  std::string ref;
  MemoryStatus status = MemoryStatus::active;
  std::string status_reason;
  MemoryId replaced_by;  // seqno 0 = none
  Epistemic epistemic = Epistemic::user_stated;
  float confidence = 1.0f;
  bool pinned = false;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  int64_t recorded_at_ms = 0;  // transaction time of the put
  int64_t updated_at_ms = 0;   // transaction time of the newest op that changed it
  bool deleted = false;
  bool reviewed = false;                             // a reviewer decided
  ReviewVerdict review_decision = ReviewVerdict::approve;  // meaningful when reviewed
  std::string source_session;
  std::string source_tool;
  std::string claim_status;  // "" or what a conflicting claim made it
  bool erased = false;       // erased: only id, realm and recorded time are left; status_reason says why
  std::string erased_by;
  std::vector<MemoryVersion> versions;  // only when asked (ListRequest::versions): earlier texts, oldest first
};

// A realm the caller may read, and how many memories it holds that were not forgotten (of
// every status).
struct RealmView {
  std::string name;
  uint64_t memories = 0;
};

constexpr uint32_t kMaxListLimit = 10000;

// A realm's memories in id order after `after`, filtered; every filter must hold.
struct ListRequest {
  std::string realm;
  std::vector<MemoryKind> kinds;        // empty: every kind
  std::vector<std::string> tags;        // a memory must carry every one of them
  std::vector<MemoryStatus> statuses;   // empty: every status
  bool include_deleted = false;
  bool unreviewed = false;  // only proposed memories no reviewer decided (the review queue)
  MemoryId after;           // the page starts after this id (seqno 0 = from the start)
  uint32_t limit = 100;     // 1..kMaxListLimit
  bool versions = false;    // each memory's earlier texts too (MemoryView::versions)
};

// One page of a list. next: give it as `after` for the next page; seqno 0 = no more. A page
// may hold fewer than `limit` memories while next is set (the node bounds what one page scans
// and how many bytes it holds): a client pages until next is 0.
struct MemoryPage {
  std::vector<MemoryView> memories;
  MemoryId next;
};

// A stored correction that matches a recall's query: shown ahead of the hits.
struct CorrectionHit {
  MemoryId id;
  std::string realm;
  std::string wrong;
  std::string right;
  std::string note;
};

// Ok, or InvalidArgument naming the field: the realm rules of a remember, the tag rules of a
// remember for each tag (tag_filter_status), limit in 1..kMaxListLimit.
Status validate_list(const ListRequest& r);
// The tags a query filters by: at most kMaxTags, each as a remember's tag must be.
Status tag_filter_status(const std::vector<std::string>& tags);

// Names to schema enums (memory_kinds(), memory_statuses() order); false for an unknown name.
bool parse_kind_name(std::string_view name, MemoryKind& out);
bool parse_status_name(std::string_view name, MemoryStatus& out);
bool parse_epistemic_name(std::string_view name, Epistemic& out);

}  // namespace vasana
