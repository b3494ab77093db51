// The client requests that write (protocol/client.capnp: remember's options, update, forget,
// setStatus, pin, fact, correct, retract, review) as plain C++ values. ClientRequest holds one
// of each; protocol/client_writes_codec.cpp converts them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/op_values.hpp"

namespace vasana {

// A triplet (subject, predicate, object) as a client gives it.
struct FactInput {
  std::string subject;
  std::string predicate;
  std::string object;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
};

// What remember does when the realm already holds a memory with the request's ref.
enum class RefPolicy : uint8_t {
  refuse,  // same content: the existing id comes back (nothing written); other content: conflict
  update,  // other content: written as an update of the existing memory
};

struct RememberOptions {
  RefPolicy on_existing_ref = RefPolicy::refuse;
  MemoryId supersedes;           // seqno 0 = none: that memory is marked superseded by the new one
  std::vector<FactInput> facts;  // triplets whose source is the new memory
  bool no_candidates = false;    // answer without conflict candidates (bulk loads: import)
  bool is_default() const {
    return on_existing_ref == RefPolicy::refuse && supersedes.seqno.value == 0 && facts.empty() && !no_candidates;
  }
};

// A write-time conflict candidate (replica/conflict_candidates.hpp): an existing memory of the
// realm a remember wrote to that most likely says the same thing or its opposite.
struct ConflictCandidate {
  MemoryId id;
  std::string text;    // its current text
  std::string reason;  // why it is a candidate, e.g. "fact 'ana lives_in porto' (this one: lisbon)"
};

struct UpdateRequest {
  MemoryId memory;
  bool has_text = false;  // false: the text stays
  std::string text;
  bool replace_tags = false;  // false: the tags stay
  std::vector<std::string> tags;
  bool has_valid_time = false;  // false: the valid time stays
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  // Triplets drawn from the new text, with the memory as source. An update of the text retires
  // the facts drawn from the earlier text (replica/replica_state.hpp); these are the new ones.
  std::vector<FactInput> facts;
};

struct ForgetRequest {
  MemoryId memory;
  std::string reason;
};

struct StatusRequest {
  MemoryId memory;
  MemoryStatus status = MemoryStatus::active;
  std::string reason;
  MemoryId replaced_by;  // seqno 0 = none; only with status superseded: the memory that replaces it
};

struct PinRequest {
  MemoryId memory;
  bool pinned = true;
};

struct FactRequest {
  std::string realm;
  FactInput fact;
  MemoryId source_memory;  // seqno 0 = none
};

struct CorrectRequest {
  std::string realm;
  std::string wrong;
  std::string right;
  std::string note;
  MemoryId source_memory;  // seqno 0 = none
  // With a source: store the correction only, the source's text as it is (an import of a realm
  // whose texts were corrected already). Otherwise the source gets the corrected text.
  bool keep_source_text = false;
};

struct ReviewRequest {
  MemoryId memory;
  ReviewVerdict decision = ReviewVerdict::approve;
  std::string reviewer;  // required: who decided
  std::string note;
};

// The limits of the write requests' own fields (a memory's are in memory_input.hpp).
constexpr size_t kMaxFactPartBytes = 1024;  // a fact's subject, predicate or object
constexpr size_t kMaxFacts = 64;            // facts of one remember
constexpr size_t kMaxPhraseBytes = 4096;    // a correction's wrong or right phrase
constexpr size_t kMaxNoteBytes = 4096;      // a reason or a note
constexpr size_t kMaxReviewerBytes = 128;

}  // namespace vasana
