// The check a secret file (a client's token, the HTTP server's TLS key) passes before the node
// reads it: a regular file that neither the group nor others may read or write.
#pragma once

#include <string>

#include "protocol/status.hpp"

namespace vasana {

// Ok, or FailedPrecondition starting with `what` (e.g. "clients.\"a\".token_file /x"): cannot
// be read, not a regular file, or "has mode 0640; ... (chmod 600)".
Status check_owner_only_file(const std::string& path, const std::string& what);

}  // namespace vasana
