// `vasana import --realm R FILE.jsonl`: bulk load, idempotent by ref. Every line is checked
// before anything is sent: a bad line refuses the whole import (listing the bad lines by
// number), or with --skip-bad is reported and skipped. A line whose ref the realm holds with
// other content is refused by the node (a conflict): the import goes on with the other lines,
// lists the conflicting ones by number and exits 1. Progress is shown on a terminal. The lines
// of an export besides memories (supersede links, facts, corrections) and the memories' review
// decisions are written in a second pass, once the memories they name are stored
// (cli/import_relations.hpp). A memory line with earlier versions (export --history) is written
// version by version, and a forgotten one (export --deleted) is forgotten after that second pass
// (cli/import_line_steps.hpp). Memory lines are written in file order, so that an export of the
// copy lists them in the same order.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

#include "frontends/bounded_json.hpp"
#include "frontends/bounded_line_reader.hpp"
#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/import_relations.hpp"
#include "cli/import_report.hpp"
#include "cli/import_line_steps.hpp"
#include "frontends/jsonl_memory.hpp"
#include "frontends/jsonl_relations.hpp"
#include "cli/pipelined_calls.hpp"
#include "cli/vector_file.hpp"

namespace vasana {

namespace {

// Remembers in flight at once. The node drops a reply that its socket cannot queue at once
// (ClientEndpointLimits::queue_per_client, 64 messages), and ZeroMQ frees a queued message's
// place only when its I/O thread reports a batch of them sent: with 64 in flight, about half of
// the imports of 250 lines into a node on a busy machine lost a reply and stopped after 30 s.
// 16 (as recall --batch) stays far below the limit.
constexpr size_t kImportWindow = 16;

// A memory line of an import file, checked.
struct MemoryLine {
  size_t line = 0;  // numbered from 1
  MemoryInput memory;
  MemoryLineExtras extras;  // its review decision, earlier versions, whether forgotten
  bool in_steps() const { return !extras.versions.empty() || extras.deleted; }
};

// An import file read and checked line by line: its memory lines, its relation lines whose refs
// name memory lines of the file, and the bad lines with why.
struct ImportFile {
  std::vector<MemoryLine> memories;
  std::vector<RelationInput> relations;
  std::vector<std::pair<size_t, std::string>> bad;
};

ImportFile read_import_file(std::istream& in, const std::string& realm, const InputLimits& limits) {
  ImportFile f;
  std::map<std::string, size_t> ref_line;
  BoundedLineReader lines(in, kMaxJsonLineBytes);
  std::string line;
  for (BoundedLineReader::Got got; (got = lines.next(line)) != BoundedLineReader::Got::end;) {
    const size_t n = lines.number();
    if (got == BoundedLineReader::Got::line && line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (got == BoundedLineReader::Got::line && line.find("\"type\"") != std::string::npos && is_relation_line(line)) {
      auto r = relation_from_json_line(line);
      if (r.ok())
        f.relations.push_back(RelationInput{n, std::move(r.value())});
      else
        f.bad.emplace_back(n, r.status().message());
      continue;
    }
    MemoryLineExtras extras;
    auto m = got == BoundedLineReader::Got::too_long ? Result<MemoryInput>(lines.too_long_status())
                                                      : memory_from_json_line(line, realm, limits, &extras);
    if (m.ok()) {
      auto [it, fresh] = ref_line.emplace(m->ref, n);
      if (!fresh) m = Status::InvalidArgument("ref '" + m->ref + "' repeats line " + std::to_string(it->second));
    }
    if (!m.ok()) {
      f.bad.emplace_back(n, m.status().message());
      continue;
    }
    f.memories.push_back(MemoryLine{n, std::move(m.value()), std::move(extras)});
  }
  // A relation names memories of this file by ref.
  f.relations = relations_naming(
      std::move(f.relations), [&](const std::string& ref) { return ref_line.count(ref) > 0; },
      [&](const RelationInput& r, const std::string& missing) {
        f.bad.emplace_back(r.line, "names ref '" + missing + "', which no memory line of the file has");
      });
  return f;
}

// Moves the memory lines whose vector has another dimension than the store's to the bad lines.
void drop_other_dimensions(ImportFile& f, const std::string& vector_space) {
  const size_t dim = vector_space_dim(vector_space);
  if (dim == 0) return;
  auto wrong = [&](const MemoryLine& l) { return !l.memory.vector.empty() && l.memory.vector.size() != dim; };
  for (const MemoryLine& l : f.memories)
    if (wrong(l))
      f.bad.emplace_back(l.line, "vector has " + std::to_string(l.memory.vector.size()) +
                                     " dimensions; this store's vector space " + vector_space + " has " +
                                     std::to_string(dim));
  f.memories.erase(std::remove_if(f.memories.begin(), f.memories.end(), wrong), f.memories.end());
}

// What the first pass stored: by ref, what the second pass names; by line, the forgotten lines'
// memories to forget after it.
struct Stored {
  std::map<std::string, ImportedMemory> by_ref;
  std::map<size_t, MemoryId> to_forget;
};

// Writes the memory lines in file order, so that they get their ids in that order: runs of plain
// lines pipelined, a line that takes steps one call at a time (cli/import_line_steps.hpp).
// take(i, answer) counts line i's answer (false: stop); going() is false once the import must
// stop. An unanswered call is the error.
Status write_in_file_order(NodeClient& client, const std::vector<MemoryLine>& memories, Stored& stored,
                           const std::function<bool(size_t, const ClientResponse&)>& take,
                           const std::function<bool()>& going) {
  const auto timeout = std::chrono::seconds(30);
  for (size_t i = 0; i < memories.size() && going();) {
    const MemoryLine& l = memories[i];
    if (l.in_steps()) {
      auto r = import_in_steps(client, SteppedLine{l.line, l.memory, l.extras.versions, l.extras.deleted}, timeout);
      if (!r.ok()) return r.status();
      if (take(i, r->answer) && r->answer.kind == ClientResponse::Kind::remembered && l.extras.deleted && !r->forgotten)
        stored.to_forget[l.line] = r->answer.id;
      ++i;
      continue;
    }
    std::vector<ClientRequest> run;
    const size_t first = i;
    for (; i < memories.size() && !memories[i].in_steps(); ++i) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::remember;
      req.memory = memories[i].memory;
      req.remember_options.no_candidates = true;  // a restore, not an agent deciding
      run.push_back(std::move(req));
    }
    auto answered = run_pipelined(client, std::move(run), kImportWindow, timeout,
                                  [&](size_t slot, const ClientResponse& r) { return take(first + slot, r); });
    if (!answered.ok()) return answered.status();
  }
  return Status::Ok();
}

// The third pass: the forgotten lines' memories are forgotten. Prints its summary and what went
// wrong; the exit code.
int forget_pass(NodeClient& client, const Stored& stored) {
  if (stored.to_forget.empty()) return kExitOk;
  ForgetOutcome out = forget_imported(client, stored.to_forget, std::chrono::seconds(30));
  std::printf("then %zu forgotten line(s) forgotten, %zu refused\n", out.forgotten, out.refused.size());
  for (size_t i = 0; i < out.refused.size() && i < 20; ++i)
    std::fprintf(stderr, "vasana: import: line %zu: %s\n", out.refused[i].first, out.refused[i].second.c_str());
  if (!out.failure.empty())
    return fail(kExitFailed, "import: stopped: " + out.failure +
                                 "; what was written is durable, and running the same import again writes only the rest");
  if (!out.refused.empty())
    return fail(kExitFailed, "import: " + std::to_string(out.refused.size()) + " forget(s) refused by the node (listed above)");
  return kExitOk;
}

}  // namespace

int cmd_import(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "realm", "timeout-ms"}), {"skip-bad"});
  if (!args.ok()) return fail(kExitUsage, "import: " + args.status().message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto realm = args->get("realm");
  if (!realm) return fail(kExitUsage, "import: --realm R is required");
  if (args->positional.size() != 1) return fail(kExitUsage, "import: usage: vasana import --realm R FILE.jsonl (- for stdin)");
  const std::string path = args->positional[0];
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) return fail(kExitUsage, "import: cannot read " + path);
  }
  std::istream& in = path == "-" ? std::cin : file;

  // Lines are checked whole here, but for their vectors' dimension: that is the store's, which
  // the node says (below) before anything is sent.
  InputLimits limits = cfg->limits;
  limits.vector_dim = 0;
  ImportFile f = read_import_file(in, *realm, limits);
  std::vector<MemoryLine>& memories = f.memories;
  using BadLine = std::pair<size_t, std::string>;  // line number, why
  std::vector<BadLine>& bad = f.bad;
  auto report_bad = [&]() -> int {
    std::sort(bad.begin(), bad.end(), [](const BadLine& a, const BadLine& b) { return a.first < b.first; });
    for (size_t i = 0; i < bad.size() && i < 20; ++i)
      std::fprintf(stderr, "vasana: import: line %zu: %s\n", bad[i].first, bad[i].second.c_str());
    if (bad.size() > 20) std::fprintf(stderr, "vasana: import: ... and %zu more bad lines\n", bad.size() - 20);
    if (!bad.empty() && !args->has("skip-bad"))
      return fail(kExitUsage, "import: " + std::to_string(bad.size()) +
                                  " bad line(s); nothing was imported (fix them, or pass --skip-bad to import the rest)");
    return kExitOk;
  };
  const bool any_vector =
      std::any_of(memories.begin(), memories.end(), [](const MemoryLine& l) { return !l.memory.vector.empty(); });
  // Lines bad already refuse the import before the node is asked anything.
  if (!any_vector || (!bad.empty() && !args->has("skip-bad"))) {
    if (int rc = report_bad(); rc != kExitOk) return rc;
  }

  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok())
    return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, "import: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "import: " + client.status().message());
  if (any_vector) {
    // The store's dimension, from the node's vector space: a line whose vector has another is bad.
    ClientRequest ping;
    ping.kind = ClientRequest::Kind::ping;
    auto pong = client.value()->call(std::move(ping), std::chrono::seconds(10));
    if (!pong.ok() || pong->kind != ClientResponse::Kind::pong)
      return fail(kExitFailed, "import: the node did not say its vector space: " +
                                   (pong.ok() ? pong->message : pong.status().message()) + "; nothing was imported");
    drop_other_dimensions(f, pong->info.vector_space);
    if (int rc = report_bad(); rc != kExitOk) return rc;
  }

  const bool tty = ::isatty(STDERR_FILENO);
  size_t done = 0;
  ImportReport report;
  Stored stored;
  auto take = [&](size_t i, const ClientResponse& r) {
    ++done;
    const MemoryLine& l = memories[i];
    if (!report.take(l.line, r)) return false;
    if (r.kind == ClientResponse::Kind::remembered)
      stored.by_ref[l.memory.ref] = ImportedMemory{l.line, r.id, r.existed, l.extras.review};
    if (tty && (done % 256 == 0 || done == memories.size()))
      std::fprintf(stderr, "\rimport: %zu/%zu (%zu new, %zu already present, %zu conflicts)", done, memories.size(),
                   report.written(), report.existed(), report.conflicts().size());
    return true;
  };
  Status answered = write_in_file_order(*client.value(), memories, stored, take, [&] { return report.failure().empty(); });
  if (tty) std::fprintf(stderr, "\n");
  std::printf("%s\n", report.summary(bad.size()).c_str());
  if (!answered.ok() || !report.failure().empty())
    return fail(kExitFailed, "import: stopped: " + (report.failure().empty() ? answered.message() : report.failure()) +
                                 "; the memories counted above are durable, and running the same import again "
                                 "writes only the rest");
  // The second pass names only memories stored by the first (a conflicting line's are not).
  size_t unlinked = 0;
  std::vector<RelationInput> relations = relations_naming(
      std::move(f.relations), [&](const std::string& ref) { return stored.by_ref.count(ref) > 0; },
      [&](const RelationInput&, const std::string&) { ++unlinked; });
  const bool any_review =
      std::any_of(memories.begin(), memories.end(), [](const MemoryLine& l) { return l.extras.review.has_value(); });
  RelationsOutcome rel;
  if (!relations.empty() || any_review) {
    rel = import_relations(*client.value(), *realm, stored.by_ref, relations, std::chrono::seconds(30));
    report_relations(rel, unlinked);
    if (!rel.failure.empty())
      return fail(kExitFailed, "import: stopped: " + rel.failure +
                                   "; what was written is durable, and running the same import again writes only the rest");
  }
  const int forgot = forget_pass(*client.value(), stored);
  if (!report.conflicts().empty()) {
    for (const auto& l : report.conflict_lines(20)) std::fprintf(stderr, "vasana: import: %s\n", l.c_str());
    return fail(kExitFailed, "import: " + std::to_string(report.conflicts().size()) +
                                 " line(s) refused: the realm holds their ref with other content (nothing was "
                                 "written for them or for the lines that name them; the other lines were imported)");
  }
  if (!rel.refused.empty())
    return fail(kExitFailed, "import: " + std::to_string(rel.refused.size()) +
                                 " review, supersede, fact or correction line(s) refused by the node (listed above)");
  return forgot;
}

}  // namespace vasana
