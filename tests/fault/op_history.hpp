// The history of a fault run: every client op as invoked, and how it ended. An op is
// acknowledged (the node answered it was written: the op's id and order key), failed (refused
// before anything was written, or never sent), or unknown (a timeout, a dropped connection, an
// I/O failure: it may or may not have been written). The checker (history_checker.hpp) reads
// it after the run. Thread-safe: the client threads append concurrently.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/ids.hpp"

namespace vasana::test::fault {

enum class OpKind { remember, update, forget, archive, restore, pin, unpin, fact, retract, correct, review, admit, remove, erase };
enum class Outcome { pending, acked, failed, unknown };

const char* op_name(OpKind k);
const char* outcome_name(Outcome o);

// The merge order of the cluster (DESIGN.md "Identity and time"): effective_ts, then writer,
// then seqno.
struct OrderKey {
  uint64_t ts = 0;
  uint64_t instance = 0;
  uint64_t seqno = 0;
  friend bool operator<(const OrderKey& a, const OrderKey& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.instance != b.instance) return a.instance < b.instance;
    return a.seqno < b.seqno;
  }
};

struct OpRecord {
  size_t index = 0;   // position in the history
  size_t client = 0;  // the client thread
  size_t node = 0;    // the node it was sent to
  OpKind kind = OpKind::remember;
  std::string realm;
  std::string text;    // remember, update: the text (each carries a token no other op uses); admit, remove: the key
  std::string token;   // remember, update, correct: that token
  MemoryId target;     // update, forget, archive, restore, pin, unpin, review: the memory; retract: the triplet
  bool proposed = false;  // remember: held for review (a model-inferred origin)
  std::string wrong, right;  // correct
  int64_t start_ms = 0, end_ms = 0;  // since the workload started
  Outcome outcome = Outcome::pending;
  MemoryId id;  // acked: the op's id (remember: the memory's id)
  OrderKey key;  // acked: its order key
  std::string detail;  // failed, unknown: why
  std::string describe() const;
};

class History {
 public:
  // Appends an invoked op; returns its index.
  size_t invoke(OpRecord r);
  void complete(size_t index, Outcome o, MemoryId id, uint64_t effective_ts, std::string detail, int64_t end_ms);
  std::vector<OpRecord> snapshot() const;

 private:
  mutable std::mutex mu_;
  std::vector<OpRecord> ops_;
};

}  // namespace vasana::test::fault
