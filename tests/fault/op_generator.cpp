#include "tests/fault/op_generator.hpp"

#include <map>
#include <memory>
#include <random>

#include "frontends/node_client.hpp"
#include "sync/curve_keys.hpp"

namespace vasana::test::fault {

namespace {

using namespace std::chrono_literals;

constexpr auto kCallTimeout = 4s;

// A word no stemmer changes and no other op uses: "qz" and consonants, distinct per n.
std::string unique_token(uint64_t n) {
  static const std::string letters = "bcdfghjklmnpqrtvwxz";
  std::string out = "qz";
  do {
    out += letters[n % letters.size()];
    n /= letters.size();
  } while (n);
  return out;
}

std::string words(std::mt19937_64& rng, size_t n) {
  static const char* const w[] = {"harbor", "lantern", "copper", "meadow", "falcon", "quartz", "ember", "willow",
                                  "signal", "orchard", "basalt", "cinder", "tundra", "velvet", "prism", "saddle"};
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + std::string(w[rng() % 16]);
  return s;
}

// Refusals that say nothing was written; every other error leaves the outcome unknown
// (unavailable, io_failure and internal can come after the op reached the log).
bool refused_before_writing(ClientError e) {
  return e == ClientError::bad_input || e == ClientError::conflict || e == ClientError::not_found ||
         e == ClientError::permission_denied || e == ClientError::protocol_mismatch;
}

}  // namespace

const std::vector<std::string>& workload_realms() {
  static const std::vector<std::string> realms = {"alpha", "beta"};
  return realms;
}

OpGenerator::OpGenerator(std::vector<std::string> data_dirs, History& history, uint64_t seed, size_t clients)
    : data_dirs_(std::move(data_dirs)), history_(history), seed_(seed), clients_(clients) {
  for (int i = 0; i < 3; ++i)
    if (auto k = generate_curve_keys(); k.ok()) member_keys_.push_back(k->public_z85);
}

OpGenerator::~OpGenerator() { stop(); }

void OpGenerator::start() {
  start_ = std::chrono::steady_clock::now();
  for (size_t c = 0; c < clients_; ++c) threads_.emplace_back([this, c] { client_loop(c); });
}

void OpGenerator::stop() {
  stop_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void OpGenerator::remove_members() {
  for (const std::string& key : member_keys_) {
    OpRecord op;
    op.client = clients_;  // after every workload client
    op.kind = OpKind::remove;
    op.text = key;
    op.start_ms = now_ms();
    const size_t index = history_.invoke(op);
    ClientRequest req;
    req.kind = ClientRequest::Kind::member;
    req.member.public_key = key;
    req.member.admitted = false;
    req.member.name = "fault-member";
    Result<ClientResponse> r = Status::IoError("no node answers");
    for (size_t n = 0; n < data_dirs_.size() && !(r.ok() && r->kind != ClientResponse::Kind::error); ++n) {
      auto ep = NodeClient::endpoint_of(data_dirs_[n]);
      auto c = ep.ok() ? NodeClient::connect(*ep) : Result<std::unique_ptr<NodeClient>>(ep.status());
      if (c.ok()) r = c.value()->call(req, kCallTimeout);
    }
    if (r.ok() && r->kind != ClientResponse::Kind::error)
      history_.complete(index, Outcome::acked, r->id, r->effective_ts, "", now_ms());
    else
      history_.complete(index, Outcome::unknown, {}, 0, r.ok() ? r->message : r.status().message(), now_ms());
  }
}

int64_t OpGenerator::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
}

void OpGenerator::client_loop(size_t client) {
  std::mt19937_64 rng(seed_ * 1000003 + client + 1);
  std::map<size_t, std::unique_ptr<NodeClient>> conns;
  // Outside the erasure windows an erased memory is not a target (a content op on one asks for
  // another erasure's checkpoint): a few draws, then any.
  auto pick = [&](std::vector<MemoryId>& v, MemoryId& out) {
    std::lock_guard<std::mutex> g(mu_);
    if (v.empty()) return false;
    const bool quiet = now_ms() / kErasureWindowMs % 2 == 1;
    for (int draw = 0; draw < 8; ++draw) {
      out = v[rng() % v.size()];
      if (!quiet || !erased_.count(out)) break;
    }
    return true;
  };
  while (!stop_) {
    OpRecord op;
    op.client = client;
    op.node = rng() % data_dirs_.size();
    op.realm = workload_realms()[rng() % workload_realms().size()];
    ClientRequest req;
    unsigned roll = rng() % 100;
    // Erasures come in the first 4 s of every 8: an erasure's checkpoint is whole, and so is every
    // one after a memory was erased, so the quiet half is when nodes write (and restart from)
    // delta checkpoints. Outside it an erase roll is a forget.
    if (roll >= 90 && roll < 95 && (roll >= 93 || member_keys_.empty()) && now_ms() / kErasureWindowMs % 2 == 1)
      roll = 52;
    bool ok_target = true;
    if (roll < 40) {
      op.kind = OpKind::remember;
      op.token = unique_token(next_token_++);
      op.text = words(rng, 4) + " " + op.token;
      op.proposed = rng() % 6 == 0;
      req.kind = ClientRequest::Kind::remember;
      req.memory.realm = op.realm;
      req.memory.text = op.text;
      req.memory.tags = {rng() % 2 ? "odd" : "even"};
      if (op.proposed) req.memory.epistemic = "model_inferred";
    } else if (roll < 52) {
      op.kind = OpKind::update;
      ok_target = pick(memories_, op.target);
      op.token = unique_token(next_token_++);
      op.text = "retold " + words(rng, 3) + " " + op.token;
      req.kind = ClientRequest::Kind::update;
      req.update.memory = op.target;
      req.update.has_text = true;
      req.update.text = op.text;
    } else if (roll < 58) {
      op.kind = OpKind::forget;
      ok_target = pick(memories_, op.target);
      req.kind = ClientRequest::Kind::forget;
      req.forget.memory = op.target;
      req.forget.reason = "fault run";
    } else if (roll < 64) {
      op.kind = rng() % 2 ? OpKind::archive : OpKind::restore;
      ok_target = pick(memories_, op.target);
      req.kind = ClientRequest::Kind::set_status;
      req.set_status.memory = op.target;
      req.set_status.status = op.kind == OpKind::archive ? MemoryStatus::archived : MemoryStatus::active;
    } else if (roll < 70) {
      op.kind = rng() % 2 ? OpKind::pin : OpKind::unpin;
      ok_target = pick(memories_, op.target);
      req.kind = ClientRequest::Kind::pin;
      req.pin.memory = op.target;
      req.pin.pinned = op.kind == OpKind::pin;
    } else if (roll < 80) {
      op.kind = OpKind::fact;
      op.token = unique_token(next_token_++);
      req.kind = ClientRequest::Kind::fact;
      req.fact.realm = op.realm;
      req.fact.fact.subject = op.token;
      req.fact.fact.predicate = rng() % 2 ? "near" : "feeds";
      req.fact.fact.object = words(rng, 1);
      op.text = req.fact.fact.subject + "|" + req.fact.fact.predicate + "|" + req.fact.fact.object;
      // Half the facts are drawn from a memory (refused when it is of another realm): an update
      // of its text retracts them on every node.
      MemoryId source;
      if (rng() % 2 && pick(memories_, source)) req.fact.source_memory = source;
    } else if (roll < 84) {
      op.kind = OpKind::retract;
      ok_target = pick(triplets_, op.target);
      req.kind = ClientRequest::Kind::retract;
      req.retract = op.target;
    } else if (roll < 90) {
      op.kind = OpKind::correct;
      op.token = unique_token(next_token_++);
      op.wrong = op.token + " " + unique_token(next_token_++);
      op.right = "right " + words(rng, 2);
      req.kind = ClientRequest::Kind::correct;
      req.correct.realm = op.realm;
      req.correct.wrong = op.wrong;
      req.correct.right = op.right;
    } else if (roll < 93 && !member_keys_.empty()) {
      op.kind = rng() % 2 ? OpKind::admit : OpKind::remove;
      op.text = member_keys_[rng() % member_keys_.size()];
      req.kind = ClientRequest::Kind::member;
      req.member.public_key = op.text;
      req.member.admitted = op.kind == OpKind::admit;
      if (req.member.admitted) req.member.address = "tcp://127.0.0.1:9";  // discard: nothing listens
      req.member.name = "fault-member";
    } else if (roll < 95) {
      op.kind = OpKind::erase;
      ok_target = pick(memories_, op.target);
      req.kind = ClientRequest::Kind::erase;
      req.erase.memory = op.target;
      req.erase.reason = "fault run";
    } else {
      op.kind = OpKind::review;
      ok_target = pick(proposed_, op.target);
      req.kind = ClientRequest::Kind::review;
      req.review.memory = op.target;
      // Half approve, a quarter each reject and reopen: decided memories are reopened and decided
      // again, and a decision on a decided memory is refused (replica/review_outcome.hpp).
      const uint64_t roll = rng() % 4;
      req.review.decision = roll < 2 ? ReviewVerdict::approve : roll == 2 ? ReviewVerdict::reject : ReviewVerdict::reopen;
      req.review.reviewer = "fault-client-" + std::to_string(client);
      op.text = decision_name(req.review.decision);
    }
    if (!ok_target) continue;  // nothing to aim at yet
    op.start_ms = now_ms();
    const size_t index = history_.invoke(op);

    auto& conn = conns[op.node];
    if (!conn) {
      auto ep = NodeClient::endpoint_of(data_dirs_[op.node]);
      if (ep.ok()) {
        auto c = NodeClient::connect(*ep);
        if (c.ok()) conn = std::move(c.value());
      }
    }
    if (!conn) {
      history_.complete(index, Outcome::failed, {}, 0, "not sent: no node answers there", now_ms());
      std::this_thread::sleep_for(50ms);
      continue;
    }
    auto r = conn->call(std::move(req), kCallTimeout);
    if (!r.ok()) {
      history_.complete(index, Outcome::unknown, {}, 0, r.status().message(), now_ms());
      conn.reset();  // a late answer must not be taken for the next request's
      continue;
    }
    if (r->kind == ClientResponse::Kind::error) {
      const Outcome o = refused_before_writing(r->error) ? Outcome::failed : Outcome::unknown;
      history_.complete(index, o, {}, 0, std::string(client_error_name(r->error)) + ": " + r->message, now_ms());
      continue;
    }
    history_.complete(index, Outcome::acked, r->id, r->effective_ts, "", now_ms());
    ++acked_;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (op.kind == OpKind::remember) {
        memories_.push_back(r->id);
        if (r->stored_status == MemoryStatus::proposed) proposed_.push_back(r->id);
      }
      if (op.kind == OpKind::fact) triplets_.push_back(r->id);
      if (op.kind == OpKind::erase) erased_.insert(op.target);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 25));
  }
}

}  // namespace vasana::test::fault
