// `vasana list --realm R [--kind K]... [--tag T]... [--status S]... [--deleted] [--unreviewed]
// [--limit N] [--after ID] [--json]`: one page of a realm's memories in id order, one line (or
// one JSON object) per memory. When more may follow, stderr says where the next page starts.
#include <cstdio>
#include <cstdlib>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "frontends/memory_view_text.hpp"

namespace vasana {

namespace {

std::string names_of(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

Result<ListRequest> list_request_from_args(const Args& args) {
  ListRequest r;
  auto realm = args.get("realm");
  if (!realm) return Status::InvalidArgument("--realm R is required");
  r.realm = *realm;
  for (const auto& k : args.all("kind")) {
    MemoryKind kind{};
    if (!parse_kind_name(k, kind))
      return Status::InvalidArgument("unknown kind '" + k + "'; kinds are: " + names_of(memory_kinds()));
    r.kinds.push_back(kind);
  }
  for (const auto& s : args.all("status")) {
    MemoryStatus status{};
    if (s == "deleted")
      return Status::InvalidArgument("unknown status 'deleted' for --status; --deleted lists forgotten memories too");
    if (!parse_status_name(s, status))
      return Status::InvalidArgument("unknown status '" + s + "'; statuses are: " + names_of(memory_statuses()));
    r.statuses.push_back(status);
  }
  r.tags = args.all("tag");
  r.include_deleted = args.has("deleted");
  r.unreviewed = args.has("unreviewed");
  if (auto l = args.get("limit")) {
    char* end = nullptr;
    const long n = std::strtol(l->c_str(), &end, 10);
    if (l->empty() || *end != '\0' || n < 1 || n > long(kMaxListLimit))
      return Status::InvalidArgument("--limit must be a number from 1 to " + std::to_string(kMaxListLimit) +
                                     " (got '" + *l + "')");
    r.limit = uint32_t(n);
  }
  if (auto a = args.get("after")) {
    auto id = MemoryId::parse(*a);
    if (!id) return Status::InvalidArgument("--after '" + *a + "' is not a memory id");
    r.after = *id;
  }
  Status v = validate_list(r);
  if (!v.ok()) return v;
  return r;
}

}  // namespace

int cmd_list(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "timeout-ms", "realm", "kind", "tag", "status", "limit", "after"}),
                         {"json", "deleted", "unreviewed"});
  if (!args.ok()) return fail(kExitUsage, "list: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "list: unexpected argument '" + args->positional[0] + "'");
  auto req = list_request_from_args(*args);
  if (!req.ok()) return fail(kExitUsage, "list: " + req.status().message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("list", *args);
  if (!timeout) return kExitUsage;
  int code = kExitOk;
  auto client = connect_for("list", *args, *cfg, code);
  if (!client) return code;
  ClientRequest call;
  call.kind = ClientRequest::Kind::list;
  call.list = std::move(req.value());
  auto res = call_for("list", *client, std::move(call), ClientResponse::Kind::listed, *timeout, code);
  if (!res) return code;
  const bool json = args->has("json");
  for (const MemoryView& v : res->page.memories)
    std::printf("%s\n", (json ? memory_view_json(v) : memory_list_line(v)).c_str());
  if (res->page.next.seqno.value != 0)
    std::fprintf(stderr, "vasana: list: more may follow: --after %s\n", res->page.next.to_string().c_str());
  return kExitOk;
}

}  // namespace vasana
