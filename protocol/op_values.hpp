// Every op of protocol/ops.capnp as a plain C++ value, so that the replica (which must stay free
// of Cap'n Proto) can apply ops. decode_op() in op_codec.hpp produces them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

// Schema enum values, in schema order (ordinal = value).
enum class MemoryKind : uint8_t { correction, preference, wisdom, insight, operational, episode };
enum class MemoryStatus : uint8_t { active, verified, observed, proposed, superseded, contradicted, archived };
enum class Epistemic : uint8_t { user_stated, tool_derived, model_inferred, autonomous_synthesis };
// approve and reject decide a review; the first decision (in merge order) holds until a reopen,
// which makes the memory undecided again (replica/review_outcome.hpp).
enum class ReviewVerdict : uint8_t { approve, reject, reopen };
enum class ConflictPolicy : uint8_t { supersede, contradict };

const char* kind_name(MemoryKind k);
const char* status_name(MemoryStatus s);
// The one status a memory shows to clients (get, list, recall hits): "erased" once erased (nothing
// of it is left); "deleted" once forgotten (a forget ends every other status); "rejected" once a
// reviewer rejected it; "approved" for a proposed memory a reviewer approved; else status_name.
// review: the decision in force, none when undecided.
const char* shown_status_name(MemoryStatus s, std::optional<ReviewVerdict> review, bool deleted, bool erased);
const char* epistemic_name(Epistemic e);
const char* decision_name(ReviewVerdict d);  // "approve", "reject", "reopen"
// The decision named so (decision_name's words); false for any other name.
bool parse_decision_name(std::string_view name, ReviewVerdict& out);

struct PutMemoryOp {
  std::string realm;
  MemoryKind kind = MemoryKind::insight;
  std::string text;
  std::vector<std::string> tags;
  std::string ref;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  std::string source_session;
  std::string source_tool;
  std::vector<float> vector;
  MemoryStatus status = MemoryStatus::active;
  Epistemic epistemic = Epistemic::user_stated;
  float confidence = 1.0f;
  bool pinned = false;
};

// A memory's revision as the writer of an op held it: the order key (effective ts, writer,
// seqno) of the latest of its put and updates applied there. ts 0: unknown (an op written before
// ops named their revision).
struct Revision {
  Hlc ts;
  MemoryId op;
  bool known() const { return ts.value != 0; }
};

struct UpdateContentOp {
  MemoryId memory;
  std::string text;
  bool replace_tags = false;
  std::vector<std::string> tags;
  bool has_valid_time = false;  // false: the valid time is left as it is
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  Revision based_on;
};

struct SetStatusOp {
  MemoryId memory;
  MemoryStatus status = MemoryStatus::active;
  std::string reason;
  MemoryId replaced_by;  // seqno 0 = none
};

struct SetVectorOp {
  MemoryId memory;
  std::vector<float> vector;
  std::string vector_space;
};

struct DeleteMemoryOp {
  MemoryId memory;
  std::string reason;
  Revision based_on;
};

struct AddTripletOp {
  std::string realm;
  std::string subject;
  std::string predicate;
  std::string object;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  MemoryId source_memory;  // seqno 0 = none
  bool functional = false;  // the predicate holds one object per subject at a time
  ConflictPolicy on_conflict = ConflictPolicy::supersede;
};

struct RetractTripletOp {
  MemoryId triplet;
  std::string reason;
};

struct AddCorrectionOp {
  std::string realm;
  std::string wrong;
  std::string right;
  std::string note;
  MemoryId source_memory;  // seqno 0 = none
};

struct ReviewDecisionOp {
  MemoryId memory;
  ReviewVerdict decision = ReviewVerdict::approve;
  std::string reviewer;
  std::string note;
};

struct SetPinnedOp {
  MemoryId memory;
  bool pinned = false;
};

// A membership change: the node with this CurveZMQ public key is admitted or removed.
struct SetMemberOp {
  std::string public_key;  // Z85, 40 characters
  std::string address;     // peer listen endpoint; empty when removed
  bool admitted = false;
  std::string name;
};

// A memory erased (protocol/ops.capnp EraseMemory).
struct EraseMemoryOp {
  MemoryId memory;
  std::string realm;
  Hlc created_ts;  // the memory's put_memory's effective timestamp
  std::string by;
  std::string reason;
};

// A record whose payload an erase replaced by a redaction marker (protocol/redaction.hpp): what
// is left of a put_memory, update_content, set_vector or add_triplet of an erased memory.
struct RedactedOp {
  uint16_t op_type = 0;  // the record's op type before redaction (without kRedactedBit)
  MemoryId memory;       // the erased memory the op carried content of
  Hash256 record_hash{};  // the record's chain hash, kept so that its writer's chain verifies
};

// Alternatives in OpType order (protocol/op_type.hpp), without the retired access op, then the
// redacted record: op_type_of() gives each its code.
using OpValue = std::variant<PutMemoryOp, UpdateContentOp, SetStatusOp, SetVectorOp, DeleteMemoryOp, AddTripletOp,
                             RetractTripletOp, AddCorrectionOp, ReviewDecisionOp, SetPinnedOp, SetMemberOp, EraseMemoryOp,
                             RedactedOp>;

}  // namespace vasana
