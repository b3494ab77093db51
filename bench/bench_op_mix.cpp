#include "bench/bench_op_mix.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "bench/bench_figures.hpp"

namespace vasana::bench {

Result<MixMode> parse_mix(const Args& args) {
  const auto v = args.get("mix");
  if (!v || *v == "puts") return MixMode::puts;
  if (*v == "all") return MixMode::all;
  return Status::InvalidArgument("--mix takes puts (remember only, the default) or all (every write op), not '" +
                                 *v + "'");
}

const char* mix_op_name(MixOp op) {
  switch (op) {
    case MixOp::remember: return "remember";
    case MixOp::remember_staged: return "remember staged";
    case MixOp::update: return "update";
    case MixOp::forget: return "forget";
    case MixOp::archive: return "archive";
    case MixOp::restore: return "restore";
    case MixOp::pin: return "pin";
    case MixOp::unpin: return "unpin";
    case MixOp::fact: return "fact";
    case MixOp::fact_functional: return "fact functional";
    case MixOp::retract: return "retract";
    case MixOp::correct: return "correct";
    case MixOp::review: return "review";
  }
  return "?";
}

WritePolicy bench_write_policy() {
  WritePolicy p;
  p.defaults.functional_predicates = {kFunctionalPredicate};
  return p;
}

std::string mix_description() {
  return std::string("  45% remember, 5% remember staged for review (origin model_inferred), 15% update (new text),\n"
                     "  5% forget, 5% archive or restore, 5% pin or unpin, 8% fact (half on the functional\n"
                     "  predicate ") +
         kFunctionalPredicate +
         "), 2% retract, 5% correct, 5% review (approve or reject a staged memory);\n"
         "  an op whose target the writer has not had acknowledged yet is sent as a remember";
}

OpMix::OpMix(uint64_t seed) : state_(seed), seed_(seed) {}

uint64_t OpMix::draw() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

size_t OpMix::pick(size_t n) { return size_t(draw() % n); }

OpMix::Target OpMix::take(std::vector<Target>& pool) {
  const size_t i = pick(pool.size());
  Target t = std::move(pool[i]);
  pool[i] = std::move(pool.back());
  pool.pop_back();
  return t;
}

PlannedOp OpMix::remember(const std::string& realm, const std::string& text, bool staged) {
  PlannedOp p;
  p.op = staged ? MixOp::remember_staged : MixOp::remember;
  p.realm = realm;
  p.request.kind = ClientRequest::Kind::remember;
  p.request.memory.realm = realm;
  p.request.memory.kind = "episode";
  p.request.memory.text = text;
  if (staged) p.request.memory.epistemic = "model_inferred";
  return p;
}

PlannedOp OpMix::next(const std::string& realm, const std::string& text) {
  using K = ClientRequest::Kind;
  const uint64_t r = draw() % 100;
  PlannedOp p;
  if (r < 45) return remember(realm, text, false);
  if (r < 50) return remember(realm, text, true);
  if (r < 65) {  // update: new text
    if (live_.empty()) return remember(realm, text, false);
    const Target& t = live_[pick(live_.size())];
    p.op = MixOp::update;
    p.request.kind = K::update;
    p.request.update.memory = t.id;
    p.request.update.has_text = true;
    p.request.update.text = text;
    return p;
  }
  if (r < 70) {  // forget
    if (live_.empty()) return remember(realm, text, false);
    p.op = MixOp::forget;
    p.request.kind = K::forget;
    p.request.forget.memory = take(live_).id;
    auto pinned = std::find(pinned_.begin(), pinned_.end(), p.request.forget.memory);
    if (pinned != pinned_.end()) {
      *pinned = pinned_.back();
      pinned_.pop_back();
    }
    p.request.forget.reason = "bench";
    return p;
  }
  if (r < 75) {  // archive a live memory, or restore an archived one
    const bool restore = !archived_.empty() && (live_.empty() || draw() % 2 == 0);
    if (!restore && live_.empty()) return remember(realm, text, false);
    Target t = take(restore ? archived_ : live_);
    p.op = restore ? MixOp::restore : MixOp::archive;
    p.request.kind = K::set_status;
    p.request.set_status.memory = t.id;
    p.request.set_status.status = restore ? MemoryStatus::active : MemoryStatus::archived;
    p.request.set_status.reason = "bench";
    (restore ? live_ : archived_).push_back(std::move(t));
    return p;
  }
  if (r < 80) {  // unpin a pinned memory (half the time when there is one), else pin a memory
    const bool unpin = !pinned_.empty() && (live_.empty() || draw() % 2 == 0);
    if (!unpin && live_.empty()) return remember(realm, text, false);
    p.request.kind = K::pin;
    if (unpin) {
      const size_t i = pick(pinned_.size());
      p.op = MixOp::unpin;
      p.request.pin.memory = pinned_[i];
      p.request.pin.pinned = false;
      pinned_[i] = pinned_.back();
      pinned_.pop_back();
    } else {
      const Target& t = live_[pick(live_.size())];
      p.op = MixOp::pin;
      p.request.pin.memory = t.id;
      if (std::find(pinned_.begin(), pinned_.end(), t.id) == pinned_.end()) pinned_.push_back(t.id);
    }
    return p;
  }
  if (r < 88) {  // a fact sourced from a memory; half on the functional predicate
    if (live_.empty()) return remember(realm, text, false);
    const Target& t = live_[pick(live_.size())];
    const bool functional = r < 84;
    p.op = functional ? MixOp::fact_functional : MixOp::fact;
    p.request.kind = K::fact;
    p.request.fact.realm = t.realm;
    p.request.fact.source_memory = t.id;
    if (functional) {
      p.request.fact.fact = FactInput{"service " + std::to_string(pick(64)), kFunctionalPredicate,
                                      "team " + std::to_string(pick(16))};
    } else {
      p.request.fact.fact = FactInput{"component " + std::to_string(pick(1000)), "depends on",
                                      "component " + std::to_string(pick(1000))};
    }
    return p;
  }
  if (r < 90) {  // retract a triplet
    if (triplets_.empty()) return remember(realm, text, false);
    const size_t i = pick(triplets_.size());
    p.op = MixOp::retract;
    p.request.kind = K::retract;
    p.request.retract = triplets_[i].first;
    triplets_[i] = triplets_.back();
    triplets_.pop_back();
    return p;
  }
  if (r < 95) {  // a correction whose wrong phrase no generated text holds
    ++corrections_;
    p.op = MixOp::correct;
    p.request.kind = K::correct;
    p.request.correct.realm = realm;
    p.request.correct.wrong = "legacyterm" + std::to_string(seed_ % 100000) + "x" + std::to_string(corrections_);
    p.request.correct.right = "currentterm" + std::to_string(seed_ % 100000) + "x" + std::to_string(corrections_);
    return p;
  }
  // review a staged memory: approve two of three
  if (staged_.empty()) return remember(realm, text, false);
  Target t = take(staged_);
  p.op = MixOp::review;
  p.realm = t.realm;
  p.request.kind = K::review;
  p.request.review.memory = t.id;
  p.request.review.decision = pick(3) < 2 ? ReviewVerdict::approve : ReviewVerdict::reject;
  p.request.review.reviewer = "bench";
  return p;
}

void OpMix::answered(const PlannedOp& op, const ClientResponse& r) {
  if (r.kind == ClientResponse::Kind::remembered &&
      (op.op == MixOp::remember || op.op == MixOp::remember_staged)) {
    Target t{r.id, op.realm};
    if (r.stored_status == MemoryStatus::proposed) staged_.push_back(std::move(t));
    else live_.push_back(std::move(t));
    return;
  }
  if (r.kind != ClientResponse::Kind::written) return;
  if (op.op == MixOp::fact || op.op == MixOp::fact_functional) triplets_.emplace_back(r.id, op.request.fact.source_memory);
  if (op.op == MixOp::update) {
    const MemoryId updated = op.request.update.memory;
    triplets_.erase(std::remove_if(triplets_.begin(), triplets_.end(),
                                   [&](const auto& t) { return t.second == updated; }),
                    triplets_.end());
  }
  if (op.op == MixOp::review && op.request.review.decision == ReviewVerdict::approve)
    live_.push_back(Target{op.request.review.memory, op.realm});
}

void OpTally::failed(MixOp op, const std::string& message) {
  ++errors[size_t(op)];
  if (first_error.empty()) first_error = std::string(mix_op_name(op)) + ": " + message;
}

size_t OpTally::acked_total() const {
  size_t n = 0;
  for (const auto& v : ack_us) n += v.size();
  return n;
}

size_t OpTally::errors_total() const {
  size_t n = 0;
  for (size_t e : errors) n += e;
  return n;
}

namespace {

std::string ratio(double a, double b) {
  if (b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", a / b);
  return buf;
}

}  // namespace

void print_mix_write_table(size_t writers, const OpTally& tally, double elapsed, const RunFigures& puts) {
  std::printf("  %zu writer%s on %zu connection%s\n", writers, writers == 1 ? "" : "s", writers,
              writers == 1 ? "" : "s");
  std::printf("    %-16s %8s %10s %10s %10s %8s\n", "op", "acked", "ops/s", "p50 us", "p99 us", "errors");
  std::vector<double> all;
  for (size_t i = 0; i < kMixOps; ++i) {
    const auto& v = tally.ack_us[i];
    all.insert(all.end(), v.begin(), v.end());
    if (v.empty() && !tally.errors[i]) continue;
    std::printf("    %-16s %8zu %10.0f %10.0f %10.0f %8zu\n", mix_op_name(MixOp(i)), v.size(),
                elapsed > 0 ? double(v.size()) / elapsed : 0, pct(v, 0.50), pct(v, 0.99), tally.errors[i]);
  }
  RunFigures mix;
  mix.rate = elapsed > 0 ? double(all.size()) / elapsed : 0;
  mix.p50_us = pct(all, 0.50);
  mix.p99_us = pct(all, 0.99);
  std::printf("    %-16s %8zu %10.0f %10.0f %10.0f %8zu\n", "all ops (mix)", all.size(), mix.rate, mix.p50_us,
              mix.p99_us, tally.errors_total());
  std::printf("    %-16s %8s %10.0f %10.0f %10.0f %8zu\n", "puts only", "", puts.rate, puts.p50_us, puts.p99_us,
              puts.errors);
  std::printf("    mix / puts: throughput %s, p50 %s, p99 %s\n", ratio(mix.rate, puts.rate).c_str(),
              ratio(mix.p50_us, puts.p50_us).c_str(), ratio(mix.p99_us, puts.p99_us).c_str());
  if (!tally.first_error.empty()) std::printf("    first error: %s\n", tally.first_error.c_str());
  std::fflush(stdout);
}

void print_mix_lag_table(const OpTally& tally) {
  std::printf("      %-16s %8s %8s %9s %9s %9s %9s\n", "op", "acked", "errors", "ack p50", "ack p99", "lag p50",
              "lag p99");
  for (size_t i = 0; i < kMixOps; ++i) {
    const auto& a = tally.ack_us[i];
    const auto& l = tally.lag_us[i];
    if (a.empty() && !tally.errors[i]) continue;
    std::printf("      %-16s %8zu %8zu %9.0f %9.0f %9.0f %9.0f\n", mix_op_name(MixOp(i)), a.size(), tally.errors[i],
                pct(a, 0.50), pct(a, 0.99), pct(l, 0.50), pct(l, 0.99));
  }
  if (!tally.first_error.empty()) std::printf("      first error: %s\n", tally.first_error.c_str());
  std::fflush(stdout);
}

}  // namespace vasana::bench
