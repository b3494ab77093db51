// Ops that could not be applied to the state, by writer. A writer's ops apply gaplessly
// (replica/replica_state.hpp), so the first op of a writer that fails stops every later op of
// it: that writer is stuck at that seqno until the op is applied (after a repair, say). The
// first failure of each writer is kept with its reason and counted, so that the node can say
// so in its log once, in `vasana status` and in the metrics, instead of once per later op.
//
// Threading: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"

namespace vasana {

class ApplyFailures {
 public:
  // Books a failure of writer's op seqno. True when it is news: the writer had no failure kept
  // at or below seqno (the caller logs it then).
  bool record(InstanceId writer, Seqno seqno, const Status& why);

  struct Stuck {
    InstanceId writer;
    Seqno seqno;          // the first op that failed
    std::string reason;
    uint64_t failures = 0;  // failed ops of this writer since the first (the first included)
  };
  // The writers whose first failed op is still not applied, given each writer's applied seqno;
  // writers applied past it since are forgotten.
  std::vector<Stuck> stuck(const std::map<InstanceId, Seqno>& applied);

 private:
  std::mutex mutex_;
  std::map<InstanceId, Stuck> by_writer_;  // guarded by mutex_
};

}  // namespace vasana
