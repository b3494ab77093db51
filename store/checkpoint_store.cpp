#include "store/checkpoint_store.hpp"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "store/checkpoint_info_log.hpp"
#include "store/file_access.hpp"
#include "store/little_endian.hpp"
#include "store/private_mode_file_system.hpp"

namespace vasana {

namespace {

// Version 2 added the sections, version 3 the sealed segments; an older manifest reads as one
// without them.
constexpr uint32_t kManifestVersion = 4;
constexpr size_t kSealedFactsBytes = 8 * 8 + 2 * 32;
const char kManifestKey[] = "manifest";

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

// RocksDB's corruption, and a file it names that is missing, are Corruption: the database is
// damaged. Every other failure (no space, no permission) is IoError.
Status from_rocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  const std::string m = "checkpoint: " + what + ": " + s.ToString();
  if (s.IsCorruption() || s.IsPathNotFound()) return Status::Corruption(m);
  return Status::IoError(m);
}

// The generation of a key "g/<generation>/...", or 0.
uint64_t generation_of(const rocksdb::Slice& key) {
  if (key.size() < 18 || !key.starts_with("g/")) return 0;
  uint64_t g = 0;
  for (size_t i = 2; i < 18; ++i) {
    const char c = key[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return 0;
    g = (g << 4) | uint64_t(d);
  }
  return g;
}

std::string mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1 << 20));
  return b;
}

void append_hash(std::string& s, const Hash256& h) { s.append(reinterpret_cast<const char*>(h.data()), h.size()); }

void append_facts(std::string& s, const SealedSegmentFacts& f) {
  append_u64(s, f.index.value);
  append_u64(s, f.file_bytes);
  append_u64(s, f.created_ms);
  append_u64(s, f.first_seqno.value);
  append_hash(s, f.chain_head);
  append_u64(s, f.records);
  append_u64(s, f.last_seqno.value);
  append_hash(s, f.last_hash);
  append_u64(s, f.last_ts.value);
  append_u64(s, f.last_record_offset);
}

void append_sections(std::string& s, const std::vector<CheckpointSectionInfo>& sections) {
  append_u64(s, sections.size());
  for (const auto& x : sections) {
    append_u64(s, x.name.size());
    s.append(x.name);
    append_u32(s, x.format);
    append_u64(s, x.chunk_count);
    append_u64(s, x.bytes);
  }
}

}  // namespace

Seqno CheckpointManifest::covered_seqno(InstanceId writer) const {
  for (const auto& c : covered)
    if (c.writer == writer) return c.seqno;
  return Seqno(0);
}

const std::vector<SealedSegmentFacts>* CheckpointManifest::sealed_of(InstanceId writer) const {
  for (const auto& w : sealed)
    if (w.writer == writer) return &w.segments;
  return nullptr;
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
  append_sections(s, m.sections);
  append_u64(s, m.sealed.size());
  for (const auto& w : m.sealed) {
    append_u64(s, w.writer.value);
    append_u64(s, w.segments.size());
    for (const auto& f : w.segments) append_facts(s, f);
  }
  append_u64(s, m.base_generation);
  append_u64(s, m.base_chunk_count);
  append_sections(s, m.base_sections);
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
  if (!bad && (version < 1 || version > kManifestVersion))
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
  auto sections = [&](std::vector<CheckpointSectionInfo>& out) {
    const uint64_t count = get_u64(take(8));
    if (!bad && count > left / 28) bad = true;
    for (uint64_t i = 0; i < count && !bad; ++i) {
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
      out.push_back(std::move(x));
    }
  };
  if (version >= 2) sections(m.sections);
  if (version >= 3) {
    const uint64_t writers = get_u64(take(8));
    if (!bad && writers > left / 16) bad = true;
    for (uint64_t i = 0; i < writers && !bad; ++i) {
      CheckpointSealed w;
      w.writer = InstanceId(get_u64(take(8)));
      const uint64_t count = get_u64(take(8));
      if (!bad && count > left / kSealedFactsBytes) bad = true;
      for (uint64_t k = 0; k < count && !bad; ++k) {
        SealedSegmentFacts f;
        f.index = SegmentIndex(get_u64(take(8)));
        f.file_bytes = get_u64(take(8));
        f.created_ms = get_u64(take(8));
        f.first_seqno = Seqno(get_u64(take(8)));
        hash(f.chain_head);
        f.records = get_u64(take(8));
        f.last_seqno = Seqno(get_u64(take(8)));
        hash(f.last_hash);
        f.last_ts = Hlc(get_u64(take(8)));
        f.last_record_offset = get_u64(take(8));
        w.segments.push_back(f);
      }
      m.sealed.push_back(std::move(w));
    }
  }
  if (version >= 4) {
    m.base_generation = get_u64(take(8));
    m.base_chunk_count = get_u64(take(8));
    sections(m.base_sections);
    if (!bad && m.base_generation >= m.generation && m.base_generation != 0) bad = true;
  }
  if (bad || left != 0) return Status::Corruption("checkpoint manifest: unreadable (" + std::to_string(bytes.size()) + " bytes)");
  return m;
}

struct CheckpointStore::Impl {
  std::string dir;
  bool read_only = false;
  std::unique_ptr<rocksdb::Env> env;
  rocksdb::Options options;
  std::unique_ptr<rocksdb::DB> db;  // null after a failed write, until the next call opens it again

  Status open_db(bool create);
  // Opens the database when a failed write closed it.
  Status ensure_open() { return db ? Status::Ok() : open_db(/*create=*/!read_only); }
  void close() {
    if (db) (void)db->Close();
    db.reset();
  }
  Status write_generation(CheckpointData& data);
  std::string older_left;  // why the last write's compaction failed; empty when it did not
  uint64_t written = 0;    // bytes of the table files the last write ingested and compacted
  uint64_t compaction_bytes() const {
    return options.statistics ? options.statistics->getTickerCount(rocksdb::COMPACT_WRITE_BYTES) : 0;
  }
};

CheckpointStore::CheckpointStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CheckpointStore::~CheckpointStore() { impl_->close(); }

namespace {

// Corruption when dir is something a checkpoint database cannot be: not a folder, or a folder
// holding files but no CURRENT (a database RocksDB never finished making, or one that lost it).
// NotFound when there is nothing (or an empty folder) at dir.
Status check_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) {
    if (fs::is_symlink(fs::symlink_status(dir, ec))) return Status::Corruption("checkpoint: " + dir + " is a link to nothing");
    return Status::NotFound("no checkpoint in " + dir);
  }
  if (!fs::is_directory(st)) return Status::Corruption("checkpoint: " + dir + " is not a folder");
  if (fs::exists(dir + "/CURRENT", ec)) return Status::Ok();
  const bool empty = fs::is_empty(dir, ec);
  if (ec) return Status::IoError("checkpoint: cannot list " + dir + ": " + ec.message());
  if (empty) return Status::NotFound("no checkpoint in " + dir);
  return Status::Corruption("checkpoint: " + dir + " holds files but no CURRENT");
}

// RocksDB's own logger kept the logs of earlier opens beside LOG as LOG.old.<time>; the
// checkpoint database's logger (store/checkpoint_info_log.hpp) keeps one file.
void remove_old_info_logs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind("LOG.old.", 0) == 0) fs::remove(it->path(), ec);
}

}  // namespace

Status CheckpointStore::Impl::open_db(bool create) {
  Status shape = check_folder(dir);
  if (shape.code() == Code::corruption || (!shape.ok() && !create)) return shape;
  if (create) {
    Status s = make_private_dirs(dir);
    if (!s.ok()) return s;
  }
  if (!env) env = rocksdb::NewCompositeEnv(std::make_shared<PrivateModeFileSystem>(rocksdb::FileSystem::Default()));
  options = rocksdb::Options();
  options.env = env.get();
  options.create_if_missing = create;
  // Not RocksDB's own file logger: it cannot go on after the disk refused one of its writes.
  options.info_log = checkpoint_info_log(dir);
  if (!read_only) remove_old_info_logs(dir);
  options.max_manifest_file_size = 4 << 20;
  options.compression = rocksdb::kLZ4Compression;
  options.statistics = rocksdb::CreateDBStatistics();  // the bytes its compactions write (last_write_bytes)
  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = read_only ? rocksdb::DB::OpenForReadOnly(options, dir, &raw) : rocksdb::DB::Open(options, dir, &raw);
  if (!rs.ok()) return from_rocks(rs, "cannot open " + dir);
  db.reset(raw);
  return Status::Ok();
}

Result<std::unique_ptr<CheckpointStore>> CheckpointStore::open(const std::string& dir, bool create) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  if (Status s = impl->open_db(create); !s.ok()) return s;
  return std::unique_ptr<CheckpointStore>(new CheckpointStore(std::move(impl)));
}

Result<std::unique_ptr<CheckpointStore>> CheckpointStore::open_read_only(const std::string& dir) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->read_only = true;
  if (Status s = impl->open_db(/*create=*/false); !s.ok()) return s;
  return std::unique_ptr<CheckpointStore>(new CheckpointStore(std::move(impl)));
}

Result<std::optional<CheckpointManifest>> CheckpointStore::manifest() const {
  if (Status s = impl_->ensure_open(); !s.ok()) return s;
  std::string v;
  rocksdb::Status rs = impl_->db->Get(rocksdb::ReadOptions(), kManifestKey, &v);
  if (rs.IsNotFound()) return std::optional<CheckpointManifest>();
  if (!rs.ok()) return from_rocks(rs, "cannot read the manifest");
  auto m = decode_manifest(v);
  if (!m.ok()) return m.status();
  return std::optional<CheckpointManifest>(std::move(m.value()));
}

namespace {

// One section's chunks of generation g (the index x of its entry in infos), checked against info.
Status read_section(rocksdb::DB& db, const rocksdb::ReadOptions& ro, uint64_t g, uint64_t x,
                    const CheckpointSectionInfo& info, CheckpointSection* out) {
  CheckpointSection section{info.name, info.format, {}};
  section.chunks.reserve(info.chunk_count);
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(ro));
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
  *out = std::move(section);
  return Status::Ok();
}

// Generation g's meta record, chunk_count state chunks and the sections infos names.
Status read_generation(rocksdb::DB& db, uint64_t g, uint64_t chunk_count,
                       const std::vector<CheckpointSectionInfo>& infos, std::string* meta,
                       std::vector<std::string>* chunks, std::vector<CheckpointSection>* sections) {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  rocksdb::Status rs = db.Get(ro, meta_key(g), meta);
  if (rs.IsNotFound()) return Status::Corruption("checkpoint generation " + std::to_string(g) + ": no meta record");
  if (!rs.ok()) return from_rocks(rs, "cannot read the meta record");
  chunks->reserve(chunk_count);
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(ro));
  const std::string prefix = generation_prefix(g) + "c/";
  uint64_t next = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    if (it->key().ToString() != chunk_key(g, next))
      return Status::Corruption("checkpoint generation " + std::to_string(g) + ": chunk " + std::to_string(next) +
                                " missing");
    chunks->push_back(it->value().ToString());
    ++next;
  }
  if (!it->status().ok()) return from_rocks(it->status(), "cannot read the chunks");
  if (next != chunk_count)
    return Status::Corruption("checkpoint generation " + std::to_string(g) + ": " + std::to_string(next) +
                              " chunks, the manifest says " + std::to_string(chunk_count));
  for (uint64_t x = 0; x < infos.size(); ++x) {
    CheckpointSection section;
    if (Status st = read_section(db, ro, g, x, infos[x], &section); !st.ok()) return st;
    sections->push_back(std::move(section));
  }
  return Status::Ok();
}

}  // namespace

Result<CheckpointData> CheckpointStore::load() const {
  auto m = manifest();
  if (!m.ok()) return m.status();
  if (!*m) return Status::NotFound("no checkpoint written yet");
  CheckpointData d;
  d.manifest = **m;
  const CheckpointManifest& mf = d.manifest;
  Status st = read_generation(*impl_->db, mf.generation, mf.chunk_count, mf.sections, &d.meta, &d.chunks, &d.sections);
  if (!st.ok()) return st;
  if (mf.base_generation != 0) {
    CheckpointBase b;
    st = read_generation(*impl_->db, mf.base_generation, mf.base_chunk_count, mf.base_sections, &b.meta, &b.chunks,
                         &b.sections);
    if (!st.ok()) return st;
    d.base = std::move(b);
  }
  return d;
}

Result<CheckpointSection> CheckpointStore::load_section(const CheckpointManifest& m, uint64_t g,
                                                        const std::string& name) const {
  if (Status s = impl_->ensure_open(); !s.ok()) return s;
  const std::vector<CheckpointSectionInfo>* infos =
      g == m.generation ? &m.sections : g == m.base_generation && g != 0 ? &m.base_sections : nullptr;
  if (!infos) return Status::NotFound("checkpoint generation " + std::to_string(g) + " is not the manifest's");
  for (uint64_t x = 0; x < infos->size(); ++x) {
    if ((*infos)[x].name != name) continue;
    rocksdb::ReadOptions ro;
    ro.verify_checksums = true;
    CheckpointSection section;
    if (Status st = read_section(*impl_->db, ro, g, x, (*infos)[x], &section); !st.ok()) return st;
    return section;
  }
  return Status::NotFound("checkpoint generation " + std::to_string(g) + " has no section " + name);
}

namespace {

// Writes a table file at path holding what add() puts in it (keys in order), synced.
Status write_table(const rocksdb::Options& o, const std::string& path,
                   const std::function<rocksdb::Status(rocksdb::SstFileWriter&)>& add) {
  rocksdb::SstFileWriter w(rocksdb::EnvOptions(o), o);
  rocksdb::Status rs = w.Open(path);
  if (rs.ok()) rs = add(w);
  if (rs.ok()) rs = w.Finish();
  return from_rocks(rs, "cannot write " + path);
}

}  // namespace

Status CheckpointStore::Impl::write_generation(CheckpointData& data) {
  // A generation number no key has: past the current one and past any generation a failed
  // write left behind (its keys are deleted below with every other generation but this one).
  // A manifest this build cannot read (another version) is replaced like any other.
  uint64_t g = 1;
  CheckpointManifest& m = data.manifest;
  const uint64_t base = m.base_generation;
  {
    std::string v;
    rocksdb::Status rs = db->Get(rocksdb::ReadOptions(), kManifestKey, &v);
    if (!rs.ok() && !rs.IsNotFound()) return from_rocks(rs, "cannot read the manifest");
    std::optional<CheckpointManifest> current;
    if (rs.ok())
      if (auto decoded = decode_manifest(v); decoded.ok()) current = std::move(decoded.value());
    if (current) g = current->generation + 1;
    // A delta's base: the current generation when it is whole, or the current delta's base.
    if (base != 0) {
      if (current && current->generation == base && current->base_generation == 0) {
        m.base_chunk_count = current->chunk_count;
        m.base_sections = current->sections;
      } else if (current && current->base_generation == base) {
        m.base_chunk_count = current->base_chunk_count;
        m.base_sections = current->base_sections;
      } else {
        return Status::FailedPrecondition("checkpoint: a delta against generation " + std::to_string(base) +
                                          ", which is not the current checkpoint's whole state");
      }
    } else {
      m.base_chunk_count = 0;
      m.base_sections.clear();
    }
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    it->SeekForPrev("g0");  // '0' follows '/': the last generation key
    if (it->Valid()) g = std::max(g, generation_of(it->key()) + 1);
    if (!it->status().ok()) return from_rocks(it->status(), "cannot read the generations");
  }
  m.generation = g;
  m.chunk_count = data.chunks.size();
  m.sections.clear();
  for (const CheckpointSection& section : data.sections) {
    CheckpointSectionInfo info{section.name, section.format, section.chunks.size(), 0};
    for (const auto& c : section.chunks) info.bytes += c.size();
    m.sections.push_back(std::move(info));
  }
  namespace fs = std::filesystem;
  const std::string staging = dir + "/ingest";
  std::error_code ec;
  fs::remove_all(staging, ec);  // files of a write that died before ingesting them
  if (Status s = make_private_dirs(staging); !s.ok()) return s;
  struct RemoveStaging {
    std::string path;
    ~RemoveStaging() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_staging{staging};
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;            // linked into the database, not copied
  io.write_global_seqno = false;   // the file stays as written (its sequence number is in the MANIFEST)
  // The generation's keys, in key order ("c/" < "meta" < "s/"), named by no manifest yet.
  const std::string state = staging + "/state.sst";
  Status s = write_table(options, state, [&](rocksdb::SstFileWriter& w) {
    rocksdb::Status rs;
    for (size_t i = 0; i < data.chunks.size() && rs.ok(); ++i) rs = w.Put(chunk_key(g, i), data.chunks[i]);
    if (rs.ok()) rs = w.Put(meta_key(g), data.meta);
    for (uint64_t x = 0; x < data.sections.size() && rs.ok(); ++x)
      for (uint64_t i = 0; i < data.sections[x].chunks.size() && rs.ok(); ++i)
        rs = w.Put(section_chunk_key(g, x, i), data.sections[x].chunks[i]);
    return rs;
  });
  std::error_code size_ec;
  const uint64_t state_bytes = s.ok() ? fs::file_size(state, size_ec) : 0;
  if (s.ok()) s = from_rocks(db->IngestExternalFile({state}, io), "cannot add the state");
  if (!s.ok()) return s;
  // The switch: the manifest naming g, and every other generation deleted, in one file. A
  // delta's keeps its base: it deletes only the generations after the base, so that the file's
  // keys do not overlap the base's and no compaction has to rewrite the base's files with it.
  const std::string sw = staging + "/switch.sst";
  s = write_table(options, sw, [&](rocksdb::SstFileWriter& w) {
    rocksdb::Status rs = w.DeleteRange(base != 0 ? generation_prefix(base + 1) : std::string("g/"), generation_prefix(g));
    if (rs.ok()) rs = w.DeleteRange(generation_prefix(g + 1), "g0");
    if (rs.ok()) rs = w.Put(kManifestKey, encode_manifest(m));
    return rs;
  });
  const uint64_t switch_bytes = s.ok() ? fs::file_size(sw, size_ec) : 0;
  if (s.ok()) s = from_rocks(db->IngestExternalFile({sw}, io), "cannot add the manifest");
  if (!s.ok()) return s;
  written = state_bytes + switch_bytes;
  const uint64_t compacted_before = compaction_bytes();
  // A delta's older deltas are small (each at most the delta limit, checkpoint_task.hpp): they
  // are left to RocksDB's own compactions, or to the next whole checkpoint's.
  if (base != 0) return Status::Ok();
  // The older generations compacted away now rather than at some later compaction, so that no
  // file keeps their bytes (an erasure's checkpoint relies on it: docs/erasure.md). The whole key
  // space, not only the older generations' range: with RocksDB 7.8 a manual compaction of that
  // range alone left the ingested file holding the deleting range tombstone where it was, and the
  // older generation in its file beside it. Bottommost files this compaction did not write are
  // rewritten too, so that a tombstone and the keys it covers never stay apart there. Not
  // DeleteFilesInRange: with RocksDB 7.8 it also removed table files holding the new
  // generation's keys. A compaction that fails (no space) leaves them for the next write, which
  // compacts again, and says so (older_generations_left).
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  const rocksdb::Status compacted = db->CompactRange(co, nullptr, nullptr);
  older_left = compacted.ok() ? std::string() : compacted.ToString();
  written += compaction_bytes() - compacted_before;
  if (!compacted.ok()) close();
  return Status::Ok();
}

const std::string& CheckpointStore::older_generations_left() const { return impl_->older_left; }

uint64_t CheckpointStore::last_write_bytes() const { return impl_->written; }

Status CheckpointStore::write(CheckpointData data) {
  if (impl_->read_only) return Status::FailedPrecondition("checkpoint: opened read-only");
  if (Status s = impl_->ensure_open(); !s.ok()) return s;
  Status s = impl_->write_generation(data);
  // After a failed ingest or compaction RocksDB keeps a background error: the next call starts
  // from a fresh open instead.
  if (!s.ok()) impl_->close();
  return s;
}

uint64_t checkpoint_space_needed(uint64_t bytes) { return 2 * bytes + (8u << 20); }

Status check_checkpoint_space(const std::string& dir, uint64_t bytes) {
  std::error_code ec;
  const std::string at = std::filesystem::is_directory(dir, ec) ? dir : std::filesystem::path(dir).parent_path().string();
  struct statvfs v {};
  if (::statvfs(at.c_str(), &v) != 0) return Status::IoError("checkpoint: cannot read the free space of " + at);
  const uint64_t free = uint64_t(v.f_bavail) * uint64_t(v.f_frsize);
  const uint64_t needed = checkpoint_space_needed(bytes);
  if (free >= needed) return Status::Ok();
  return Status::IoError("checkpoint: not enough free space: " + mib(free) + " free in " + at + ", " + mib(needed) +
                         " needed (twice the checkpoint's " + mib(bytes) + ", and 8 MiB to spare)");
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
  if (Status s = impl_->ensure_open(); !s.ok()) return s;
  rocksdb::WriteOptions synced;
  synced.sync = true;
  return from_rocks(impl_->db->Put(synced, kManifestKey, encode_manifest(m)), "cannot write the manifest");
}

}  // namespace vasana
