#include "tests/fault/history_checker.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "frontends/node_client.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/fault/op_generator.hpp"

namespace vasana::test::fault {

namespace {

using namespace std::chrono_literals;

Result<ClientResponse> call(TestCluster& c, size_t i, ClientRequest req) {
  auto ep = NodeClient::endpoint_of(c.node(i).data);
  if (!ep.ok()) return ep.status();
  auto client = NodeClient::connect(*ep);
  if (!client.ok()) return client.status();
  return client.value()->call(std::move(req), 10s);
}

std::string view_line(const MemoryView& m) {
  std::string tags;
  for (const auto& t : m.tags) tags += t + ",";
  return m.realm + "|" + kind_name(m.kind) + "|" + m.text + "|" + tags + "|" + status_name(m.status) + "|" +
         m.status_reason + "|" + m.replaced_by.to_string() + "|" + epistemic_name(m.epistemic) + "|" +
         std::to_string(m.confidence) + "|" + (m.pinned ? "pinned" : "") + "|" + std::to_string(m.recorded_at_ms) +
         "|" + std::to_string(m.updated_at_ms) + "|" + (m.deleted ? "deleted" : "") + "|" +
         (m.reviewed ? (m.review_decision == ReviewVerdict::approve ? "approved" : "rejected") : "") + "|" +
         m.claim_status;
}

// Every memory of the workload's realms on node i, deleted ones included.
Result<std::map<std::string, MemoryView>> list_all(TestCluster& c, size_t i) {
  std::map<std::string, MemoryView> out;
  for (const auto& realm : workload_realms()) {
    MemoryId after;
    do {
      ClientRequest req;
      req.kind = ClientRequest::Kind::list;
      req.list.realm = realm;
      req.list.include_deleted = true;
      req.list.after = after;
      req.list.limit = kMaxListLimit;
      auto r = call(c, i, std::move(req));
      if (!r.ok()) return r.status();
      if (r->kind != ClientResponse::Kind::listed) return Status::FailedPrecondition(r->message);
      for (auto& m : r->page.memories) out[m.id.to_string()] = std::move(m);
      after = r->page.next;
    } while (after.seqno.value != 0);
  }
  return out;
}

Result<RecallAnswer> recall(TestCluster& c, size_t i, const std::string& realm, const std::string& q) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::recall;
  req.recall.text = q;
  req.recall.realms = {realm};
  req.recall.limit = 20;
  auto r = call(c, i, std::move(req));
  if (!r.ok()) return r.status();
  if (r->kind != ClientResponse::Kind::recalled) return Status::FailedPrecondition(r->message);
  return r->answer;
}

std::string last_word(const std::string& s) {
  const size_t at = s.find_last_of(' ');
  return at == std::string::npos ? s : s.substr(at + 1);
}

// Whether bytes hold text as a whole: not followed by a letter, so that the text of a memory
// whose token is "qzrt" is not taken for the start of one whose token is "qzrtd" (every text
// the workload writes ends in its unique token).
bool holds_token_text(const std::string& bytes, const std::string& text) {
  for (size_t at = bytes.find(text); at != std::string::npos; at = bytes.find(text, at + 1)) {
    const size_t end = at + text.size();
    if (end == bytes.size() || !std::isalpha(static_cast<unsigned char>(bytes[end]))) return true;
  }
  return false;
}

// Where a text of an erased memory (its remember's, its updates') is still found in a file of a
// node's data directory, one line each, after waiting up to 30 s for the nodes' erasure tasks.
// Files the node set aside for the operator (DATA/quarantine/, DATA/checkpoint.damaged-*) are
// kept as they were by design (docs/erasure.md, "Set-aside files") and are not searched.
std::vector<std::string> erased_bytes_left(TestCluster& c, const std::vector<OpRecord>& ops,
                                           const std::set<std::string>& erased) {
  std::vector<std::string> texts;
  for (const auto& op : ops) {
    const std::string of = op.kind == OpKind::remember ? op.id.to_string() : op.target.to_string();
    if ((op.kind == OpKind::remember || op.kind == OpKind::update) && erased.count(of)) texts.push_back(op.text);
  }
  std::vector<std::string> left;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  do {
    left.clear();
    for (size_t i = 0; i < c.size(); ++i) {
      // The node goes on working meanwhile: a file may go away while it is listed or read.
      std::error_code ec;
      for (auto it = std::filesystem::recursive_directory_iterator(c.node(i).data, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        const auto& e = *it;
        const std::string name = e.path().filename().string();
        if (name == "quarantine" || name.rfind("checkpoint.damaged", 0) == 0) {
          if (e.is_directory(ec)) it.disable_recursion_pending();
          continue;
        }
        if (!e.is_regular_file(ec)) continue;
        std::ifstream in(e.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (const std::string& t : texts)
          if (holds_token_text(bytes, t)) left.push_back("erased text '" + t + "' left in " + e.path().string());
      }
    }
    if (!left.empty()) std::this_thread::sleep_for(500ms);
  } while (!left.empty() && std::chrono::steady_clock::now() < deadline);
  return left;
}

}  // namespace

std::string await_settled(TestCluster& c, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (true) {
    last.clear();
    std::string digest;
    uint64_t memories = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      const std::string n = "n" + std::to_string(i);
      auto st = c.status(i);
      if (!st.ok()) {
        last += n + ": " + st.status().message() + "; ";
        continue;
      }
      if (digest.empty()) digest = st->digest, memories = st->memories;
      else if (st->digest != digest || st->memories != memories)
        last += n + " digest " + st->digest.substr(0, 12) + " / " + std::to_string(st->memories) + " memories differ; ";
      if (st->own_writer.state != "writable") last += n + " own writer " + st->own_writer.state + ": " + st->own_writer.reason + "; ";
      if (st->lanes_backlog) last += n + " lanes backlog " + std::to_string(st->lanes_backlog) + "; ";
      for (const auto& p : st->problems) last += n + " writer " + p.writer + " " + p.problem + " " + p.detail + "; ";
      for (const auto& p : st->peers)
        for (const auto& w : p.writers)
          if (w.lag_ops) last += n + " lags " + std::to_string(w.lag_ops) + " ops of " + w.writer + " behind " + p.address + "; ";
    }
    if (last.empty()) return "";
    if (std::chrono::steady_clock::now() > deadline) return last;
    std::this_thread::sleep_for(200ms);
  }
}

std::vector<std::string> check_history(TestCluster& c, const std::vector<OpRecord>& ops) {
  std::vector<std::string> bad;
  // 1. The same memories with the same fields everywhere.
  std::vector<std::map<std::string, MemoryView>> lists;
  for (size_t i = 0; i < c.size(); ++i) {
    auto l = list_all(c, i);
    if (!l.ok()) {
      bad.push_back("n" + std::to_string(i) + ": list failed: " + l.status().message());
      return bad;
    }
    lists.push_back(std::move(l.value()));
  }
  for (size_t i = 1; i < lists.size(); ++i) {
    for (const auto& [id, m] : lists[0]) {
      auto it = lists[i].find(id);
      if (it == lists[i].end()) bad.push_back("divergence: " + id + " held by n0, not by n" + std::to_string(i));
      else if (view_line(it->second) != view_line(m))
        bad.push_back("divergence: " + id + " n0 [" + view_line(m) + "] n" + std::to_string(i) + " [" +
                      view_line(it->second) + "]");
    }
    for (const auto& [id, m] : lists[i])
      if (!lists[0].count(id)) bad.push_back("divergence: " + id + " held by n" + std::to_string(i) + ", not by n0");
  }
  const auto& held = lists[0];

  // 2. The history against what n0 holds.
  std::map<std::string, const OpRecord*> by_token;  // remember and update texts
  std::map<std::string, std::vector<const OpRecord*>> on;  // ops aimed at a memory id
  for (const auto& op : ops) {
    if (op.kind == OpKind::remember || op.kind == OpKind::update) by_token[op.token] = &op;
    if (op.target.seqno.value) on[op.target.to_string()].push_back(&op);
  }
  // Memories an erase may have reached (acknowledged or of unknown outcome): listed nowhere.
  std::set<std::string> maybe_erased, erased;
  for (const auto& op : ops)
    if (op.kind == OpKind::erase && op.outcome != Outcome::failed) {
      maybe_erased.insert(op.target.to_string());
      if (op.outcome == Outcome::acked) erased.insert(op.target.to_string());
    }
  for (const auto& op : ops) {
    if (op.kind != OpKind::remember || op.outcome != Outcome::acked) continue;
    if (!held.count(op.id.to_string()) && !maybe_erased.count(op.id.to_string()))
      bad.push_back("lost: acknowledged remember not held: " + op.describe());
  }
  for (const std::string& id : erased)
    if (held.count(id)) bad.push_back("erase lost: " + id + " still listed after an acknowledged erase");
  for (const std::string& line : erased_bytes_left(c, ops, erased)) bad.push_back(line);
  for (const auto& [id, m] : held) {
    auto tok = by_token.find(last_word(m.text));
    if (tok == by_token.end()) {
      bad.push_back("phantom: " + id + " holds a text no client wrote: " + m.text);
      continue;
    }
    const OpRecord& src = *tok->second;
    if (src.outcome == Outcome::failed) bad.push_back("refused write visible in " + id + ": " + src.describe());
    if (src.kind == OpKind::remember && src.outcome == Outcome::acked && src.id.to_string() != id)
      bad.push_back("id mismatch: " + id + " holds the text of " + src.describe());
    if (src.kind == OpKind::update && src.target.to_string() != id)
      bad.push_back("misapplied update: " + id + " holds the text of " + src.describe());
    // The remember that created it: its token is the memory's origin.
    const auto& targeting = on[id];
    bool acked_forget = false, tried_forget = false, unknown_pin = false;
    std::optional<OrderKey> last_text_key, last_pin_key;
    const OpRecord* last_text = nullptr;
    bool pinned = false;
    for (const OpRecord* t : targeting) {
      if (t->kind == OpKind::forget) {
        acked_forget |= t->outcome == Outcome::acked;
        tried_forget |= t->outcome != Outcome::failed;
      }
      if (t->kind == OpKind::update && t->outcome == Outcome::acked && (!last_text_key || *last_text_key < t->key))
        last_text_key = t->key, last_text = t;
      if (t->kind == OpKind::pin || t->kind == OpKind::unpin) {
        unknown_pin |= t->outcome == Outcome::unknown;
        if (t->outcome == Outcome::acked && (!last_pin_key || *last_pin_key < t->key))
          last_pin_key = t->key, pinned = t->kind == OpKind::pin;
      }
    }
    if (acked_forget && !m.deleted) bad.push_back("forget lost: " + id + " not deleted after an acknowledged forget");
    if (!tried_forget && m.deleted) bad.push_back("deleted without a forget: " + id);
    if (!m.deleted) {
      const bool text_ok = src.outcome == Outcome::unknown || (last_text ? &src == last_text : src.kind == OpKind::remember);
      if (!text_ok)
        bad.push_back("update lost: " + id + " holds '" + m.text + "' from " + src.describe() + "; last acknowledged update: " +
                      (last_text ? last_text->describe() : "none"));
      if (!unknown_pin && last_pin_key && m.pinned != pinned)
        bad.push_back("pin lost: " + id + (m.pinned ? " pinned" : " not pinned") + " against the last acknowledged pin op");
    }
  }

  // 3. The same recall answers everywhere, and acknowledged corrections shown.
  std::vector<std::pair<std::string, std::string>> queries;
  for (const auto& realm : workload_realms())
    for (const char* q : {"harbor lantern", "copper meadow falcon", "retold quartz", "ember willow signal", "orchard"})
      queries.emplace_back(realm, q);
  size_t sampled = 0;
  for (const auto& op : ops)
    if (op.kind == OpKind::remember && op.outcome == Outcome::acked && sampled++ < 10)
      queries.emplace_back(op.realm, op.text);
  for (const auto& [realm, q] : queries) {
    std::vector<std::string> first;
    for (size_t i = 0; i < c.size(); ++i) {
      auto a = recall(c, i, realm, q);
      if (!a.ok()) {
        bad.push_back("n" + std::to_string(i) + ": recall failed: " + a.status().message());
        continue;
      }
      std::vector<std::string> ids;
      for (const auto& h : a->hits) ids.push_back(h.id.to_string());
      if (i == 0) first = ids;
      else if (ids != first) bad.push_back("recall differs: realm " + realm + " '" + q + "' on n" + std::to_string(i));
    }
  }
  for (const auto& op : ops) {
    if (op.kind != OpKind::correct || op.outcome != Outcome::acked) continue;
    for (size_t i = 0; i < c.size(); ++i) {
      auto a = recall(c, i, op.realm, op.wrong);
      bool shown = false;
      if (a.ok())
        for (const auto& h : a->corrections) shown |= h.id == op.id;
      if (!shown) bad.push_back("correction lost on n" + std::to_string(i) + ": " + op.describe());
    }
  }
  return bad;
}

}  // namespace vasana::test::fault
