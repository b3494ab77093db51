#include "actors/checkpoint_task.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "actors/checkpoint_snapshot.hpp"
#include "replica/recall_engine.hpp"
#include "replica/state_codec.hpp"
#include "replica/state_item_table.hpp"
#include "store/checkpoint_set_aside.hpp"
#include "store/hybrid_clock.hpp"
#include "store/record_lookup.hpp"
#include "store/verified_segments.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

std::string describe_checkpoint(const CheckpointManifest& m) {
  std::string s = "generation " + std::to_string(m.generation) + " (" + std::to_string(m.memories) + " memories, " +
                  std::to_string(m.ops_applied) + " ops; ";
  for (size_t i = 0; i < m.covered.size(); ++i)
    s += (i ? ", " : "") + to_hex(m.covered[i].writer) + " to " + std::to_string(m.covered[i].seqno.value);
  return s + ")";
}

namespace {

// The item table of the whole state a delta would be made against: the current checkpoint's own
// when it is whole, its base's when it is a delta. Empty when there is none this build can use
// (no checkpoint, another state format, no table, a table that does not read).
StateItemTable delta_base(CheckpointStore& store, uint64_t* base_generation) {
  StateItemTable table;
  auto m = store.manifest();
  if (!m.ok() || !*m || (*m)->state_format != kStateFormatVersion) return table;
  const uint64_t g = (*m)->base_generation != 0 ? (*m)->base_generation : (*m)->generation;
  auto section = store.load_section(**m, g, kStateItemsSection);
  if (!section.ok() || section->format != 1) return table;
  if (!decode_item_table(section->chunks, &table)) table.clear();
  *base_generation = g;
  return table;
}

}  // namespace

Result<CheckpointWrite> write_checkpoint(const DataDir& dir, const VectorSpace& space, RecallEngine& engine,
                                         CheckpointStore& store, VerifiedSegments* segments, uint32_t delta_percent) {
  CheckpointWrite w;
  CheckpointData data;
  uint64_t base_generation = 0;
  // Whole after a whole one whose compaction failed: only a whole write compacts the older
  // generations away.
  const bool may_delta = delta_percent > 0 && store.older_generations_left().empty();
  const StateItemTable base = may_delta ? delta_base(store, &base_generation) : StateItemTable();
  auto t0 = Clock::now();
  auto snap = take_checkpoint_snapshot(engine, /*fork_child=*/true, &w.fell_back, &base,
                                       base.size() * delta_percent / 100);
  if (!snap.ok()) return snap.status();
  w.lanes_ms = ms_since(t0);
  w.locked_ms = snap->locked_ms;
  w.forked = snap->forked;
  data.manifest.ops_applied = snap->ops_applied;
  data.manifest.memories = snap->memories;
  const std::map<InstanceId, Seqno> applied = std::move(snap->applied);
  if (data.manifest.ops_applied == 0) return w;
  if (snap->delta) {
    // Against the base: its lanes stay the checkpoint's (a start brings them up to date with the
    // memories the delta changed), and the digest is the child's of the state it encoded.
    EncodedStateDelta& d = *snap->delta;
    w.delta_items = d.items;
    data.manifest.base_generation = base_generation;
    data.manifest.digest = snap->digest;
    data.sections.push_back(CheckpointSection{kStateRemovedSection, 1, encode_removed_keys(d.removed)});
    w.bytes = d.meta.size();
    for (const auto& c : d.chunks) w.bytes += c.size();
    for (const auto& c : data.sections.back().chunks) w.bytes += c.size();
    if (Status s = check_checkpoint_space(checkpoint_dir(dir.root), w.bytes); !s.ok()) return s;
    data.meta = std::move(d.meta);
    data.chunks = std::move(d.chunks);
  } else {
    EncodedState e = std::move(snap->state);
    for (auto& lane : snap->lanes) {
      for (const auto& c : lane.chunks) w.lane_bytes += c.size();
      data.sections.push_back(CheckpointSection{std::move(lane.name), lane.format, std::move(lane.chunks)});
    }
    data.sections.push_back(CheckpointSection{kStateItemsSection, 1, encode_item_table(snap->items)});
    w.bytes = e.meta.size();
    for (const auto& c : e.chunks) w.bytes += c.size();
    for (const auto& c : data.sections.back().chunks) w.bytes += c.size();
    if (Status s = check_checkpoint_space(checkpoint_dir(dir.root), w.bytes + w.lane_bytes); !s.ok()) return s;
    // The digest is taken off the lock, of the state decoded back from the bytes: what a start
    // will load. It costs a second copy of the state for a moment.
    auto td = Clock::now();
    {
      ReplicaState copy;
      Status s = StateCodec::decode(e, &copy);
      // Not Corruption: that code says the checkpoint database is damaged.
      if (!s.ok()) return Status::FailedPrecondition("the encoded state does not decode: " + s.message());
      data.manifest.digest = copy.digest();
    }
    w.digest_ms = ms_since(td);
    data.meta = std::move(e.meta);
    data.chunks = std::move(e.chunks);
  }
  data.manifest.state_format = kStateFormatVersion;
  data.manifest.created_ms = system_wall_ms();
  auto t1 = Clock::now();
  for (const auto& [writer, seqno] : applied) {
    if (seqno.value == 0) continue;
    auto hash = record_hash_at(dir.writer_dir(writer), writer, space, seqno);
    if (!hash.ok()) return hash.status();
    data.manifest.covered.push_back(CheckpointCoverage{writer, seqno, *hash});
  }
  w.hashes_ms = ms_since(t1);
  auto ts = Clock::now();
  for (const CheckpointCoverage& c : data.manifest.covered) {
    if (!segments) break;
    CheckpointSealed sealed{c.writer, segments->covered(c.writer, c.seqno)};
    w.sealed += sealed.segments.size();
    if (!sealed.segments.empty()) data.manifest.sealed.push_back(std::move(sealed));
  }
  w.sealed_ms = ms_since(ts);
  auto t2 = Clock::now();
  CheckpointManifest m = data.manifest;
  Status s = store.write(std::move(data));
  if (!s.ok()) return s;
  w.store_ms = ms_since(t2);
  w.written_bytes = store.last_write_bytes();
  auto written = store.manifest();
  if (!written.ok()) return written.status();
  w.manifest = written->value_or(m);
  w.written = true;
  return w;
}

struct CheckpointTask::Impl {
  DataDir dir;
  VectorSpace space;
  CheckpointOptions options;
  std::shared_ptr<RecallEngine> engine;
  CheckpointLog log;
  std::shared_ptr<VerifiedSegments> segments;  // may be null
  mutable std::mutex mutex;  // guards last, stop, health, replace
  std::condition_variable wake;
  std::optional<CheckpointManifest> last;
  bool stop = false;
  CheckpointHealth health;
  bool replace = false;  // a checkpoint the start could not use awaits its replacement: one op will do
  // request() counts up; a checkpoint written after a request serves it. One not served yet is
  // written at the wake after the request, then retried every 5 s until one is written (a full
  // disk, a damaged database), whatever the interval and min_ops.
  uint64_t requests = 0, requests_woken = 0, requests_served = 0;
  // The members below are the task thread's (start() before it runs, finish() after it ends).
  // Failures of one run (until a checkpoint is written): the first logged, then one an hour.
  std::unique_ptr<LogLimiter> failure_log = std::make_unique<LogLimiter>(std::chrono::hours(1));
  uint64_t failures_in_run = 0;
  std::unique_ptr<CheckpointStore> store;  // null until opened, and after a damaged one is set aside
  Clock::time_point last_time = Clock::now();
  std::thread thread;

  // True when enough ops were applied since the last checkpoint for a new one (at least one).
  bool due(uint64_t min_ops) const {
    uint64_t ops = 0;
    engine->read([&](const ReplicaState& s) { ops = s.ops_applied(); });
    std::lock_guard<std::mutex> g(mutex);
    const uint64_t before = last ? last->ops_applied : 0;
    const uint64_t since = ops > before ? ops - before : 0;
    return since >= std::max<uint64_t>(1, replace ? 1 : min_ops);
  }

  // Renames the damaged DATA/checkpoint out of the way (store/checkpoint_set_aside.hpp); the next
  // checkpoint starts a new database.
  void set_aside(const std::string& why) {
    store.reset();
    std::vector<std::string> actions;
    auto name = set_aside_checkpoint(dir.root, &actions);
    if (!name.ok()) {
      log("checkpoint: damaged (" + why + ") and not set aside: " + name.status().message());
      return;
    }
    const std::string where = dir.root + "/" + *name;
    {
      std::lock_guard<std::mutex> g(mutex);
      health.damaged = "damaged (" + why + "), set aside as " + where + "; none until the next one is written";
      ++health.set_aside;
      replace = true;
      last.reset();
    }
    log("checkpoint: damaged: " + why + "; set aside as " + where + "; a new one is written at the next interval");
    for (const auto& a : actions) log("checkpoint: " + a);
  }

  // Opens DATA/checkpoint (creating it) unless it is open; a damaged one is set aside first.
  Status open_store() {
    if (store) return Status::Ok();
    auto s = CheckpointStore::open(checkpoint_dir(dir.root), /*create=*/true);
    if (!s.ok() && s.status().code() == Code::corruption) {
      set_aside(s.status().message());
      s = CheckpointStore::open(checkpoint_dir(dir.root), /*create=*/true);
    }
    if (!s.ok()) return s.status();
    store = std::move(s.value());
    return Status::Ok();
  }

  void failed(const std::string& why) {
    {
      std::lock_guard<std::mutex> g(mutex);
      ++health.write_failures;
      health.failed = why;
    }
    ++failures_in_run;
    if (auto line = failure_log->admit("not written", "checkpoint: not written: " + why +
                                                          "; the previous one stays; retried at the next interval"))
      log(*line);
  }

  // Writes a delta or a whole checkpoint, as write_checkpoint decides (after an erasure it is
  // whole: the erased memory's record changed since the last whole one). False when it failed
  // (the failure is counted and logged) or left the older generations in the files (said in
  // health and the log); true when written, or when no op is applied yet (nothing to write).
  bool write_one(const char* why) {
    Status opened = open_store();
    auto w = opened.ok() ? write_checkpoint(dir, space, *engine, *store, segments.get(), options.delta_percent)
                         : Result<CheckpointWrite>(opened);
    last_time = Clock::now();
    if (!w.ok()) {
      // Damage found while writing: set aside, and the next attempt starts a new database.
      if (w.status().code() == Code::corruption) set_aside(w.status().message());
      failed(w.status().message());
      return false;
    }
    if (!w->written) return true;
    if (!store->older_generations_left().empty()) {
      // Written, but the older generations (an erased memory's text among them, maybe) are still
      // in the files: an erasure's request stays unserved, and is tried again.
      const std::string why = "generation " + std::to_string(w->manifest.generation) +
                              " written, but the older ones are still in its files (compaction failed: " +
                              store->older_generations_left() + ")";
      {
        std::lock_guard<std::mutex> g(mutex);
        last = w->manifest;
        health.failed = why;
      }
      if (auto line = failure_log->admit("older generations", "checkpoint: " + why + "; tried again at the next one"))
        log(*line);
      return false;
    }
    const std::string size =
        w->delta() ? "a delta of " + std::to_string(w->delta_items) + " items against generation " +
                         std::to_string(w->manifest.base_generation) + ", " + std::to_string(w->bytes >> 10) + " KiB"
                   : std::to_string(w->bytes >> 10) + " KiB, lanes " + std::to_string(w->lane_bytes >> 10) + " KiB";
    log(std::string("checkpoint: wrote ") + describe_checkpoint(w->manifest) + " " + why + ": " + size +
        "; writes waited " + std::to_string(int(w->locked_ms)) + " ms (" +
        (w->forked ? "for the fork" : "in this process, " + w->fell_back) + "; saved in " +
        std::to_string(int(w->lanes_ms)) + " ms), decoded and digested " + std::to_string(int(w->digest_ms)) +
        " ms, chain hashes " + std::to_string(int(w->hashes_ms)) + " ms, " + std::to_string(w->sealed) +
        " sealed segment(s) recorded " + std::to_string(int(w->sealed_ms)) + " ms, RocksDB " + std::to_string(int(w->store_ms)) +
        " ms (" + std::to_string(w->written_bytes >> 10) + " KiB of table files written)" + (failures_in_run ? " (after " + std::to_string(failures_in_run) + " failed attempts)" : ""));
    failures_in_run = 0;
    failure_log = std::make_unique<LogLimiter>(std::chrono::hours(1));
    std::lock_guard<std::mutex> g(mutex);
    last = w->manifest;
    health.failed.clear();
    health.damaged.clear();
    replace = false;
    return true;
  }

  // Writes the checkpoint a request() asks for when one is due: true when it tried.
  bool serve_request(std::unique_lock<std::mutex>& g) {
    const bool fresh = requests != requests_woken;
    requests_woken = requests;
    const uint64_t want = requests;
    if (want == requests_served || (!fresh && Clock::now() - last_time < std::chrono::seconds(5))) return false;
    g.unlock();
    const bool ok = write_one("(erasure)");
    g.lock();
    if (ok) requests_served = std::max(requests_served, want);
    return true;
  }

  void run() {
    pthread_setname_np(pthread_self(), "vasana.checkpt");
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    for (;;) {
      {
        std::unique_lock<std::mutex> g(mutex);
        wake.wait_for(g, std::chrono::seconds(1), [&] { return stop || requests != requests_woken; });
        if (stop) return;
        if (serve_request(g)) continue;
      }
      if (Clock::now() - last_time < options.interval) continue;
      if (!due(options.min_ops)) continue;
      write_one("(interval)");
    }
  }
};

CheckpointTask::CheckpointTask(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CheckpointTask::~CheckpointTask() {
  {
    std::lock_guard<std::mutex> g(impl_->mutex);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::unique_ptr<CheckpointTask> CheckpointTask::start(const DataDir& dir, const VectorSpace& space,
                                                      CheckpointOptions options, std::shared_ptr<RecallEngine> engine,
                                                      CheckpointLog log, const CheckpointStart& found,
                                                      std::shared_ptr<VerifiedSegments> segments) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->space = space;
  impl->options = options;
  impl->engine = std::move(engine);
  impl->log = std::move(log);
  impl->segments = std::move(segments);
  impl->last = found.manifest();
  impl->replace = found.refused();
  if (!found.damaged().empty()) impl->set_aside(found.damaged());
  if (Status s = impl->open_store(); !s.ok()) impl->failed(s.message());
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<CheckpointTask>(new CheckpointTask(std::move(impl)));
}

void CheckpointTask::finish() {
  {
    std::lock_guard<std::mutex> g(impl_->mutex);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->due(impl_->options.min_ops)) impl_->write_one("(shutdown)");
}

void CheckpointTask::request() {
  {
    std::lock_guard<std::mutex> g(impl_->mutex);
    ++impl_->requests;
  }
  impl_->wake.notify_all();
}

std::optional<CheckpointManifest> CheckpointTask::last() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->last;
}

CheckpointHealth CheckpointTask::health() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->health;
}

}  // namespace vasana
