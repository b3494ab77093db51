// The memory lines of an import that take more than one write, written one call at a time: a
// line with earlier versions (`vasana export --history`) and a forgotten one (`--deleted`).
//
// Versions: the oldest text is the memory's put, then each later text, the current one last, is
// an update of it (a remember of its ref that asks to update an existing ref), so the imported
// memory's history holds every version in order. A forgotten memory is written so and forgotten
// by forget_imported(), after the reviews, links and facts that name it (which a forgotten
// memory no longer takes).
//
// A repeated import writes nothing twice, and one that stopped half-way through a line goes on
// where it stopped: when the realm holds the ref with a text other than the oldest, that text is
// looked for among the line's later texts, newest first, by remembers of the ref that only
// compare (the ref being held, they write nothing), and the chain goes on after the one found. A
// forgotten line whose ref is held by a forgotten memory with its current text is present. A ref
// held with a text that is none of the line's is a conflict, as for any line.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "frontends/node_client.hpp"

namespace vasana {

struct SteppedLine {
  size_t line = 0;
  MemoryInput memory;                 // its text is the current one
  std::vector<std::string> versions;  // the earlier texts, oldest first
  bool deleted = false;               // a forgotten memory
};

struct SteppedOutcome {
  // The answer that sums the line up, as a remember's would: remembered, naming the memory, with
  // existed set when nothing was written; or the node's refusal (a conflict, or another error).
  ClientResponse answer;
  bool forgotten = false;  // the memory was found forgotten already
};

// An unanswered call is the error status.
Result<SteppedOutcome> import_in_steps(NodeClient& client, const SteppedLine& line, std::chrono::milliseconds timeout);

struct ForgetOutcome {
  size_t forgotten = 0;
  std::vector<std::pair<size_t, std::string>> refused;  // line, why
  std::string failure;                                  // the pass stopped: why
};

// Forgets each memory of `to_forget` (its id by the line that wrote it), in line order.
ForgetOutcome forget_imported(NodeClient& client, const std::map<size_t, MemoryId>& to_forget,
                              std::chrono::milliseconds timeout);

}  // namespace vasana
