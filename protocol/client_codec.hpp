// The client protocol (protocol/client.capnp) as plain C++ values, so that callers never see
// Cap'n Proto builders. Every message on the client socket is [kClientTag, body].
#pragma once

#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "protocol/client_writes.hpp"
#include "protocol/client_reads.hpp"
#include "protocol/client_history.hpp"
#include "protocol/client_facts.hpp"
#include "protocol/client_analogy.hpp"
#include "protocol/ids.hpp"
#include "protocol/verdict.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

inline constexpr std::string_view kClientTag = "vasana.client.1";
inline constexpr uint16_t kClientProtocolVersion = 1;

struct RecallQuery {
  std::string text;
  std::vector<std::string> realms;
  uint32_t limit = 10;
  std::optional<int64_t> as_of_ms;  // none: the node's now
  std::vector<std::string> lanes;   // empty: every lane that applies to the query; see RecallRequest
  std::vector<float> vector;
  bool include_staged = false;
  std::optional<int64_t> window_from_ms, window_to_ms;  // a time window for the temporal lane
  std::vector<std::string> tags;      // a hit must carry every one of these tags
  std::optional<int64_t> known_at_ms;  // transaction time (none: what the store believes now)
};

struct RecallHit {
  struct Lane {
    std::string lane;
    uint32_t rank = 0;
    double score = 0;
  };
  MemoryId id;
  double score = 0;
  std::string realm, kind, status, text, ref;
  int64_t recorded_at_ms = 0;
  std::vector<Lane> lanes;
  double relevance = 0, kind_prior = 1, status_weight = 1, epistemic_weight = 1, strength = 1, phrase_boost = 1;
  std::vector<std::string> tags;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  bool future = false;  // valid only from valid_from_ms, after the query's now
};

struct RecallAnswer {
  std::vector<RecallHit> hits;
  double top_relevance = 0;
  Verdict verdict = Verdict::unknown;
  // What top_relevance was computed from (replica/verdict.hpp): the keyword lane's best share of
  // the query's weight and the semantic lane's best cosine; 0 when there were no hits.
  double keyword_evidence = 0;
  double semantic_evidence = 0;
  std::vector<std::string> lanes;
  std::vector<CorrectionHit> corrections;  // stored corrections matching the query, shown first
  std::vector<std::string> notes;          // what the node could not do for this query, and why
};

struct ClientRequest {
  enum class Kind {
    ping, remember, recall, status,
    update, forget, set_status, pin, fact, correct, retract, review, member, erase,  // protocol/client_writes.hpp
    get, list,                                                          // protocol/client_reads.hpp
    history, contradictions, conflicts,                                 // protocol/client_history.hpp
    analogy,                                                            // protocol/client_analogy.hpp
    facts,                                                              // protocol/client_facts.hpp
    realms,                                                             // protocol/client_reads.hpp
  };
  uint64_t request_id = 0;
  uint16_t protocol_version = kClientProtocolVersion;
  Kind kind = Kind::ping;
  MemoryInput memory;  // for remember
  RecallQuery recall;  // for recall
  RememberOptions remember_options;  // for remember
  UpdateRequest update;
  ForgetRequest forget;
  ForgetRequest erase;  // the memory and why
  StatusRequest set_status;
  PinRequest pin;
  FactRequest fact;
  CorrectRequest correct;
  MemoryId retract;  // the triplet (the id of the op that added it)
  ReviewRequest review;
  SetMemberOp member;  // for member: written as it is, once checked
  MemoryId get;        // for get
  ListRequest list;    // for list
  MemoryId history_of;  // for history
  std::vector<std::string> listed_realms;  // for contradictions and conflicts
  AnalogyRequest analogy;  // for analogy
  FactsRequest facts;      // for facts
  // The identity whose grants apply (protocol/client_grants.hpp); empty: the transport's own
  // (the owner on a trusted transport, the CurveZMQ key's client on TCP).
  std::string acting_as;
  // The front end on the IPC socket ("http", "mcp"), for the metrics' transport label; see
  // protocol/client.capnp.
  std::string via;
};

enum class ClientError : uint16_t {
  bad_input = 0,
  unavailable = 1,
  io_failure = 2,
  protocol_mismatch = 3,
  internal = 4,
  conflict = 5,   // refused by what the store holds (a ref with other content, a corrected phrase)
  not_found = 6,  // no memory (or triplet) with that id
  permission_denied = 7,  // outside the client's grants; nothing was written
  // Durable on this node but not synced by as many peers as sync.ack asks in time; it replicates
  // when they return. The response's id names the memory written.
  not_replicated = 8,
};

// The error's name as the HTTP API and the MCP server give it: "bad_input", "not_found", ...
const char* client_error_name(ClientError e);

struct NodeInfo {
  InstanceId instance;
  std::string vector_space;
  Seqno last_seqno;
  bool writable = true;
  std::string read_only_reason;
  uint64_t flushes = 0;
  uint64_t flushed_records = 0;
};

struct ClientResponse {
  enum class Kind {
    error, pong, remembered, recalled, status, written, memory, listed, history, contradictions, analogy, conflicts,
    facts, realms
  };
  uint64_t request_id = 0;
  Kind kind = Kind::error;
  ClientError error = ClientError::internal;  // for error
  std::string message;                        // for error
  NodeInfo info;                              // for pong
  MemoryId id;                                // for remembered, written (the op's id)
  uint64_t effective_ts = 0;                  // for remembered, written
  bool existed = false;                       // for remembered: the ref was already held
  bool updated = false;                       // for remembered: written as an update of the ref's memory
  MemoryStatus stored_status = MemoryStatus::active;  // for remembered: proposed when held for review
  MemoryId flagged_by;                        // for remembered: the correction the text repeats (seqno 0: none)
  std::vector<ConflictCandidate> candidates;  // for remembered: existing memories it may repeat or contradict
  bool candidates_skipped = false;            // for remembered: no search by text (the node was busy)
  RecallAnswer answer;                        // for recalled
  std::string status_json;                    // for status
  MemoryView memory;                          // for memory (get)
  MemoryPage page;                            // for listed
  std::vector<HistoryEntry> history;          // for history, oldest op first
  std::vector<ContradictionView> contradictions;  // for contradictions
  AnalogyView analogy;                        // for analogy
  std::vector<ConflictView> conflicts;        // for conflicts, by memory id then loser
  FactsPage facts;                            // for facts
  std::vector<RealmView> realms;              // for realms, by name
};

std::string encode_request(const ClientRequest& r);
Result<ClientRequest> decode_request(std::string_view body);
std::string encode_response(const ClientResponse& r);
Result<ClientResponse> decode_response(std::string_view body);

ClientResponse error_response(uint64_t request_id, ClientError code, std::string message);

}  // namespace vasana
