// Cap'n Proto side of protocol/client_history.hpp, for protocol/client_codec.cpp only (includes
// generated code: keep it out of widely used headers).
#pragma once

#include <vector>

#include "protocol/client.capnp.h"
#include "protocol/client_history.hpp"

namespace vasana {

void fill_history(capnp::List<schema::HistoryEntry>::Builder out, const std::vector<HistoryEntry>& entries);
std::vector<HistoryEntry> read_history(capnp::List<schema::HistoryEntry>::Reader in);
void fill_contradictions(capnp::List<schema::Contradiction>::Builder out, const std::vector<ContradictionView>& cs);
std::vector<ContradictionView> read_contradictions(capnp::List<schema::Contradiction>::Reader in);
void fill_conflicts(capnp::List<schema::Conflict>::Builder out, const std::vector<ConflictView>& cs);
std::vector<ConflictView> read_conflicts(capnp::List<schema::Conflict>::Reader in);

}  // namespace vasana
