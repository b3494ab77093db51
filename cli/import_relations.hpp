// The second pass of `vasana import`: what an export file holds besides memories, written once
// the memories it names are stored: their review decisions, which memory superseded which, and
// the realm's facts and corrections with their source memories (frontends/jsonl_relations.hpp).
// What the realm holds already is not written again, so a repeated import writes nothing twice
// and an import that stopped half-way finishes when run again: a memory found present is read
// back (get) and gets its review or supersede only when it lacks it (one holding another review
// decision is refused, reviews being final); a fact or correction with the same fields and
// source is not written again.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontends/jsonl_relations.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

// A memory line of the file as the first pass stored it.
struct ImportedMemory {
  size_t line = 0;
  MemoryId id;
  bool existed = false;  // the realm held it already: nothing was written for it
  std::optional<ReviewVerdict> review;
};

struct RelationInput {
  size_t line = 0;
  RelationLine relation;
};

struct RelationsOutcome {
  size_t written = 0;
  size_t present = 0;                                 // already held, not written again
  std::vector<std::pair<size_t, std::string>> refused;  // line, why (the node refused it)
  std::string failure;                                // the pass stopped: why
};

// memories: by exported ref. Every ref a relation names is one of them (relations_naming).
RelationsOutcome import_relations(NodeClient& client, const std::string& realm,
                                  const std::map<std::string, ImportedMemory>& memories,
                                  const std::vector<RelationInput>& relations, std::chrono::milliseconds timeout);

// The relations every ref of which (ref, replaced_by, source_ref) is known; each other one goes
// to dropped with the first ref it misses.
std::vector<RelationInput> relations_naming(std::vector<RelationInput> relations,
                                            const std::function<bool(const std::string&)>& known,
                                            const std::function<void(const RelationInput&, const std::string&)>& dropped);

// Prints the second pass's summary line to stdout ("then N ... written, M already present, K
// refused", unlinked counted as refused) and its first 20 refused lines to stderr.
void report_relations(RelationsOutcome& outcome, size_t unlinked);

}  // namespace vasana
