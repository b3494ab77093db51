#include "cli/client_identity.hpp"
#include "cli/client_session.hpp"

#include <cstdlib>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"

namespace vasana {

std::unique_ptr<NodeClient> connect_for(const std::string& command, const Args& args, const NodeConfig& cfg,
                                        int& exit_code) {
  auto ep = find_endpoint(args, cfg);
  if (!ep.ok()) {
    exit_code = fail(exit_code_of(ep.status()), command + ": " + ep.status().message());
    return nullptr;
  }
  auto client = connect_node(*ep, args);
  if (!client.ok()) {
    exit_code = fail(exit_code_of(client.status()), command + ": " + client.status().message());
    return nullptr;
  }
  return std::move(client.value());
}

std::optional<ClientResponse> call_for(const std::string& command, NodeClient& client, ClientRequest request,
                                       ClientResponse::Kind expected, std::chrono::milliseconds timeout,
                                       int& exit_code) {
  auto res = client.call(std::move(request), timeout);
  if (!res.ok()) {
    exit_code = fail(kExitFailed, command + ": " + res.status().message());
    return std::nullopt;
  }
  if (res->kind == ClientResponse::Kind::error) {
    exit_code = fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed, command + ": " + res->message);
    return std::nullopt;
  }
  if (res->kind != expected) {
    exit_code = fail(kExitFailed, command + ": unexpected answer from the node");
    return std::nullopt;
  }
  return std::move(res.value());
}

std::optional<std::chrono::milliseconds> timeout_for(const std::string& command, const Args& args) {
  long ms = 10000;
  if (auto t = args.get("timeout-ms")) {
    char* end = nullptr;
    ms = std::strtol(t->c_str(), &end, 10);
    if (t->empty() || *end != '\0' || ms <= 0) {
      fail(kExitUsage, command + ": --timeout-ms must be a positive number (got '" + *t + "')");
      return std::nullopt;
    }
  }
  return std::chrono::milliseconds(ms);
}

}  // namespace vasana
