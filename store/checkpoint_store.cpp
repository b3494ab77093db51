#include "store/checkpoint_store.hpp"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "store/file_access.hpp"
#include "store/little_endian.hpp"

namespace vasana {

namespace {

// Version 2 added the sections; a version 1 manifest reads as one without sections.
constexpr uint32_t kManifestVersion = 2;
const char kManifestKey[] = "manifest";

// Every file RocksDB creates gets private_file_mode() (store/file_access.hpp), and every folder
// private_dir_mode(), at creation, whatever the umask.
class PrivateModeFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit PrivateModeFileSystem(const std::shared_ptr<rocksdb::FileSystem>& t) : FileSystemWrapper(t) {}
  const char* Name() const override { return "VasanaPrivateMode"; }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* d) override {
    return file(f, target()->NewWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override {
    return file(f, target()->ReopenWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* d) override {
    return file(f, target()->ReuseWritableFile(f, old, o, r, d));
  }
  rocksdb::IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* r, rocksdb::IODebugContext* d) override {
    return file(f, target()->NewRandomRWFile(f, o, r, d));
  }
  rocksdb::IOStatus LockFile(const std::string& f, const rocksdb::IOOptions& o, rocksdb::FileLock** l,
                             rocksdb::IODebugContext* d) override {
    return file(f, target()->LockFile(f, o, l, d));
  }
  rocksdb::IOStatus NewLogger(const std::string& f, const rocksdb::IOOptions& o, std::shared_ptr<rocksdb::Logger>* r,
                              rocksdb::IODebugContext* d) override {
    return file(f, target()->NewLogger(f, o, r, d));
  }
  rocksdb::IOStatus CreateDir(const std::string& f, const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
    return dir(f, target()->CreateDir(f, o, d));
  }
  rocksdb::IOStatus CreateDirIfMissing(const std::string& f, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* d) override {
    return dir(f, target()->CreateDirIfMissing(f, o, d));
  }

 private:
  static rocksdb::IOStatus file(const std::string& f, rocksdb::IOStatus s) { return chmod_after(f, s, private_file_mode()); }
  static rocksdb::IOStatus dir(const std::string& f, rocksdb::IOStatus s) { return chmod_after(f, s, private_dir_mode()); }
  static rocksdb::IOStatus chmod_after(const std::string& f, rocksdb::IOStatus s, unsigned mode) {
    if (!s.ok()) return s;
    if (::chmod(f.c_str(), mode) != 0) return rocksdb::IOStatus::IOError("cannot set the mode of " + f);
    return s;
  }
};

std::string hex16(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}
std::string generation_prefix(uint64_t g) { return "g/" + hex16(g) + "/"; }
std::string meta_key(uint64_t g) { return generation_prefix(g) + "meta"; }
std::string chunk_key(uint64_t g, uint64_t i) { return generation_prefix(g) + "c/" + hex16(i); }
std::string section_prefix(uint64_t g, uint64_t s) { return generation_prefix(g) + "s/" + hex16(s) + "/"; }
std::string section_chunk_key(uint64_t g, uint64_t s, uint64_t i) { return section_prefix(g, s) + hex16(i); }

Status from_rocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  return Status::IoError("checkpoint: " + what + ": " + s.ToString());
}

void append_hash(std::string& s, const Hash256& h) { s.append(reinterpret_cast<const char*>(h.data()), h.size()); }

}  // namespace

Seqno CheckpointManifest::covered_seqno(InstanceId writer) const {
  for (const auto& c : covered)
    if (c.writer == writer) return c.seqno;
  return Seqno(0);
}

std::string checkpoint_dir(const std::string& data_root) { return data_root + "/checkpoint"; }

std::string encode_manifest(const CheckpointManifest& m) {
  std::string s;
  append_u32(s, kManifestVersion);
  append_u64(s, m.generation);
  append_u32(s, m.state_format);
  append_u64(s, m.created_ms);
  append_hash(s, m.digest);
  append_u64(s, m.ops_applied);
  append_u64(s, m.memories);
  append_u64(s, m.chunk_count);
  append_u64(s, m.covered.size());
  for (const auto& c : m.covered) {
    append_u64(s, c.writer.value);
    append_u64(s, c.seqno.value);
    append_hash(s, c.hash);
  }
  append_u64(s, m.sections.size());
  for (const auto& x : m.sections) {
    append_u64(s, x.name.size());
    s.append(x.name);
    append_u32(s, x.format);
    append_u64(s, x.chunk_count);
    append_u64(s, x.bytes);
  }
  return s;
}

Result<CheckpointManifest> decode_manifest(const std::string& bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t left = bytes.size();
  bool bad = false;
  auto take = [&](size_t n) -> const uint8_t* {
    if (bad || left < n) {
      bad = true;
      static const uint8_t zeros[32] = {};
      return zeros;
    }
    const uint8_t* q = p;
    p += n;
    left -= n;
    return q;
  };
  auto hash = [&](Hash256& h) {
    const uint8_t* q = take(32);
    std::copy(q, q + 32, h.begin());
  };
  CheckpointManifest m;
  const uint32_t version = get_u32(take(4));
  if (!bad && version != kManifestVersion && version != 1)
    return Status::Incompatible("checkpoint manifest version " + std::to_string(version) + "; this build reads " +
                                std::to_string(kManifestVersion));
  m.generation = get_u64(take(8));
  m.state_format = get_u32(take(4));
  m.created_ms = get_u64(take(8));
  hash(m.digest);
  m.ops_applied = get_u64(take(8));
  m.memories = get_u64(take(8));
  m.chunk_count = get_u64(take(8));
  const uint64_t n = get_u64(take(8));
  if (!bad && n > left / 48) bad = true;
  for (uint64_t i = 0; i < n && !bad; ++i) {
    CheckpointCoverage c;
    c.writer = InstanceId(get_u64(take(8)));
    c.seqno = Seqno(get_u64(take(8)));
    hash(c.hash);
    m.covered.push_back(c);
  }
  if (version >= 2) {
    const uint64_t sections = get_u64(take(8));
    if (!bad && sections > left / 28) bad = true;
    for (uint64_t i = 0; i < sections && !bad; ++i) {
      CheckpointSectionInfo x;
      const uint64_t len = get_u64(take(8));
      if (len > left) {
        bad = true;
        break;
      }
      const uint8_t* name = take(len);
      x.name.assign(reinterpret_cast<const char*>(name), len);
      x.format = get_u32(take(4));
      x.chunk_count = get_u64(take(8));
      x.bytes = get_u64(take(8));
      m.sections.push_back(std::move(x));
    }
  }
  if (bad || left != 0) return Status::Corruption("checkpoint manifest: unreadable (" + std::to_string(bytes.size()) + " bytes)");
  return m;
}

struct CheckpointStore::Impl {
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<rocksdb::DB> db;
};

CheckpointStore::CheckpointStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CheckpointStore::~CheckpointStore() {
  if (impl_->db) (void)impl_->db->Close();
  impl_->db.reset();
}

namespace {

Result<std::unique_ptr<CheckpointStore::Impl>> open_db(const std::string& dir, bool create, bool read_only) {
  std::error_code ec;
  if (!create && !std::filesystem::exists(dir + "/CURRENT", ec)) return Status::NotFound("no checkpoint in " + dir);
  if (create) {
    Status s = make_private_dirs(dir);
    if (!s.ok()) return s;
  }
  auto impl = std::make_unique<CheckpointStore::Impl>();
  impl->env = rocksdb::NewCompositeEnv(std::make_shared<PrivateModeFileSystem>(rocksdb::FileSystem::Default()));
  rocksdb::Options o;
  o.env = impl->env.get();
  o.create_if_missing = create;
  o.keep_log_file_num = 2;
  o.max_manifest_file_size = 4 << 20;
  o.compression = rocksdb::kLZ4Compression;
  rocksdb::DB* db = nullptr;
  rocksdb::Status rs = read_only ? rocksdb::DB::OpenForReadOnly(o, dir, &db) : rocksdb::DB::Open(o, dir, &db);
  if (!rs.ok()) return from_rocks(rs, "cannot open " + dir);
  impl->db.reset(db);
  return impl;
}

}  // namespace

Result<std::unique_ptr<CheckpointStore>> CheckpointStore::open(const std::string& dir, bool create) {
  auto impl = open_db(dir, create, /*read_only=*/false);
  if (!impl.ok()) return impl.status();
  return std::unique_ptr<CheckpointStore>(new CheckpointStore(std::move(impl.value())));
}

Result<std::unique_ptr<CheckpointStore>> CheckpointStore::open_read_only(const std::string& dir) {
  auto impl = open_db(dir, /*create=*/false, /*read_only=*/true);
  if (!impl.ok()) return impl.status();
  return std::unique_ptr<CheckpointStore>(new CheckpointStore(std::move(impl.value())));
}

Result<std::optional<CheckpointManifest>> CheckpointStore::manifest() const {
  std::string v;
  rocksdb::Status rs = impl_->db->Get(rocksdb::ReadOptions(), kManifestKey, &v);
  if (rs.IsNotFound()) return std::optional<CheckpointManifest>();
  if (!rs.ok()) return from_rocks(rs, "cannot read the manifest");
  auto m = decode_manifest(v);
  if (!m.ok()) return m.status();
  return std::optional<CheckpointManifest>(std::move(m.value()));
}

Result<CheckpointData> CheckpointStore::load() const {
  auto m = manifest();
  if (!m.ok()) return m.status();
  if (!*m) return Status::NotFound("no checkpoint written yet");
  CheckpointData d;
  d.manifest = **m;
  const uint64_t g = d.manifest.generation;
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  rocksdb::Status rs = impl_->db->Get(ro, meta_key(g), &d.meta);
  if (rs.IsNotFound()) return Status::Corruption("checkpoint generation " + std::to_string(g) + ": no meta record");
  if (!rs.ok()) return from_rocks(rs, "cannot read the meta record");
  d.chunks.reserve(d.manifest.chunk_count);
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(ro));
  const std::string prefix = generation_prefix(g) + "c/";
  uint64_t next = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    if (it->key().ToString() != chunk_key(g, next))
      return Status::Corruption("checkpoint generation " + std::to_string(g) + ": chunk " + std::to_string(next) +
                                " missing");
    d.chunks.push_back(it->value().ToString());
    ++next;
  }
  if (!it->status().ok()) return from_rocks(it->status(), "cannot read the chunks");
  if (next != d.manifest.chunk_count)
    return Status::Corruption("checkpoint generation " + std::to_string(g) + ": " + std::to_string(next) +
                              " chunks, the manifest says " + std::to_string(d.manifest.chunk_count));
  for (uint64_t x = 0; x < d.manifest.sections.size(); ++x) {
    const CheckpointSectionInfo& info = d.manifest.sections[x];
    CheckpointSection section{info.name, info.format, {}};
    section.chunks.reserve(info.chunk_count);
    const std::string sp = section_prefix(g, x);
    uint64_t n = 0, bytes = 0;
    for (it->Seek(sp); it->Valid() && it->key().starts_with(sp); it->Next()) {
      if (it->key().ToString() != section_chunk_key(g, x, n)) break;
      section.chunks.push_back(it->value().ToString());
      bytes += section.chunks.back().size();
      ++n;
    }
    if (!it->status().ok()) return from_rocks(it->status(), "cannot read the section " + info.name);
    if (n != info.chunk_count || bytes != info.bytes)
      return Status::Corruption("checkpoint generation " + std::to_string(g) + ": section " + info.name + " holds " +
                                std::to_string(n) + " chunks of " + std::to_string(bytes) + " bytes, the manifest says " +
                                std::to_string(info.chunk_count) + " of " + std::to_string(info.bytes));
    d.sections.push_back(std::move(section));
  }
  return d;
}

Status CheckpointStore::write(CheckpointData data) {
  auto current = manifest();
  uint64_t g = 1;
  if (current.ok() && *current) g = (*current)->generation + 1;
  // Chunks of a generation whose manifest was never written (a crash mid-write) are past the
  // current one: they are deleted below with every other generation but g.
  CheckpointManifest& m = data.manifest;
  m.generation = g;
  m.chunk_count = data.chunks.size();
  rocksdb::WriteOptions plain;
  constexpr size_t kBatchBytes = 16 << 20;
  rocksdb::WriteBatch batch;
  batch.Put(meta_key(g), data.meta);
  for (size_t i = 0; i < data.chunks.size(); ++i) {
    batch.Put(chunk_key(g, i), data.chunks[i]);
    if (batch.GetDataSize() >= kBatchBytes) {
      if (Status s = from_rocks(impl_->db->Write(plain, &batch), "cannot write chunks"); !s.ok()) return s;
      batch.Clear();
    }
  }
  m.sections.clear();
  for (uint64_t x = 0; x < data.sections.size(); ++x) {
    const CheckpointSection& section = data.sections[x];
    CheckpointSectionInfo info{section.name, section.format, section.chunks.size(), 0};
    for (uint64_t i = 0; i < section.chunks.size(); ++i) {
      info.bytes += section.chunks[i].size();
      batch.Put(section_chunk_key(g, x, i), section.chunks[i]);
      if (batch.GetDataSize() >= kBatchBytes) {
        if (Status s = from_rocks(impl_->db->Write(plain, &batch), "cannot write chunks"); !s.ok()) return s;
        batch.Clear();
      }
    }
    m.sections.push_back(std::move(info));
  }
  // Last: the switch, synced (the WAL's sync covers the chunks written before it).
  batch.Put(kManifestKey, encode_manifest(m));
  batch.DeleteRange("g/", generation_prefix(g));
  batch.DeleteRange(generation_prefix(g + 1), "g0");  // '0' follows '/'
  rocksdb::WriteOptions synced;
  synced.sync = true;
  if (Status s = from_rocks(impl_->db->Write(synced, &batch), "cannot write the manifest"); !s.ok()) return s;
  // The new generation to table files (a start then reads no write-ahead log), and the older
  // generations compacted away now rather than at some later compaction. Not DeleteFilesInRange:
  // with RocksDB 7.8 it also removed table files holding the new generation's keys (a checkpoint
  // of a few hundred MiB lost whole write batches; the test "a checkpoint of several hundred MiB
  // reads back whole after a reopen" shows it).
  if (Status s = from_rocks(impl_->db->Flush(rocksdb::FlushOptions()), "cannot flush"); !s.ok()) return s;
  rocksdb::Slice begin("g/"), end(generation_prefix(g));
  rocksdb::CompactRangeOptions co;
  (void)impl_->db->CompactRange(co, &begin, &end);
  return Status::Ok();
}

Status CheckpointStore::overwrite_chunk_for_test(uint64_t index, const std::string& bytes) {
  auto m = manifest();
  if (!m.ok()) return m.status();
  if (!*m) return Status::NotFound("no checkpoint written yet");
  rocksdb::WriteOptions synced;
  synced.sync = true;
  return from_rocks(impl_->db->Put(synced, chunk_key((*m)->generation, index), bytes), "cannot write a chunk");
}

Status CheckpointStore::overwrite_section_chunk_for_test(const std::string& name, uint64_t index,
                                                         const std::string& bytes) {
  auto m = manifest();
  if (!m.ok()) return m.status();
  if (!*m) return Status::NotFound("no checkpoint written yet");
  CheckpointManifest manifest = **m;
  for (uint64_t x = 0; x < manifest.sections.size(); ++x) {
    auto& info = manifest.sections[x];
    if (info.name != name) continue;
    if (index >= info.chunk_count) return Status::NotFound("section " + name + " has no chunk " + std::to_string(index));
    std::string old;
    rocksdb::Status rs = impl_->db->Get(rocksdb::ReadOptions(), section_chunk_key(manifest.generation, x, index), &old);
    if (!rs.ok()) return from_rocks(rs, "cannot read a section chunk");
    info.bytes = info.bytes - old.size() + bytes.size();
    rocksdb::WriteBatch batch;
    batch.Put(section_chunk_key(manifest.generation, x, index), bytes);
    batch.Put(kManifestKey, encode_manifest(manifest));
    rocksdb::WriteOptions synced;
    synced.sync = true;
    return from_rocks(impl_->db->Write(synced, &batch), "cannot write a section chunk");
  }
  return Status::NotFound("no section " + name);
}

Status CheckpointStore::overwrite_manifest_for_test(const CheckpointManifest& m) {
  rocksdb::WriteOptions synced;
  synced.sync = true;
  return from_rocks(impl_->db->Put(synced, kManifestKey, encode_manifest(m)), "cannot write the manifest");
}

}  // namespace vasana
