// The checks the gateway's write requests share (actors/client_remember.cpp for a remember,
// actors/client_writes.cpp for the others): a request's own fields (texts, tags, facts), and,
// under the engine's read lock, the caller's grants on the memories it names, that they are held,
// not deleted and in the right realm, and the realm's corrections. A failed check is a Refusal:
// nothing of the request is written. No CAF here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actors/client_grant_check.hpp"
#include "actors/write_policy.hpp"
#include "protocol/client_writes.hpp"

namespace vasana {

struct CorrectionRecord;

// Why a request is refused; nothing of it is written.
struct Refusal {
  ClientError code = ClientError::bad_input;
  std::string message;
  MemoryId memory;  // a conflict on a ref: the memory that holds it (seqno 0: none said)
};

Refusal bad_input(std::string m);

// The grant check of the memories and triplets call names, against the realms the view shows
// them in (one it hides is left to the request's not-found answer): permission_denied when the
// caller lacks a grant.
std::optional<Refusal> check_grant(const CallerView& view, const ClientCall& call);

// The memory a request names: it must be held by this replica, known to the caller (CallerView)
// and not deleted.
std::optional<Refusal> check_live(const CallerView& view, const MemoryId& id, const std::string& what,
                                  const MemoryRecord** out = nullptr);

// A memory named as a source or a superseded memory: held, not deleted, in realm.
std::optional<Refusal> check_in_realm(const CallerView& view, const MemoryId& id, const std::string& what,
                                      const std::string& realm);

// A fact's subject, predicate and object (each with words) and its valid time.
Status check_fact(const FactInput& f, const std::string& what);
// Tags by validate_memory's rules.
Status check_tags(const std::vector<std::string>& tags);
// An update's new text: within the limit and not only white space.
Status check_new_text(const std::string& text, const InputLimits& limits);

// v in ascending order (tags are compared as sets).
std::vector<std::string> sorted(std::vector<std::string> v);

// The corrections check of a text: none, a refusal, or the correction that flags it.
struct CorrectionVerdict {
  std::optional<Refusal> refusal;
  MemoryId flagged_by;  // seqno 0: not flagged
};

// held: the state under its read lock, or a copy of its corrections (RecallEngine::corrections()).
// A refusal quotes the correction's phrases only to a caller who may read the realm.
CorrectionVerdict check_corrections(const ReplicaState& held, const std::string& realm, const std::string& text,
                                    const RealmWritePolicy& policy, const ClientGrant* who);
CorrectionVerdict check_corrections(const std::vector<CorrectionRecord>& held, const std::string& realm,
                                    const std::string& text, const RealmWritePolicy& policy, const ClientGrant* who);

}  // namespace vasana
