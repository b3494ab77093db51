#include "actors/embedding_worker.hpp"

#include <pthread.h>

#include <algorithm>
#include <unordered_map>

#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"

namespace vasana {

namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(200);
constexpr auto kMaxBackoff = std::chrono::seconds(30);
// A batch waits this long for more texts to join it (the writes of an import arrive a few at a
// time), unless it is full sooner.
constexpr auto kLinger = std::chrono::milliseconds(20);
// Memories a sweep looks at under one read lock; it goes on from there once the queue drains.
constexpr size_t kSweepStep = 100000;
// Recalls that may wait for a query vector at once; more are answered without one at once.
constexpr size_t kMaxWaitingQueries = 1024;

bool usable_vector(const MemoryRecord& m, uint32_t dim) {
  return m.vector->value.dim == dim && !(m.vector->version < m.content.version);
}

}  // namespace

EmbeddingWorker::EmbeddingWorker(EmbeddingOptions options, std::shared_ptr<const RecallEngine> engine, InstanceId own,
                                 std::string space_id, WriteVector write_vector,
                                 std::function<void(const std::string&)> log)
    : options_(std::move(options)),
      engine_(std::move(engine)),
      own_(own),
      space_id_(std::move(space_id)),
      write_vector_(std::move(write_vector)),
      log_(log ? std::move(log) : [](const std::string&) {}),
      client_(options_.client),
      cache_(options_.cache_size) {}

EmbeddingWorker::~EmbeddingWorker() { stop(); }

void EmbeddingWorker::start() {
  memory_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "vasana.embed");
    memory_loop();
  });
  query_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "vasana.embedq");
    query_loop();
  });
}

void EmbeddingWorker::stop() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (stopping_ && !memory_thread_.joinable() && !query_thread_.joinable()) return;
    stopping_ = true;
  }
  client_.stop();
  wake_.notify_all();
  query_wake_.notify_all();
  if (memory_thread_.joinable()) memory_thread_.join();
  if (query_thread_.joinable()) query_thread_.join();
  std::deque<Query> left;
  {
    std::lock_guard<std::mutex> g(mutex_);
    left.swap(queries_);
  }
  for (Query& q : left) q.done(Status::IoError("the node is stopping"));
}

void EmbeddingWorker::committed(const std::shared_ptr<const std::vector<CommittedRecord>>& batch) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    batches_.push_back(batch);
  }
  wake_.notify_one();
}

void EmbeddingWorker::enqueue_locked(const MemoryId& id) {
  if (!queued_.insert(id).second) return;
  queue_.push_back(id);
  while (queue_.size() > options_.queue_size) {
    queued_.erase(queue_.front());
    queue_.pop_front();
    dropped_.fetch_add(1, std::memory_order_relaxed);
    sweep_due_ = true;
  }
}

void EmbeddingWorker::take_committed(std::vector<std::shared_ptr<const std::vector<CommittedRecord>>> batches) {
  std::vector<MemoryId> ids;
  for (const auto& batch : batches)
    for (const CommittedRecord& r : *batch) {
      const auto type = static_cast<OpType>(r.op_type);
      if (type != OpType::put_memory && type != OpType::update_content) continue;
      auto op = decode_op(r.op_type, r.payload);
      if (!op.ok()) continue;
      if (const auto* put = std::get_if<PutMemoryOp>(&*op)) {
        if (put->vector.empty()) ids.push_back(MemoryId{own_, r.seqno});
      } else if (const auto* update = std::get_if<UpdateContentOp>(&*op)) {
        // Its own memories only: another writer's node embeds the memories it created.
        if (!update->text.empty() && update->memory.instance == own_) ids.push_back(update->memory);
      }
    }
  // The replica applies committed ops on its own thread: the texts are read once it has applied
  // these (a memory it does not hold yet would be skipped).
  if (!ids.empty() && !batches.empty() && !batches.back()->empty())
    (void)engine_->wait_applied(own_, batches.back()->back().seqno, std::chrono::seconds(10));
  std::lock_guard<std::mutex> g(mutex_);
  for (const MemoryId& id : ids) enqueue_locked(id);
}

void EmbeddingWorker::sweep() {
  std::vector<MemoryId> found;
  bool finished = true;
  size_t room;
  MemoryId after;
  const uint64_t dropped_before = dropped_.load();
  {
    std::lock_guard<std::mutex> g(mutex_);
    room = options_.queue_size > queue_.size() ? options_.queue_size - queue_.size() : 0;
    after = sweep_after_;
  }
  const uint32_t dim = options_.client.dimensions;
  engine_->read([&](const ReplicaState& state) {
    size_t looked = 0;
    state.for_each_memory_from(after, [&](const MemoryRecord& m) {
      if (looked >= kSweepStep || found.size() >= room) {  // m is left for the next sweep
        finished = false;
        return false;
      }
      ++looked;
      after = m.id;
      if (m.id.instance == own_ && !m.verdicts->deleted.value && !is_erased(m) && !usable_vector(m, dim))
        found.push_back(m.id);
      return true;
    });
  });
  std::lock_guard<std::mutex> g(mutex_);
  for (const MemoryId& id : found) enqueue_locked(id);
  if (finished) {
    sweep_after_ = MemoryId{};
    // Ids dropped while it ran may lie behind it: another sweep then.
    sweep_due_ = dropped_.load() > dropped_before;
  } else {
    sweep_after_ = after;
  }
  if (!found.empty()) log_("embedding: " + std::to_string(found.size()) + " memories without a vector queued");
}

void EmbeddingWorker::failure(const Status& s) {
  failed_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> g(mutex_);
  last_error_ = s.message();
  // A refusal (4xx) is not retried as it is: its texts go one by one, without backoff.
  if (s.code() == Code::invalid_argument) return;
  if (!failing_) log_("embedding: " + s.message() + "; retrying with backoff (writes go on; their vectors wait)");
  failing_ = true;
}

void EmbeddingWorker::embed_batch(std::vector<MemoryId> ids) {
  // The current text of each (a memory deleted or gone since it was queued is skipped).
  std::vector<std::pair<MemoryId, std::string>> items;
  engine_->read([&](const ReplicaState& state) {
    for (const MemoryId& id : ids) {
      const MemoryRecord* m = state.memory(id);
      if (m && !m->verdicts->deleted.value) items.emplace_back(id, m->content.value.text);
    }
  });
  std::vector<std::vector<float>> vectors(items.size());
  std::vector<std::string> ask;                  // each text the cache lacks, once
  std::vector<std::vector<size_t>> ask_for;      // the item indexes of each text asked
  std::unordered_map<std::string, size_t> slot;  // text -> its index in ask
  for (size_t i = 0; i < items.size(); ++i) {
    const auto known = slot.find(items[i].second);
    if (known != slot.end()) {
      ask_for[known->second].push_back(i);
    } else if (auto v = cache_.get(items[i].second)) {
      vectors[i] = std::move(*v);
    } else {
      slot.emplace(items[i].second, ask.size());
      ask.push_back(items[i].second);
      ask_for.push_back({i});
    }
  }
  if (!ask.empty()) {
    requests_.fetch_add(1, std::memory_order_relaxed);
    auto got = client_.embed(ask, options_.timeout);
    if (!got.ok()) {
      failure(got.status());
      std::lock_guard<std::mutex> g(mutex_);
      if (got.status().code() == Code::invalid_argument) {
        if (ids.size() == 1) {  // refused alone: given up until the next start's sweep
          log_("embedding: memory " + ids[0].to_string() + " given up: " + got.status().message());
          in_flight_.fetch_sub(ids.size());
          return;
        }
        singles_ = ids.size();
      }
      // Back to the front, in their order, for the retry.
      for (auto it = ids.rbegin(); it != ids.rend(); ++it)
        if (queued_.insert(*it).second) queue_.push_front(*it);
      in_flight_.fetch_sub(ids.size());
      return;
    }
    for (size_t k = 0; k < ask.size(); ++k) {
      cache_.put(ask[k], got.value()[k]);
      for (size_t i : ask_for[k]) vectors[i] = got.value()[k];
    }
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (failing_) log_("embedding: the provider answers again");
    failing_ = false;
  }
  // Ids skipped above are done with.
  in_flight_.fetch_sub(ids.size() - items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const MemoryId id = items[i].first;
    write_vector_(SetVectorOp{id, std::move(vectors[i]), space_id_}, [this, id](const Status& s) {
      if (s.ok()) {
        vectors_.fetch_add(1, std::memory_order_relaxed);
      } else {
        failure(Status::IoError("writing the vector of " + id.to_string() + ": " + s.message()));
        std::lock_guard<std::mutex> g(mutex_);
        if (!stopping_) enqueue_locked(id);
      }
      in_flight_.fetch_sub(1);
      wake_.notify_one();
    });
  }
}

void EmbeddingWorker::memory_loop() {
  auto backoff = std::chrono::milliseconds(0);
  std::unique_lock<std::mutex> g(mutex_);
  while (!stopping_) {
    if (!batches_.empty()) {
      auto batches = std::move(batches_);
      batches_.clear();
      g.unlock();
      take_committed(std::move(batches));
      g.lock();
      continue;
    }
    if (queue_.empty()) {
      if (sweep_due_ && in_flight_.load() == 0 && !failing_) {
        g.unlock();
        sweep();
        g.lock();
        if (!queue_.empty() || sweep_due_) continue;
      }
      // in_flight_ falls without the mutex: a timed wait sees it.
      wake_.wait_for(g, std::chrono::milliseconds(100), [&] {
        return stopping_ || !batches_.empty() || !queue_.empty() || (sweep_due_ && in_flight_.load() == 0 && !failing_);
      });
      continue;
    }
    // A short wait for more of a burst to join a batch that is not full.
    if (queue_.size() < options_.batch_size && singles_ == 0) {
      wake_.wait_for(g, kLinger, [&] { return stopping_ || queue_.size() >= options_.batch_size; });
      if (stopping_) break;
      if (!batches_.empty()) {
        auto batches = std::move(batches_);
        batches_.clear();
        g.unlock();
        take_committed(std::move(batches));
        g.lock();
      }
    }
    const size_t n = std::min(queue_.size(), singles_ > 0 ? size_t(1) : options_.batch_size);
    if (singles_ > 0) --singles_;
    std::vector<MemoryId> ids(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    for (const MemoryId& id : ids) queued_.erase(id);
    in_flight_.fetch_add(n);
    g.unlock();
    embed_batch(std::move(ids));
    g.lock();
    if (failing_) {
      backoff = backoff.count() == 0 ? std::chrono::duration_cast<std::chrono::milliseconds>(kFirstBackoff)
                                     : std::min<std::chrono::milliseconds>(backoff * 2, kMaxBackoff);
      wake_.wait_for(g, backoff, [&] { return stopping_; });
    } else {
      backoff = std::chrono::milliseconds(0);
    }
  }
}

void EmbeddingWorker::embed_query(const std::string& text, QueryDone done) {
  if (auto v = cache_.get(text)) {
    done(std::move(*v));
    return;
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!stopping_ && queries_.size() < kMaxWaitingQueries) {
      queries_.push_back(Query{text, std::chrono::steady_clock::now() + options_.query_timeout, std::move(done)});
      query_wake_.notify_one();
      return;
    }
  }
  done(Status::IoError(std::to_string(kMaxWaitingQueries) + " recalls already wait for the embedding provider"));
}

void EmbeddingWorker::query_loop() {
  std::unique_lock<std::mutex> g(mutex_);
  while (!stopping_) {
    query_wake_.wait(g, [&] { return stopping_ || !queries_.empty(); });
    if (stopping_) break;
    std::vector<Query> taken;
    while (!queries_.empty() && taken.size() < options_.batch_size) {
      taken.push_back(std::move(queries_.front()));
      queries_.pop_front();
    }
    g.unlock();
    const auto now = std::chrono::steady_clock::now();
    auto first_deadline = taken.front().deadline;
    std::vector<std::string> texts;
    std::unordered_map<std::string, size_t> slot;
    std::vector<Query*> live;
    for (Query& q : taken) {
      if (q.deadline <= now) {
        q.done(Status::IoError("the embedding provider did not answer within " +
                               std::to_string(options_.query_timeout.count()) + " ms"));
        continue;
      }
      first_deadline = std::min(first_deadline, q.deadline);
      if (slot.emplace(q.text, texts.size()).second) texts.push_back(q.text);
      live.push_back(&q);
    }
    if (!live.empty()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(first_deadline - now);
      requests_.fetch_add(1, std::memory_order_relaxed);
      auto got = client_.embed(texts, std::max(left, std::chrono::milliseconds(1)));
      if (got.ok())
        for (size_t i = 0; i < texts.size(); ++i) cache_.put(texts[i], got.value()[i]);
      for (Query* q : live) {
        if (got.ok())
          q->done(got.value()[slot[q->text]]);
        else
          q->done(got.status());
      }
    }
    g.lock();
  }
}

EmbeddingCounts EmbeddingWorker::counts() const {
  EmbeddingCounts c;
  std::lock_guard<std::mutex> g(mutex_);
  c.pending = queue_.size() + in_flight_.load();
  c.failed = failed_.load();
  c.dropped = dropped_.load();
  c.vectors = vectors_.load();
  c.requests = requests_.load();
  c.cache_hits = cache_.hits();
  c.queries_skipped = queries_skipped_.load();
  c.last_error = last_error_;
  return c;
}

}  // namespace vasana
