// `vasana import --realm R FILE.jsonl`: bulk load, idempotent by ref. Every line is checked
// before anything is sent: a bad line refuses the whole import (listing the bad lines by
// number), or with --skip-bad is reported and skipped. A line whose ref the realm holds with
// other content is refused by the node (a conflict): the import goes on with the other lines,
// lists the conflicting ones by number and exits 1. Progress is shown on a terminal. The lines
// of an export besides memories (supersede links, facts, corrections) and the memories' review
// decisions are written in a second pass, once the memories they name are stored
// (cli/import_relations.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "frontends/bounded_json.hpp"
#include "frontends/bounded_line_reader.hpp"
#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/import_relations.hpp"
#include "cli/import_report.hpp"
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

// An import file read and checked line by line: its memory lines (each with its review
// decision, if any), its relation lines whose refs name memory lines of the file, and the bad
// lines with why (numbered from 1).
struct ImportFile {
  std::vector<MemoryInput> memories;
  std::vector<size_t> line_of;
  std::vector<std::optional<ReviewVerdict>> reviews;
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
    std::optional<ReviewVerdict> review;
    auto m = got == BoundedLineReader::Got::too_long ? Result<MemoryInput>(lines.too_long_status())
                                                      : memory_from_json_line(line, realm, limits, &review);
    if (m.ok()) {
      auto [it, fresh] = ref_line.emplace(m->ref, n);
      if (!fresh) m = Status::InvalidArgument("ref '" + m->ref + "' repeats line " + std::to_string(it->second));
    }
    if (!m.ok()) {
      f.bad.emplace_back(n, m.status().message());
      continue;
    }
    f.memories.push_back(std::move(m.value()));
    f.line_of.push_back(n);
    f.reviews.push_back(review);
  }
  // A relation names memories of this file by ref.
  f.relations = relations_naming(
      std::move(f.relations), [&](const std::string& ref) { return ref_line.count(ref) > 0; },
      [&](const RelationInput& r, const std::string& missing) {
        f.bad.emplace_back(r.line, "names ref '" + missing + "', which no memory line of the file has");
      });
  return f;
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
  std::vector<MemoryInput>& memories = f.memories;
  std::vector<size_t>& line_of = f.line_of;
  std::vector<std::optional<ReviewVerdict>>& reviews = f.reviews;
  std::vector<RelationInput>& relations = f.relations;
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
  const bool any_vector = std::any_of(memories.begin(), memories.end(), [](const MemoryInput& m) { return !m.vector.empty(); });
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
    const size_t dim = vector_space_dim(pong->info.vector_space);
    size_t kept = 0;
    for (size_t i = 0; i < memories.size(); ++i) {
      if (dim != 0 && !memories[i].vector.empty() && memories[i].vector.size() != dim) {
        bad.emplace_back(line_of[i], "vector has " + std::to_string(memories[i].vector.size()) +
                                         " dimensions; this store's vector space " + pong->info.vector_space + " has " +
                                         std::to_string(dim));
        continue;
      }
      if (kept != i) {
        memories[kept] = std::move(memories[i]);
        line_of[kept] = line_of[i];
        reviews[kept] = reviews[i];
      }
      ++kept;
    }
    memories.resize(kept);
    line_of.resize(kept);
    reviews.resize(kept);
    if (int rc = report_bad(); rc != kExitOk) return rc;
  }

  std::vector<ClientRequest> requests(memories.size());
  std::vector<std::string> refs(memories.size());
  for (size_t i = 0; i < memories.size(); ++i) {
    refs[i] = memories[i].ref;
    requests[i].kind = ClientRequest::Kind::remember;
    requests[i].memory = std::move(memories[i]);
    requests[i].remember_options.no_candidates = true;  // a restore, not an agent deciding
  }
  const bool tty = ::isatty(STDERR_FILENO);
  size_t done = 0;
  ImportReport report;
  std::map<std::string, ImportedMemory> stored;  // by ref: what the second pass names
  auto answered = run_pipelined(
      *client.value(), std::move(requests), kImportWindow, std::chrono::seconds(30), [&](size_t i, const ClientResponse& r) {
        ++done;
        if (!report.take(line_of[i], r)) return false;
        if (r.kind == ClientResponse::Kind::remembered) stored[refs[i]] = ImportedMemory{line_of[i], r.id, r.existed, reviews[i]};
        if (tty && (done % 256 == 0 || done == line_of.size()))
          std::fprintf(stderr, "\rimport: %zu/%zu (%zu new, %zu already present, %zu conflicts)", done, line_of.size(),
                       report.written(), report.existed(), report.conflicts().size());
        return true;
      });
  if (tty) std::fprintf(stderr, "\n");
  std::printf("%s\n", report.summary(bad.size()).c_str());
  if (!answered.ok() || !report.failure().empty())
    return fail(kExitFailed, "import: stopped: " + (report.failure().empty() ? answered.status().message() : report.failure()) +
                                 "; the memories counted above are durable, and running the same import again "
                                 "writes only the rest");
  // The second pass names only memories stored by the first (a conflicting line's are not).
  size_t unlinked = 0;
  relations = relations_naming(
      std::move(relations), [&](const std::string& ref) { return stored.count(ref) > 0; },
      [&](const RelationInput&, const std::string&) { ++unlinked; });
  const bool any_review = std::any_of(reviews.begin(), reviews.end(), [](const auto& r) { return r.has_value(); });
  RelationsOutcome rel;
  if (!relations.empty() || any_review) {
    rel = import_relations(*client.value(), *realm, stored, relations, std::chrono::seconds(30));
    report_relations(rel, unlinked);
    if (!rel.failure.empty())
      return fail(kExitFailed, "import: stopped: " + rel.failure +
                                   "; what was written is durable, and running the same import again writes only the rest");
  }
  if (!report.conflicts().empty()) {
    for (const auto& l : report.conflict_lines(20)) std::fprintf(stderr, "vasana: import: %s\n", l.c_str());
    return fail(kExitFailed, "import: " + std::to_string(report.conflicts().size()) +
                                 " line(s) refused: the realm holds their ref with other content (nothing was "
                                 "written for them or for the lines that name them; the other lines were imported)");
  }
  if (!rel.refused.empty())
    return fail(kExitFailed, "import: " + std::to_string(rel.refused.size()) +
                                 " review, supersede, fact or correction line(s) refused by the node (listed above)");
  return kExitOk;
}

}  // namespace vasana
