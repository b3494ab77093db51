// Helpers every subcommand shares: where the data directory is, and how a failure is said.
#pragma once

#include <optional>
#include <string>

#include "cli/args.hpp"
#include "config/node_config.hpp"

namespace vasana {

// --data, else $VASANA_DATA, else [node] data_dir of the config; nullopt when none is given.
std::optional<std::string> resolve_data_dir(const Args& args, const NodeConfig& config);

// The node's client endpoint: --connect, else the data directory's client.endpoint.
// InvalidArgument when neither is given; NotFound when no node runs on the directory.
Result<std::string> find_endpoint(const Args& args, const NodeConfig& config);

// The exit code for a failed step: kExitUsage when the input was bad (invalid_argument),
// otherwise kExitFailed.
inline int exit_code_of(const Status& s) { return s.code() == Code::invalid_argument ? kExitUsage : kExitFailed; }

}  // namespace vasana
