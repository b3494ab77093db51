#include "actors/checkpoint_task.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "replica/recall_engine.hpp"
#include "replica/state_codec.hpp"
#include "store/hybrid_clock.hpp"
#include "store/record_lookup.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string describe(const CheckpointManifest& m) {
  std::string s = "generation " + std::to_string(m.generation) + " (" + std::to_string(m.memories) + " memories, " +
                  std::to_string(m.ops_applied) + " ops; ";
  for (size_t i = 0; i < m.covered.size(); ++i)
    s += (i ? ", " : "") + to_hex(m.covered[i].writer) + " to " + std::to_string(m.covered[i].seqno.value);
  return s + ")";
}

}  // namespace

CheckpointStart CheckpointStart::load(const DataDir& dir, RecallEngine& engine, const CheckpointLog& log,
                                      size_t threads) {
  CheckpointStart cs;
  auto store = CheckpointStore::open_read_only(checkpoint_dir(dir.root));
  if (!store.ok()) {
    if (store.status().code() != Code::not_found) log("checkpoint: not used: " + store.status().message() + "; replaying every op");
    return cs;
  }
  auto t0 = Clock::now();
  auto data = (*store)->load();
  if (!data.ok()) {
    if (data.status().code() != Code::not_found) log("checkpoint: not used: " + data.status().message() + "; replaying every op");
    return cs;
  }
  const double read_ms = ms_since(t0);
  // The state is decoded and digested on a thread of its own while the lanes load: neither reads
  // the other.
  ReplicaState state;
  Status decoded;
  double decode_ms = 0, digest_ms = 0;
  Hash256 digest{};
  std::thread state_thread([&] {
    auto t1 = Clock::now();
    decoded = StateCodec::decode(EncodedState{std::move(data->meta), std::move(data->chunks)}, &state);
    decode_ms = ms_since(t1);
    if (!decoded.ok()) return;
    auto t2 = Clock::now();
    digest = state.digest();
    digest_ms = ms_since(t2);
  });
  std::vector<LaneSnapshot> snapshots;
  for (auto& section : data->sections)
    snapshots.push_back(LaneSnapshot{section.name, section.format, std::move(section.chunks)});
  auto t3 = Clock::now();
  std::vector<std::string> lines = engine.load_lanes(std::move(snapshots), threads);
  const double lanes_ms = ms_since(t3);
  state_thread.join();
  if (!decoded.ok()) {
    log("checkpoint: not used: " + decoded.message() + "; replaying every op");
    return cs;
  }
  if (digest != data->manifest.digest) {
    log("checkpoint: not used: its state's digest " + to_hex(digest) + " is not the one its manifest names (" +
        to_hex(data->manifest.digest) + "); replaying every op");
    return cs;
  }
  engine.load_state(std::move(state));
  auto t4 = Clock::now();
  for (auto& l : engine.finish_lanes(threads)) lines.push_back(std::move(l));
  const double finish_ms = ms_since(t4);
  cs.manifest_ = data->manifest;
  for (const auto& c : data->manifest.covered) cs.covered_[c.writer] = c.seqno;
  log("checkpoint: loaded " + describe(data->manifest) + ": read in " + std::to_string(int(read_ms)) +
      " ms; state decoded in " + std::to_string(int(decode_ms)) + " ms and digest checked in " +
      std::to_string(int(digest_ms)) + " ms while the lanes loaded in " + std::to_string(int(lanes_ms)) +
      " ms; the other lanes made ready in " + std::to_string(int(finish_ms)) + " ms");
  for (const auto& l : lines) log("checkpoint: lanes: " + l);
  return cs;
}

bool CheckpointStart::covered(InstanceId writer, const RecordRef& r) {
  if (!manifest_) return false;
  auto it = covered_.find(writer);
  if (it == covered_.end() || r.seqno > it->second) return false;
  if (r.seqno == it->second) seen_[writer] = r.hash;
  return true;
}

bool CheckpointStart::matches(const CheckpointLog& log) {
  if (!manifest_) return true;
  std::string why;
  for (const auto& c : manifest_->covered) {
    auto it = seen_.find(c.writer);
    if (it == seen_.end()) {
      why = "writer " + to_hex(c.writer) + "'s segments on disk do not reach seqno " + std::to_string(c.seqno.value);
      break;
    }
    if (it->second != c.hash) {
      why = "writer " + to_hex(c.writer) + "'s record " + std::to_string(c.seqno.value) +
            " on disk has another chain hash than the checkpoint was made from";
      break;
    }
  }
  if (why.empty()) return true;
  log("checkpoint: not used: " + why + "; replaying every op");
  manifest_.reset();
  covered_.clear();
  seen_.clear();
  return false;
}

Result<CheckpointWrite> write_checkpoint(const DataDir& dir, const VectorSpace& space, RecallEngine& engine,
                                         CheckpointStore& store) {
  CheckpointWrite w;
  CheckpointData data;
  std::map<InstanceId, Seqno> applied;
  auto t0 = Clock::now();
  EncodedState e;
  std::vector<LaneSnapshot> lanes = engine.snapshot_lanes(
      [&](const ReplicaState& state) {
        e = StateCodec::encode(state);
        data.manifest.ops_applied = state.ops_applied();
        data.manifest.memories = state.memory_count();
        applied = state.applied();
      },
      &w.locked_ms);
  w.lanes_ms = ms_since(t0);
  for (auto& lane : lanes) {
    for (const auto& c : lane.chunks) w.lane_bytes += c.size();
    data.sections.push_back(CheckpointSection{std::move(lane.name), lane.format, std::move(lane.chunks)});
  }
  if (data.manifest.ops_applied == 0) return w;
  // The digest is taken off the lock, of the state decoded back from the bytes: what a start
  // will load. It costs a second copy of the state for a moment.
  auto td = Clock::now();
  {
    ReplicaState copy;
    Status s = StateCodec::decode(e, &copy);
    if (!s.ok()) return Status::Corruption("the encoded state does not decode: " + s.message());
    data.manifest.digest = copy.digest();
  }
  w.digest_ms = ms_since(td);
  data.meta = std::move(e.meta);
  data.chunks = std::move(e.chunks);
  w.bytes = data.meta.size();
  for (const auto& c : data.chunks) w.bytes += c.size();
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
  auto t2 = Clock::now();
  CheckpointManifest m = data.manifest;
  Status s = store.write(std::move(data));
  if (!s.ok()) return s;
  w.store_ms = ms_since(t2);
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
  std::unique_ptr<CheckpointStore> store;
  mutable std::mutex mutex;  // guards last, stop
  std::condition_variable wake;
  std::optional<CheckpointManifest> last;
  bool stop = false;
  Clock::time_point last_time = Clock::now();
  std::thread thread;

  uint64_t ops_since_last() const {
    uint64_t ops = 0;
    engine->read([&](const ReplicaState& s) { ops = s.ops_applied(); });
    std::lock_guard<std::mutex> g(mutex);
    const uint64_t before = last ? last->ops_applied : 0;
    return ops > before ? ops - before : 0;
  }

  void write_one(const char* why) {
    auto w = write_checkpoint(dir, space, *engine, *store);
    last_time = Clock::now();
    if (!w.ok()) {
      log("checkpoint: not written: " + w.status().message() + "; the previous one stays");
      return;
    }
    if (!w->written) return;
    log(std::string("checkpoint: wrote ") + describe(w->manifest) + " " + why + ": " + std::to_string(w->bytes >> 10) +
        " KiB, lanes " + std::to_string(w->lane_bytes >> 10) + " KiB; state and lanes locked " + std::to_string(int(w->locked_ms)) +
        " ms (saved in " + std::to_string(int(w->lanes_ms)) + " ms), decoded and digested " +
        std::to_string(int(w->digest_ms)) + " ms, chain hashes " +
        std::to_string(int(w->hashes_ms)) + " ms, RocksDB " + std::to_string(int(w->store_ms)) + " ms");
    std::lock_guard<std::mutex> g(mutex);
    last = w->manifest;
  }

  void run() {
    pthread_setname_np(pthread_self(), "vasana.checkpt");
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    for (;;) {
      {
        std::unique_lock<std::mutex> g(mutex);
        wake.wait_for(g, std::chrono::seconds(1), [&] { return stop; });
        if (stop) return;
      }
      if (Clock::now() - last_time < options.interval) continue;
      if (ops_since_last() < options.min_ops) continue;
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

Result<std::unique_ptr<CheckpointTask>> CheckpointTask::start(const DataDir& dir, const VectorSpace& space,
                                                              CheckpointOptions options,
                                                              std::shared_ptr<RecallEngine> engine, CheckpointLog log) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->space = space;
  impl->options = options;
  impl->engine = std::move(engine);
  impl->log = std::move(log);
  auto store = CheckpointStore::open(checkpoint_dir(dir.root), /*create=*/true);
  if (!store.ok()) return store.status();
  impl->store = std::move(store.value());
  auto m = impl->store->manifest();
  if (m.ok()) impl->last = *m;
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
  if (impl_->ops_since_last() >= std::max<uint64_t>(1, impl_->options.min_ops)) impl_->write_one("(shutdown)");
}

std::optional<CheckpointManifest> CheckpointTask::last() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->last;
}

}  // namespace vasana
