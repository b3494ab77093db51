// Connecting to the local node and making one call, for the client commands that read (get,
// list, export): failures are printed as "vasana: <command>: ..." with the exit code they mean.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "frontends/node_client.hpp"
#include "config/node_config.hpp"

namespace vasana {

// The node named by --connect / --data / $VASANA_DATA; null after printing why not (exit_code:
// 2 when none is named, 1 when none answers there).
std::unique_ptr<NodeClient> connect_for(const std::string& command, const Args& args, const NodeConfig& cfg,
                                        int& exit_code);

// One call answered with `expected`; nullopt after printing the failure (exit_code: 2 for a
// request the node found bad, 1 otherwise: not found, unavailable, no answer).
std::optional<ClientResponse> call_for(const std::string& command, NodeClient& client, ClientRequest request,
                                       ClientResponse::Kind expected, std::chrono::milliseconds timeout,
                                       int& exit_code);

// --timeout-ms (default 10 s); nullopt after printing why it is bad.
std::optional<std::chrono::milliseconds> timeout_for(const std::string& command, const Args& args);

}  // namespace vasana
