// `vasana export --realm R [--out FILE [--force]] [--deleted] [--history] [--no-ids]`:
// everything a realm holds, as JSON lines that `vasana import` reads back: every memory of every
// status with its review decision and, with --history, the texts it held before its current one
// (frontends/jsonl_memory.hpp), paging through `list` in id order; then which
// memory superseded which, and the realm's live facts and corrections with the refs of their
// source memories (frontends/jsonl_relations.hpp), paging through `facts`. Progress goes to
// stderr. FILE is written as an OutputFile (cli/output_file.hpp): it appears, mode 0600, only
// when the whole export is in it; an existing FILE is refused unless --force, a symbolic link
// always.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "frontends/jsonl_memory.hpp"
#include "frontends/jsonl_relations.hpp"
#include "cli/output_file.hpp"

namespace vasana {

int cmd_export(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "timeout-ms", "realm", "out", "page"}), {"deleted", "history", "no-ids", "force"});
  if (!args.ok()) return fail(kExitUsage, "export: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "export: unexpected argument '" + args->positional[0] + "'");
  ListRequest page;
  auto realm = args->get("realm");
  if (!realm) return fail(kExitUsage, "export: --realm R is required");
  page.realm = *realm;
  page.include_deleted = args->has("deleted");
  page.versions = args->has("history");
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
  // The exported ref of every memory written (its ref, or its id when it has none), and the
  // supersede links, written after the memories so that import finds both ends.
  std::map<MemoryId, std::string> ref_of;
  std::vector<RelationLine> supersedes;
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
    for (const MemoryView& v : res->page.memories) {
      emit(memory_export_line(v, with_ids));
      ref_of[v.id] = v.ref.empty() ? v.id.to_string() : v.ref;
      if (v.status == MemoryStatus::superseded && v.replaced_by.seqno.value != 0) {
        RelationLine r;
        r.type = RelationLine::Type::supersede;
        r.ref = ref_of[v.id];
        r.replaced_by = v.replaced_by.to_string();  // an id until the refs are known
        r.reason = v.status_reason;
        supersedes.push_back(std::move(r));
      }
    }
    if (!written_ok.ok()) break;
    written += res->page.memories.size();
    if (tty) std::fprintf(stderr, "\rexport: %zu memories", written);
    if (res->page.next.seqno.value == 0) break;
    page.after = res->page.next;
  }
  // A link or source naming a memory the file does not hold (forgotten, exported without
  // --deleted) is left out: the line, or its source_ref.
  size_t relations = 0, unlinked = 0;
  for (RelationLine& r : supersedes) {
    auto to = MemoryId::parse(r.replaced_by);
    auto it = to ? ref_of.find(*to) : ref_of.end();
    if (it == ref_of.end()) {
      ++unlinked;
      continue;
    }
    r.replaced_by = it->second;
    emit(relation_export_line(r));
    ++relations;
  }
  FactsRequest facts;
  facts.realm = page.realm;
  while (written_ok.ok()) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::facts;
    req.facts = facts;
    auto res = call_for("export", *client, std::move(req), ClientResponse::Kind::facts, *timeout, code);
    if (!res) {
      std::fprintf(stderr, "vasana: export: stopped after %zu memories and %zu other lines; %s\n", written, relations,
                   file ? ("nothing was written to " + file->path()).c_str() : "the output is incomplete");
      return code;
    }
    for (const FactEntry& e : res->facts.entries) {
      RelationLine r;
      r.type = e.is_correction ? RelationLine::Type::correction : RelationLine::Type::fact;
      r.fact = e;
      if (e.source_memory.seqno.value != 0) {
        auto it = ref_of.find(e.source_memory);
        if (it != ref_of.end())
          r.source_ref = it->second;
        else
          ++unlinked;
      }
      emit(relation_export_line(r));
      ++relations;
    }
    if (tty) std::fprintf(stderr, "\rexport: %zu memories, %zu other lines", written, relations);
    if (res->facts.next.seqno.value == 0) break;
    facts.after = res->facts.next;
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
  std::fprintf(stderr, "export: %zu memories and %zu supersede, fact and correction lines of realm %s%s\n", written,
               relations, page.realm.c_str(), out_path ? (" to " + *out_path).c_str() : "");
  if (unlinked)
    std::fprintf(stderr,
                 "export: %zu supersede link(s) or source(s) name a memory not in the file (forgotten; --deleted "
                 "exports those): left out\n",
                 unlinked);
  return kExitOk;
}

}  // namespace vasana
