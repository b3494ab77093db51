#include "actors/erasure_task.hpp"

#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "replica/recall_engine.hpp"
#include "store/record_redaction.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

struct ErasureTask::Impl {
  DataDir dir;
  VectorSpace space;
  std::shared_ptr<RecallEngine> engine;
  std::function<void()> after_pass;
  LogFn log;
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
  LogLimiter problems{std::chrono::hours(1)};

  // Every op of every erased memory, with the memory it concerns: its put, updates, vectors and
  // the facts drawn from it among them. Records of other op types are read and left alone.
  std::vector<RedactionTarget> targets(uint64_t* changes) const {
    std::vector<RedactionTarget> out;
    engine->read([&](const ReplicaState& s) {
      *changes = s.erasure_changes();
      s.for_each_erased([&](const MemoryRecord& m) {
        out.push_back(RedactionTarget{OpKey{m.id.instance, m.id.seqno}, m.id});
        for (const OrderKey& k : s.history_keys(m.id))
          if (k.op_id() != m.id) out.push_back(RedactionTarget{OpKey{k.instance, k.seqno}, m.id});
      });
    });
    return out;
  }

  // request_checkpoint: after the erasures changed; else only when a record was redacted.
  void pass(bool request_checkpoint) {
    uint64_t changes = 0;
    const std::vector<RedactionTarget> t = targets(&changes);
    if (t.empty()) {
      if (after_pass && request_checkpoint) after_pass();
      return;
    }
    RedactionReport report;
    Status s = redact_records(dir, space, t, &report);
    if (report.redacted > 0)
      log("erasure: redacted " + std::to_string(report.redacted) + " records of erased memories (" +
          std::to_string(report.already) + " were already)");
    for (const std::string& p : report.problems)
      if (auto line = problems.admit(p, "erasure: a record was not redacted: " + p + "; retried at the next change"))
        log(*line);
    if (!s.ok())
      if (auto line = problems.admit(s.message(), "erasure: redaction stopped: " + s.message() +
                                                      "; retried at the next change or start"))
        log(*line);
    if (after_pass && (request_checkpoint || report.redacted > 0)) after_pass();
  }

  void run() {
    pthread_setname_np(pthread_self(), "vasana.erasure");
    uint64_t seen = 0;
    engine->read([&](const ReplicaState& s) { seen = s.erasure_changes(); });
    // At start: whatever a crash or a restore left. The count is not saved in checkpoints, so it
    // is above zero when the ops replayed since the checkpoint the start loaded (all of them,
    // without one) concern an erased memory: that checkpoint may hold what they erased.
    pass(seen > 0);
    // The archived values of erased memories (earlier texts, vectors), which an erase applied
    // just before a crash (or a checkpoint holding the erase) may have left in the archive
    // database: gone again.
    engine->read([&](const ReplicaState& s) {
      s.for_each_erased([&](const MemoryRecord& m) { s.value_archive()->drop(m.id); });
    });
    for (;;) {
      {
        std::unique_lock<std::mutex> g(mutex);
        wake.wait_for(g, std::chrono::milliseconds(500), [&] { return stop; });
        if (stop) return;
      }
      uint64_t now = 0;
      engine->read([&](const ReplicaState& s) { now = s.erasure_changes(); });
      if (now == seen) continue;
      seen = now;
      pass(true);
    }
  }
};

ErasureTask::ErasureTask(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ErasureTask::~ErasureTask() {
  {
    std::lock_guard<std::mutex> g(impl_->mutex);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::unique_ptr<ErasureTask> ErasureTask::start(DataDir dir, VectorSpace space, std::shared_ptr<RecallEngine> engine,
                                                std::function<void()> after_pass, LogFn log) {
  auto impl = std::make_unique<Impl>();
  impl->dir = std::move(dir);
  impl->space = std::move(space);
  impl->engine = std::move(engine);
  impl->after_pass = std::move(after_pass);
  impl->log = std::move(log);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<ErasureTask>(new ErasureTask(std::move(impl)));
}

}  // namespace vasana
