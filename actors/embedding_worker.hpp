// The node's side of an embedding provider (embedding/embedding_options.hpp): memories get their
// vectors behind the writes, and recalls their query vectors, without CAF in this header.
//
// Memories. A write is acknowledged once its put op is durable; the provider is never waited
// for. The writer's subscriber hands every committed batch to committed() (cheap: no decoding on
// the writer's thread). The memory thread picks out the memories that need a vector (a put
// without one, an update of the text) of the node's own writer, queues their ids (at most
// queue_size: when full the oldest queued id is dropped and counted), and embeds them in batches
// of batch_size texts (the current text, read from the state when the batch is sent; the cache
// first; a text repeated in a batch is asked once), each vector then written as a SetVector op through the node's writer (write_vector).
// Until it is applied, the memory is found by every lane but the semantic one.
//
// A provider that fails or times out is retried with backoff (200 ms doubling to 30 s); the
// batch stays at the front of the queue. A provider that refuses a batch (a 4xx answer) gets its
// texts one at a time, and a text refused alone is given up (counted in failed, not retried until
// the next start). The sweep finds memories that lack a vector (dropped from the queue, or
// written before a restart): it walks the own writer's memories in id order and queues those
// without a usable vector (none, another dimension, or older than their text), as far as the
// queue has room, and goes on from there each time the queue has drained. It runs at start and
// again whenever ids were dropped.
//
// Queries. embed_query() answers from the cache at once, or queues the text for the query
// thread, which sends what is waiting in one request with query_timeout; done is called on that
// thread (or the caller's on a cache hit), exactly once, with the vector or why there is none.
//
// Threading: committed() on the writer's thread; embed_query() and counts() from any thread;
// start() and stop() by the owner. write_vector is called on the memory thread; its done may run
// on any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "embedding/embedding_options.hpp"
#include "actors/writer_state.hpp"
#include "protocol/op_values.hpp"
#include "replica/recall_engine.hpp"
#include "embedding/embedding_cache.hpp"
#include "embedding/embedding_client.hpp"

namespace vasana {

// What `vasana status` and the metrics show of the provider's work.
struct EmbeddingCounts {
  uint64_t pending = 0;          // memories queued or being embedded and written
  uint64_t failed = 0;           // provider requests that failed, and texts given up
  uint64_t dropped = 0;          // memory ids dropped from the full queue (the sweep finds them again)
  uint64_t vectors = 0;          // SetVector ops made durable
  uint64_t requests = 0;         // requests sent to the provider
  uint64_t cache_hits = 0;       // texts answered from the cache
  uint64_t queries_skipped = 0;  // recalls answered without a query vector
  std::string last_error;        // the latest failure ("" when none since start)
};

class EmbeddingWorker {
 public:
  using WriteVector = std::function<void(SetVectorOp op, std::function<void(const Status&)> done)>;
  using QueryDone = std::function<void(Result<std::vector<float>>)>;

  EmbeddingWorker(EmbeddingOptions options, std::shared_ptr<const RecallEngine> engine, InstanceId own,
                  std::string space_id, WriteVector write_vector, std::function<void(const std::string&)> log);
  ~EmbeddingWorker();
  EmbeddingWorker(const EmbeddingWorker&) = delete;
  EmbeddingWorker& operator=(const EmbeddingWorker&) = delete;

  // Starts the memory and query threads (the sweep first). Batches committed before are kept.
  void start();
  // Aborts a request in progress, ends the threads; queries still waiting are answered with an
  // error. Idempotent. Ids still queued are found by the next start's sweep.
  void stop();

  void committed(const std::shared_ptr<const std::vector<CommittedRecord>>& batch);
  void embed_query(const std::string& text, QueryDone done);
  // Books a recall answered without a query vector (the caller adds the note to the answer).
  void query_skipped() { queries_skipped_.fetch_add(1, std::memory_order_relaxed); }
  EmbeddingCounts counts() const;

 private:
  struct Query {
    std::string text;
    std::chrono::steady_clock::time_point deadline;
    QueryDone done;
  };

  void memory_loop();
  void query_loop();
  // Under mutex_: queues id unless queued already, dropping the oldest beyond queue_size.
  void enqueue_locked(const MemoryId& id);
  void take_committed(std::vector<std::shared_ptr<const std::vector<CommittedRecord>>> batches);
  void sweep();
  void embed_batch(std::vector<MemoryId> ids);
  void failure(const Status& s);
  bool wait_backoff();

  const EmbeddingOptions options_;
  const std::shared_ptr<const RecallEngine> engine_;
  const InstanceId own_;
  const std::string space_id_;
  const WriteVector write_vector_;
  const std::function<void(const std::string&)> log_;
  EmbeddingClient client_;
  EmbeddingCache cache_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<std::shared_ptr<const std::vector<CommittedRecord>>> batches_;  // not yet decoded
  std::deque<MemoryId> queue_;
  std::set<MemoryId> queued_;
  size_t singles_ = 0;         // batches of one text still to send (after a refused batch)
  bool sweep_due_ = true;
  MemoryId sweep_after_;       // the sweep goes on after this id (seqno 0: from the start)
  std::string last_error_;
  bool failing_ = false;       // the last memory request failed (logged once per run)
  std::deque<Query> queries_;
  std::condition_variable query_wake_;

  std::atomic<uint64_t> in_flight_{0};  // taken from the queue, vector not yet durable
  std::atomic<uint64_t> failed_{0}, dropped_{0}, vectors_{0}, requests_{0}, queries_skipped_{0};
  std::thread memory_thread_;
  std::thread query_thread_;
};

}  // namespace vasana
