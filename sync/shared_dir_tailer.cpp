#include "sync/shared_dir_tailer.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/hybrid_clock.hpp"
#include "store/little_endian.hpp"
#include "store/segment_format.hpp"
#include "store/writer_dirs.hpp"
#include "sync/peer_server.hpp"

namespace vasana {

namespace fs = std::filesystem;

std::unique_ptr<SharedDirTailer> SharedDirTailer::start(std::string parent, std::string own_root, MirrorSet* mirrors,
                                                        uint64_t session_base, std::chrono::milliseconds poll,
                                                        LogFn log) {
  std::unique_ptr<SharedDirTailer> t(new SharedDirTailer());
  t->parent_ = std::move(parent);
  t->own_root_ = fs::weakly_canonical(own_root).string();
  t->mirrors_ = mirrors;
  t->session_base_ = session_base;
  t->poll_ = poll;
  t->log_ = std::move(log);
  t->thread_ = std::thread([p = t.get()] { p->run(); });
  return t;
}

SharedDirTailer::~SharedDirTailer() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void SharedDirTailer::run() {
  pthread_setname_np(pthread_self(), "vasana.shared");
  while (!stop_.load(std::memory_order_relaxed)) {
    if (!pass()) std::this_thread::sleep_for(poll_);
  }
}

namespace {

// A writer folder's extent as the files show it: the newest segment and its size. Unverified:
// the mirror verifies whatever it is given.
std::optional<StreamHead> head_from_files(const std::string& dir, InstanceId writer) {
  std::optional<StreamHead> h;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto index = parse_segment_file_name(it->path().filename().string());
    if (!index || (h && *index < h->segment)) continue;
    std::error_code size_ec;
    const auto size = fs::file_size(it->path(), size_ec);
    if (size_ec) continue;
    if (!h) h.emplace();
    h->writer = writer;
    h->segment = *index;
    h->segment_bytes = size;
  }
  return h;
}

}  // namespace

bool SharedDirTailer::pass() {
  bool progress = false;
  std::error_code ec;
  std::vector<fs::path> siblings;
  for (fs::directory_iterator it(parent_, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && fs::exists(it->path() / "identity")) siblings.push_back(it->path());
  std::sort(siblings.begin(), siblings.end());
  uint64_t session = session_base_;
  for (const fs::path& sib : siblings) {
    ++session;
    if (fs::weakly_canonical(sib, ec).string() == own_root_) continue;
    const DataDir dir{sib.string()};
    auto writers = list_writer_dirs(dir, nullptr);
    if (!writers.ok()) continue;
    {
      std::lock_guard<std::mutex> g(seen_mutex_);
      seen_[sib.string()].listed = std::chrono::steady_clock::now();
    }
    std::vector<StreamHead> heads;
    std::map<InstanceId, StreamHead> by_writer;
    for (const WriterDir& w : *writers) {
      if (auto h = head_from_files(w.path, w.instance)) {
        heads.push_back(*h);
        by_writer[w.instance] = *h;
      }
    }
    for (const PeerFetch& f : mirrors_->claim(session, heads, 4u << 20)) {
      PeerChunk c = read_chunk(dir, by_writer[f.writer], f, f.max_bytes);
      auto d = mirrors_->deliver(session, c, /*mid_write=*/true);
      if (!d.ok()) {
        log_("shared directory " + sib.string() + ": cannot store writer " + to_hex(f.writer) + ": " +
             d.status().to_string());
        continue;
      }
      if (d->refused) {
        refused_++;
        {
          std::lock_guard<std::mutex> g(seen_mutex_);
          seen_[sib.string()].refused++;
        }
        log_("shared directory " + sib.string() + ": refused bad bytes: " + d->problem);
        continue;
      }
      if (d->bytes > 0) {
        chunks_++;
        {
          std::lock_guard<std::mutex> g(seen_mutex_);
          seen_[sib.string()].chunks++;
        }
        progress = true;
      }
    }
  }
  return progress;
}

namespace {

// The last record in bytes (a segment file's content from offset, header skipped at 0): its
// seqno and timestamp, walking the frames' lengths only (no checks: an operator's figure).
struct LastRecord {
  bool found = false;
  Seqno seqno;
  Hlc ts;
};

LastRecord last_record(const std::string& bytes, uint64_t offset) {
  LastRecord out;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  uint64_t at = 0;
  if (offset == 0) {
    if (bytes.size() < 12) return out;
    at = get_u16(p + 10);  // header_len
  }
  while (at + kRecordFrameBytes + 16 <= bytes.size()) {
    const uint32_t len = get_u32(p + at);
    if (len == kTrailerMarker || len > kMaxRecordBody || at + kRecordFrameBytes + len > bytes.size()) break;
    out.found = true;
    out.seqno = Seqno(get_u64(p + at + kRecordFrameBytes));
    out.ts = Hlc(get_u64(p + at + kRecordFrameBytes + 8));
    at += kRecordFrameBytes + len;
  }
  return out;
}

}  // namespace

std::vector<PeerStatus> SharedDirTailer::status(const StreamHeads& heads, InstanceId own) const {
  std::map<std::string, Seen> seen;
  {
    std::lock_guard<std::mutex> g(seen_mutex_);
    seen = seen_;
  }
  const auto now = std::chrono::steady_clock::now();
  const uint64_t now_ms = system_wall_ms();
  std::vector<PeerStatus> out;
  for (const auto& [path, s] : seen) {
    PeerStatus p;
    p.address = path;
    p.origin = "sibling";
    p.chunks_received = s.chunks;
    p.chunks_refused = s.refused;
    p.last_heard_s = std::chrono::duration<double>(now - s.listed).count();
    p.up = p.last_heard_s <= std::max(1.0, 10 * std::chrono::duration<double>(poll_).count());
    p.advert_heard = p.up;
    const DataDir dir{path};
    if (auto id = load_identity(dir); id.ok()) p.instance = to_hex(id->instance);
    auto writers = list_writer_dirs(dir, nullptr);
    if (writers.ok()) {
      for (const WriterDir& w : *writers) {
        auto theirs = head_from_files(w.path, w.instance);
        if (!theirs) continue;
        WriterLag l;
        l.writer = to_hex(w.instance);
        const auto mine = heads.get(w.instance);
        l.applied_seqno = mine ? mine->last_seqno.value : 0;
        l.peer_seqno = l.applied_seqno;
        const bool level = mine && (mine->segment > theirs->segment ||
                                    (mine->segment == theirs->segment && mine->segment_bytes >= theirs->segment_bytes));
        if (!level) {
          const uint64_t from = mine && mine->segment == theirs->segment ? mine->segment_bytes : 0;
          const std::string file = w.path + "/" + segment_file_name(theirs->segment);
          auto tail = read_file_from(file, from);
          const LastRecord last = last_record(tail.ok() ? *tail : std::string(), from);
          if (last.found && last.seqno.value > l.applied_seqno) {
            l.peer_seqno = last.seqno.value;
            l.lag_ops = l.peer_seqno - l.applied_seqno;
            const uint64_t ts = last.ts.physical_ms();
            l.lag_seconds = now_ms > ts ? double(now_ms - ts) / 1000.0 : 0.0;
            if (auto held = mirrors_->held_seconds(w.instance)) l.lag_seconds = std::max(l.lag_seconds, *held);
          }
        }
        // This node is its own writer's origin: shown only when the sibling holds more of it
        // (the stream was cut back here after a crash or corruption).
        if (w.instance == own && l.lag_ops == 0) continue;
        p.writers.push_back(l);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace vasana
