#include "tests/fault/op_history.hpp"

namespace vasana::test::fault {

const char* op_name(OpKind k) {
  switch (k) {
    case OpKind::remember: return "remember";
    case OpKind::update: return "update";
    case OpKind::forget: return "forget";
    case OpKind::archive: return "archive";
    case OpKind::restore: return "restore";
    case OpKind::pin: return "pin";
    case OpKind::unpin: return "unpin";
    case OpKind::fact: return "fact";
    case OpKind::retract: return "retract";
    case OpKind::correct: return "correct";
    case OpKind::review: return "review";
    case OpKind::admit: return "admit";
    case OpKind::remove: return "remove";
    case OpKind::erase: return "erase";
  }
  return "?";
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::pending: return "pending";
    case Outcome::acked: return "acked";
    case Outcome::failed: return "failed";
    case Outcome::unknown: return "unknown";
  }
  return "?";
}

std::string OpRecord::describe() const {
  std::string s = "#" + std::to_string(index) + " c" + std::to_string(client) + "->n" + std::to_string(node) + " " +
                  op_name(kind);
  if (!realm.empty()) s += " realm=" + realm;
  if (target.seqno.value) s += " target=" + target.to_string();
  if (!token.empty()) s += " token=" + token;
  s += " [" + std::to_string(start_ms) + "-" + std::to_string(end_ms) + "ms] " + outcome_name(outcome);
  if (outcome == Outcome::acked) s += " id=" + id.to_string() + " ts=" + std::to_string(key.ts);
  if (!detail.empty()) s += " (" + detail + ")";
  return s;
}

size_t History::invoke(OpRecord r) {
  std::lock_guard<std::mutex> g(mu_);
  r.index = ops_.size();
  ops_.push_back(std::move(r));
  return ops_.size() - 1;
}

void History::complete(size_t index, Outcome o, MemoryId id, uint64_t effective_ts, std::string detail,
                       int64_t end_ms) {
  std::lock_guard<std::mutex> g(mu_);
  OpRecord& r = ops_[index];
  r.outcome = o;
  r.id = id;
  r.key = OrderKey{effective_ts, id.instance.value, id.seqno.value};
  r.detail = std::move(detail);
  r.end_ms = end_ms;
}

std::vector<OpRecord> History::snapshot() const {
  std::lock_guard<std::mutex> g(mu_);
  return ops_;
}

}  // namespace vasana::test::fault
