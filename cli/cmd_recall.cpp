// `vasana recall`: ranked memories for a query, from the local node's replicated state.
#include <cstdio>
#include <optional>
#include <sstream>
#include <utility>

#include "frontends/bounded_json.hpp"
#include "frontends/bounded_line_reader.hpp"
#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "cli/pipelined_calls.hpp"
#include "frontends/request_json.hpp"
#include "frontends/response_json.hpp"
#include "cli/vector_file.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/recall_input.hpp"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include "protocol/json_text.hpp"

namespace vasana {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string tags_text(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? ", tags " : ",") + t;
  return out;
}

void print_text(const RecallAnswer& a, bool explain) {
  std::printf("%s (top relevance %.2f; lanes:", verdict_name(a.verdict), a.top_relevance);
  for (const auto& l : a.lanes) std::printf(" %s", l.c_str());
  std::printf(")\n");
  // What the node could not do for this query (a semantic lane without a query vector, and why).
  for (const std::string& n : a.notes) std::printf("NOTE %s\n", n.c_str());
  // Stored corrections the query's words match come first: they say what not to believe.
  for (const CorrectionHit& c : a.corrections)
    std::printf("CORRECTION %s  [%s]  not \"%s\" but \"%s\"%s%s\n", c.id.to_string().c_str(), c.realm.c_str(),
                c.wrong.c_str(), c.right.c_str(), c.note.empty() ? "" : ": ", c.note.c_str());
  for (size_t i = 0; i < a.hits.size(); ++i) {
    const RecallHit& h = a.hits[i];
    // A memory that holds only from a later time says from when (the date, or the instant when
    // it does not start at midnight UTC).
    std::string from;
    if (h.future) {
      from = format_time_ms(h.valid_from_ms);
      if (from.size() == 24 && from.compare(10, 14, "T00:00:00.000Z") == 0) from.resize(10);
      from = ", valid from " + from;
    }
    std::printf("%2zu. %.4f  %s  [%s, %s%s%s%s%s]  %s\n", i + 1, h.score, h.id.to_string().c_str(), h.kind.c_str(),
                h.realm.c_str(), h.ref.empty() ? "" : ", ref ", h.ref.c_str(), tags_text(h.tags).c_str(), from.c_str(),
                h.text.c_str());
    if (!explain) continue;
    std::printf("      ");
    for (size_t j = 0; j < h.lanes.size(); ++j)
      std::printf("%s%s #%u (%.3f)", j ? ", " : "", h.lanes[j].lane.c_str(), h.lanes[j].rank, h.lanes[j].score);
    std::printf("\n      relevance %.4f x phrase %.2f x prior (kind %.2f x status %.2f x epistemic %.2f x strength %.2f,"
                " bounded)\n",
                h.relevance, h.phrase_boost, h.kind_prior, h.status_weight, h.epistemic_weight, h.strength);
  }
}

// --limit N: 1 to 1000.
Result<uint32_t> limit_option(const std::string& l) {
  long n = std::atol(l.c_str());
  if (n < 1 || n > 1000 || l.find_first_not_of("0123456789") != std::string::npos)
    return Status::InvalidArgument("--limit must be a number from 1 to 1000 (got '" + l + "')");
  return uint32_t(n);
}

// One query line of a batch (parse_bounded_json, then frontends/request_json.hpp
// recall_query_from_json); realms default to the command line's --realm, the limit to its --limit.
Result<RecallQuery> query_from_json_line(const std::string& line, const std::vector<std::string>& default_realms,
                                         std::optional<uint32_t> default_limit, const InputLimits& limits) {
  auto parsed = parse_bounded_json(line);
  if (!parsed.ok()) return parsed.status();
  nlohmann::json obj = std::move(parsed.value());
  if (!obj.is_object()) return Status::InvalidArgument("not a JSON object");
  if (default_realms.empty() && !obj.contains("realms")) return Status::InvalidArgument("no realm: give \"realms\" or --realm");
  if (default_limit && !obj.contains("limit")) obj["limit"] = *default_limit;
  return recall_query_from_json(obj, default_realms, limits);
}

int run_batch(const Args& args, const NodeConfig& cfg, const std::string& path) {
  // The batch applies --realm and --limit to its lines; every other query option is a field of
  // the line, so one given on the command line is refused rather than left unused.
  const std::pair<const char*, const char*> line_fields[] = {{"lanes", "lanes"}, {"as-of", "as_of"}, {"known-at", "known_at"},
                                                             {"since", "since"}, {"until", "until"}, {"tag", "tags"},
                                                             {"staged", "staged"}};
  for (const auto& [option, field] : line_fields)
    if (args.has(option) || args.get(option))
      return fail(kExitUsage, std::string("recall: --") + option + " does not apply to --batch; give \"" + field +
                                  "\" in each query line");
  if (args.has("explain")) return fail(kExitUsage, "recall: --explain does not apply to --batch (its lines list ids, refs and scores)");
  std::optional<uint32_t> default_limit;
  if (auto l = args.get("limit")) {
    auto n = limit_option(*l);
    if (!n.ok()) return fail(kExitUsage, "recall: " + n.status().message());
    default_limit = *n;
  }
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) return fail(kExitUsage, "recall: cannot read " + path);
  }
  std::istream& in = path == "-" ? std::cin : file;
  std::vector<std::string> out;  // one JSON line per input line
  std::vector<ClientRequest> requests;
  std::vector<size_t> slot;  // request -> line index in out
  bool any_bad = false;
  BoundedLineReader lines(in, kMaxJsonLineBytes);
  std::string line;
  for (BoundedLineReader::Got got; (got = lines.next(line)) != BoundedLineReader::Got::end;) {
    const size_t n = lines.number();
    if (got == BoundedLineReader::Got::line && line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto q = got == BoundedLineReader::Got::too_long ? Result<RecallQuery>(lines.too_long_status())
                                                      : query_from_json_line(line, args.all("realm"), default_limit, cfg.limits);
    if (!q.ok()) {
      any_bad = true;
      out.push_back(JsonObject().unum("line", n).str("error", q.status().message()).done());
      continue;
    }
    ClientRequest r;
    r.kind = ClientRequest::Kind::recall;
    r.recall = std::move(q.value());
    requests.push_back(std::move(r));
    slot.push_back(out.size());
    out.push_back(JsonObject().unum("line", n).done());
  }
  auto ep = find_endpoint(args, cfg);
  if (!ep.ok())
    return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, "recall: " + ep.status().message());
  auto client = connect_node(*ep, args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "recall: " + client.status().message());
  auto answered = run_pipelined(*client.value(), std::move(requests), 16, std::chrono::seconds(30),
                                [&](size_t i, const ClientResponse& r) {
                                  std::string& o = out[slot[i]];
                                  std::string line_field = o.substr(1, o.size() - 2);  // "line":n
                                  if (r.kind == ClientResponse::Kind::error) {
                                    any_bad = true;
                                    o = "{" + line_field + "," + JsonObject().str("error", r.message).done().substr(1);
                                    return true;
                                  }
                                  std::string hits = "[";
                                  for (size_t h = 0; h < r.answer.hits.size(); ++h) {
                                    const RecallHit& x = r.answer.hits[h];
                                    hits += (h ? "," : "") + JsonObject()
                                                                 .str("id", x.id.to_string())
                                                                 .str("ref", x.ref)
                                                                 .real("score", x.score)
                                                                 .done();
                                  }
                                  hits += "]";
                                  JsonObject a;
                                  a.str("verdict", verdict_name(r.answer.verdict))
                                      .real("top_relevance", r.answer.top_relevance)
                                      .raw("evidence", JsonObject()
                                                           .real("keyword", r.answer.keyword_evidence)
                                                           .real("semantic", r.answer.semantic_evidence)
                                                           .done())
                                      .raw("hits", hits);
                                  if (!r.answer.notes.empty()) a.raw("notes", json_string_array(r.answer.notes));
                                  o = "{" + line_field + "," + a.done().substr(1);
                                  return true;
                                });
  if (!answered.ok()) return fail(kExitFailed, "recall: " + answered.status().message());
  for (const auto& o : out) std::printf("%s\n", o.c_str());
  return any_bad ? kExitUsage : kExitOk;
}

}  // namespace

int cmd_recall(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "realm", "limit", "as-of", "lanes", "timeout-ms", "batch", "since", "until",
                                 "tag", "known-at", "vector"}),
                         {"json", "explain", "staged"});
  if (!args.ok()) return fail(kExitUsage, "recall: " + args.status().message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  if (auto batch = args->get("batch")) {
    if (!args->positional.empty()) return fail(kExitUsage, "recall: --batch takes its queries from the file, not the command line");
    if (args->get("vector")) return fail(kExitUsage, "recall: with --batch, give each query's vector in its line (\"vector\": [...])");
    return run_batch(*args, *cfg, *batch);
  }
  ClientRequest req;
  req.kind = ClientRequest::Kind::recall;
  RecallQuery& q = req.recall;
  for (const auto& w : args->positional) q.text += (q.text.empty() ? "" : " ") + w;
  if (q.text.empty()) return fail(kExitUsage, "recall: give the query text");
  if (!is_valid_utf8(q.text)) return fail(kExitUsage, "recall: the query is not valid UTF-8");
  q.realms = args->all("realm");
  if (q.realms.empty()) return fail(kExitUsage, "recall: --realm R is required (repeat it to read several realms)");
  if (auto l = args->get("limit")) {
    auto n = limit_option(*l);
    if (!n.ok()) return fail(kExitUsage, "recall: " + n.status().message());
    q.limit = *n;
  }
  if (auto t = args->get("as-of")) {
    auto ms = parse_time_ms(*t);
    if (!ms) return fail(kExitUsage, "recall: --as-of '" + *t + "' is not a time (" + std::string(kTimeFormsHelp) + ")");
    q.as_of_ms = *ms;
  }
  if (auto t = args->get("known-at")) {
    auto ms = parse_time_ms(*t);
    if (!ms) return fail(kExitUsage, "recall: --known-at '" + *t + "' is not a time (" + std::string(kTimeFormsHelp) + ")");
    q.known_at_ms = *ms;
  }
  q.tags = args->all("tag");
  if (auto l = args->get("lanes")) q.lanes = split_commas(*l);
  for (const char* which : {"since", "until"}) {
    if (auto t = args->get(which)) {
      auto ms = parse_time_ms(*t);
      if (!ms)
        return fail(kExitUsage, std::string("recall: --") + which + " '" + *t + "' is not a time (" +
                                    std::string(kTimeFormsHelp) + ")");
      (std::string(which) == "since" ? q.window_from_ms : q.window_to_ms) = *ms;
    }
  }
  q.include_staged = args->has("staged");
  if (auto path = args->get("vector")) {
    auto v = read_vector_file(*path);
    if (!v.ok()) return fail(kExitUsage, "recall: " + v.status().message());
    q.vector = std::move(v.value());
  }
  // Checked here for a quick, clear answer; the node checks again (lane names too).
  if (Status v = validate_recall(q, cfg->limits, {}); !v.ok()) return fail(kExitUsage, "recall: " + v.message());
  long timeout_ms = 10000;
  if (auto t = args->get("timeout-ms")) timeout_ms = std::atol(t->c_str());
  if (timeout_ms <= 0) return fail(kExitUsage, "recall: --timeout-ms must be a positive number");

  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok())
    return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, "recall: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "recall: " + client.status().message());
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(timeout_ms));
  if (!res.ok()) return fail(kExitFailed, "recall: " + res.status().message());
  if (res->kind == ClientResponse::Kind::error)
    return fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed, "recall: " + res->message);
  if (res->kind != ClientResponse::Kind::recalled) return fail(kExitFailed, "recall: unexpected answer from the node");
  if (args->has("json"))
    std::printf("%s\n", recall_answer_json(res->answer, args->has("explain")).c_str());
  else
    print_text(res->answer, args->has("explain"));
  return kExitOk;
}

}  // namespace vasana
