// Asks the node that args name for its status (what `vasana status` and `vasana cluster` show).
#pragma once

#include <string>

#include "cli/args.hpp"

namespace vasana {

// The option names the call reads, besides the caller's own.
std::set<std::string> with_status_options(std::set<std::string> own);

// The node's status JSON (status/status_json.hpp) into *json; kExitOk, or the exit code after
// printing why as "vasana: CMD: ...".
int call_status(const std::string& cmd, const Args& args, std::string* json);

}  // namespace vasana
