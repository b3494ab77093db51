#include "cli/client_identity.hpp"
#include "cli/write_command.hpp"

#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "frontends/response_json.hpp"

namespace vasana {

std::set<std::string> with_client_options(std::set<std::string> own) {
  own.insert({"data", "connect", "config", "timeout-ms"});
  return with_identity_options(std::move(own));
}

Result<MemoryId> parse_id_argument(const std::string& what, const std::string& text) {
  auto id = MemoryId::parse(text);
  if (!id || id->seqno.value == 0)
    return Status::InvalidArgument(what + " '" + text + "' is not an id (16 hex digits, '-', a seqno from 1: 9f3c2a1b4d5e6f70-42)");
  return *id;
}

namespace {
std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
}  // namespace

Result<FactInput> parse_fact_argument(const std::string& text) {
  const auto a = text.find('|');
  const auto b = a == std::string::npos ? a : text.find('|', a + 1);
  if (b == std::string::npos || text.find('|', b + 1) != std::string::npos)
    return Status::InvalidArgument("fact '" + text + "' must be \"subject|predicate|object\"");
  FactInput f;
  f.subject = trimmed(text.substr(0, a));
  f.predicate = trimmed(text.substr(a + 1, b - a - 1));
  f.object = trimmed(text.substr(b + 1));
  if (f.subject.empty() || f.predicate.empty() || f.object.empty())
    return Status::InvalidArgument("fact '" + text + "' has an empty part; give \"subject|predicate|object\"");
  return f;
}

Status parse_valid_time(const Args& args, int64_t& from, int64_t& to) {
  for (const char* which : {"valid-from", "valid-to"}) {
    if (auto t = args.get(which)) {
      auto ms = parse_time_ms(*t);
      if (!ms)
        return Status::InvalidArgument(std::string("--") + which + " '" + *t + "' is not a time (" +
                                       std::string(kTimeFormsHelp) + ")");
      (std::string(which) == "valid-from" ? from : to) = *ms;
    }
  }
  return Status::Ok();
}

int exit_code_of(ClientError e) { return e == ClientError::bad_input ? kExitUsage : kExitFailed; }

std::optional<ClientResponse> call_node(const std::string& cmd, const Args& args, ClientRequest req, int& exit) {
  auto cfg = load_node_config(args.get("config").value_or(""));
  if (!cfg.ok()) {
    exit = fail(kExitUsage, cfg.status().message());
    return std::nullopt;
  }
  long timeout_ms = 30000;
  if (auto t = args.get("timeout-ms")) {
    try {
      timeout_ms = std::stol(*t);
    } catch (const std::exception&) {
      timeout_ms = -1;
    }
    if (timeout_ms <= 0) {
      exit = fail(kExitUsage, cmd + ": --timeout-ms must be a positive number");
      return std::nullopt;
    }
  }
  auto ep = find_endpoint(args, *cfg);
  if (!ep.ok()) {
    exit = fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, cmd + ": " + ep.status().message());
    return std::nullopt;
  }
  auto client = connect_node(*ep, args);
  if (!client.ok()) {
    exit = fail(exit_code_of(client.status()), cmd + ": " + client.status().message());
    return std::nullopt;
  }
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(timeout_ms));
  if (!res.ok()) {
    exit = fail(kExitFailed, cmd + ": " + res.status().message() + "; whether it was written is unknown");
    return std::nullopt;
  }
  if (res->kind == ClientResponse::Kind::error && res->error == ClientError::not_replicated) {
    // Written here, not yet on the peers sync.ack asks for: the id goes out as for a write.
    std::printf("%s\n", args.has("json") ? not_replicated_json(*res).c_str() : res->id.to_string().c_str());
    exit = fail(kExitNotReplicated, cmd + ": " + res->message);
    return std::nullopt;
  }
  if (res->kind == ClientResponse::Kind::error) {
    // The node's messages say "nothing was written" where that holds (not after an I/O failure).
    exit = fail(exit_code_of(res->error), cmd + ": " + res->message);
    return std::nullopt;
  }
  return std::move(res.value());
}

int send_write(const std::string& cmd, const Args& args, ClientRequest req) {
  int exit = kExitFailed;
  auto res = call_node(cmd, args, std::move(req), exit);
  if (!res) return exit;
  if (res->kind != ClientResponse::Kind::written) return fail(kExitFailed, cmd + ": unexpected answer from the node");
  if (args.has("json"))
    std::printf("%s\n", written_json(*res).c_str());
  else
    std::printf("%s\n", res->id.to_string().c_str());
  return kExitOk;
}

}  // namespace vasana
