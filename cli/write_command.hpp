// What every write command of the CLI shares (update, forget, archive, restore, pin, unpin,
// fact, correct, retract, review): the common options, id and fact arguments, and sending one
// write to the node and printing its answer.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "cli/args.hpp"
#include "config/node_config.hpp"
#include "protocol/client_codec.hpp"

namespace vasana {

// own plus the options every client command takes: --data, --connect, --config, --timeout-ms.
std::set<std::string> with_client_options(std::set<std::string> own);

// A memory or triplet id ("9f3c2a1b4d5e6f70-42"); InvalidArgument naming what and the text.
Result<MemoryId> parse_id_argument(const std::string& what, const std::string& text);

// "subject|predicate|object" into a fact; InvalidArgument unless it has three non-empty parts.
Result<FactInput> parse_fact_argument(const std::string& text);

// --valid-from / --valid-to into from and to (left as they are when not given).
// InvalidArgument naming the option when one is not a time.
Status parse_valid_time(const Args& args, int64_t& from, int64_t& to);

// The exit code for a node's error answer: 2 for bad input, 1 for everything else (refused,
// not found, conflict, unavailable).
int exit_code_of(ClientError e);

// Sends req to the node that args name and waits for the answer (--timeout-ms, default 30 s).
// A written answer prints the op's id (with --json: {"id", "seqno", "effective_ts"}) and
// returns 0; an error answer prints "vasana: CMD: message" and returns its exit code.
int send_write(const std::string& cmd, const Args& args, ClientRequest req);

// The same call, returning the answer for commands that print it themselves (remember). On a
// failure to reach the node or an error answer it prints why and returns nullopt, with the exit
// code in exit.
std::optional<ClientResponse> call_node(const std::string& cmd, const Args& args, ClientRequest req, int& exit);

}  // namespace vasana
