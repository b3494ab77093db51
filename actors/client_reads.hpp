// The node's answers to the read requests other than recall: get (one memory with every field),
// list (a realm's memories in id order, paged and filtered) and analogy (a : b :: c : ?). The
// gateway validates them (ClientGateway::handle_read, in actors/client_reads.cpp) and hands them
// to a query actor,
// which waits for the node's acknowledged writes like a recall does and answers with these.
// Pure functions of the state: no CAF here.
#pragma once

#include <cstddef>

#include "actors/client_endpoint.hpp"
#include "actors/client_grant_check.hpp"
#include "protocol/client_codec.hpp"
#include "replica/recall_engine.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

// A list page stops after examining this many memories (of any realm) even when it holds fewer
// than its limit, and after about this many bytes of memories (the endpoint refuses replies over
// ClientEndpointLimits::max_reply_bytes); its `next` then says where to go on.
inline constexpr size_t kListScanPerPage = 100000;
inline constexpr size_t kListPageBytes = 2u << 20;

// Every field of a memory's record as the node holds it now.
MemoryView memory_view_of(const MemoryRecord& m);

// get: the memory, or not_found naming the id (memory_not_found) when the view does not show it:
// not held, or in a realm the caller may not read.
ClientResponse answer_get(const CallerView& view, uint64_t request_id, const MemoryId& id);
// The answer to a get or history of a memory the caller cannot see, held or not.
ClientResponse memory_not_found(uint64_t request_id, const MemoryId& id);
// The earlier texts a page of a list with versions names, to be read from the state's value
// archive after the engine's lock is released (a text the archive lacks costs a segment read).
struct PendingTexts {
  std::shared_ptr<ValueArchive> archive;
  std::vector<TextWanted> wanted;
  std::vector<std::pair<size_t, size_t>> at;  // of each: (memory on the page, its version)
};
// list: the page after r.after (r validated by validate_list). With pending, the earlier texts
// of a list with versions are left to fill_texts(); without, they are read here.
ClientResponse answer_list(const ReplicaState& state, uint64_t request_id, const ListRequest& r,
                           PendingTexts* pending = nullptr);
// Reads the texts pending names into r's page: io_failure (r replaced) when one cannot be read.
void fill_texts(ClientResponse& r, const PendingTexts& pending);

// facts: the realm's live triplets and corrections after r.after (r validated by
// validate_facts_request); a page also stops after kListScanPerPage entries of other realms.
ClientResponse answer_facts(const ReplicaState& state, uint64_t request_id, const FactsRequest& r);

// realms: every realm holding a created memory that who may read, by name, with its memories not
// forgotten. O(memories of the store): one pass over the records.
ClientResponse answer_realms(const ReplicaState& state, uint64_t request_id, const ClientGrant* who);

// analogy: recall_analogy (replica/analogy.hpp) as of req.as_of_ms, or now_ms when not given.
ClientResponse answer_analogy(const ReplicaState& state, uint64_t request_id, const AnalogyRequest& req,
                              int64_t now_ms);

// Answers a get, list or analogy call under the engine's read lock, as seen by call.who.
ClientResponse answer_read(const RecallEngine& engine, const ClientCall& call);

}  // namespace vasana
