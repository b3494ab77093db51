// Command-line arguments of one subcommand: "--name value", "--name=value", flags, and
// positional words ("--" ends the options).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

struct Args {
  std::map<std::string, std::vector<std::string>> options;
  std::set<std::string> flags;
  std::vector<std::string> positional;

  std::optional<std::string> get(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
};

// valued: options that take a value; flags: options that do not. Anything else starting
// with "--" is an error naming it.
Result<Args> parse_args(const std::vector<std::string>& words, const std::set<std::string>& valued,
                        const std::set<std::string>& flags);

// Exit codes of every command (DESIGN.md): 0 success, 1 a check failed or the operation
// could not be done, 2 bad usage or bad input, 3 a write durable on this node but not synced by
// as many peers as sync.ack asks in time (its id is printed; it replicates when they return).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNotReplicated = 3;

}  // namespace vasana
