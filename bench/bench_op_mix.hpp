// The op mix of `vasana-bench write --mix all` and `vasana-bench replication --mix all`: a
// writer's seeded stream of every client write request (remember, update, forget, archive and
// restore, pin and unpin, fact, retract, correct, review), aimed only at memories and triplets
// that writer created earlier in the run and had acknowledged; and the per-op figures the two
// benchmarks print beside their puts-only figures of the same run.
#pragma once

#include <array>
#include <utility>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/write_policy.hpp"
#include "cli/args.hpp"
#include "protocol/client_codec.hpp"

namespace vasana::bench {

// --mix: puts (remember only, the default) or all (OpMix).
enum class MixMode { puts, all };

// The mode --mix names ("puts" when not given); InvalidArgument naming --mix and its values
// for anything else.
Result<MixMode> parse_mix(const Args& args);

// The op types of the mix, in the order they are printed.
enum class MixOp : uint8_t {
  remember,
  remember_staged,  // origin model_inferred: held proposed for review by the default write policy
  update,
  forget,
  archive,
  restore,
  pin,
  unpin,
  fact,
  fact_functional,  // on kFunctionalPredicate
  retract,
  correct,
  review,
};
inline constexpr size_t kMixOps = 13;
const char* mix_op_name(MixOp op);

// The predicate the benchmark nodes hold functional (one object per subject at a time).
inline constexpr const char* kFunctionalPredicate = "owned_by";
// The benchmark nodes' write policy: the default one, with kFunctionalPredicate functional.
WritePolicy bench_write_policy();

// The share of each op in percent, as the header of the mix's figures says it.
std::string mix_description();

// One request of the mix and what it is.
struct PlannedOp {
  MixOp op = MixOp::remember;
  ClientRequest request;
  std::string realm;  // the memory's realm (remember ops: for the pools once acknowledged)
};

// One writer's op mix. Shares (percent): remember 45, remember staged 5, update 15, forget 5,
// archive or restore 5, pin or unpin 5, fact 8 (half on the functional predicate), retract 2,
// correct 5, review 5. An op whose target this writer does not have yet (no acknowledged
// memory, staged memory, archived memory or triplet) is sent as a plain remember instead, so
// the first requests of a run are remembers. Targets leave their pool when the request that
// ends them is sent (forget, archive, review, retract), so a pipelining caller never aims two
// requests at a memory the first one removes. Deterministic for a seed and the answers given.
// Not thread-safe: one per writer.
class OpMix {
 public:
  explicit OpMix(uint64_t seed);

  // The next request. New memories go to realm with text; an update's new text is text too.
  PlannedOp next(const std::string& realm, const std::string& text);
  // The node's answer to op: an acknowledged remember, fact or approval adds what it made to
  // the pools. Errors add nothing.
  void answered(const PlannedOp& op, const ClientResponse& r);

 private:
  struct Target {
    MemoryId id;
    std::string realm;
  };
  uint64_t draw();            // splitmix64
  size_t pick(size_t n);      // uniform in [0, n)
  Target take(std::vector<Target>& pool);
  PlannedOp remember(const std::string& realm, const std::string& text, bool staged);

  uint64_t state_;
  uint64_t seed_;
  uint64_t corrections_ = 0;
  std::vector<Target> live_, archived_, staged_;
  std::vector<MemoryId> pinned_;  // pinned by this mix and not unpinned or forgotten since
  // Triplets written and not retracted, with their source memory: an update of the source's text
  // retracts them too (replica/replica_state.hpp), so they leave the list then.
  std::vector<std::pair<MemoryId, MemoryId>> triplets_;
};

// Per op: acknowledged request latencies, errors, and (bench replication) replication lags.
struct OpTally {
  std::array<std::vector<double>, kMixOps> ack_us;
  std::array<std::vector<double>, kMixOps> lag_us;
  std::array<size_t, kMixOps> errors{};
  std::string first_error;  // the first error message, with its op

  void acked(MixOp op, double us) { ack_us[size_t(op)].push_back(us); }
  void failed(MixOp op, const std::string& message);
  size_t acked_total() const;
  size_t errors_total() const;
};

// Throughput and acknowledgement latency of one run (ops/s, us).
struct RunFigures {
  double rate = 0, p50_us = 0, p99_us = 0;
  size_t errors = 0;
};

// bench write: the mix of `writers` writers on as many connections, run for elapsed seconds:
// one row per op type, the whole mix, the puts-only run of the same writers, and the ratios
// mix / puts of throughput, p50 and p99.
void print_mix_write_table(size_t writers, const OpTally& tally, double elapsed, const RunFigures& puts);

// bench replication: per op type, acknowledgement and lag p50/p99 of the mix at one rate.
void print_mix_lag_table(const OpTally& tally);

}  // namespace vasana::bench
