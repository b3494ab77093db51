// Answers to the client requests that read a memory's past and the store's open questions:
// `history` (every op that touched a memory, read back from the segments with its chain check)
// `contradictions` and `conflicts`. Pure C++ (no actor): the query actors call them, off the endpoint thread,
// because history reads segment files.
#pragma once

#include "actors/client_endpoint.hpp"
#include "replica/recall_engine.hpp"
#include "store/data_dir.hpp"
#include "store/vector_space.hpp"

namespace vasana {

// The memory's op keys come from the replica (ReplicaState::history_keys); each op is read from
// its writer's segment in dir (store/op_history.hpp), rendered as JSON and checked against its
// writer's hash chain. not_found when the replica holds no memory with that id.
ClientResponse answer_history(const RecallEngine& engine, const DataDir& dir, const VectorSpace& space,
                              const ClientCall& call);

// The open contradictions of the realms named (each validated as recall validates realms).
ClientResponse answer_contradictions(const RecallEngine& engine, const ClientCall& call);

// The updates of the realms named that lost to an op whose writer had not seen them
// (replica/conflict_record.hpp), by memory id, each memory's in key order of the loser.
ClientResponse answer_conflicts(const RecallEngine& engine, const ClientCall& call);

}  // namespace vasana
