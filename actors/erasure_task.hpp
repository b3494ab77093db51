// The node's erasure task (docs/erasure.md): a thread that, whenever the replicated state has
// applied something concerning an erased memory (an erase, a redacted record, an op on an
// erased memory: ReplicaState::erasure_changes), redacts this data directory's copies of the
// records that carried that memory's content (store/record_redaction.hpp), in every writer's
// folder, then asks for a checkpoint (so that the checkpoint database holds the erased state,
// not the content). A node that was offline does the same once it has caught up with the erase:
// the erase is an op like any other. At start it runs once over every erased memory, which
// redacts what a crash or a copy restored from a peer left behind.
//
// Failures never stop the node: a pass that cannot redact a record logs why (at most once an
// hour per reason) and the next change, or the next start, tries again.
//
// Threading: start() spawns the thread; the destructor stops and joins it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "store/data_dir.hpp"
#include "store/vector_space.hpp"

namespace vasana {

class RecallEngine;

class ErasureTask {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // after_pass: called after a pass that changed the state's erasures (the checkpoint request).
  static std::unique_ptr<ErasureTask> start(DataDir dir, VectorSpace space, std::shared_ptr<RecallEngine> engine,
                                            std::function<void()> after_pass, LogFn log);
  ~ErasureTask();

  struct Impl;

 private:
  explicit ErasureTask(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
