#include "store/archive_store.hpp"

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <variant>

#include "protocol/op_codec.hpp"
#include "store/checkpoint_info_log.hpp"
#include "store/file_access.hpp"
#include "store/op_history.hpp"
#include "store/private_mode_file_system.hpp"

namespace vasana {

namespace {

constexpr size_t kBatchBytes = 1 << 20;  // the buffer is written once it holds this much
// keep() waits while the buffer holds this much and a batch is being written: RAM stays bounded
// when values come faster than the disk takes them (a replay, a burst of client vectors).
constexpr size_t kMaxPendingBytes = 64 << 20;
constexpr auto kWriteEvery = std::chrono::seconds(1);
constexpr auto kReopenAfter = std::chrono::seconds(30);

void put_be64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(char(uint8_t(v >> shift)));
}

std::string memory_prefix(const MemoryId& memory) {
  std::string k;
  put_be64(k, memory.instance.value);
  put_be64(k, memory.seqno.value);
  return k;
}

std::string value_key(const MemoryId& memory, const MemoryId& op, char kind) {
  std::string k = memory_prefix(memory);
  put_be64(k, op.instance.value);
  put_be64(k, op.seqno.value);
  k.push_back(kind);
  return k;
}

// The first key after every key of memory: its prefix plus one, as a 16-byte big-endian number.
std::string after_memory(const MemoryId& memory) {
  std::string k = memory_prefix(memory);
  for (size_t i = k.size(); i-- > 0;) {
    if (uint8_t(k[i]) != 0xff) {
      k[i] = char(uint8_t(k[i]) + 1);
      return k;
    }
    k[i] = 0;
  }
  return std::string(17, '\xff');  // the last possible memory: past every 33-byte key
}

}  // namespace

std::string archive_dir(const std::string& data_root) { return data_root + "/archive"; }

struct ArchiveStore::Impl {
  DataDir dir;
  VectorSpace space;
  LogFn log;
  std::string path;

  // Taken before mu by whoever writes (the thread, flush, close), so that one write_out runs at
  // a time while mu is free for keep() and the readers during its I/O.
  std::mutex writer;
  mutable std::mutex mu;
  std::condition_variable wake;     // the thread: a batch is due, or stop
  std::condition_variable drained;  // keep(): the buffer was taken for writing
  std::map<std::string, std::string> pending;  // guarded by mu: key -> value, not written yet
  std::map<std::string, std::string> writing;  // guarded by mu: the batch being written
  size_t pending_bytes = 0;                    // guarded by mu
  std::set<MemoryId> drops;                    // guarded by mu: erased memories to delete
  std::set<MemoryId> deleting;                 // guarded by mu: the drops being carried out
  // Before db, so that it outlives the database RocksDB opened with it.
  std::unique_ptr<rocksdb::Env> env;  // made by the first open_db()
  std::shared_ptr<rocksdb::DB> db;    // guarded by mu (the pointer; the DB is thread-safe)
  std::chrono::steady_clock::time_point next_open{};  // guarded by mu
  bool stopping = false;                              // guarded by mu
  bool closed = false;                                // guarded by mu
  mutable ArchiveStoreStats counts;                   // guarded by mu
  std::thread thread;

  void say(const std::string& line) const {
    if (log) log(line);
  }

  // Opens the database, made anew when RocksDB finds it damaged. Called by the thread, or by
  // open() before the thread starts.
  std::shared_ptr<rocksdb::DB> open_db() {
    if (Status s = make_private_dirs(path); !s.ok()) {
      say("archive: cannot make " + path + ": " + s.message() + "; earlier texts and vectors are read from the segments");
      return nullptr;
    }
    if (!env) env = rocksdb::NewCompositeEnv(std::make_shared<PrivateModeFileSystem>(rocksdb::FileSystem::Default()));
    rocksdb::Options o;
    o.env = env.get();
    o.create_if_missing = true;
    o.info_log = checkpoint_info_log(path);  // not RocksDB's own file logger (see that header)
    o.compression = rocksdb::kLZ4Compression;
    o.write_buffer_size = 4 << 20;
    o.max_write_buffer_number = 2;
    o.max_manifest_file_size = 4 << 20;
    rocksdb::BlockBasedTableOptions t;
    t.block_cache = rocksdb::NewLRUCache(8 << 20);
    t.cache_index_and_filter_blocks = true;
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    for (int attempt = 0; attempt < 2; ++attempt) {
      rocksdb::DB* raw = nullptr;
      rocksdb::Status rs = rocksdb::DB::Open(o, path, &raw);
      if (rs.ok()) return std::shared_ptr<rocksdb::DB>(raw);
      if (attempt == 0 && (rs.IsCorruption() || rs.IsPathNotFound())) {
        // Derived data: made anew, its values read from the segments again when asked for.
        say("archive: " + path + " is damaged (" + rs.ToString() + "); it is made anew");
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
        if (Status s = make_private_dirs(path); !s.ok()) break;
        continue;
      }
      say("archive: cannot open " + path + ": " + rs.ToString() +
          "; earlier texts and vectors are read from the segments until it opens");
      break;
    }
    return nullptr;
  }

  // Writes what is pending and carries out the drops; the caller holds writer, and mu in lock.
  // Returns false when the database is not open or refused a write.
  bool write_out(std::unique_lock<std::mutex>& lock) {
    if (!db && std::chrono::steady_clock::now() >= next_open) {
      lock.unlock();
      auto opened = open_db();
      lock.lock();
      db = std::move(opened);
      if (!db) next_open = std::chrono::steady_clock::now() + kReopenAfter;
    }
    counts.open = db != nullptr;
    if (!db) {  // the values are left to the segments; the drops wait for the database
      counts.dropped += pending.size();
      pending.clear();
      pending_bytes = 0;
      drained.notify_all();
      return false;
    }
    std::shared_ptr<rocksdb::DB> d = db;
    writing.swap(pending);
    pending_bytes = 0;
    drained.notify_all();
    deleting = std::move(drops);
    drops.clear();
    const std::set<MemoryId> dropping = deleting;
    lock.unlock();
    rocksdb::WriteBatch batch;
    for (const auto& [k, value] : writing) batch.Put(k, value);
    for (const MemoryId& m : dropping) batch.DeleteRange(memory_prefix(m), after_memory(m));
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    rocksdb::Status rs = batch.Count() ? d->Write(wo, &batch) : rocksdb::Status::OK();
    // The memtable first, so that the compactions reach the ranges' deletions and their values.
    if (rs.ok() && !dropping.empty()) rs = d->Flush(rocksdb::FlushOptions());
    for (const MemoryId& m : dropping) {
      if (!rs.ok()) break;
      const std::string from = memory_prefix(m), to = after_memory(m);
      rocksdb::Slice b(from), e(to);
      rocksdb::CompactRangeOptions co;
      co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
      rs = d->CompactRange(co, &b, &e);
    }
    lock.lock();
    if (rs.ok()) {
      counts.written += writing.size();
    } else {
      drops.insert(deleting.begin(), deleting.end());  // tried again with the next write
      say("archive: cannot write " + std::to_string(writing.size()) + " values to " + path + ": " +
          rs.ToString() + "; they are read from the segments when asked for, and the database is opened again in 30 s");
      counts.dropped += writing.size();
      db.reset();
      next_open = std::chrono::steady_clock::now() + kReopenAfter;
    }
    writing.clear();
    deleting.clear();
    counts.open = db != nullptr;
    return rs.ok();
  }

  void run() {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait_for(lock, kWriteEvery, [&] { return stopping || pending_bytes >= kBatchBytes; });
        if (stopping) return;
        if (pending.empty() && drops.empty()) continue;
        if (!db && std::chrono::steady_clock::now() < next_open && !pending.empty()) {
          counts.dropped += pending.size();  // no database: left to the segments, RAM stays bounded
          pending.clear();
          pending_bytes = 0;
          drained.notify_all();
          continue;
        }
        if (!db && std::chrono::steady_clock::now() < next_open) continue;  // the drops wait
      }
      std::lock_guard<std::mutex> w(writer);
      std::unique_lock<std::mutex> lock(mu);
      write_out(lock);
    }
  }
};

ArchiveStore::ArchiveStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::shared_ptr<ArchiveStore> ArchiveStore::open(const DataDir& dir, const VectorSpace& space, LogFn log) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->space = space;
  impl->log = std::move(log);
  impl->path = archive_dir(dir.root);
  impl->db = impl->open_db();
  if (!impl->db) impl->next_open = std::chrono::steady_clock::now() + kReopenAfter;
  impl->counts.open = impl->db != nullptr;
  Impl* raw = impl.get();
  std::shared_ptr<ArchiveStore> t(new ArchiveStore(std::move(impl)));
  raw->thread = std::thread([raw] { raw->run(); });
  return t;
}

ArchiveStore::~ArchiveStore() { close(); }

void ArchiveStore::keep(const MemoryId& memory, const MemoryId& op, char kind, std::string bytes) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl& i = *impl_;
  if (i.closed) return;
  ++i.counts.kept;
  const size_t size = bytes.size();
  // Over a value held under that key: it is a repair (an op writes one value of each kind).
  auto [it, added] = i.pending.insert_or_assign(value_key(memory, op, kind), std::move(bytes));
  if (added) i.pending_bytes += it->first.size() + size;
  if (i.pending_bytes >= kBatchBytes) i.wake.notify_one();
  if (i.pending_bytes >= kMaxPendingBytes && i.db)
    i.drained.wait(lock, [&] { return i.pending_bytes < kMaxPendingBytes || i.stopping || i.closed || !i.db; });
}

std::optional<std::string> ArchiveStore::stored(const MemoryId& memory, const MemoryId& op, char kind) const {
  const std::string k = value_key(memory, op, kind);
  std::shared_ptr<rocksdb::DB> d;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    if (impl_->drops.count(memory) || impl_->deleting.count(memory)) return std::nullopt;  // erased
    for (const auto* m : {&impl_->pending, &impl_->writing}) {
      auto it = m->find(k);
      if (it != m->end()) return ++impl_->counts.found_stored, it->second;
    }
    d = impl_->db;
  }
  if (!d) return std::nullopt;
  std::string v;
  if (!d->Get(rocksdb::ReadOptions(), k, &v).ok()) return std::nullopt;
  std::lock_guard<std::mutex> g(impl_->mu);
  ++impl_->counts.found_stored;
  return v;
}

std::vector<LoggedValue> ArchiveStore::from_log(const std::vector<ArchiveWanted>& wanted) const {
  std::vector<OpKey> keys;
  for (const ArchiveWanted& w : wanted) keys.push_back(OpKey{w.op.instance, w.op.seqno});
  auto ops = read_ops(impl_->dir, impl_->space, keys);
  std::vector<LoggedValue> out(wanted.size());
  uint64_t found = 0;
  for (size_t i = 0; i < wanted.size() && i < ops.size(); ++i) {
    if (!ops[i].ok()) continue;
    auto value = decode_op(ops[i]->op_type, ops[i]->payload);
    if (!value.ok()) continue;
    const ArchiveWanted& w = wanted[i];
    LoggedValue& v = out[i];
    if (const auto* put = std::get_if<PutMemoryOp>(&*value); put && w.op == w.memory) {
      if (w.kind == 't') v.text = put->text;
      if (w.kind == 'v' && !put->vector.empty()) v.vector = put->vector;
    }
    if (const auto* upd = std::get_if<UpdateContentOp>(&*value);
        upd && w.kind == 't' && upd->memory == w.memory && !upd->text.empty())
      v.text = upd->text;
    if (const auto* set = std::get_if<SetVectorOp>(&*value); set && w.kind == 'v' && set->memory == w.memory)
      v.vector = set->vector;
    found += v.text || v.vector;
  }
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->counts.read_from_log += found;
  return out;
}

void ArchiveStore::drop(const MemoryId& memory) {
  std::lock_guard<std::mutex> g(impl_->mu);
  if (impl_->closed) return;
  const std::string from = memory_prefix(memory), to = after_memory(memory);
  for (auto* m : {&impl_->pending, &impl_->writing}) m->erase(m->lower_bound(from), m->lower_bound(to));
  impl_->drops.insert(memory);  // carried out within a second
}

Status ArchiveStore::flush() {
  std::lock_guard<std::mutex> w(impl_->writer);
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (impl_->closed) return Status::IoError("archive: closed");
  if (!impl_->write_out(lock)) return Status::IoError("archive: " + impl_->path + " is not open or refused a write");
  std::shared_ptr<rocksdb::DB> d = impl_->db;
  lock.unlock();
  rocksdb::Status rs = d->Flush(rocksdb::FlushOptions());
  if (!rs.ok()) return Status::IoError("archive: cannot flush " + impl_->path + ": " + rs.ToString());
  return Status::Ok();
}

void ArchiveStore::close() {
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    if (impl_->closed) return;
    impl_->stopping = true;
  }
  impl_->wake.notify_one();
  impl_->drained.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  {
    std::lock_guard<std::mutex> w(impl_->writer);
    std::unique_lock<std::mutex> lock(impl_->mu);
    if (!impl_->pending.empty() || !impl_->drops.empty()) impl_->write_out(lock);
    if (impl_->db) {
      (void)impl_->db->Flush(rocksdb::FlushOptions());
      (void)impl_->db->Close();
      impl_->db.reset();
    }
    impl_->closed = true;
    impl_->counts.open = false;
  }
}

ArchiveStoreStats ArchiveStore::stats() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  ArchiveStoreStats s = impl_->counts;
  s.pending = impl_->pending.size() + impl_->writing.size();
  return s;
}

}  // namespace vasana
