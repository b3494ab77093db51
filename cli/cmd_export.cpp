// `vasana export --realm R [--out FILE [--force]] [--deleted] [--no-ids]`: every memory of a
// realm, of every status, as JSON lines that `vasana import` reads back (frontends/jsonl_memory.hpp),
// paging through `list` in id order. Progress goes to stderr. FILE is written as an OutputFile
// (cli/output_file.hpp): it appears, mode 0600, only when the whole export is in it; an existing
// FILE is refused unless --force, a symbolic link always.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "frontends/jsonl_memory.hpp"
#include "cli/output_file.hpp"

namespace vasana {

int cmd_export(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "timeout-ms", "realm", "out", "page"}), {"deleted", "no-ids", "force"});
  if (!args.ok()) return fail(kExitUsage, "export: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "export: unexpected argument '" + args->positional[0] + "'");
  ListRequest page;
  auto realm = args->get("realm");
  if (!realm) return fail(kExitUsage, "export: --realm R is required");
  page.realm = *realm;
  page.include_deleted = args->has("deleted");
  page.limit = 1000;
  if (auto p = args->get("page")) {
    char* end = nullptr;
    const long n = std::strtol(p->c_str(), &end, 10);
    if (p->empty() || *end != '\0' || n < 1 || n > long(kMaxListLimit))
      return fail(kExitUsage, "export: --page must be a number from 1 to " + std::to_string(kMaxListLimit) + " (got '" + *p + "')");
    page.limit = uint32_t(n);
  }
  if (Status v = validate_list(page); !v.ok()) return fail(kExitUsage, "export: " + v.message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("export", *args);
  if (!timeout) return kExitUsage;
  const auto out_path = args->get("out");
  if (args->has("force") && !out_path) return fail(kExitUsage, "export: --force applies to --out FILE only");
  std::optional<OutputFile> file;
  if (out_path) {
    auto f = OutputFile::create(*out_path, args->has("force"));
    if (!f.ok()) return fail(f.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, "export: " + f.status().message());
    file.emplace(std::move(f.value()));
  }
  int code = kExitOk;
  auto client = connect_for("export", *args, *cfg, code);
  if (!client) return code;

  Status written_ok;
  auto emit = [&](const std::string& line) {
    if (!file) {
      std::cout << line << '\n';
    } else if (written_ok.ok()) {
      written_ok = file->write(line);
      if (written_ok.ok()) written_ok = file->write("\n");
    }
  };
  const bool with_ids = !args->has("no-ids");
  const bool tty = ::isatty(STDERR_FILENO);
  size_t written = 0;
  for (;;) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::list;
    req.list = page;
    auto res = call_for("export", *client, std::move(req), ClientResponse::Kind::listed, *timeout, code);
    if (!res) {
      std::fprintf(stderr, "vasana: export: stopped after %zu memories; %s\n", written,
                   file ? ("nothing was written to " + file->path()).c_str() : "the output is incomplete");
      return code;
    }
    for (const MemoryView& v : res->page.memories) emit(memory_export_line(v, with_ids));
    if (!written_ok.ok()) break;
    written += res->page.memories.size();
    if (tty) std::fprintf(stderr, "\rexport: %zu memories", written);
    if (res->page.next.seqno.value == 0) break;
    page.after = res->page.next;
  }
  if (file) {
    Status done = written_ok.ok() ? file->commit() : written_ok;
    if (!done.ok())
      return fail(done.code() == Code::invalid_argument ? kExitUsage : kExitFailed,
                  "export: " + done.message() + "; nothing was written to " + file->path());
  } else {
    std::cout.flush();
    if (!std::cout) return fail(kExitFailed, "export: writing standard output failed");
  }
  if (tty) std::fprintf(stderr, "\n");
  std::fprintf(stderr, "export: %zu memories of realm %s%s\n", written, page.realm.c_str(),
               out_path ? (" to " + *out_path).c_str() : "");
  return kExitOk;
}

}  // namespace vasana
